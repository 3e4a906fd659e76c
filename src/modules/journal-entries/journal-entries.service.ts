import { lockForTransaction, lockManyForTransaction } from '../../shared/advisory-locks.ts';
import type { z } from 'zod';
import { Decimal } from '@prisma/client/runtime/client';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import type { Reference } from '../../shared/references.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, Issues, parse, validate, type Args } from '../../shared/validation.ts';
import { formatDate } from '../../shared/scalars.ts';
import { DIMENSION_KINDS, SATISFIED_BY, type DimensionColumn, type DimensionKind } from './dimensions.ts';
import {
  isLocked,
  journalEntryRules as rules,
  lockedMessage,
  openingBalanceIssues,
  openingYear,
  osloToday,
  taxOn,
  type LineInput,
} from './journal-entries.rules.ts';
import { contentHash, insertEntry, insertLines, stampPosted, type ChainEntry, type ChainLine, type NewEntry } from './ledger-chain.ts';

type Query = { include?: PrismaNS.JournalEntryInclude; select?: PrismaNS.JournalEntrySelect };

export const JOURNAL_ENTRY_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

const ZERO = new Decimal(0);

/**
 * The integer digits the columns a line derives values for hold: debit_fc and credit_fc Decimal(18, 3),
 * exchange_rate Decimal(18, 6). A value that does not fit would make the insert fail (a 500).
 */
const FC_DIGITS = 15;
const RATE_DIGITS = 12;
const fits = (d: Decimal, integerDigits: number): boolean => d.abs().lessThan(new Decimal(10).pow(integerDigits));

// ── Reading ──────────────────────────────────────────────────────────────────────────────────────

/** spec 001 "Journal entries": posted entries (and drafts on request) with a line in the date range, by number. */
export async function listJournalEntries(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, dateFrom, dateTo, relationType, relationId, includeDrafts, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.JournalEntryWhereInput = { clientAccountId };
  if (!includeDrafts) where.isDraft = false;
  if (dateFrom || dateTo) where.lines = { some: { postingDate: { ...(dateFrom ? { gte: dateFrom } : {}), ...(dateTo ? { lte: dateTo } : {}) } } };
  if (relationType) where.relationType = relationType;
  if (relationId != null) where.relationId = relationId;
  return findPage(
    pageWindow(window, JOURNAL_ENTRY_PAGE_LIMITS),
    (w) => ctx.db.journalEntry.findMany({ ...query, where, orderBy: [{ sequenceNumber: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }], ...w }),
    () => ctx.db.journalEntry.count({ where }),
  );
}

export async function getJournalEntry(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, `Journal entry ${id}`, await ctx.db.journalEntry.findUnique({ ...query, where: { id } }));
}

/** The entry after its operation committed, with what the caller selected. */
const reread = (ctx: RequestContext, id: number, query: Query) => ctx.db.journalEntry.findUniqueOrThrow({ ...query, where: { id } });

// ── Lines: from input to rows ────────────────────────────────────────────────────────────────────

export type LineRow = ChainLine;

export interface Books {
  id: number;
  vatLiable: boolean;
  accountingCurrency: string;
  lockDate: Date | null;
}

/** Every row an entry's lines name besides accounts and tax codes: currencies and dimension records, one query per model. */
export function lineReferences(lines: readonly (Partial<LineInput> | undefined)[] | undefined): Reference[] {
  const refs: Reference[] = [];
  for (const [i, line] of (lines ?? []).entries()) {
    if (!line) continue;
    if (line.currencyCode) refs.push({ path: ['lines', i, 'currencyCode'], model: 'currency', id: line.currencyCode, select: { minorUnits: true } });
    for (const [k, d] of (line.dimensions ?? []).entries()) {
      const kind = DIMENSION_KINDS[d?.type as DimensionKind];
      if (!kind || d?.id == null) continue;
      refs.push({ path: ['lines', i, 'dimensions', k, 'id'], model: kind.model, id: d.id, select: kind.model === 'businessPartner' ? { isEmployee: true } : undefined });
    }
  }
  return refs;
}

export type AccountRow = {
  id: number;
  code: string;
  isActive: boolean;
  mandatoryDimensions: { dimensionType: keyof typeof SATISFIED_BY }[];
  allowedTaxCodes: { taxCodeId: number }[];
};
export type TaxCodeRow = { id: number; code: string; rates: { ratePercent: Decimal; validFrom: Date | null; validTo: Date | null }[] };

const covers = (from: Date | null, to: Date | null, date: Date) => (!from || from <= date) && (!to || date <= to);

/**
 * The rows of an entry's lines, after every rule of spec 001 that needs the database: accounts
 * (by id or code, active), currency and foreign amounts, tax codes (VAT liability, the account's
 * whitelist, amounts filled from the rate as information), dimensions (same client account; the
 * account's mandatory ones present) and the lock date. Issues go to `issues`, each naming its line.
 */
