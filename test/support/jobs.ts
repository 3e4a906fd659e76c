import { vi } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { JobRunner } from '../../src/jobs/runner.ts';
import { eventually } from './harness.ts';

/**
 * A process killed while it runs a job (kill -9, out of memory) records nothing more: the job stays
 * `active` in pgboss.job, with the started_on and retry_count of its fetch and no output, until
 * pg-boss's supervision in a live process expires it. This kills a runner that way, in the test's
 * process: it takes no job any more, and nothing it would still record reaches the database (the
 * failure stop() records for a run it abandons, a completion). Call it while the run is under way
 * (the handler waiting on something that never comes), well within the job's expireInSeconds, so
 * the runner's own time limit has not recorded the run as too slow.
 */
export async function killRunner(runner: JobRunner): Promise<void> {
  vi.spyOn(runner.boss, 'complete').mockImplementation(async () => undefined as never);
  vi.spyOn(runner.boss, 'fail').mockImplementation(async () => undefined as never);
  await runner.stop({ timeoutMs: 0 });
}

/**
 * What the restarted process's pg-boss supervision does once the dead run's time (expireInSeconds)
 * is up: its maintenance (every 2 minutes, `maintain()`, called here until it happens) expires the
 * run, counting it as a failed one; the job is then to be retried, or failed if it has no attempt left.
 */
export async function expireDeadRun(runner: JobRunner, name: string, id: string): Promise<void> {
  await eventually(async () => {
    await runner.boss.maintain();
    return (await runner.boss.getJobById(name, id))?.state !== 'active';
  }, `pg-boss expiring the dead run of job ${id}`);
}

/** A handler's "a run has begun", which the test awaits; a signal fired before anyone waits is kept. */
export interface RunSignal {
  fire(): void;
  next(): Promise<void>;
  /** takes a signal fired before anyone waited, if there is one */
  take(): boolean;
}

export function runSignal(): RunSignal {
  let pending = 0;
  let waiter: (() => void) | undefined;
  return {
    fire() {
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w();
      } else pending++;
    },
    take() {
      if (!pending) return false;
      pending--;
      return true;
    },
    next() {
      if (pending) {
        pending--;
        return Promise.resolve();
      }
      return new Promise((resolve) => (waiter = resolve));
    },
  };
}

/** The state of a job in pgboss.job (undefined when there is none). */
export async function jobState(db: Database, name: string, id: string): Promise<string | undefined> {
  return (await db.prisma.$queryRaw<{ state: string }[]>`SELECT state::text AS state FROM pgboss.job WHERE name = ${name} AND id = ${id}::uuid`)[0]?.state;
}

/**
 * Runs job `id` over process lifetimes until it ends: `start()` starts a runner (a process); when
 * `started` says the handler has begun a run, `dies(n)` (n: runs so far, from 1) decides whether the
 * process is killed during it (if not, the run ends as the handler makes it); a killed process is
 * restarted and the dead run expired. Throws after
 * `maxRestarts` (the job would be run forever). Returns how many runs began and restarts it took.
 */
export async function runThroughRestarts(options: {
  db: Database;
  start: () => Promise<JobRunner>;
  name: string;
  id: string;
  /** fired by the handler as it begins a run of this job */
  started: RunSignal;
  dies: (run: number) => boolean;
  maxRestarts?: number;
}): Promise<{ runs: number; restarts: number }> {
  const { db, start, name, id, started, dies, maxRestarts = 10 } = options;
  let runner = await start();
  let runs = 0;
  let restarts = 0;
  let done = false;
  const ended = eventually(
    async () => done || ['completed', 'failed', 'cancelled'].includes((await jobState(db, name, id)) ?? ''),
    `job ${id} to end`,
    60_000,
  ).then(() => 'ended' as const);
  ended.catch(() => undefined); // awaited below; a failing test must not leave it unhandled
  try {
    for (;;) {
      // Runs that began while the test was busy (expiring a dead run, a restarted runner fetching
      // the retry at once) are counted before the end is looked at: an already settled `ended` wins a
      // race against a signal taken in the same turn, and those runs went uncounted (CI: 1 of 3).
      const next = started.take() ? 'run' : await Promise.race([started.next().then(() => 'run' as const), ended]);
      if (next === 'ended') {
        while (started.take()) runs++;
        return { runs, restarts };
      }
      runs++;
      if (!dies(runs)) continue; // the process lives through this run
      await killRunner(runner);
      if (++restarts > maxRestarts) throw new Error(`job ${id} was still being run after ${maxRestarts} restarts`);
      runner = await start();
      await expireDeadRun(runner, name, id);
    }
  } finally {
    done = true;
    await runner.stop();
  }
}
