import { randomUUID } from 'node:crypto';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { EquityTransactionType, ShareClass } from '../../generated/prisma/enums.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { findPage, pageWindow } from '../../shared/pagination.ts';
import type { Decimal } from '../../shared/scalars.ts';
import { lockClientAccount, requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check as checkInput, parse, validate, type Args, type Issues } from '../../shared/validation.ts';
import type { FoundReferences, Reference } from '../../shared/references.ts';
import { ownBusinessPartner, recordOwnBusinessPartner } from '../business-partners/business-partners.service.ts';
import { osloToday } from '../journal-entries/journal-entries.rules.ts';
import {
  availableOn,
  capTableOf,
  EQUITY_PAGE_LIMITS,
  EQUITY_TRANSACTION_TYPE_LABELS,
  EQUITY_TRANSACTION_TYPES,
  equityRules as rules,
  MAX_TOTAL_SHARES,
  positionsOf,
  SHARE_CLASS_LABELS,
  SHARE_CLASSES,
  splitRatio,
  type CapTable,
  type Entry,
  type Position,
} from './equity.rules.ts';

// spec 002 "Equity transaction", "Equity". Every write locks its client account first (one writer
// per company at a time), then reads the positions it checks, then writes its entries: concurrent
// transactions on one company are serialised, so no check is passed twice on the same shares.

type Query = { include?: PrismaNS.EquityTransactionInclude; select?: PrismaNS.EquityTransactionSelect };

export { EQUITY_PAGE_LIMITS };

export const shareClassList = () => SHARE_CLASSES.map((value) => ({ value, label: SHARE_CLASS_LABELS[value] }));
export const transactionTypeList = () => EQUITY_TRANSACTION_TYPES.map((value) => ({ value, label: EQUITY_TRANSACTION_TYPE_LABELS[value] }));