export async function lineRows(
  tx: RequestContext,
  clientAccountId: number,
  lines: readonly LineInput[],
  found: { get<T>(model: 'currency' | 'businessPartner', id: string | number | null | undefined): T | undefined },
  issues: Issues,
  reads?: LedgerReads,
): Promise<{ book: Books; rows: LineRow[]; accountCodes: (string | undefined)[]; codes: LineCodes }> {
  const { book, accounts, taxRows, inactive } = reads ?? (await ledgerReads(tx, clientAccountId, lines));
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  const accountByCode = new Map(accounts.map((a) => [a.code, a]));
  const taxById = new Map(taxRows.map((t) => [t.id, t]));
  const taxByCode = new Map(taxRows.map((t) => [t.code, t]));

  const rows: LineRow[] = [];
  /** each line's account code once resolved (the opening-balance rule reads the account's class) */
  const accountCodes: (string | undefined)[] = [];
  /** tax codes outside an account's whitelist: named with the allowed codes once all lines are seen (one query, only then) */
  const refused: { path: (string | number)[]; code: string; account: AccountRow }[] = [];
  for (const [i, line] of lines.entries()) {
    const at = (field: string) => ['lines', i, field];
    // the account
    const byId = line.accountId != null ? accountById.get(line.accountId) : undefined;
    const byCode = line.accountCode != null ? accountByCode.get(line.accountCode) : undefined;
    let account: AccountRow | undefined;
    if (line.accountId != null && !byId) issues.add(at('accountId'), `ledger account ${line.accountId} does not exist in client account ${book.id}`);
    else if (line.accountCode != null && !byCode) issues.add(at('accountCode'), `ledger account '${line.accountCode}' does not exist in client account ${book.id}`);
    else if (byId && byCode && byId.id !== byCode.id) issues.add(at('accountCode'), `names account ${byCode.code}, but account_id ${byId.id} is account ${byId.code}`);
    else account = byId ?? byCode;
    if (account && !account.isActive) issues.add(at(line.accountId != null ? 'accountId' : 'accountCode'), `ledger account ${account.code} is inactive`);
    accountCodes.push(account?.code);

    // currency and the amounts in it
    const currency = line.currencyCode ?? book.accountingCurrency;
    const minorUnits = line.currencyCode ? found.get<{ minorUnits: number }>('currency', line.currencyCode)?.minorUnits : 2;
    let debitFc = line.debitFc ?? undefined;
    let creditFc = line.creditFc ?? undefined;
    let rate = line.exchangeRate ?? undefined;
    if (currency === book.accountingCurrency) {
      if (debitFc && !debitFc.equals(line.debit)) issues.add(at('debitFc'), `must equal debit (${line.debit.toFixed(2)}) on a line in the accounting currency ${currency}`);
      if (creditFc && !creditFc.equals(line.credit)) issues.add(at('creditFc'), `must equal credit (${line.credit.toFixed(2)}) on a line in the accounting currency ${currency}`);
      if (rate && !rate.equals(1)) issues.add(at('exchangeRate'), `must be 1 on a line in the accounting currency ${currency}`);
      debitFc = line.debit;
      creditFc = line.credit;
      rate = new Decimal(1);
    } else if (minorUnits !== undefined) {
      for (const [fc, field] of [[debitFc, 'debitFc'], [creditFc, 'creditFc']] as const) {
        if (fc && fc.decimalPlaces() > minorUnits) issues.add(at(field), `must have at most ${minorUnits} decimals in ${currency}`);
      }
      if (debitFc === undefined && creditFc === undefined) {
        if (!rate) issues.add(at('debitFc'), `debit_fc or credit_fc (or exchange_rate) is required on a line in ${currency}, a foreign currency`);
        else {
          debitFc = line.debit.dividedBy(rate).toDecimalPlaces(minorUnits, Decimal.ROUND_HALF_UP);
          creditFc = line.credit.dividedBy(rate).toDecimalPlaces(minorUnits, Decimal.ROUND_HALF_UP);
        }
      }
      debitFc ??= ZERO;
      creditFc ??= ZERO;
      const local = line.debit.isZero() ? line.credit : line.debit;
      const fc = debitFc.isZero() ? creditFc : debitFc;
      if (line.debit.isZero() !== debitFc.isZero()) issues.add(at('debitFc'), 'debit and debit_fc must both be zero or both non-zero');
      if (line.credit.isZero() !== creditFc.isZero()) issues.add(at('creditFc'), 'credit and credit_fc must both be zero or both non-zero');
      if (!fc.isZero()) {
        if (!rate) rate = local.dividedBy(fc).toDecimalPlaces(6, Decimal.ROUND_HALF_UP);
        else {
          // the rate's own rounding (6 decimals) allowed on top of one øre
          const tolerance = new Decimal('0.01').plus(fc.times('0.0000005'));
          if (fc.times(rate).minus(local).abs().greaterThan(tolerance)) {
            issues.add(at('exchangeRate'), `${fc.toFixed(minorUnits)} ${currency} at ${rate.toFixed(6)} is ${fc.times(rate).toFixed(2)}, not ${local.toFixed(2)} ${book.accountingCurrency}`);
          }
        }
      }
      rate ??= new Decimal(1);
    }
    // what the line derives must fit its columns: a debit of 10^15 NOK has no room in debit_fc (its
    // amount in the line's currency), a rate worked out from tiny _fc amounts none in exchange_rate
    for (const [value, given, field, derived] of [[debitFc, line.debitFc, 'debit', 'debit_fc'], [creditFc, line.creditFc, 'credit', 'credit_fc']] as const) {
      if (value && given == null && !fits(value, FC_DIGITS)) {
        issues.add(at(currency === book.accountingCurrency ? field : 'exchangeRate'), `gives ${derived} ${value.toFixed(3)}: the amount in the line's currency must be less than 10^${FC_DIGITS} in magnitude`);
      }
    }
    if (rate && !fits(rate, RATE_DIGITS)) issues.add(at('exchangeRate'), `${rate.toFixed(6)} (debit or credit over debit_fc or credit_fc) must be less than 10^${RATE_DIGITS}`);

    // tax code
    let tax: TaxCodeRow | undefined;
    if (line.taxCode != null || line.taxCodeId != null) {
      const byTaxCode = line.taxCode != null ? taxByCode.get(line.taxCode) : undefined;
      const byTaxId = line.taxCodeId != null ? taxById.get(line.taxCodeId) : undefined;
      if (!book.vatLiable) issues.add(at(line.taxCode != null ? 'taxCode' : 'taxCodeId'), `client account ${book.id} is not VAT-liable: a line may not carry a tax code`);
      else if (line.taxCode != null && !byTaxCode) issues.add(at('taxCode'), `tax code '${line.taxCode}' does not exist in client account ${book.id}`);
      else if (line.taxCodeId != null && !byTaxId) issues.add(at('taxCodeId'), `tax code ${line.taxCodeId} does not exist in client account ${book.id}`);
      else if (byTaxCode && byTaxId && byTaxCode.id !== byTaxId.id) issues.add(at('taxCode'), `names tax code '${byTaxCode.code}', but tax_code_id ${byTaxId.id} is '${byTaxId.code}'`);
      else tax = byTaxCode ?? byTaxId;
      if (tax && account && account.allowedTaxCodes.length && !account.allowedTaxCodes.some((a) => a.taxCodeId === tax!.id)) {
        refused.push({ path: at(line.taxCode != null ? 'taxCode' : 'taxCodeId'), code: tax.code, account });
      }
    }
    let taxBaseAmount = line.taxBaseAmount ?? null;
    let taxAmount = line.taxAmount ?? null;
    let taxBaseAmountFc = line.taxBaseAmountFc ?? null;
    let taxAmountFc = line.taxAmountFc ?? null;
    if (tax && taxBaseAmount === null && taxAmount === null) {
      const rateOn = tax.rates.find((r) => covers(r.validFrom, r.validTo, line.postingDate));
      if (!rateOn) issues.add(at('taxCode'), `tax code '${tax.code}' has no rate on ${formatDate(line.postingDate)}`);
      else {
        taxBaseAmount = line.debit.isZero() ? line.credit : line.debit;
        taxAmount = taxOn(taxBaseAmount, rateOn.ratePercent, 2);
        if (taxBaseAmountFc === null && taxAmountFc === null && debitFc && creditFc && minorUnits !== undefined) {
          taxBaseAmountFc = debitFc.isZero() ? creditFc : debitFc;
          taxAmountFc = taxOn(taxBaseAmountFc, rateOn.ratePercent, minorUnits);
        }
      }
    }

    // dimensions
    const dims: Partial<Record<DimensionColumn, number>> = {};
    for (const [k, d] of (line.dimensions ?? []).entries()) {
      dims[DIMENSION_KINDS[d.type as DimensionKind].column] = d.id;
      if (inactive.has(`${d.type}:${d.id}`)) issues.add(['lines', i, 'dimensions', k, 'id'], `${d.type} ${d.id} is inactive: no new postings`);
    }
    if (account) {
      for (const { dimensionType } of account.mandatoryDimensions) {
        const kind = SATISFIED_BY[dimensionType];
        const given = dims[DIMENSION_KINDS[kind].column];
        if (given == null) issues.add(at('dimensions'), `account ${account.code} requires a ${kind} dimension on every line`);
        else if (dimensionType === 'EMPLOYEE' && found.get<{ isEmployee: boolean }>('businessPartner', given)?.isEmployee === false) {
          issues.add(at('dimensions'), `account ${account.code} requires an employee: business partner ${given} is not one`);
        }
      }
    }

    // the lock date
    if (isLocked(line.postingDate, book.lockDate)) issues.add(at('postingDate'), lockedMessage(line.postingDate, book.lockDate));

    rows.push({
      lineId: line.lineId ?? i + 1,
      postingDate: line.postingDate,
      description: line.description ?? null,
      accountId: account?.id ?? 0,
      debit: line.debit,
      credit: line.credit,
      debitFc: debitFc ?? ZERO,
      creditFc: creditFc ?? ZERO,
      currencyCode: currency,
      exchangeRate: rate ?? new Decimal(1),
      taxCodeId: tax?.id ?? null,
      taxBaseAmount,
      taxBaseAmountFc,
      taxAmount,
      taxAmountFc,
      taxLine: line.taxLine ?? false,
      taxForLine: line.taxForLine ?? null,
      quantity: line.quantity ?? null,
      businessPartnerId: dims.businessPartnerId ?? null,
      bankAccountId: dims.bankAccountId ?? null,
      projectId: dims.projectId ?? null,
      departmentId: dims.departmentId ?? null,
      assetId: dims.assetId ?? null,
      tagId: dims.tagId ?? null,
      itemId: dims.itemId ?? null,
    });
  }
  if (refused.length) {
    const ids = [...new Set(refused.flatMap((r) => r.account.allowedTaxCodes.map((a) => a.taxCodeId)))];
    const codes = new Map((await tx.db.taxCode.findMany({ where: { id: { in: ids } }, select: { id: true, code: true } })).map((c) => [c.id, c.code]));
    for (const r of refused) {
      const allowed = r.account.allowedTaxCodes.map((a) => codes.get(a.taxCodeId)).join(', ');
      issues.add(r.path, `tax code '${r.code}' is not allowed on account ${r.account.code}; allowed: ${allowed}`);
    }
  }
  return { book, rows, accountCodes, codes: { account: new Map(accounts.map((a) => [a.id, a.code])), tax: new Map(taxRows.map((t) => [t.id, t.code])) } };
}

