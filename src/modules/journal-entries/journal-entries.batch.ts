import { z } from 'zod';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { AppError, ConflictError, ValidationError, type FieldIssue } from '../../shared/errors.ts';
import { checkReferences, type Reference } from '../../shared/references.ts';
import { requireAccount } from '../../shared/tenancy.ts';
import { flag, id, Issues, parse, type Args } from '../../shared/validation.ts';
import { journalEntryRules as rules, openingBalanceIssues, type LineInput } from './journal-entries.rules.ts';
import {
  assertOpeningBalanceFree,
  ledgerReads,
  lineReferences,
  lineRows,
  newEntryOf,
  openingBalanceYearOf,
  takenVouchers,
  voucherTaken,
  type LineRow,
} from './journal-entries.service.ts';
import { insertEntries, type BatchEntry } from './ledger-chain.batch.ts';

/** The most entries one bulk posting takes. */
export const MAX_BATCH_ENTRIES = 1000;

export const batchRules = z.object({
  input: z.object({
    clientAccountId: id,
    /** each in the create shape; checked one by one below, so one bad entry does not hide the others */
    entries: z
      .array(z.record(z.string(), z.unknown()), { error: 'must be a list of journal entries' })
      .min(1, 'send at least one entry')
      .max(MAX_BATCH_ENTRIES, `at most ${MAX_BATCH_ENTRIES} entries in one batch`),
    /** true (the default): all or nothing; false: the valid entries are posted, the others answered with their error */
    atomic: flag,
  }),
});

/** The answer for one entry of a batch, by its place in the request. */
export type BatchItem =
  | { index: number; id: number; sequenceNumber: number | null }
  | { index: number; error: { status: number; code: string; message: string; issues: FieldIssue[] } };

type Outcome = { issues: Issues; conflict?: string };

/**
 * POST /journal-entries/batch, GraphQL createJournalEntries: up to 1,000 entries of one client
 * account in one transaction, each under every rule of a single create (createJournalEntryInTx's:
 * shape, balance, accounts, currencies, tax codes, dimensions, locks, voucher and opening-balance
 * 409s), with the reads those rules need done once for the whole batch: the ledger context of every
 * account and tax code named, inactive dimensions, referenced rows (one query per model), vouchers
 * taken (one query), and the chain head (one read, one write). `atomic` (default true): any error
 * fails the batch, every error listed by index (400, or 409 when every failure is a conflict), and
 * nothing is written; `atomic: false` posts the valid entries and answers the others' errors in place.
 */