/** Ordered by transaction_date, then id (the order entries take effect). */
export async function listEquityTransactions(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, businessPartnerId, shareClass, transactionType, dateFrom, dateTo, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.EquityTransactionWhereInput = { clientAccountId };
  if (businessPartnerId != null) where.businessPartnerId = businessPartnerId;
  if (shareClass != null) where.shareClass = shareClass;
  if (transactionType != null) where.transactionType = transactionType;
  if (dateFrom != null || dateTo != null) where.transactionDate = { ...(dateFrom != null ? { gte: dateFrom } : {}), ...(dateTo != null ? { lte: dateTo } : {}) };
  return findPage(
    pageWindow(window, EQUITY_PAGE_LIMITS),
    (w) => ctx.db.equityTransaction.findMany({ ...query, where, orderBy: [{ transactionDate: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.equityTransaction.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getEquityTransaction(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Equity transaction', await ctx.db.equityTransaction.findUnique({ ...query, where: { id } }));
}

// ── Writes ────────────────────────────────────────────────────────────────────────────────────────

type Partner = { id: number; name: string; isSelf: boolean; organizationNumber: string | null };
const PARTNER = { name: true, isSelf: true, organizationNumber: true } as const;
const partnerRef = (path: string, id: number | null | undefined): Reference => ({ path: [path], model: 'businessPartner', id, select: PARTNER });
const partnerOf = (found: FoundReferences, id: number): Partner => found.get<Partner>('businessPartner', id)!;

// ── The company itself ────────────────────────────────────────────────────────────────────────────
//
// company_business_partner_id (buyback, retire, cap table) names "the company's own partner". The
// company itself is the client account's own business partner (is_self: made with the account, or
// recorded here) and any partner with the account's organisation number (the same company). On an
// account with no own partner yet, the partner named becomes it: a write records it (is_self, in the
// write's transaction, under the account's lock), the cap table only reads it as the company. Another
// partner, when the account has an own one, is a 400 naming that one.

/** What decides which partners are the company: the account's own partner and its organisation number. */
interface CompanyFacts {
  own: { id: number; name: string } | null;
  organizationNumber: string | null;
}

const NO_COMPANY: CompanyFacts = { own: null, organizationNumber: null };

async function companyFacts(ctx: RequestContext, clientAccountId: number): Promise<CompanyFacts> {
  const own = await ownBusinessPartner(ctx, clientAccountId);
  const { organizationNumber } = await ctx.db.clientAccount.findUniqueOrThrow({ where: { id: clientAccountId }, select: { organizationNumber: true } });
  return { own, organizationNumber };
}

/** Whether a partner is the company itself: its own partner, or one with the account's organisation number. */
const isCompany = (company: CompanyFacts, p: { id: number; isSelf: boolean; organizationNumber: string | null }): boolean =>
  p.isSelf || p.id === company.own?.id || (company.organizationNumber !== null && p.organizationNumber === company.organizationNumber);

/**
 * Checks the partner named as the company (`path`): the company itself passes, and so does any
 * partner of an account with no own partner yet; otherwise a 400 naming the account's own partner.
 * Answers whether the named partner is to be recorded as the account's own (it has none yet).
 */
function checkCompany(company: CompanyFacts, named: Partner | undefined, issues: Issues, path: string): boolean {
  if (!named) return false; // the reference check has said why
  if (!company.own) return true;
  if (!isCompany(company, named)) {
    issues.add([path], `business partner ${named.id} is not the company itself: business partner ${company.own.id} (${company.own.name}) is the client account's own business partner`);
  }
  return false;
}

/**
 * Locks the account and validates the input with its business partner references; with `company`,
 * `check` also gets the facts that decide which partners are the company.
 */
async function begin<T extends { input: { clientAccountId: number } }>(
  tx: RequestContext,
  parsed: T,
  partnerFields: readonly string[],
  check?: (input: NoInfer<T>['input'], found: FoundReferences, issues: Issues, company: CompanyFacts) => void,
  { company: needsCompany = false } = {},
) {
  const clientAccountId = parsed.input.clientAccountId;
  await requireAccount(tx, clientAccountId);
  await lockClientAccount(tx, clientAccountId);
  const company = needsCompany ? await companyFacts(tx, clientAccountId) : NO_COMPANY;
  let partners!: FoundReferences;
  const { input }: { input: T['input'] } = await checkInput(tx, parsed, {
    clientAccountId,
    references: (data) => {
      const input = (data as { input?: Record<string, number | undefined> }).input;
      return partnerFields.map((f) => partnerRef(f, input?.[f]));
    },
    check: (data, found, issues) => {
      partners = found;
      check?.(data.input, found, issues, company);
    },
  });
  return { input, partners, clientAccountId };
}

const ENTRY_SELECT = { id: true, transactionDate: true, transactionGroupId: true, businessPartnerId: true, shareClass: true, quantity: true, pricePerShare: true } as const;

const holderEntries = (tx: RequestContext, clientAccountId: number, businessPartnerId: number, shareClass: ShareClass): Promise<Entry[]> =>
  tx.db.equityTransaction.findMany({ where: { clientAccountId, businessPartnerId, shareClass }, select: ENTRY_SELECT });

/**
 * 400 "Insufficient shares: …" unless the holder can give up `needed` shares of the class on `date`
 * without any of their holdings, then or later, going below zero.
 */
async function requireShares(tx: RequestContext, clientAccountId: number, holder: Partner, shareClass: ShareClass, needed: number, date: Date): Promise<void> {
  const has = availableOn(await holderEntries(tx, clientAccountId, holder.id, shareClass), date);
  if (has < needed) throw insufficientShares(holder, has, needed, shareClass);
}

/** The spec's 400 `{error: 'Insufficient shares: …'}`. */
const insufficientShares = (holder: Partner, has: number, needed: number, shareClass: ShareClass) =>
  new ValidationError(`Insufficient shares: ${holder.name} (business partner ${holder.id}) has ${has} ${shareClass}, needs ${needed}`);

/** 400 when the client account would hold more shares in all than MAX_TOTAL_SHARES. */
async function requireRoom(tx: RequestContext, clientAccountId: number, adding: number): Promise<void> {
  const total = (await tx.db.equityTransaction.aggregate({ where: { clientAccountId }, _sum: { quantity: true } }))._sum.quantity ?? 0;
  if (total + adding > MAX_TOTAL_SHARES) {
    throw new ValidationError(`The client account would have ${total + adding} shares in all; at most ${MAX_TOTAL_SHARES} are supported`);
  }
}

interface Common {
  clientAccountId: number;
  transactionType: EquityTransactionType;
  shareClass: ShareClass;
  transactionDate?: Date | null;
  notes?: string | null;
}

/**
 * Writes one operation's entries under one new transaction_group_id, in the order given (disposals
 * first, so ids follow the order they take effect), and answers the entry at `answer`.
 */
async function writeEntries(
  tx: RequestContext,
  common: Common,
  entries: readonly { businessPartnerId: number; quantity: number; pricePerShare?: Decimal | null; splitRatioNumerator?: number; splitRatioDenominator?: number }[],
  answer: number,
  query: Query,
) {
  const user = auditUserId(tx);
  const shared = {
    clientAccountId: common.clientAccountId,
    transactionType: common.transactionType,
    shareClass: common.shareClass,
    transactionDate: common.transactionDate ?? osloToday(),
    transactionGroupId: randomUUID(),
    notes: common.notes ?? null,
    createdById: user,
    updatedById: user,
  };
  const ids: number[] = [];
  for (const e of entries) ids.push((await tx.db.equityTransaction.create({ data: { ...shared, ...e }, select: { id: true } })).id);
  return tx.db.equityTransaction.findUniqueOrThrow({ ...query, where: { id: ids[answer] } });
}

/** ISSUANCE: new shares to the shareholder, one entry +q; 201 answers it. */
export async function issueShares(ctx: RequestContext, args: Args<typeof rules.issue>, query: Query = {}) {
  const parsed = parse(rules.issue, args);
  return inTransaction(ctx, async (tx) => {
    const { input, clientAccountId } = await begin(tx, parsed, ['businessPartnerId'], (input, found, issues, company) => {
      const holder = found.get<Partner>('businessPartner', input.businessPartnerId);
      if (holder && isCompany(company, holder)) {
        issues.add(['businessPartnerId'], 'is the company itself: a company cannot subscribe its own shares (treasury shares come from a buyback)');
      }
    }, { company: true });
    await requireRoom(tx, clientAccountId, input.quantity);
    return writeEntries(tx, { ...input, transactionType: 'ISSUANCE' }, [{ businessPartnerId: input.businessPartnerId, quantity: input.quantity, pricePerShare: input.pricePerShare }], 0, query);
  });
}

/**
 * Moves q shares from one holder to another (TRANSFER, BUYBACK): the sender must have them on the
 * date; −q for the sender, +q for the recipient; 201 answers the recipient's entry.
 */
async function moveShares(
  tx: RequestContext,
  clientAccountId: number,
  transactionType: 'TRANSFER' | 'BUYBACK',
  input: { shareClass: ShareClass; quantity: number; pricePerShare?: Decimal | null; transactionDate?: Date | null; notes?: string | null },
  from: Partner,
  toId: number,
  query: Query,
) {
  const date = input.transactionDate ?? osloToday();
  await requireShares(tx, clientAccountId, from, input.shareClass, input.quantity, date);
  return writeEntries(
    tx,
    { ...input, clientAccountId, transactionDate: date, transactionType },
    [
      { businessPartnerId: from.id, quantity: -input.quantity, pricePerShare: input.pricePerShare },
      { businessPartnerId: toId, quantity: input.quantity, pricePerShare: input.pricePerShare },
    ],
    1,
    query,
  );
}

/** TRANSFER: −q from the sender, +q to the recipient (never the same partner); 201 answers the recipient's entry. */
export async function transferShares(ctx: RequestContext, args: Args<typeof rules.transfer>, query: Query = {}) {
  const parsed = parse(rules.transfer, args);
  return inTransaction(ctx, async (tx) => {
    const { input, partners, clientAccountId } = await begin(tx, parsed, ['fromBusinessPartnerId', 'toBusinessPartnerId'], (input, _found, issues) => {
      if (input.fromBusinessPartnerId === input.toBusinessPartnerId) issues.add(['toBusinessPartnerId'], 'must differ from from_business_partner_id: no transfer between the same entity');
    });
    return moveShares(tx, clientAccountId, 'TRANSFER', input, partnerOf(partners, input.fromBusinessPartnerId), input.toBusinessPartnerId, query);
  });
}

/**
 * BUYBACK: −q from the seller, +q to the company itself (treasury shares); 201 answers the company's
 * entry. The partner named as the company becomes the account's own when it has none yet.
 */
export async function buybackShares(ctx: RequestContext, args: Args<typeof rules.buyback>, query: Query = {}) {
  const parsed = parse(rules.buyback, args);
  return inTransaction(ctx, async (tx) => {
    let record = false;
    const { input, partners, clientAccountId } = await begin(tx, parsed, ['fromBusinessPartnerId', 'companyBusinessPartnerId'], (input, found, issues, company) => {
      const seller = found.get<Partner>('businessPartner', input.fromBusinessPartnerId);
      if (input.fromBusinessPartnerId === input.companyBusinessPartnerId) {
        issues.add(['fromBusinessPartnerId'], 'must differ from company_business_partner_id: no buyback between the same entity');
      } else if (seller && isCompany(company, seller)) {
        issues.add(['fromBusinessPartnerId'], 'is the company itself: no buyback between the same entity');
      } else record = checkCompany(company, found.get<Partner>('businessPartner', input.companyBusinessPartnerId), issues, 'companyBusinessPartnerId');
    }, { company: true });
    // recorded first, so the answer shows it; a refusal below (Insufficient shares) rolls it back
    if (record) await recordOwnBusinessPartner(tx, input.companyBusinessPartnerId);
    return moveShares(tx, clientAccountId, 'BUYBACK', input, partnerOf(partners, input.fromBusinessPartnerId), input.companyBusinessPartnerId, query);
  });
}

/**
 * RETIREMENT: −q from the company's holding (treasury shares only) of the partner named as the
 * company; 201 answers the entry. That partner becomes the account's own when it has none yet.
 */
export async function retireShares(ctx: RequestContext, args: Args<typeof rules.retire>, query: Query = {}) {
  const parsed = parse(rules.retire, args);
  return inTransaction(ctx, async (tx) => {
    let record = false;
    const { input, partners, clientAccountId } = await begin(tx, parsed, ['companyBusinessPartnerId'], (input, found, issues, company) => {
      record = checkCompany(company, found.get<Partner>('businessPartner', input.companyBusinessPartnerId), issues, 'companyBusinessPartnerId');
    }, { company: true });
    const date = input.transactionDate ?? osloToday();
    await requireShares(tx, clientAccountId, partnerOf(partners, input.companyBusinessPartnerId), input.shareClass, input.quantity, date);
    if (record) await recordOwnBusinessPartner(tx, input.companyBusinessPartnerId);
    return writeEntries(tx, { ...input, transactionDate: date, transactionType: 'RETIREMENT' }, [{ businessPartnerId: input.companyBusinessPartnerId, quantity: -input.quantity }], 0, query);
  });
}

/**
 * SPLIT: the holder's position goes from old_quantity (which must be the current position) to
 * new_quantity: −old and +new with the reduced ratio new/old on both; 201 answers the +new entry.
 * A split may not be dated before the holder's latest entry of the class (the position it restates).
 */
export async function splitShares(ctx: RequestContext, args: Args<typeof rules.split>, query: Query = {}) {
  const parsed = parse(rules.split, args);
  return inTransaction(ctx, async (tx) => {
    const { input, partners, clientAccountId } = await begin(tx, parsed, ['businessPartnerId'], (input, _found, issues) => {
      if (input.newQuantity === input.oldQuantity) issues.add(['newQuantity'], 'must differ from old_quantity');
    });
    const date = input.transactionDate ?? osloToday();
    const holder = partnerOf(partners, input.businessPartnerId);
    const entries = await holderEntries(tx, clientAccountId, holder.id, input.shareClass);
    const latest = entries.reduce<Date | null>((d, e) => (!d || e.transactionDate > d ? e.transactionDate : d), null);
    if (latest && latest.getTime() > date.getTime()) {
      throw ValidationError.field('transactionDate', `must not be before ${latest.toISOString().slice(0, 10)}, the date of the holder's latest ${input.shareClass} transaction`);
    }
    const position = entries.reduce((sum, e) => sum + e.quantity, 0);
    if (position < input.oldQuantity) {
      throw insufficientShares(holder, position, input.oldQuantity, input.shareClass);
    }
    if (position !== input.oldQuantity) throw ValidationError.field('oldQuantity', `must equal the current position: ${position} ${input.shareClass}`);
    if (input.newQuantity > input.oldQuantity) await requireRoom(tx, clientAccountId, input.newQuantity - input.oldQuantity);
    const ratio = splitRatio(input.oldQuantity, input.newQuantity);
    const split = { splitRatioNumerator: ratio.numerator, splitRatioDenominator: ratio.denominator };
    return writeEntries(
      tx,
      { ...input, transactionDate: date, transactionType: 'SPLIT' },
      [
        { businessPartnerId: holder.id, quantity: -input.oldQuantity, ...split },
        { businessPartnerId: holder.id, quantity: input.newQuantity, ...split },
      ],
      1,
      query,
    );
  });
}

// ── Positions and the cap table ───────────────────────────────────────────────────────────────────

/** Every position of the account (of one class when given), from all its entries. */
async function accountPositions(ctx: RequestContext, clientAccountId: number, shareClass?: ShareClass | null): Promise<Position[]> {
  const entries = await ctx.db.equityTransaction.findMany({ where: { clientAccountId, ...(shareClass ? { shareClass } : {}) }, select: ENTRY_SELECT });
  return positionsOf(entries);
}

const classOrder = (c: ShareClass) => SHARE_CLASSES.indexOf(c);

/**
 * GET /equity/positions: each holder's shares per class with its cost basis; positions of 0 shares
 * ("void": emptied) only with include_void. Ordered by business partner id, then share class.
 */
export async function equityPositions(ctx: RequestContext, args: Args<typeof rules.positions>): Promise<Position[]> {
  const { clientAccountId, businessPartnerId, shareClass, includeVoid } = parse(rules.positions, args);
  await requireAccount(ctx, clientAccountId);
  return (await accountPositions(ctx, clientAccountId, shareClass))
    .filter((p) => (businessPartnerId == null || p.businessPartnerId === businessPartnerId) && (includeVoid || p.quantity !== 0))
    .sort((a, b) => a.businessPartnerId - b.businessPartnerId || classOrder(a.shareClass) - classOrder(b.shareClass));
}

/**
 * GET /equity/cap-table: company_business_partner_id is the company itself, or any partner of an
 * account with no own partner yet (read as the company for this answer; a GET records nothing);
 * another partner is a 400 naming the account's own. The company's holdings (of every partner that
 * is the company) are its treasury shares.
 */
export async function equityCapTable(ctx: RequestContext, args: Args<typeof rules.capTable>): Promise<CapTable> {
  const { clientAccountId, companyBusinessPartnerId } = parse(rules.capTable, args);
  await requireAccount(ctx, clientAccountId);
  const company = await companyFacts(ctx, clientAccountId);
  await validate(ctx, rules.capTable, args, {
    clientAccountId,
    references: () => [partnerRef('companyBusinessPartnerId', companyBusinessPartnerId)],
    check: (_d, found, issues) => void checkCompany(company, found.get<Partner>('businessPartner', companyBusinessPartnerId), issues, 'companyBusinessPartnerId'),
  });
  const positions = await accountPositions(ctx, clientAccountId);
  const ids = [...new Set(positions.filter((p) => p.quantity > 0).map((p) => p.businessPartnerId))];
  const partners = await ctx.db.businessPartner.findMany({ where: { id: { in: ids } }, select: { id: true, ...PARTNER } });
  const companyIds = new Set([companyBusinessPartnerId, ...partners.filter((p) => isCompany(company, p)).map((p) => p.id)]);
  return capTableOf(positions, companyIds, new Map(partners.map((p) => [p.id, p.name])));
}