/** The codes of the accounts and tax codes an entry's lines name, by id (read with the rules: the answer to a create shows them). */
interface LineCodes {
  account: Map<number, string>;
  tax: Map<number, string>;
}

/** What the line rules read from the database (ledgerReads): one read serves every line given to it. */
export interface LedgerReads {
  book: Books;
  accounts: AccountRow[];
  taxRows: TaxCodeRow[];
  inactive: Set<string>;
}

/**
 * Everything the rules of these lines read: the ledger context of the names they use and their
 * inactive projects and departments. A bulk posting reads it once for all its entries' lines and
 * passes it to lineRows for each entry.
 */
export async function ledgerReads(tx: RequestContext, clientAccountId: number, lines: readonly LineInput[]): Promise<LedgerReads> {
  const ids = [...new Set(lines.flatMap((l) => (l.accountId != null ? [l.accountId] : [])))];
  const codes = [...new Set(lines.flatMap((l) => (l.accountCode != null ? [l.accountCode] : [])))];
  const taxCodes = [...new Set(lines.flatMap((l) => (l.taxCode != null ? [l.taxCode] : [])))];
  const taxIds = [...new Set(lines.flatMap((l) => (l.taxCodeId != null ? [l.taxCodeId] : [])))];
  const context = await ledgerContext(tx, clientAccountId, { ids, codes, taxCodes, taxIds });
  return { ...context, inactive: await inactiveDimensions(tx, lines) };
}

