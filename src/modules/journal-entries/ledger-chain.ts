import { createHash } from 'node:crypto';
import type { Decimal } from '@prisma/client/runtime/client';
import type { Db } from '../../db/database.ts';
import type { RequestContext } from '../../shared/context.ts';
import { formatDate, formatFixed, formatInstant } from '../../shared/scalars.ts';
import { DIMENSION_KIND_NAMES, DIMENSION_KINDS, type DimensionColumn } from './dimensions.ts';

/**
 * Tamper evidence. Each posted entry stores
 *   entry_hash = SHA-256( previous entry_hash | sequence_number | SHA-256(canonical content) )
 * in hex, the previous hash being that of the client account's entry numbered one lower (64 zeros
 * before the first). The content is what posting fixes: the entry's own fields (its
 * opening-balance flag when set) and every line's amounts, account, dates, tax and dimensions. What
 * later modules may still change on a posted entry (cancellation marks on the original, reconciled
 * amounts on lines) is not part of it; a reversal names the entry it reverses, so a cancellation is
 * in the chain through the reversal.
 *
 * The head of the chain (last number, last hash) is the client account's row in ledger_chains. One
 * statement advances it and stamps the entry, in the posting transaction: the row lock orders and
 * numbers postings per client account, a rollback gives the number back, and the lock is held
 * only from that statement to the commit.
 */

export const GENESIS_HASH = '0'.repeat(64);

export interface ChainEntry {
  clientAccountId: number;
  description: string | null;
  voucherId: number | null;
  relationType: string | null;
  relationId: number | null;
  reversesEntryId: number | null;
  /** in the content only when true, so entries posted before the flag existed keep their hashes */
  isOpeningBalance?: boolean;
  postedAt: Date;
  postedById: number | null;
}

export type ChainLine = {
  lineId: number;
  postingDate: Date;
  description: string | null;
  accountId: number;
  debit: Decimal;
  credit: Decimal;
  debitFc: Decimal;
  creditFc: Decimal;
  currencyCode: string;
  exchangeRate: Decimal;
  taxCodeId: number | null;
  taxBaseAmount: Decimal | null;
  taxBaseAmountFc: Decimal | null;
  taxAmount: Decimal | null;
  taxAmountFc: Decimal | null;
  taxLine: boolean;
  taxForLine: number | null;
  quantity: Decimal | null;
} & Record<DimensionColumn, number | null>;

const fixedOrNull = (d: Decimal | null, scale: number) => (d === null ? null : formatFixed(d, scale));

