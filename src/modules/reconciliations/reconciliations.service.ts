import { Decimal } from '@prisma/client/runtime/client';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { nextSequenceNumber } from '../../shared/sequence.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import { toSnake } from '../../shared/naming.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { Issues, parse, type Args } from '../../shared/validation.ts';
import { formatDate } from '../../shared/scalars.ts';
import { minorUnitsOf } from '../../reference-data/index.ts';
import { cancelJournalEntryInTx, createJournalEntryInTx } from '../journal-entries/journal-entries.service.ts';
import { DIMENSION_KINDS, type DimensionKind } from '../journal-entries/dimensions.ts';
import { bookPaymentInTx } from './bank-payments.service.ts';
import { PAYMENT_RELATION_TYPE } from '../bank-transactions/bank-transactions.rules.ts';
import {
  balanceOf,
  entryAmounts,
  OPEN_ITEM_SQL,
  openAmounts,
  reconciliationRules as rules,
  type EntryAmounts,
  type EntryLineInput,
  type LineState,
} from './reconciliations.rules.ts';

type Query = { include?: PrismaNS.ReconciliationInclude; select?: PrismaNS.ReconciliationSelect };

export const RECONCILIATION_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

/** Agio and disagio in the Norwegian standard chart (NS 4102): where an automatic exchange difference goes. */
export const EXCHANGE_GAIN_ACCOUNT = '8060';
export const EXCHANGE_LOSS_ACCOUNT = '8160';

const ZERO = new Decimal(0);

// ── Reading ──────────────────────────────────────────────────────────────────────────────────────

/**
 * GET /reconciliations: by id. Pages count from 0 (spec: "page (default 0)"); is_deleted false (the
 * default) lists the live ones and true only the deleted ones; is_draft omitted lists both.
 */
export async function listReconciliations(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, dateFrom, dateTo, journalEntryLineId, journalEntryId, isDraft, isDeleted, page, perPage, ...cursor } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.ReconciliationWhereInput = { clientAccountId, deletedAt: isDeleted ? { not: null } : null };
  if (isDraft != null) where.isDraft = isDraft;
  if (dateFrom || dateTo) where.reconciliationDate = { ...(dateFrom ? { gte: dateFrom } : {}), ...(dateTo ? { lte: dateTo } : {}) };
  if (journalEntryLineId != null || journalEntryId != null) {
    where.entries = { some: { ...(journalEntryLineId != null ? { journalEntryLineId } : {}), ...(journalEntryId != null ? { journalEntryId } : {}) } };
  }
  // the shared page window counts from 1: page 0 here is its page 1
  const window = pageWindow({ ...cursor, page: page == null ? null : page + 1, perPage }, RECONCILIATION_PAGE_LIMITS);
  const found = await findPage(
    window,
    (w) => ctx.db.reconciliation.findMany({ ...query, where, orderBy: { id: 'asc' }, ...w }),
    () => ctx.db.reconciliation.count({ where }),
  );
  return { ...found, meta: found.meta && { ...found.meta, page: found.meta.page - 1 } };
}

export async function getReconciliation(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, `Reconciliation ${id}`, await ctx.db.reconciliation.findUnique({ ...query, where: { id } }));
}

const reread = (ctx: RequestContext, id: number, query: Query) => ctx.db.reconciliation.findUniqueOrThrow({ ...query, where: { id } });

// ── The lines ────────────────────────────────────────────────────────────────────────────────────

interface LockedLine extends LineState {
  clientAccountId: number;
  accountId: number;
  accountCode: string;
  isDraft: boolean;
  cancelled: string | null;
  relationType: string | null;
  relationId: number | null;
  dimensions: Partial<Record<DimensionKind, number>>;
}

const DIMENSION_COLUMNS = Object.entries(DIMENSION_KINDS).map(([kind, k]) => [kind as DimensionKind, toSnake(k.column)] as const);

/**
 * The journal lines, locked FOR UPDATE in id order (so two reconciliations of the same lines wait
 * for each other instead of both seeing the same open amount), with their entry's state (its row held
 * FOR SHARE: a cancellation in flight, which locks the entry, is waited for and then seen) and their
 * account's code.
 */