/**
 * What the rules of an entry's lines read, in ONE statement: the client account's settings, the
 * accounts the lines name with their mandatory dimensions and tax-code whitelists, and the tax codes
 * they name with their rates. The settings are read FOR SHARE: moving the lock date
 * (updateClientAccount) locks the row for update, so it waits for postings in flight and they never
 * commit into a period it locked. With no names it reads the settings alone (a cancellation).
 */
async function ledgerContext(
  tx: RequestContext,
  clientAccountId: number,
  names: { ids: number[]; codes: string[]; taxCodes: string[]; taxIds: number[] },
): Promise<{ book: Books; accounts: AccountRow[]; taxRows: TaxCodeRow[] }> {
  const rows = await tx.db.$queryRawUnsafe<{ id: number; vat_liable: boolean; accounting_currency: string; lock_date: string | null; accounts: string; taxes: string }[]>(
    `WITH ca AS (SELECT id, vat_liable, accounting_currency, lock_date FROM client_accounts WHERE id = $1 FOR SHARE)
     SELECT ca.id, ca.vat_liable, ca.accounting_currency, ca.lock_date::text AS lock_date,
       COALESCE((SELECT json_agg(json_build_object(
           'id', a.id, 'code', a.code, 'isActive', a.is_active,
           'mandatoryDimensions', COALESCE((SELECT json_agg(json_build_object('dimensionType', d.dimension_type)) FROM account_mandatory_dimensions d WHERE d.account_id = a.id), '[]'),
           'allowedTaxCodes', COALESCE((SELECT json_agg(json_build_object('taxCodeId', w.tax_code_id)) FROM account_allowed_tax_codes w WHERE w.account_id = a.id), '[]')))
         FROM accounts a WHERE a.client_account_id = $1 AND (a.id = ANY($2::int[]) OR a.code = ANY($3::text[]))), '[]')::text AS accounts,
       COALESCE((SELECT json_agg(json_build_object(
           'id', t.id, 'code', t.code,
           'rates', COALESCE((SELECT json_agg(json_build_object('ratePercent', r.rate_percent::text, 'validFrom', r.valid_from, 'validTo', r.valid_to)) FROM tax_rates r WHERE r.tax_code_id = t.id), '[]')))
         FROM tax_codes t WHERE t.client_account_id = $1 AND (t.code = ANY($4::text[]) OR t.id = ANY($5::int[]))), '[]')::text AS taxes
     FROM ca`,
    clientAccountId,
    names.ids,
    names.codes,
    names.taxCodes,
    names.taxIds,
  );
  if (!rows.length) throw new NotFoundError(`Client account ${clientAccountId}`);
  const r = rows[0];
  const day = (d: string | null) => (d === null ? null : new Date(`${d.slice(0, 10)}T00:00:00.000Z`));
  const taxes = JSON.parse(r.taxes) as { id: number; code: string; rates: { ratePercent: string; validFrom: string | null; validTo: string | null }[] }[];
  return {
    book: { id: r.id, vatLiable: r.vat_liable, accountingCurrency: r.accounting_currency.trim(), lockDate: day(r.lock_date) },
    accounts: JSON.parse(r.accounts) as AccountRow[],
    taxRows: taxes.map((t) => ({ ...t, rates: t.rates.map((x) => ({ ratePercent: new Decimal(x.ratePercent), validFrom: day(x.validFrom), validTo: day(x.validTo) })) })),
  };
}

/**
 * The projects and departments the lines name that are inactive, read FOR SHARE: deactivation locks
 * the row for update before it checks balances, so it waits for this posting, and a posting that
 * comes after it sees the record inactive (the balance rule cannot be slipped past).
 */
async function inactiveDimensions(tx: RequestContext, lines: readonly LineInput[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const type of ['project', 'department'] as const) {
    const ids = [...new Set(lines.flatMap((l) => (l.dimensions ?? []).filter((d) => d.type === type).map((d) => d.id)))];
    if (!ids.length) continue;
    const rows = await tx.db.$queryRawUnsafe<{ id: number; is_active: boolean }[]>(
      `SELECT id, is_active FROM ${type === 'project' ? 'projects' : 'departments'} WHERE id = ANY($1::int[]) FOR SHARE`,
      ids,
    );
    for (const r of rows) if (!r.is_active) out.add(`${type}:${r.id}`);
  }
  return out;
}

/** 409 when another non-cancelled entry exists for the voucher; serialised per voucher (advisory lock) so two writers cannot both pass. */
async function assertVoucherFree(tx: RequestContext, clientAccountId: number, voucherId: number | null | undefined, exceptId?: number): Promise<void> {
  if (voucherId == null) return;
  const taken = await takenVouchers(tx, clientAccountId, [voucherId], exceptId);
  if (taken.size) throw voucherTaken(voucherId, taken.get(voucherId)!);
}

