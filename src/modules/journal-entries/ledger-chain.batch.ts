import type { RequestContext } from '../../shared/context.ts';
import { contentHash, GENESIS_HASH, lineArrays, linkHash, type ChainLine, type NewEntry } from './ledger-chain.ts';

/** One entry of a batch: its fields, its checked line rows, and whether it is posted (else a draft). */
export interface BatchEntry {
  entry: NewEntry;
  lines: readonly ChainLine[];
  posted: boolean;
}

/**
 * Writes many entries of one client account and all their lines in ONE statement, after one read of
 * the chain head: ids are drawn from the table's sequence first (one query), the posted entries are
 * numbered and linked here in order (the same SHA-256 formula the single posting computes in SQL,
 * linkHash), and the head row, locked FOR UPDATE from that read to the commit, is advanced once. So a
 * batch of 500 entries is four round trips, whatever its size, and numbers stay gapless: the head's
 * row lock orders this batch against every other posting of the account, and a rollback gives the
 * numbers back as it does for one entry.
 */
export async function insertEntries(
  ctx: RequestContext,
  clientAccountId: number,
  entries: readonly BatchEntry[],
  at: Date = new Date(),
): Promise<{ id: number; sequenceNumber: number | null }[]> {
  if (!entries.length) return [];
  const ids = (
    await ctx.db.$queryRawUnsafe<{ id: number }[]>(`SELECT nextval(pg_get_serial_sequence('journal_entries', 'id'))::int AS id FROM generate_series(1, $1::int)`, entries.length)
  ).map((r) => Number(r.id));
  const anyPosted = entries.some((e) => e.posted);
  let number = 0;
  let hash = GENESIS_HASH;
  if (anyPosted) {
    // the head row exists before it is locked (a new client account's first posting), so two batches wait on one row
    await ctx.db.$executeRawUnsafe(
      'INSERT INTO ledger_chains (client_account_id, last_number, last_hash) VALUES ($1, 0, $2) ON CONFLICT (client_account_id) DO NOTHING',
      clientAccountId,
      GENESIS_HASH,
    );
    const head = await ctx.db.$queryRawUnsafe<{ last_number: number; last_hash: string }[]>(
      'SELECT last_number, last_hash FROM ledger_chains WHERE client_account_id = $1 FOR UPDATE',
      clientAccountId,
    );
    number = Number(head[0].last_number);
    hash = head[0].last_hash;
  }
  const numbers: (number | null)[] = [];
  const hashes: (string | null)[] = [];
  for (const e of entries) {
    if (!e.posted) {
      numbers.push(null);
      hashes.push(null);
      continue;
    }
    number += 1;
    hash = linkHash(hash, number, contentHash({ ...e.entry, postedAt: at, postedById: e.entry.userId }, e.lines));
    numbers.push(number);
    hashes.push(hash);
  }
  const postedAt = at.toISOString();
  const params: unknown[] = [
    clientAccountId,
    ids,
    entries.map((e) => e.entry.description),
    entries.map((e) => e.entry.voucherId),
    entries.map((e) => e.entry.relationType),
    entries.map((e) => e.entry.relationId),
    entries.map((e) => e.entry.isOpeningBalance),
    entries.map((e) => e.entry.openingBalanceYear),
    entries.map((e) => !e.posted),
    numbers,
    hashes,
    entries.map((e) => (e.posted ? postedAt : null)),
    entries.map((e) => e.entry.userId),
  ];
  const lines = entries.flatMap((e) => e.lines);
  params.push(entries.flatMap((e, i) => e.lines.map(() => ids[i])));
  const lineEntryIds = `$${params.length}::int[]`;
  const arrays = lineArrays(params, lines);
  const headUpdate = anyPosted ? `, h AS (UPDATE ledger_chains SET last_number = $${params.push(number)}::int, last_hash = $${params.push(hash)}::text WHERE client_account_id = $1)` : '';
  await ctx.db.$executeRawUnsafe(
    `WITH e AS (
       INSERT INTO journal_entries (id, client_account_id, description, voucher_id, relation_type, relation_id, reverses_entry_id, cancelled, cancellation_reason,
                                    is_opening_balance, opening_balance_year, is_draft, sequence_number, entry_hash, posted_at, posted_by_id, created_by_id, updated_by_id, updated_at)
       SELECT u.id, $1, u.description, u.voucher_id, u.relation_type, u.relation_id, NULL, NULL, NULL, u.is_opening_balance, u.opening_balance_year, u.is_draft,
              u.sequence_number, u.entry_hash, u.posted_at, CASE WHEN u.is_draft THEN NULL ELSE u.user_id END, u.user_id, u.user_id, COALESCE(u.posted_at, now())
         FROM unnest($2::int[], $3::text[], $4::int[], $5::text[], $6::int[], $7::boolean[], $8::int[], $9::boolean[], $10::int[], $11::text[], $12::timestamptz[], $13::int[])
              AS u(id, description, voucher_id, relation_type, relation_id, is_opening_balance, opening_balance_year, is_draft, sequence_number, entry_hash, posted_at, user_id)
     ),
     l AS (
       INSERT INTO journal_entry_lines (journal_entry_id, ${arrays.columns}, client_account_id)
       SELECT u.*, $1 FROM unnest(${lineEntryIds}, ${arrays.values}) AS u
     )${headUpdate}
     SELECT 1`,
    ...params,
  );
  return ids.map((id, i) => ({ id, sequenceNumber: numbers[i] }));
}