/** The canonical text of an entry's fixed content: JSON of arrays in a fixed order, decimals at their column's scale. */
export function canonicalContent(entry: ChainEntry, lines: readonly ChainLine[]): string {
  const sorted = [...lines].sort((a, b) => a.lineId - b.lineId);
  return JSON.stringify([
    1, // format version
    // not the row id: an entry is known by its client account and number (the link has the number),
    // and posting writes the row, its lines and its link in one statement, before the id exists
    entry.clientAccountId,
    entry.description,
    entry.voucherId,
    entry.relationType,
    entry.relationId,
    entry.reversesEntryId,
    formatInstant(entry.postedAt),
    entry.postedById,
    sorted.map((l) => [
      l.lineId,
      formatDate(l.postingDate),
      l.description,
      l.accountId,
      formatFixed(l.debit, 2),
      formatFixed(l.credit, 2),
      formatFixed(l.debitFc, 3),
      formatFixed(l.creditFc, 3),
      l.currencyCode,
      formatFixed(l.exchangeRate, 6),
      l.taxCodeId,
      fixedOrNull(l.taxBaseAmount, 2),
      fixedOrNull(l.taxBaseAmountFc, 3),
      fixedOrNull(l.taxAmount, 2),
      fixedOrNull(l.taxAmountFc, 3),
      l.taxLine,
      l.taxForLine,
      fixedOrNull(l.quantity, 6),
      DIMENSION_KIND_NAMES.map((k) => l[DIMENSION_KINDS[k].column] ?? null),
    ]),
    // appended only to an opening balance (which reports count differently, so changing the flag
    // must break the chain): every other entry's text, and hash, is what it was before the flag
    ...(entry.isOpeningBalance ? ['opening balance'] : []),
  ]);
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const contentHash = (entry: ChainEntry, lines: readonly ChainLine[]): string => sha256(canonicalContent(entry, lines));

/** The link: what posting computes in SQL, the same formula here for verification. */
export const linkHash = (previous: string, sequenceNumber: number, content: string): string => sha256(`${previous}|${sequenceNumber}|${content}`);

/**
 * Posts a saved entry: takes the client account's next sequence number and links the entry into the
 * chain, in one statement. The entry must be a draft row of the account; returns its number.
 */
export async function stampPosted(
  ctx: RequestContext,
  entry: { id: number; clientAccountId: number; postedAt: Date; postedById: number | null; content: string; updatedById: number | null },
): Promise<number> {
  const rows = await ctx.db.$queryRawUnsafe<{ sequence_number: number }[]>(
    `WITH head AS (${ADVANCE_HEAD})
     UPDATE journal_entries e
        SET sequence_number = head.last_number, entry_hash = head.last_hash, is_draft = false,
            posted_at = $3, posted_by_id = $4, updated_at = $3, updated_by_id = $5
       FROM head
      WHERE e.id = $6 AND e.client_account_id = $1 AND e.is_draft
  RETURNING e.sequence_number`,
    entry.clientAccountId,
    entry.content,
    entry.postedAt,
    entry.postedById,
    entry.updatedById,
    entry.id,
  );
  if (rows.length !== 1) throw new Error(`journal entry ${entry.id} could not be posted: not a draft of client account ${entry.clientAccountId}`);
  return Number(rows[0].sequence_number);
}

/** The SQL that advances the client account's chain head ($1 the account, $2 the content hash) and returns its number and hash. */
const ADVANCE_HEAD = `INSERT INTO ledger_chains AS c (client_account_id, last_number, last_hash)
       VALUES ($1, 1, encode(sha256(convert_to('${GENESIS_HASH}|1|' || $2, 'UTF8')), 'hex'))
       ON CONFLICT (client_account_id) DO UPDATE
         SET last_number = c.last_number + 1,
             last_hash = encode(sha256(convert_to(c.last_hash || '|' || (c.last_number + 1)::text || '|' || $2, 'UTF8')), 'hex')
       RETURNING last_number, last_hash`;

/** The columns of a line row, in the order `insertEntry` passes them (one array parameter each). */
const LINE_COLUMNS = [
  ['line_id', 'int', 'lineId'],
  ['posting_date', 'date', 'postingDate'],
  ['description', 'text', 'description'],
  ['account_id', 'int', 'accountId'],
  ['debit', 'numeric', 'debit'],
  ['credit', 'numeric', 'credit'],
  ['debit_fc', 'numeric', 'debitFc'],
  ['credit_fc', 'numeric', 'creditFc'],
  ['currency_code', 'text', 'currencyCode'],
  ['exchange_rate', 'numeric', 'exchangeRate'],
  ['tax_code_id', 'int', 'taxCodeId'],
  ['tax_base_amount', 'numeric', 'taxBaseAmount'],
  ['tax_base_amount_fc', 'numeric', 'taxBaseAmountFc'],
  ['tax_amount', 'numeric', 'taxAmount'],
  ['tax_amount_fc', 'numeric', 'taxAmountFc'],
  ['tax_line', 'boolean', 'taxLine'],
  ['tax_for_line', 'int', 'taxForLine'],
  ['quantity', 'numeric', 'quantity'],
  ...DIMENSION_KIND_NAMES.map((k) => [DIMENSION_KINDS[k].column.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), 'int', DIMENSION_KINDS[k].column] as const),
] as const;

/** A column value as its array element: decimals as their text (exact), dates as YYYY-MM-DD. */
function element(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return formatDate(v);
  if (typeof v === 'object') return String(v); // Decimal
  return v;
}

/** The lines as one array parameter per column (appended to `params`): the column list and the arrays to unnest. */
export function lineArrays(params: unknown[], lines: readonly ChainLine[]): { columns: string; values: string } {
  const arrays = LINE_COLUMNS.map(([name, type, key]) => {
    params.push(lines.map((l) => element((l as Record<string, unknown>)[key])));
    return { name, expr: `$${params.length}::${type}[]` };
  });
  return { columns: arrays.map((a) => a.name).join(', '), values: arrays.map((a) => a.expr).join(', ') };
}