/** The 409 of a voucher that already has a non-cancelled entry. */
export const voucherTaken = (voucherId: number, entryId: number) => new ConflictError(`Journal entry ${entryId} already exists for voucher ${voucherId}; cancel it first`);

/**
 * Locks the vouchers (advisory, in id order so two writers cannot deadlock) for the rest of the
 * transaction and answers those that already have a non-cancelled entry, voucher → entry id.
 */
export async function takenVouchers(tx: RequestContext, clientAccountId: number, voucherIds: readonly number[], exceptId?: number): Promise<Map<number, number>> {
  const ids = [...new Set(voucherIds)].sort((a, b) => a - b);
  if (!ids.length) return new Map();
  await lockManyForTransaction(tx, 'voucherEntry', ids);
  const others = await tx.db.journalEntry.findMany({
    where: { clientAccountId, voucherId: { in: ids }, cancelled: null, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true, voucherId: true },
  });
  return new Map(others.map((o) => [o.voucherId!, o.id]));
}

/**
 * 409 when the client account already has an opening balance for `year` that is not cancelled (a
 * draft one too: posted, it would be a second). Serialised per client account (an advisory lock, as
 * vouchers are), so of two writers the second waits for the first's commit and then sees its entry:
 * the same 409 as sequentially. The unique key on (client_account_id, opening_balance_year) is the
 * database's own guarantee besides, for a writer that would not take the lock.
 */
export async function assertOpeningBalanceFree(tx: RequestContext, clientAccountId: number, year: number | null, exceptId?: number): Promise<void> {
  if (year === null) return;
  await lockForTransaction(tx, 'openingBalance', clientAccountId);
  const other = await tx.db.journalEntry.findFirst({
    where: { clientAccountId, openingBalanceYear: year, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true, isDraft: true },
  });
  if (other) {
    throw new ConflictError(
      `Journal entry ${other.id} is already the opening balance of ${year} for client account ${clientAccountId}; ${other.isDraft ? 'delete that draft' : 'cancel it'} first`,
    );
  }
}

/** The year an entry holds as its opening balance (null for any other entry), from its checked rows. */
export const openingBalanceYearOf = (isOpeningBalance: boolean | null | undefined, rows: readonly LineRow[]): number | null =>
  isOpeningBalance && rows.length ? openingYear(rows[0]!.postingDate) : null;

type EntryInput = Omit<Args<typeof rules.create>['input'], 'clientAccountId' | 'lines'> & { lines: readonly LineInput[] };

/** Checks an entry's parsed input against the database; returns the input and its line rows. */
async function checkedEntry(tx: RequestContext, parsed: z.output<typeof rules.create> | z.output<typeof rules.update>, clientAccountId: number, immutable?: Record<string, unknown>) {
  let checked: { book: Books; rows: LineRow[]; accountCodes: (string | undefined)[]; codes: LineCodes } | undefined;
  const data = (await check(tx, parsed, {
    clientAccountId,
    immutable,
    references: (d) => [
      ...lineReferences((d as { input?: { lines?: Partial<LineInput>[] } }).input?.lines as Partial<LineInput>[] | undefined),
      // voucher_id names a voucher of the client account (spec 001 "Voucher"); a removed one is refused in check
      { path: ['voucherId'], model: 'voucher', id: (d as { input?: { voucherId?: number | null } }).input?.voucherId, select: { status: true } },
    ],
    check: async (d, found, issues) => {
      const voucherId = (d as { input: { voucherId?: number | null } }).input.voucherId;
      if (found.get<{ status: string }>('voucher', voucherId)?.status === 'DELETED') issues.add(['voucherId'], `voucher ${voucherId} is deleted`);
      const input = (d as { input: { lines: LineInput[]; isOpeningBalance?: boolean } }).input;
      checked = await lineRows(tx, clientAccountId, input.lines, found as never, issues);
      if (input.isOpeningBalance) {
        const lines = input.lines.map((l, i) => ({
          postingDate: l.postingDate,
          accountCode: checked!.accountCodes[i],
          accountField: l.accountCode == null ? ('accountId' as const) : ('accountCode' as const),
        }));
        for (const issue of openingBalanceIssues(lines)) issues.add(issue.path, issue.message);
      }
    },
  })) as { input: EntryInput & { isDraft?: boolean } };
  return { input: data.input, rows: checked!.rows, book: checked!.book, codes: checked!.codes };
}

/** A posting: now, by `userId`, with the hash of the entry's content. */
export function postedNow(entry: Omit<ChainEntry, 'postedAt' | 'postedById'> & { userId: number | null }, rows: readonly LineRow[]) {
  const at = new Date();
  return { at, content: contentHash({ ...entry, postedAt: at, postedById: entry.userId }, rows) };
}

/** Numbers and links a saved draft (with its rows) into the client account's ledger. */
async function post(tx: RequestContext, entry: Omit<ChainEntry, 'postedAt' | 'postedById'> & { id: number }, rows: readonly LineRow[]) {
  const user = auditUserId(tx);
  const { at, content } = postedNow({ ...entry, userId: user }, rows);
  return stampPosted(tx, { id: entry.id, clientAccountId: entry.clientAccountId, postedAt: at, postedById: user, updatedById: user, content });
}

// ── Writing ──────────────────────────────────────────────────────────────────────────────────────

/** POST /journal-entries/: a posted entry (is_draft false, the default) or a draft. */
export async function createJournalEntry(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const created = await inTransaction(ctx, (tx) => createEntry(tx, args));
  return answerFromWritten(created, query) ?? reread(ctx, created.written.id, query);
}

