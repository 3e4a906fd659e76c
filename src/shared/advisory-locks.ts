import type { RequestContext } from './context.ts';

/**
 * Transaction-level advisory locks (pg_advisory_xact_lock(key, id)): what serialises the writes of
 * one record or client account across server processes sharing a database, released at commit or
 * rollback. Every first key is listed here, once, so no two kinds of work share one by accident.
 * (The migrations' session lock, 72707369 in src/db/migrate.ts, is of another kind: held by a
 * process, not a transaction.)
 */
export const ADVISORY_LOCKS = {
  /** a voucher's journal entry: at most one non-cancelled entry per voucher (id: the voucher) */
  voucherEntry: 1247,
  /** the opening balances of a client account: at most one per year (id: the client account) */
  openingBalance: 1249,
  /** the invitations of a client account (id: the client account) */
  invitation: 1401,
  /** the yearly account submissions of a client account: one open per year (id: the client account) */
  yearlyAccount: 1515,
  /** the reconciliation matcher of a client account (id: the client account) */
  matcher: 7263,
  /** the SAF-T imports of a client account: one writes at a time (id: the client account) */
  saftImport: 3301,
  /** the change sequencer: one run at a time assigns positions (id: 0), src/modules/changes/changes.service.ts */
  changeSequencer: 2431,
  /** seeding the demo (id: 0) */
  demoSeed: 7265,
} as const;

export type AdvisoryLock = keyof typeof ADVISORY_LOCKS;

/** Takes the lock `lock` of `id` for the rest of the context's transaction (waits while another holds it). */
export async function lockForTransaction(tx: Pick<RequestContext, 'db'>, lock: AdvisoryLock, id: number): Promise<void> {
  await tx.db.$executeRawUnsafe('SELECT pg_advisory_xact_lock($1::int, $2::int)', ADVISORY_LOCKS[lock], id);
}

/** Takes the lock `lock` of every id, in id order (two writers of overlapping sets cannot deadlock), in one statement. */
export async function lockManyForTransaction(tx: Pick<RequestContext, 'db'>, lock: AdvisoryLock, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  await tx.db.$executeRawUnsafe(
    'SELECT pg_advisory_xact_lock($1::int, s.id) FROM (SELECT DISTINCT id FROM unnest($2::int[]) AS u(id) ORDER BY id) AS s',
    ADVISORY_LOCKS[lock],
    [...ids],
  );
}