/** Writes a draft's lines (after its old ones were deleted), the same way insertEntry writes them. */
export async function insertLines(ctx: RequestContext, journalEntryId: number, clientAccountId: number, lines: readonly ChainLine[]): Promise<void> {
  const params: unknown[] = [journalEntryId, clientAccountId];
  const arrays = lineArrays(params, lines);
  await ctx.db.$executeRawUnsafe(
    `INSERT INTO journal_entry_lines (journal_entry_id, client_account_id, ${arrays.columns}) SELECT $1, $2, u.* FROM unnest(${arrays.values}) AS u`,
    ...params,
  );
}

export interface NewEntry {
  clientAccountId: number;
  description: string | null;
  voucherId: number | null;
  relationType: string | null;
  relationId: number | null;
  reversesEntryId: number | null;
  isOpeningBalance: boolean;
  /** the year an opening balance holds (its unique key), null on every other entry and on a reversal */
  openingBalanceYear: number | null;
  /** 'C' on a reversal */
  cancelled: 'C' | null;
  cancellationReason: string | null;
  userId: number | null;
}

/**
 * Writes an entry and its lines in ONE statement, and with `posted` also takes the next number and
 * link of the client account's chain in it (the content hash is computed beforehand, without the
 * row id): a posting is one round trip and one row lock held only until its commit. Lines go in as
 * one array per column (unnest), so an entry of any size is one statement with 42 parameters.
 */
export async function insertEntry(
  ctx: RequestContext,
  entry: NewEntry,
  lines: readonly ChainLine[],
  posted: { at: Date; content: string } | null,
): Promise<WrittenEntry> {
  const params: unknown[] = [
    entry.clientAccountId, posted?.content ?? null, posted?.at ?? null, entry.userId, entry.description, entry.voucherId, entry.relationType, entry.relationId,
    entry.reversesEntryId, entry.cancelled, entry.cancellationReason, entry.isOpeningBalance, entry.openingBalanceYear,
  ];
  const arrays = lineArrays(params, lines);
  const head = posted ? `head AS (${ADVANCE_HEAD}),` : '';
  const entryRow = posted
    ? `SELECT $1, $5, $6, $7, $8, $9, $10, $11, $12::boolean, $13::int, false, head.last_number, head.last_hash, $3::timestamptz, $4::int, $4::int, $4::int, $3::timestamptz FROM head`
    : `SELECT $1, $5, $6, $7, $8, $9, $10, $11, $12::boolean, $13::int, true, NULL::int, NULL::char(64), NULL::timestamptz, NULL::int, $4::int, $4::int, now() WHERE $2::text IS NULL AND $3::timestamptz IS NULL`;
  const rows = await ctx.db.$queryRawUnsafe<
    { id: number; sequence_number: number | null; entry_hash: string | null; created_at: Date | string; updated_at: Date | string; line_ids: string | null }[]
  >(
    `WITH ${head}
     e AS (
       INSERT INTO journal_entries (client_account_id, description, voucher_id, relation_type, relation_id, reverses_entry_id, cancelled, cancellation_reason,
                                    is_opening_balance, opening_balance_year, is_draft, sequence_number, entry_hash, posted_at, posted_by_id, created_by_id, updated_by_id, updated_at)
       ${entryRow}
       RETURNING id, sequence_number, entry_hash, created_at, updated_at
     ),
     l AS (
       INSERT INTO journal_entry_lines (journal_entry_id, client_account_id, ${arrays.columns})
       SELECT e.id, $1, u.* FROM e, unnest(${arrays.values}) AS u
       RETURNING id, line_id
     )
     SELECT id, sequence_number, entry_hash, created_at, updated_at, (SELECT json_agg(json_build_array(l.line_id, l.id)) FROM l)::text AS line_ids FROM e`,
    ...params,
  );
  const r = rows[0];
  return {
    id: Number(r.id),
    sequenceNumber: r.sequence_number === null ? null : Number(r.sequence_number),
    entryHash: r.entry_hash,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    lineIds: new Map(r.line_ids === null ? [] : (JSON.parse(r.line_ids) as [number, number][])),
  };
}