/**
 * The body of createJournalEntry inside the caller's transaction, for services that post an entry
 * as part of their own operation (a reconciliation's exchange difference, a booked bank payment):
 * every rule of a create applies. Answers the new entry's id. The SAF-T import (a later issue) is
 * meant to post a file's opening balances here too, as one entry with isOpeningBalance on the first
 * day of the file's year, so its opening balance meets the same rules and the same one-per-year key.
 */
export async function createJournalEntryInTx(tx: RequestContext, args: Args<typeof rules.create>): Promise<number> {
  return (await createEntry(tx, args)).written.id;
}

/** The entry row a create's input makes (a single create's, or one of a batch's). */
export function newEntryOf(clientAccountId: number, input: Omit<EntryInput, 'lines'> & { isOpeningBalance?: boolean | null }, openingBalanceYear: number | null, userId: number | null): NewEntry {
  return {
    clientAccountId,
    description: input.description ?? null,
    voucherId: input.voucherId ?? null,
    relationType: input.relationType ?? null,
    relationId: input.relationId ?? null,
    reversesEntryId: null,
    isOpeningBalance: input.isOpeningBalance ?? false,
    openingBalanceYear,
    cancelled: null,
    cancellationReason: null,
    userId,
  };
}

/** A create's work: the entry written, with what it was made of (the answer is built from these). */
async function createEntry(tx: RequestContext, args: Args<typeof rules.create>) {
  const parsed = parse(rules.create, args);
  const clientAccountId = parsed.input.clientAccountId;
  await requireAccount(tx, clientAccountId);
  const { input, rows, codes } = await checkedEntry(tx, parsed, clientAccountId);
  await assertVoucherFree(tx, clientAccountId, input.voucherId);
  const openingBalanceYear = openingBalanceYearOf(input.isOpeningBalance, rows);
  await assertOpeningBalanceFree(tx, clientAccountId, openingBalanceYear);
  const entry = newEntryOf(clientAccountId, input, openingBalanceYear, auditUserId(tx));
  const posted = input.isDraft ? null : postedNow(entry, rows);
  return { entry, rows, codes, posted, written: await insertEntry(tx, entry, rows, posted) };
}

/**
 * The created entry as Prisma would read it back with `query`, built from the rows just written and
 * what the database made of them (ids, number, hash, timestamps), instead of a second round of reads
 * after the commit: for the selections the API's own documents make (the entry, its lines in order,
 * their account and tax codes). Any other selection gets undefined, and is read back. Every column is
 * the value written (the rules fix each decimal's scale to its column's), so the answer is the one a
 * read gives (test/journal-entries/create-answer.test.ts compares them).
 */
function answerFromWritten({ entry, rows, codes, posted, written }: Awaited<ReturnType<typeof createEntry>>, query: Query) {
  const lines = linesQuery(query);
  if (lines === undefined) return undefined;
  const row = {
    id: written.id,
    clientAccountId: entry.clientAccountId,
    sequenceNumber: written.sequenceNumber,
    description: entry.description,
    isDraft: posted === null,
    cancelled: entry.cancelled,
    cancelledById: null,
    cancellationEntryId: null,
    cancellationReason: entry.cancellationReason,
    reversesEntryId: entry.reversesEntryId,
    voucherId: entry.voucherId,
    relationType: entry.relationType,
    relationId: entry.relationId,
    postedAt: posted?.at ?? null,
    postedById: posted ? entry.userId : null,
    entryHash: written.entryHash,
    isOpeningBalance: entry.isOpeningBalance,
    openingBalanceYear: entry.openingBalanceYear,
    createdAt: written.createdAt,
    createdById: entry.userId,
    updatedAt: written.updatedAt,
    updatedById: entry.userId,
  };
  if (lines === null) return row;
  return {
    ...row,
    lines: [...rows]
      .sort((a, b) => a.lineId - b.lineId)
      .map((l) => ({
        id: written.lineIds.get(l.lineId)!,
        journalEntryId: written.id,
        clientAccountId: entry.clientAccountId,
        ...l,
        reconciledAmount: ZERO,
        reconciledAmountFc: ZERO,
        externalReconciledAmount: ZERO,
        ...(lines.account ? { account: { code: codes.account.get(l.accountId)! } } : {}),
        ...(lines.taxCode ? { taxCode: l.taxCodeId === null ? null : { code: codes.tax.get(l.taxCodeId)! } } : {}),
      })),
  };
}

/**
 * What `query` asks of an entry's lines when answerFromWritten can build it: null for no lines,
 * which of account { code } and taxCode { code } they include, or undefined for anything else.
 */
function linesQuery(query: Query): { account: boolean; taxCode: boolean } | null | undefined {
  if (query.select) return undefined;
  const include = query.include ?? {};
  const { lines, ...rest } = include as { lines?: unknown };
  if (Object.keys(rest).length) return undefined;
  if (lines === undefined || lines === false) return null;
  if (typeof lines !== 'object' || lines === null) return undefined;
  const { orderBy, include: nested = {}, ...other } = lines as { orderBy?: unknown; include?: Record<string, unknown> };
  if (Object.keys(other).length || JSON.stringify(orderBy) !== '{"lineId":"asc"}') return undefined;
  const codeOnly = (v: unknown) => JSON.stringify(v) === '{"select":{"code":true}}';
  const { account, taxCode, ...more } = nested;
  if (Object.keys(more).length || (account !== undefined && !codeOnly(account)) || (taxCode !== undefined && !codeOnly(taxCode))) return undefined;
  return { account: account !== undefined, taxCode: taxCode !== undefined };
}

