import type pg from 'pg';

/**
 * The raw-SQL baseline of bulk posting, shared by the benches that compare a posting path with it
 * (ledger-batch, saft-import): two-line entries written by multi-row SQL through the pg driver, with
 * none of the API's work (no HTTP, authentication, validation, rule reads, hashing or response).
 */
export interface RawTarget {
  clientAccountId: number;
  /** the debit and the credit line's account ids */
  accounts: number[];
  userId: number;
  /** every line's posting date (YYYY-MM-DD) */
  postingDate: string;
}

/**
 * Entries `first` … `first + count - 1` (amount 100 + index % 900, two lines each) into the target's
 * account, inside the caller's transaction: the ids from the sequence, the chain head locked and
 * read, every entry and line through `unnest`, the head advanced.
 */
export async function insertRawEntries(c: pg.ClientBase, target: RawTarget, first: number, count: number): Promise<void> {
  const { clientAccountId, accounts, userId, postingDate } = target;
  const ids = (await c.query(`SELECT nextval(pg_get_serial_sequence('journal_entries', 'id'))::int AS id FROM generate_series(1, $1::int)`, [count])).rows.map((r) => r.id as number);
  await c.query('INSERT INTO ledger_chains (client_account_id, last_number, last_hash) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING', [clientAccountId, '0'.repeat(64)]);
  const head = (await c.query('SELECT last_number FROM ledger_chains WHERE client_account_id = $1 FOR UPDATE', [clientAccountId])).rows[0].last_number as number;
  const amounts = Array.from({ length: count }, (_, i) => (100 + ((first + i) % 900)).toFixed(2));
  const numbers = ids.map((_, i) => head + i + 1);
  await c.query(
    `WITH e AS (
       INSERT INTO journal_entries (id, client_account_id, description, is_draft, sequence_number, entry_hash, posted_at, posted_by_id, created_by_id, updated_by_id, updated_at)
       SELECT u.id, $1, u.d, false, u.s, $5, now(), $4, $4, $4, now() FROM unnest($2::int[], $3::text[], $6::int[]) AS u(id, d, s)
     ),
     l AS (
       INSERT INTO journal_entry_lines (journal_entry_id, client_account_id, line_id, posting_date, account_id, debit, credit, debit_fc, credit_fc, currency_code, exchange_rate)
       SELECT u.e, $1, u.k, $13::date, u.a, u.dr, u.cr, u.dr, u.cr, 'NOK', 1 FROM unnest($7::int[], $8::int[], $9::int[], $10::numeric[], $11::numeric[]) AS u(e, k, a, dr, cr)
     )
     UPDATE ledger_chains SET last_number = $12, last_hash = $5 WHERE client_account_id = $1`,
    [
      clientAccountId,
      ids,
      ids.map((_, i) => `Bench ${first + i + 1}`),
      userId,
      'f'.repeat(64),
      numbers,
      ids.flatMap((id) => [id, id]),
      ids.flatMap(() => [1, 2]),
      ids.flatMap(() => accounts),
      amounts.flatMap((a) => [a, '0']),
      amounts.flatMap((a) => ['0', a]),
      head + count,
      postingDate,
    ],
  );
}

/** insertRawEntries in a transaction of its own. */
export async function rawBatch(c: pg.ClientBase, target: RawTarget, first: number, count: number): Promise<boolean> {
  await c.query('BEGIN');
  try {
    await insertRawEntries(c, target, first, count);
    await c.query('COMMIT');
    return true;
  } catch (e) {
    await c.query('ROLLBACK');
    throw e;
  }
}