/** What the database made of an entry insertEntry wrote: its ids, number, hash and timestamps (the rest is what was written). */
export interface WrittenEntry {
  id: number;
  sequenceNumber: number | null;
  entryHash: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** each line's row id by its line_id */
  lineIds: Map<number, number>;
}

export interface LedgerVerification {
  clientAccountId: number;
  /** posted entries checked */
  entries: number;
  ok: boolean;
  /** the links that do not verify, first first (at most 100 listed) */
  broken: { sequenceNumber: number | null; entryId: number | null; reason: string }[];
  /** how many links do not verify in all */
  brokenCount: number;
}

const LINE_SELECT = {
  lineId: true, postingDate: true, description: true, accountId: true, debit: true, credit: true, debitFc: true, creditFc: true,
  currencyCode: true, exchangeRate: true, taxCodeId: true, taxBaseAmount: true, taxBaseAmountFc: true, taxAmount: true, taxAmountFc: true,
  taxLine: true, taxForLine: true, quantity: true,
  ...Object.fromEntries(DIMENSION_KIND_NAMES.map((k) => [DIMENSION_KINDS[k].column, true])),
} as const;

/**
 * Recomputes a client account's chain from its first posted entry: numbers 1..N without gaps, each
 * stored hash equal to the one recomputed from the entry's rows and its predecessor's stored hash,
 * and the chain head (ledger_chains) naming the last entry. Reads in batches, so a ledger of any size
 * verifies in bounded memory.
 */
export async function verifyLedger(db: Db, clientAccountId: number, batch = 500): Promise<LedgerVerification> {
  const result: LedgerVerification = { clientAccountId, entries: 0, ok: true, broken: [], brokenCount: 0 };
  const fail = (sequenceNumber: number | null, entryId: number | null, reason: string) => {
    result.ok = false;
    result.brokenCount++;
    if (result.broken.length < 100) result.broken.push({ sequenceNumber, entryId, reason });
  };
  let previous = GENESIS_HASH;
  let expected = 1;
  for (;;) {
    const entries = await db.journalEntry.findMany({
      where: { clientAccountId, isDraft: false, sequenceNumber: { gte: expected } },
      orderBy: { sequenceNumber: 'asc' },
      take: batch,
      select: {
        id: true, clientAccountId: true, sequenceNumber: true, description: true, voucherId: true, relationType: true, relationId: true,
        reversesEntryId: true, isOpeningBalance: true, postedAt: true, postedById: true, entryHash: true, lines: { select: { ...LINE_SELECT, clientAccountId: true } },
      },
    });
    if (!entries.length) break;
    for (const e of entries) {
      const n = e.sequenceNumber!;
      if (n !== expected) fail(n, e.id, `sequence numbers jump from ${expected - 1} to ${n}: ${n - expected} posted ${n - expected === 1 ? 'entry is' : 'entries are'} missing`);
      const recomputed = linkHash(previous, n, contentHash({ ...e, postedAt: e.postedAt! }, e.lines as unknown as ChainLine[]));
      // a line's client account repeats the entry's (for the ledger's indexes): moved, it would leave the account's balances
      const moved = e.lines.find((l) => l.clientAccountId !== e.clientAccountId);
      if (moved) fail(n, e.id, `line ${moved.lineId} of entry ${n} (id ${e.id}) is recorded under client account ${moved.clientAccountId}, not the entry's`);
      if (recomputed !== e.entryHash) fail(n, e.id, `entry ${n} (id ${e.id}) does not match its hash: its content, its number or the link to entry ${n - 1} was changed`);
      previous = e.entryHash ?? '';
      expected = n + 1;
      result.entries++;
    }
    if (entries.length < batch) break;
  }
  const head = await db.ledgerChain.findUnique({ where: { clientAccountId } });
  const last = expected - 1;
  if ((head?.lastNumber ?? 0) !== last) fail(null, null, `the chain head says ${head?.lastNumber ?? 0} entries were posted, the ledger holds ${last}: posted entries were removed`);
  else if (head && head.lastHash !== previous) fail(last, null, `the chain head's hash differs from entry ${last}'s: the last entry was changed`);
  return result;
}