/** A draft of the caller's, or 400 naming what it is instead. */
async function requireDraft(tx: RequestContext, id: number, action: string) {
  const entry = await getJournalEntry(tx, { id });
  if (!entry.isDraft) throw ValidationError.field('id', `journal entry ${id} is posted (number ${entry.sequenceNumber}), not a draft: ${action}`);
  return entry;
}

/** Serialises writers of one entry (a PUT and a DELETE of the same draft) for the rest of the transaction. */
const lockEntry = (tx: RequestContext, id: number) => tx.db.$queryRawUnsafe('SELECT id FROM journal_entries WHERE id = $1 FOR UPDATE', id);

/** PUT /journal-entries/{id}: replaces a draft and all its lines; is_draft false posts it. */
export async function updateJournalEntry(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  const id = await inTransaction(ctx, async (tx) => {
    await lockEntry(tx, args.id);
    const current = await requireDraft(tx, args.id, 'posted entries cannot be changed; cancel it instead');
    const { input, rows } = await checkedEntry(tx, parsed, current.clientAccountId, { clientAccountId: current.clientAccountId });
    await assertVoucherFree(tx, current.clientAccountId, input.voucherId, current.id);
    // the whole draft is replaced: a PUT without is_opening_balance makes it an ordinary entry
    const openingBalanceYear = openingBalanceYearOf(input.isOpeningBalance, rows);
    await assertOpeningBalanceFree(tx, current.clientAccountId, openingBalanceYear, current.id);
    const fields = {
      description: input.description ?? null,
      voucherId: input.voucherId ?? null,
      relationType: input.relationType ?? null,
      relationId: input.relationId ?? null,
      isOpeningBalance: input.isOpeningBalance ?? false,
    };
    await tx.db.journalEntryLine.deleteMany({ where: { journalEntryId: current.id } });
    await tx.db.journalEntry.update({ where: { id: current.id }, data: { ...fields, openingBalanceYear, updatedById: auditUserId(tx) }, select: { id: true } });
    await insertLines(tx, current.id, current.clientAccountId, rows);
    if (input.isDraft === false) await post(tx, { id: current.id, clientAccountId: current.clientAccountId, reversesEntryId: null, ...fields }, rows);
    return current.id;
  });
  return reread(ctx, id, query);
}

const LINE_COPY = {
  lineId: true, postingDate: true, description: true, accountId: true, debit: true, credit: true, debitFc: true, creditFc: true,
  currencyCode: true, exchangeRate: true, taxCodeId: true, taxBaseAmount: true, taxBaseAmountFc: true, taxAmount: true, taxAmountFc: true,
  taxLine: true, taxForLine: true, quantity: true,
  businessPartnerId: true, bankAccountId: true, projectId: true, departmentId: true, assetId: true, tagId: true, itemId: true,
} as const;

/** GraphQL's post: moves a draft to posted, with every rule checked again (accounts may have changed since, or the lock date). */
export async function postJournalEntry(ctx: RequestContext, args: Args<typeof rules.post>, query: Query = {}) {
  const parsed = parse(rules.post, args);
  const id = await inTransaction(ctx, async (tx) => {
    const { id } = parsed;
    await lockEntry(tx, id);
    const draft = await requireDraft(tx, id, 'it is posted already');
    const lines = await tx.db.journalEntryLine.findMany({ where: { journalEntryId: id }, orderBy: { lineId: 'asc' }, select: LINE_COPY });
    // the stored lines as input again: the same rules as a create
    const input = {
      clientAccountId: draft.clientAccountId,
      isOpeningBalance: draft.isOpeningBalance,
      lines: lines.map((l) => ({
        ...l,
        accountCode: undefined,
        taxCode: undefined,
        currencyCode: l.currencyCode,
        dimensions: Object.entries(DIMENSION_KINDS).flatMap(([type, k]) => (l[k.column] != null ? [{ type, id: l[k.column]! }] : [])),
      })),
    };
    const { rows } = await checkedEntry(tx, parse(rules.create, { input }), draft.clientAccountId);
    await assertVoucherFree(tx, draft.clientAccountId, draft.voucherId, draft.id);
    await post(tx, draft, rows);
    return id;
  });
  return reread(ctx, id, query);
}

/**
 * PATCH /journal-entries/{id}: `cancelled` 'Y' cancels. A draft is removed (null: the REST body is
 * `{}`); a posted entry gets a reversal entry, posted today with debits and credits swapped, and is
 * marked cancelled 'Y'. Any other value of `cancelled` changes nothing.
 */
export async function cancelJournalEntry(ctx: RequestContext, args: Args<typeof rules.cancel>, query: Query = {}) {
  const result = await inTransaction(ctx, (tx) => cancelJournalEntryInTx(tx, args));
  return result === null ? null : reread(ctx, result, query);
}