export async function createJournalEntries(ctx: RequestContext, args: Args<typeof batchRules>): Promise<{ data: BatchItem[] }> {
  const { input } = parse(batchRules, args);
  const { clientAccountId } = input;
  const atomic = input.atomic ?? true;
  return inTransaction(ctx, async (tx) => {
    await requireAccount(tx, clientAccountId);
    const n = input.entries.length;
    const outcomes: Outcome[] = input.entries.map(() => ({ issues: new Issues() }));
    // 1. the shape of each entry, as a single create parses it (client_account_id may be left out; sent, it must be the batch's)
    const parsed = input.entries.map((entry, i) => {
      const sent = entry.clientAccountId;
      if (sent != null && sent !== clientAccountId) outcomes[i].issues.add(['clientAccountId'], `must be the batch's client account ${clientAccountId} (or left out)`);
      return outcomes[i].issues.parse(rules.create, { input: { ...entry, clientAccountId } })?.input;
    });
    // 2. every referenced row (currencies, dimension records, vouchers) in one query per model
    const refs: Reference[] = [];
    const refIssues = new Issues();
    for (const [i, e] of parsed.entries()) {
      if (!e) continue;
      for (const r of lineReferences(e.lines)) refs.push({ ...r, path: ['entries', i, ...r.path] });
      refs.push({ path: ['entries', i, 'voucherId'], model: 'voucher', id: e.voucherId, select: { status: true } });
    }
    const found = await checkReferences(tx, clientAccountId, refs, refIssues);
    for (const issue of refIssues.list) outcomes[Number(issue.path[1])].issues.add(issue.path.slice(2), issue.message);
    // 3. the ledger context of all lines at once, then each entry's rows under the single create's line rules
    const reads = await ledgerReads(tx, clientAccountId, parsed.flatMap((e) => (e ? e.lines : [])) as LineInput[]);
    const rows: (LineRow[] | undefined)[] = [];
    for (const [i, e] of parsed.entries()) {
      if (!e) {
        rows.push(undefined);
        continue;
      }
      const issues = outcomes[i].issues;
      if (found.get<{ status: string }>('voucher', e.voucherId)?.status === 'DELETED') issues.add(['voucherId'], `voucher ${e.voucherId} is deleted`);
      const checked = await lineRows(tx, clientAccountId, e.lines, found as never, issues, reads);
      if (e.isOpeningBalance) {
        const lines = e.lines.map((l, k) => ({ postingDate: l.postingDate, accountCode: checked.accountCodes[k], accountField: l.accountCode == null ? ('accountId' as const) : ('accountCode' as const) }));
        for (const issue of openingBalanceIssues(lines)) issues.add(issue.path, issue.message);
      }
      rows.push(checked.rows);
    }
    const valid = (i: number) => parsed[i] !== undefined && !outcomes[i].issues.list.length && !outcomes[i].conflict;
    // 4. vouchers: one lock statement and one query for the batch; a voucher twice in the batch is the second's 409
    const vouchers = parsed.flatMap((e, i) => (e?.voucherId != null && valid(i) ? [e.voucherId] : []));
    const taken = await takenVouchers(tx, clientAccountId, vouchers);
    const voucherInBatch = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const v = parsed[i]?.voucherId;
      if (v == null || !valid(i)) continue;
      if (taken.has(v)) outcomes[i].conflict = voucherTaken(v, taken.get(v)!).message;
      else if (voucherInBatch.has(v)) outcomes[i].conflict = `Entry ${voucherInBatch.get(v)} of this batch is already for voucher ${v}`;
      else voucherInBatch.set(v, i);
    }
    // 5. opening balances (rare: one per year): the single create's check, and one per year within the batch
    const yearInBatch = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const year = valid(i) ? openingBalanceYearOf(parsed[i]!.isOpeningBalance, rows[i]!) : null;
      if (year === null) continue;
      if (yearInBatch.has(year)) {
        outcomes[i].conflict = `Entry ${yearInBatch.get(year)} of this batch is already the opening balance of ${year}`;
        continue;
      }
      try {
        await assertOpeningBalanceFree(tx, clientAccountId, year);
        yearInBatch.set(year, i);
      } catch (e) {
        if (!(e instanceof ConflictError)) throw e;
        outcomes[i].conflict = e.message;
      }
    }
    const failed = outcomes.flatMap((o, i) => (valid(i) ? [] : [i]));
    if (atomic && failed.length) throw batchError(failed, outcomes);
    // 6. the valid entries, in one statement
    const user = auditUserId(tx);
    const toWrite: { index: number; batch: BatchEntry }[] = [];
    for (let i = 0; i < n; i++) {
      if (!valid(i)) continue;
      const e = parsed[i]!;
      const entry = newEntryOf(clientAccountId, e, openingBalanceYearOf(e.isOpeningBalance, rows[i]!), user);
      toWrite.push({ index: i, batch: { entry, lines: rows[i]!, posted: !e.isDraft } });
    }
    const written = await insertEntries(tx, clientAccountId, toWrite.map((w) => w.batch));
    const data: BatchItem[] = outcomes.map((o, i) => ({ index: i, error: itemError(o) }) as BatchItem);
    for (const [k, w] of toWrite.entries()) data[w.index] = { index: w.index, id: written[k].id, sequenceNumber: written[k].sequenceNumber };
    return { data };
  });
}

/** One failed entry's error as the batch answers it in place. */
function itemError(o: Outcome): { status: number; code: string; message: string; issues: FieldIssue[] } {
  const error: AppError = o.issues.list.length ? ValidationError.of(o.issues.list) : new ConflictError(o.conflict ?? 'not written');
  return { status: error.status, code: error.code, message: error.message, issues: error.issues };
}

/** An atomic batch's refusal: every failed entry's issues under `entries.<index>`; 409 only when every failure is a conflict. */
function batchError(failed: number[], outcomes: Outcome[]): AppError {
  if (failed.every((i) => !outcomes[i].issues.list.length)) {
    return new ConflictError(`Nothing was written: ${failed.map((i) => `entries.${i}: ${outcomes[i].conflict}`).join('; ')}`);
  }
  return ValidationError.of(
    failed.flatMap((i) =>
      outcomes[i].issues.list.length
        ? outcomes[i].issues.list.map((x) => ({ path: ['entries', String(i), ...x.path], message: x.message }))
        : [{ path: ['entries', String(i)], message: `${outcomes[i].conflict} (409)` }],
    ),
  );
}
