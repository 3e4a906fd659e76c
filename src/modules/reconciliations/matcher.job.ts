import { defineJob, enqueue, type EnqueueOptions } from '../../jobs/jobs.ts';
import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { runMatcher } from './matcher.service.ts';
import { afterBankTransactionsArrive } from '../bank-transactions/bank-transactions.service.ts';

/**
 * Runs the automatic matcher for a client account (after bank transactions arrive). A second run of
 * the same job proposes nothing new (the matcher skips what is already in a draft), so at-least-once
 * delivery is harmless.
 */
export const matchJob = defineJob<{ clientAccountId: number }>(
  'reconciliations.match',
  async ({ clientAccountId }, { service }) => {
    try {
      const { proposed, proposals } = await runMatcher(service, { clientAccountId });
      return { proposed, reconciliationIds: proposals.map((p) => p.reconciliationId) };
    } catch (e) {
      // the client account was deleted after the job was enqueued: nothing to match, nothing to retry
      if (e instanceof NotFoundError) return { proposed: 0, reconciliationIds: [], skipped: e.message };
      throw e;
    }
  },
  { retryLimit: 3, retryDelay: 30, retryBackoff: true },
);

/** Seconds a matcher job waits, so one run covers every import of the client account in that time. */
export const MATCH_DELAY_SECONDS = 5;

/**
 * One matcher job per client account and time slot (a debounce): the singletonKey with singletonSeconds
 * makes pg-boss keep the first job of the slot and drop the rest, and the job starts only after the
 * slot has ended (startAfter = the slot's length), so it sees what every dropped enqueue was about.
 */
export const matchJobOptions = (clientAccountId: number, delaySeconds = MATCH_DELAY_SECONDS): EnqueueOptions => ({
  singletonKey: `client-account:${clientAccountId}`,
  singletonSeconds: Math.max(1, delaySeconds),
  startAfter: delaySeconds,
});

/** Enqueues the matcher for the account (inside the caller's transaction when `db` is one); null when one is already waiting. */
export const enqueueMatch = (db: Db | { db: Db; actor: unknown }, clientAccountId: number, delaySeconds?: number): Promise<string | null> =>
  enqueue(db, matchJob, { clientAccountId }, matchJobOptions(clientAccountId, delaySeconds));

// Bank transactions that arrive (POST /bank-transactions, a bank statement import) enqueue the matcher
// in the transaction that stores them, so a rolled-back import enqueues nothing.
afterBankTransactionsArrive.push(async (tx, clientAccountId) => {
  await enqueueMatch(tx, clientAccountId);
});