/** The body of cancelJournalEntry inside the caller's transaction: the entry's id, or null when a draft was removed. */
export async function cancelJournalEntryInTx(tx: RequestContext, args: Args<typeof rules.cancel>): Promise<number | null> {
  const { id, cancelled, cancellationReason } = parse(rules.cancel, args);
  await lockEntry(tx, id);
  const entry = await getJournalEntry(tx, { id });
  if (cancelled !== 'Y') return entry.id;
  if (entry.isDraft) {
    await tx.db.journalEntry.delete({ where: { id } });
    return null;
  }
  if (entry.cancelled === 'Y') throw ValidationError.field('cancelled', `journal entry ${id} is already cancelled (by entry ${entry.cancellationEntryId})`);
  if (entry.cancelled === 'C') throw ValidationError.field('cancelled', `journal entry ${id} is the cancellation of entry ${entry.reversesEntryId}; it cannot be cancelled itself`);
  if (!cancellationReason) throw ValidationError.field('cancellationReason', 'is required to cancel a posted entry');
  // the lines locked, as a reconciliation locks them: none can be reconciled while this cancels, and a reconciled one refuses it
  const held = await tx.db.$queryRawUnsafe<{ line_id: number; reconciled: boolean }[]>(
    'SELECT line_id, reconciled_amount <> 0 AS reconciled FROM journal_entry_lines WHERE journal_entry_id = $1 ORDER BY id FOR UPDATE',
    id,
  );
  const reconciled = held.filter((l) => l.reconciled).map((l) => l.line_id);
  if (reconciled.length) {
    throw ValidationError.field('cancelled', `journal entry ${id} has reconciled lines (line_id ${reconciled.join(', ')}): delete their reconciliations first`);
  }
  const { book } = await ledgerContext(tx, entry.clientAccountId, { ids: [], codes: [], taxCodes: [], taxIds: [] });
  const lines = await tx.db.journalEntryLine.findMany({ where: { journalEntryId: id }, orderBy: { lineId: 'asc' }, select: LINE_COPY });
  const today = osloToday();
  const locked = lines.find((l) => isLocked(l.postingDate, book.lockDate)) ?? (isLocked(today, book.lockDate) ? { postingDate: today } : undefined);
  if (locked) throw new ConflictError(`Journal entry ${id} cannot be cancelled: ${lockedMessage(locked.postingDate, book.lockDate!)}`);
  const user = auditUserId(tx);
  // the reversal: every line mirrored, posted today; it skips the tax and dimension rules (spec 001)
  const rows: LineRow[] = lines.map((l) => ({
    ...l,
    postingDate: today,
    debit: l.credit,
    credit: l.debit,
    debitFc: l.creditFc,
    creditFc: l.debitFc,
  }));
  const fields: NewEntry = {
    clientAccountId: entry.clientAccountId,
    description: entry.description,
    voucherId: entry.voucherId,
    relationType: entry.relationType,
    relationId: entry.relationId,
    reversesEntryId: entry.id,
    // an opening balance's reversal is one too, so that with include_cancelled (the reports' default)
    // it nets the original wherever both count as incoming balance; it holds no year (it is no opening)
    isOpeningBalance: entry.isOpeningBalance,
    openingBalanceYear: null,
    cancelled: 'C',
    cancellationReason: cancellationReason ?? null,
    userId: user,
  };
  const reversal = await insertEntry(tx, fields, rows, postedNow(fields, rows));
  await tx.db.journalEntry.update({
    where: { id },
    // a cancelled opening balance frees its year for a new one
    data: { cancelled: 'Y', cancelledById: user, cancellationEntryId: reversal.id, cancellationReason, openingBalanceYear: null, updatedById: user },
    select: { id: true },
  });
  if (entry.relationType === 'bank_transaction' && entry.relationId != null) await releaseBookedPayment(tx, entry.id, entry.relationId);
  return entry.id;
}

/**
 * A cancelled payment of a bank transaction (an entry booked by bookBankTransaction, relation
 * bank_transaction) is no longer booked against it: what its line on the transaction's bank account
 * booked (in the transaction's currency, signed like its amount) leaves external_reconciled_amount.
 */
async function releaseBookedPayment(tx: RequestContext, journalEntryId: number, bankTransactionId: number): Promise<void> {
  await tx.db.$executeRawUnsafe(
    `UPDATE bank_transactions t SET external_reconciled_amount = t.external_reconciled_amount
       - (SELECT COALESCE(SUM(l.debit_fc - l.credit_fc), 0) FROM journal_entry_lines l WHERE l.journal_entry_id = $1 AND l.bank_account_id = t.bank_account_id)
      WHERE t.id = $2`,
    journalEntryId,
    bankTransactionId,
  );
}

/** DELETE /journal-entries/{id}: drafts only (a posted entry is cancelled instead). */
export async function deleteJournalEntry(ctx: RequestContext, { id }: { id: number }): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    await lockEntry(tx, id);
    await requireDraft(tx, id, 'posted entries cannot be deleted; cancel it instead (PATCH with cancelled Y)');
    await tx.db.journalEntry.delete({ where: { id } });
    return true;
  });
}

// ── Balances ─────────────────────────────────────────────────────────────────────────────────────

/** An account's debit and credit sums and balance (debit − credit) over posted lines in a date range. */
export async function accountBalance(ctx: RequestContext, args: Args<typeof rules.balance>) {
  const { clientAccountId, accountId, accountCode, dateFrom, dateTo, includeDrafts } = parse(rules.balance, args);
  await requireAccount(ctx, clientAccountId);
  if (accountId == null && accountCode == null) throw ValidationError.field('accountCode', 'accountCode or accountId is required');
  const account = await ctx.db.account.findFirst({
    where: { clientAccountId, ...(accountId != null ? { id: accountId } : { code: accountCode! }) },
    select: { id: true, code: true, name: true },
  });
  if (!account) throw new NotFoundError(`Ledger account ${accountId ?? `'${accountCode}'`} in client account ${clientAccountId}`);
  const sums = await ctx.db.journalEntryLine.aggregate({
    where: {
      clientAccountId,
      accountId: account.id,
      ...(dateFrom || dateTo ? { postingDate: { ...(dateFrom ? { gte: dateFrom } : {}), ...(dateTo ? { lte: dateTo } : {}) } } : {}),
      ...(includeDrafts ? {} : { journalEntry: { isDraft: false } }),
    },
    _sum: { debit: true, credit: true },
  });
  const debit = sums._sum.debit ?? ZERO;
  const credit = sums._sum.credit ?? ZERO;
  return { account, debit, credit, balance: debit.minus(credit) };
}