async function lockLines(tx: RequestContext, ids: readonly number[]): Promise<Map<number, LockedLine>> {
  if (!ids.length) return new Map();
  const rows = await tx.db.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT l.id, l.journal_entry_id, l.client_account_id, l.account_id, a.code AS account_code, e.is_draft, e.cancelled, e.relation_type, e.relation_id,
            l.debit::text, l.credit::text, l.debit_fc::text, l.credit_fc::text, l.currency_code, l.exchange_rate::text,
            l.reconciled_amount::text, l.reconciled_amount_fc::text, ${DIMENSION_COLUMNS.map(([, c]) => `l.${c}`).join(', ')}
       FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id JOIN accounts a ON a.id = l.account_id
      WHERE l.id = ANY($1::int[]) ORDER BY l.id FOR UPDATE OF l FOR SHARE OF e`,
    [...new Set(ids)],
  );
  const d = (v: unknown) => new Decimal(String(v));
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        journalEntryId: Number(r.journal_entry_id),
        clientAccountId: Number(r.client_account_id),
        accountId: Number(r.account_id),
        accountCode: String(r.account_code),
        isDraft: Boolean(r.is_draft),
        cancelled: (r.cancelled as string | null)?.trim() || null,
        relationType: (r.relation_type as string | null) ?? null,
        relationId: r.relation_id == null ? null : Number(r.relation_id),
        debit: d(r.debit),
        credit: d(r.credit),
        debitFc: d(r.debit_fc),
        creditFc: d(r.credit_fc),
        currencyCode: String(r.currency_code).trim(),
        exchangeRate: d(r.exchange_rate),
        reconciledAmount: d(r.reconciled_amount),
        reconciledAmountFc: d(r.reconciled_amount_fc),
        dimensions: Object.fromEntries(DIMENSION_COLUMNS.flatMap(([kind, c]) => (r[c] == null ? [] : [[kind, Number(r[c])]]))),
      },
    ]),
  );
}

/** Why a line cannot take part in a reconciliation of `clientAccountId`, or null. */
function lineRefusal(line: LockedLine | undefined, lineId: number, clientAccountId: number): string | null {
  if (!line || line.clientAccountId !== clientAccountId) return `journal entry line ${lineId} does not exist in client account ${clientAccountId}`;
  if (line.isDraft) return `journal entry line ${lineId} belongs to draft journal entry ${line.journalEntryId}: only posted lines can be reconciled`;
  if (line.cancelled === 'Y') return `journal entry line ${lineId} belongs to cancelled journal entry ${line.journalEntryId}: a cancelled line cannot be reconciled`;
  if (line.cancelled === 'C') return `journal entry line ${lineId} belongs to journal entry ${line.journalEntryId}, the cancellation of another entry: it cannot be reconciled`;
  return null;
}

async function accountingCurrency(tx: RequestContext, clientAccountId: number): Promise<string> {
  const row = await tx.db.clientAccount.findUnique({ where: { id: clientAccountId }, select: { accountingCurrency: true } });
  if (!row) throw new NotFoundError(`Client account ${clientAccountId}`);
  return row.accountingCurrency.trim();
}

type Entry = EntryAmounts & { currencyCode: string };

/** Adds (+1) or releases (−1) the entries' amounts on their lines, in one statement. */
async function moveReconciledAmounts(tx: RequestContext, entries: readonly EntryAmounts[], sign: 1 | -1): Promise<void> {
  if (!entries.length) return;
  await tx.db.$executeRawUnsafe(
    `UPDATE journal_entry_lines l SET reconciled_amount = l.reconciled_amount + $4::int * v.a, reconciled_amount_fc = l.reconciled_amount_fc + $4::int * v.f
       FROM unnest($1::int[], $2::numeric[], $3::numeric[]) AS v(id, a, f) WHERE l.id = v.id`,
    entries.map((e) => e.journalEntryLineId),
    entries.map((e) => e.debit.plus(e.credit).toString()),
    entries.map((e) => e.debitFc.plus(e.creditFc).toString()),
    sign,
  );
}

/**
 * Posts the exchange gain or loss that balances one foreign currency's entries in the accounting
 * currency (spec 001 "Balancing rules"): a line on the entries' account (with the dimensions they
 * share, so the partner's open-item account keeps its business partner) against agio 8060 (a gain:
 * more was settled than booked) or disagio 8160 (a loss). Answers the new entry's id and its line on
 * the entries' account, which joins the reconciliation.
 */
async function postExchangeDifference(
  tx: RequestContext,
  clientAccountId: number,
  date: Date,
  residual: Decimal,
  currency: string,
  lines: readonly LockedLine[],
): Promise<{ journalEntryId: number; entry: Entry }> {
  const accounts = [...new Set(lines.map((l) => l.accountCode))];
  if (accounts.length !== 1) {
    throw ValidationError.field(
      'entryLines',
      `entries do not balance in the accounting currency (difference ${residual.toFixed(2)}) and are on several accounts (${accounts.join(', ')}): add an agio/disagio line to balance them`,
    );
  }
  const shared = Object.entries(lines[0].dimensions).filter(([kind, id]) => lines.every((l) => l.dimensions[kind as DimensionKind] === id));
  const amount = residual.abs();
  // residual > 0: the items were booked at more than they settle for (a loss); < 0: a gain
  const loss = residual.isPositive();
  const dimensions = shared.map(([type, id]) => ({ type, id: id as number }));
  const journalEntryId = await createJournalEntryInTx(tx, {
    input: {
      clientAccountId,
      description: `Exchange ${loss ? 'loss (disagio)' : 'gain (agio)'} on reconciling ${currency} items`,
      relationType: 'reconciliation',
      lines: [
        { postingDate: date, accountCode: accounts[0], debit: loss ? ZERO : amount, credit: loss ? amount : ZERO, dimensions },
        { postingDate: date, accountCode: loss ? EXCHANGE_LOSS_ACCOUNT : EXCHANGE_GAIN_ACCOUNT, debit: loss ? amount : ZERO, credit: loss ? ZERO : amount },
      ],
    },
  }).catch((e: unknown) => {
    if (e instanceof ValidationError) {
      throw ValidationError.field('entryLines', `the exchange ${loss ? 'loss' : 'gain'} of ${amount.toFixed(2)} could not be posted: ${e.message}`);
    }
    throw e;
  });
  const line = await tx.db.journalEntryLine.findFirstOrThrow({ where: { journalEntryId, lineId: 1 }, select: { id: true, currencyCode: true } });
  return {
    journalEntryId,
    entry: {
      journalEntryLineId: line.id,
      journalEntryId,
      debit: loss ? ZERO : amount,
      credit: loss ? amount : ZERO,
      debitFc: loss ? ZERO : amount,
      creditFc: loss ? amount : ZERO,
      exchangeRate: new Decimal(1),
      currencyCode: line.currencyCode,
    },
  };
}

// ── A bank transaction's payment ─────────────────────────────────────────────────────────────────

/**
 * A reconciliation about a bank transaction (the matcher's proposals). When one of its lines is
 * the transaction's booked payment (a journal entry with relation bank_transaction), it is an
 * ordinary reconciliation. When the transaction is not booked yet, the entries are the open items
 * the payment settles: they must be on one account with one business partner and sum, in the
 * transaction's currency, to what remains unbooked of it, signed like it (an incoming payment
 * settles receivables, debits; an outgoing one payables, credits). Committing such a draft books
 * the payment first (bookPaymentInTx: bank account ↔ the items' account with the partner, on the
 * reconciliation date), and the payment's line joins the reconciliation.
 */
type BankSide = { booked: true } | { booked: false; bankTransactionId: number; accountId: number; businessPartnerId: number | null; amount: Decimal };

async function bankSide(tx: RequestContext, clientAccountId: number, bankTransactionId: number, entries: readonly Entry[], lines: readonly LockedLine[]): Promise<BankSide> {
  const refuse = (message: string) => ValidationError.field('bankTransactionId', message);
  const rows = await tx.db.$queryRawUnsafe<{ client_account_id: number; amount: string; external_reconciled_amount: string; currency_code: string }[]>(
    'SELECT client_account_id, amount::text, external_reconciled_amount::text, currency_code FROM bank_transactions WHERE id = $1 FOR UPDATE',
    bankTransactionId,
  );
  if (!rows.length || Number(rows[0].client_account_id) !== clientAccountId) throw refuse(`bank transaction ${bankTransactionId} does not exist in client account ${clientAccountId}`);
  if (lines.some((l) => l.relationType === PAYMENT_RELATION_TYPE && l.relationId === bankTransactionId)) return { booked: true };
  const currency = rows[0].currency_code.trim();
  const unbooked = new Decimal(rows[0].amount).minus(rows[0].external_reconciled_amount);
  const accounts = new Set(lines.map((l) => l.accountId));
  const partners = new Set(lines.map((l) => l.dimensions.businesspartner ?? null));
  if (accounts.size !== 1 || partners.size !== 1) throw refuse(`the open items settled by bank transaction ${bankTransactionId} must be on one account with one business partner`);
  if (entries.some((e) => e.currencyCode !== currency)) throw refuse(`the open items settled by bank transaction ${bankTransactionId} must be in its currency, ${currency}`);
  const settled = entries.reduce((sum, e) => sum.plus(e.debitFc).minus(e.creditFc), ZERO);
  if (unbooked.isZero() || !settled.equals(unbooked)) {
    throw refuse(`the entries settle ${settled.toFixed(2)} ${currency}, but ${unbooked.toFixed(2)} ${currency} of bank transaction ${bankTransactionId} is unbooked`);
  }
  return { booked: false, bankTransactionId, accountId: lines[0].accountId, businessPartnerId: lines[0].dimensions.businesspartner ?? null, amount: unbooked.abs() };
}

/** Books the payment of an unbooked bank side and answers its line (locked) and that line's entry (the whole line). */
async function bookBankSide(tx: RequestContext, side: Extract<BankSide, { booked: false }>, date: Date, currency: string): Promise<{ entry: Entry; line: LockedLine }> {
  const { counterLineId } = await bookPaymentInTx(tx, { bankTransactionId: side.bankTransactionId, counterAccountId: side.accountId, businessPartnerId: side.businessPartnerId, amount: side.amount, date });
  const line = (await lockLines(tx, [counterLineId])).get(counterLineId)!;
  const settled = entryAmounts({ journalEntryLineId: counterLineId }, line, currency, minorUnitsOf(line.currencyCode));
  if ('field' in settled) throw new Error(`the booked payment line ${counterLineId} cannot be reconciled: ${settled.message}`);
  return { entry: { ...settled.entry, currencyCode: line.currencyCode }, line };
}

/**
 * What committing adds to a reconciliation's entries, for a create and for the commit of a draft
 * alike: the payment's line when its bank transaction is booked now, and the exchange entry's line
 * when the entries are in one foreign currency with a local residual. Entries that do not balance
 * are refused (400).
 */
async function committedEntries(
  tx: RequestContext,
  r: { clientAccountId: number; date: Date; currency: string; entries: readonly Entry[]; lines: readonly LockedLine[]; bank: BankSide },
): Promise<{ added: Entry[]; exchangeEntryId: number | null }> {
  const added: Entry[] = [];
  const lines = [...r.lines];
  if (!r.bank.booked) {
    const payment = await bookBankSide(tx, r.bank, r.date, r.currency);
    added.push(payment.entry);
    lines.push(payment.line);
  }
  const balance = balanceOf([...r.entries, ...added], r.currency);
  if (balance.kind === 'unbalanced') throw ValidationError.field('entryLines', balance.message);
  if (balance.kind !== 'exchange') return { added, exchangeEntryId: null };
  const posted = await postExchangeDifference(tx, r.clientAccountId, r.date, balance.residual, balance.currency, lines);
  return { added: [...added, posted.entry], exchangeEntryId: posted.journalEntryId };
}

// ── Writing ──────────────────────────────────────────────────────────────────────────────────────

/** One entry line as other modules give it (the matcher, bank payments): the GraphQL input's fields. */
export type ReconcileLine = Args<typeof rules.create>['input']['entryLines'][number];

export interface ReconcileOptions {
  /** a proposal of the automatic matching process: checked, written, but no amount moves and no number is given */
  isDraft?: boolean;
  /** the matcher's rule that found a proposal */
  matchRule?: string | null;
  /** the bank transaction a proposal (or a booked payment's reconciliation) is about */
  bankTransactionId?: number | null;
}

/**
 * A reconciliation inside the caller's transaction, with every rule of spec 001: the lines locked,
 * each entry's amounts settled against its line, the balance (with the automatic exchange entry),
 * the sequence number and the lines' reconciled amounts. Answers its id.
 */
export async function reconcileInTx(
  tx: RequestContext,
  input: Omit<Args<typeof rules.create>['input'], 'isDraft'>,
  options: ReconcileOptions = {},
): Promise<number> {
  const { clientAccountId, date, entryLines } = parse(options.bankTransactionId != null ? rules.proposeForPayment : rules.create, { input }).input;
  await requireAccount(tx, clientAccountId);
  const currency = await accountingCurrency(tx, clientAccountId);
  const lines = await lockLines(tx, entryLines.map((e) => e.journalEntryLineId));
  const { entries, used } = settledEntries(entryLines, lines, clientAccountId, currency);
  const bank: BankSide = options.bankTransactionId != null ? await bankSide(tx, clientAccountId, options.bankTransactionId, entries, used) : { booked: true };
  if (options.isDraft) {
    // a proposal moves nothing: on an unbooked transaction it is the items only (the payment comes on
    // commit), else it must balance as a commit would (an exchange residual is posted then)
    const balance = bank.booked ? balanceOf(entries, currency) : null;
    if (balance?.kind === 'unbalanced') throw ValidationError.field('entryLines', balance.message);
    return writeReconciliation(tx, { clientAccountId, date, entries, options, exchangeEntryId: null });
  }
  const { added, exchangeEntryId } = await committedEntries(tx, { clientAccountId, date, currency, entries, lines: used, bank });
  return writeReconciliation(tx, { clientAccountId, date, entries: [...entries, ...added], options, exchangeEntryId });
}

/** The reconciliation row and its entries; a committed one is numbered and moves the lines' amounts. */
async function writeReconciliation(
  tx: RequestContext,
  r: { clientAccountId: number; date: Date; entries: readonly Entry[]; options: ReconcileOptions; exchangeEntryId: number | null },
): Promise<number> {
  const created = await tx.db.reconciliation.create({
    data: {
      clientAccountId: r.clientAccountId,
      reconciliationDate: r.date,
      isDraft: !!r.options.isDraft,
      sequenceNumber: r.options.isDraft ? null : await nextSequenceNumber(tx, r.clientAccountId, 'reconciliation'),
      exchangeEntryId: r.exchangeEntryId,
      matchRule: r.options.matchRule ?? null,
      bankTransactionId: r.options.bankTransactionId ?? null,
      // a proposal is the matching process's, whoever started the run
      createdById: r.options.isDraft ? null : auditUserId(tx),
      entries: { createMany: { data: r.entries.map(({ currencyCode: _c, ...e }) => e) } },
    },
    select: { id: true },
  });
  if (!r.options.isDraft) await moveReconciledAmounts(tx, r.entries, 1);
  return created.id;
}

/** Each entry's amounts against its locked line, or one 400 naming every refused entry. */
function settledEntries(entryLines: readonly EntryLineInput[], lines: Map<number, LockedLine>, clientAccountId: number, currency: string) {
  const issues = new Issues();
  const entries: Entry[] = [];
  const used: LockedLine[] = [];
  for (const [i, input] of entryLines.entries()) {
    const line = lines.get(input.journalEntryLineId);
    const refusal = lineRefusal(line, input.journalEntryLineId, clientAccountId);
    if (refusal || !line) {
      issues.add(['entryLines', i, 'journalEntryLineId'], refusal!);
      continue;
    }
    if (input.journalEntryId != null && input.journalEntryId !== line.journalEntryId) {
      issues.add(['entryLines', i, 'journalEntryId'], `journal entry line ${line.id} belongs to journal entry ${line.journalEntryId}, not ${input.journalEntryId}`);
      continue;
    }
    const settled = entryAmounts(input, line, currency, minorUnitsOf(line.currencyCode));
    if ('field' in settled) issues.add(['entryLines', i, settled.field], settled.message);
    else {
      entries.push({ ...settled.entry, currencyCode: line.currencyCode });
      used.push(line);
    }
  }
  issues.throwIfAny();
  return { entries, used };
}

/** POST /reconciliations: a committed reconciliation (drafts come only from the matcher). */
export async function createReconciliation(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const id = await inTransaction(ctx, (tx) => reconcileInTx(tx, args.input));
  return reread(ctx, id, query);
}

/** Serialises every writer of one reconciliation (a commit and a delete) for the rest of the transaction. */
const lockReconciliation = (tx: RequestContext, id: number) => tx.db.$queryRawUnsafe('SELECT id FROM reconciliations WHERE id = $1 FOR UPDATE', id);

const ENTRY_SELECT = { journalEntryLineId: true, journalEntryId: true, debit: true, credit: true, debitFc: true, creditFc: true, exchangeRate: true } as const;

/** A reconciliation of the caller's with its entries, for a write (403/404 otherwise). */
const withEntries = async (tx: RequestContext, id: number) =>
  requireOwned(tx, `Reconciliation ${id}`, await tx.db.reconciliation.findUnique({ where: { id }, include: { entries: { select: ENTRY_SELECT, orderBy: { id: 'asc' } } } }));

/**
 * PATCH /reconciliations/{id} with is_draft false: commits a proposal. Deleted → 409 (checked
 * first); is_draft true → 400 (a committed one cannot be reopened); committed → 200, nothing
 * changes. A proposal whose line was cancelled, or reconciled elsewhere meanwhile so its amount is
 * no longer open, is deleted and answered 409. Otherwise every rule of a create is checked again
 * against the lines as they are now, the exchange difference is posted, the number given and the
 * lines' reconciled amounts move.
 */
export async function commitReconciliation(ctx: RequestContext, args: Args<typeof rules.commit>, query: Query = {}) {
  const { id, isDraft } = parse(rules.commit, args);
  const stale = await inTransaction(ctx, async (tx): Promise<string | null> => {
    await lockReconciliation(tx, id);
    const current = await withEntries(tx, id);
    if (current.deletedAt) throw new ConflictError(`Reconciliation ${id} was deleted on ${current.deletedAt.toISOString()}`);
    if (isDraft) {
      throw ValidationError.field('isDraft', current.isDraft ? `must be false: reconciliation ${id} is a draft; false commits it` : `reconciliation ${id} is committed: it cannot be reopened (delete it instead)`);
    }
    if (!current.isDraft) return null;
    const currency = await accountingCurrency(tx, current.clientAccountId);
    const lines = await lockLines(tx, current.entries.map((e) => e.journalEntryLineId));
    let staleReason = (() => {
      for (const e of current.entries) {
        const line = lines.get(e.journalEntryLineId);
        const refusal = lineRefusal(line, e.journalEntryLineId, current.clientAccountId);
        if (refusal || !line) return refusal;
        const open = openAmounts(line);
        if (e.debit.plus(e.credit).greaterThan(open.remaining) || e.debitFc.plus(e.creditFc).greaterThan(open.remainingFc)) {
          return `journal entry line ${line.id} was reconciled elsewhere meanwhile: ${open.remaining.toFixed(2)} of it is open, the draft reconciles ${e.debit.plus(e.credit).toFixed(2)}`;
        }
      }
      return null;
    })();
    const entries: Entry[] = current.entries.map((e) => ({ ...e, currencyCode: lines.get(e.journalEntryLineId)?.currencyCode ?? '' }));
    let bank: BankSide = { booked: true };
    if (!staleReason && current.bankTransactionId != null) {
      // the transaction booked meanwhile (in part or in full) no longer fits the proposal: stale too
      try {
        bank = await bankSide(tx, current.clientAccountId, current.bankTransactionId, entries, [...lines.values()]);
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        staleReason = e.message;
      }
    }
    if (staleReason) {
      await tx.db.reconciliation.delete({ where: { id } });
      return `Reconciliation ${id} is stale and was deleted: ${staleReason}`;
    }
    const { added, exchangeEntryId } = await committedEntries(tx, {
      clientAccountId: current.clientAccountId,
      date: current.reconciliationDate,
      currency,
      entries,
      lines: [...lines.values()],
      bank,
    });
    if (added.length) await tx.db.reconciliationEntry.createMany({ data: added.map(({ currencyCode: _c, ...e }) => ({ ...e, reconciliationId: id })) });
    await tx.db.reconciliation.update({
      where: { id },
      data: { isDraft: false, sequenceNumber: await nextSequenceNumber(tx, current.clientAccountId, 'reconciliation'), exchangeEntryId },
      select: { id: true },
    });
    await moveReconciledAmounts(tx, [...entries, ...added], 1);
    return null;
  });
  if (stale) throw new ConflictError(stale);
  return reread(ctx, id, query);
}

/**
 * DELETE /reconciliations/{id}: a draft is removed; a committed one is soft-deleted (deleted_at,
 * deleted_by_id) and its amounts are released from the lines; its automatic exchange entry is
 * cancelled with a reversal (left posted, its line released, when its date is in a locked period).
 * Deleting a deleted one again changes nothing.
 */
export async function deleteReconciliation(ctx: RequestContext, args: Args<typeof rules.remove>): Promise<boolean> {
  const { id } = parse(rules.remove, args);
  return inTransaction(ctx, async (tx) => {
    await lockReconciliation(tx, id);
    const current = await withEntries(tx, id);
    if (current.deletedAt) return true;
    if (current.isDraft) {
      await tx.db.reconciliation.delete({ where: { id } });
      return true;
    }
    await lockLines(tx, current.entries.map((e) => e.journalEntryLineId));
    await moveReconciledAmounts(tx, current.entries, -1);
    await tx.db.reconciliation.update({ where: { id }, data: { deletedAt: new Date(), deletedById: auditUserId(tx) }, select: { id: true } });
    if (current.exchangeEntryId != null) await undoExchangeEntry(tx, current.exchangeEntryId, id);
    return true;
  });
}

/** Cancels a deleted reconciliation's exchange entry, unless the books are locked for its date (then it stays, released). */
async function undoExchangeEntry(tx: RequestContext, journalEntryId: number, reconciliationId: number): Promise<void> {
  const reconciled = await tx.db.journalEntryLine.aggregate({ where: { journalEntryId }, _sum: { reconciledAmount: true } });
  if (!(reconciled._sum.reconciledAmount ?? ZERO).isZero()) return; // reconciled again elsewhere: it stays
  try {
    // refused (409) before it writes anything when the books are locked for today
    await cancelJournalEntryInTx(tx, { id: journalEntryId, cancelled: 'Y', cancellationReason: `Reconciliation ${reconciliationId} was deleted` });
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e;
  }
}

// ── Open items ───────────────────────────────────────────────────────────────────────────────────

/**
 * The open items of a client account: posted lines of entries that are not cancelled (nor
 * cancellations) with an amount not yet reconciled, optionally of one account (by id or code), one
 * business partner, and posted on or before a date; by posting date.
 */
export async function listOpenItems(ctx: RequestContext, args: Args<typeof rules.openItems>, query: { include?: PrismaNS.JournalEntryLineInclude; select?: PrismaNS.JournalEntryLineSelect } = {}) {
  const { clientAccountId, accountId, accountCode, businessPartnerId, dateTo } = parse(rules.openItems, args);
  await requireAccount(ctx, clientAccountId);
  const ids = await ctx.db.$queryRawUnsafe<{ id: number }[]>(
    `SELECT l.id FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id JOIN accounts a ON a.id = l.account_id
      WHERE l.client_account_id = $1 AND ${OPEN_ITEM_SQL}
        AND ($2::int IS NULL OR l.account_id = $2) AND ($3::text IS NULL OR a.code = $3)
        AND ($4::int IS NULL OR l.business_partner_id = $4) AND ($5::date IS NULL OR l.posting_date <= $5::date)
      ORDER BY l.posting_date, l.id LIMIT 10000`,
    clientAccountId,
    accountId ?? null,
    accountCode ?? null,
    businessPartnerId ?? null,
    dateTo ? formatDate(dateTo) : null,
  );
  const order = new Map(ids.map((r, i) => [Number(r.id), i]));
  const rows = await ctx.db.journalEntryLine.findMany({ ...query, where: { id: { in: [...order.keys()] } } });
  return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}
