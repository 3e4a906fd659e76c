import type { Metrics } from '../observability/metrics.ts';
import { systemContext } from '../shared/context.ts';
import { createIntegrations } from '../integrations/integrations.ts';
import { createRequire } from 'node:module';
import PgBoss from 'pg-boss';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createMailer, type Mailer } from '../mail/mailer.ts';
import { createFileServices } from '../modules/files/file-services.ts';
import type { Logger } from '../shared/logger.ts';
import './all.ts';
import { DEFAULT_RETRY_LIMIT, jobDefinitions, jobRetryLimit, onEnqueued, PROCESS_STOPPED, queueRetryLimit, type JobContext, type JobDefinition } from './jobs.ts';
import { openExecutor, type SqlExecutor } from './sql.ts';

/**
 * Starts and stops the job queue of one process: pg-boss on the database (its schema `pgboss`,
 * migrated by pg-boss itself), one queue per defined job, and a worker loop per queue.
 *
 * The loops are ours rather than pg-boss's `work()`: each fetches one job, runs the handler with a
 * time limit, and awaits the completion or failure it records, so `stop()` knows when nothing is
 * running any more (pg-boss 10's own workers record completions without awaiting them). pg-boss
 * still does the rest: fetching with SKIP LOCKED, retries with backoff, expiry of runs whose process
 * died, archiving, and cron schedules (a schedule fires once for all processes).
 *
 * Giving up (JobOptions.onGiveUp): a job's last run that throws or takes too long is given up at
 * once. A run whose process dies leaves its job `active`; pg-boss's supervision (in any live
 * process, every 2 minutes) expires it once expireInSeconds are up, recording its own output
 * (EXPIRED below) and counting it as a failed run. Were the dead run the last, pg-boss would fail the
 * job then and there, unseen by any runner; so pg-boss's retry_limit is one more than the job's
 * (queueRetryLimit), and the attempt after the last run never runs the handler: it gives the job up
 * with PROCESS_STOPPED when pg-boss's record says the run before it never ended. A job thus runs at
 * most 1 + retryLimit times, whatever the mix of errors and deaths, and a run that kills its process
 * is not run again after the last.
 */

export interface JobRunnerOptions {
  db: Database;
  config: Config;
  logger: Logger;
  /** default: from the configuration (SMTP_URL or the outbox) */
  mailer?: Mailer;
  /** seconds an idle worker waits before asking again (default 2; an enqueue in this process wakes it at once) */
  pollingIntervalSeconds?: number;
  /** enqueue scheduled jobs from this process (default true) */
  schedules?: boolean;
  /** work only these jobs' queues (default: all); tests sharing a PostgreSQL database name theirs */
  queues?: string[];
  /** counts each run's outcome and time (GET /metrics) */
  metrics?: Pick<Metrics, 'observeJob' | 'observeWebhookAttempt'>;
}

export interface JobRunner {
  /** the pg-boss instance (getJobById, getQueues, …) */
  boss: PgBoss;
  /** Stops fetching, waits up to timeoutMs for running jobs (then fails them: retried, or given up if that was their last run), disconnects. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** whether the workers fetch jobs (false once stop was called) */
  running(): boolean;
  /** jobs waiting (created, retry) or running (active) in the shared queue, by queue and state (GET /metrics) */
  depth(): Promise<{ queue: string; state: string; count: number }[]>;
}

const QUEUE_OPTION_KEYS = ['retryDelay', 'retryBackoff', 'expireInSeconds'] as const;

/** Creates or updates the queue of every defined job (its retry options live on the queue; pg-boss's retry limit is one more, see queueRetryLimit). */
async function ensureQueues(boss: PgBoss): Promise<void> {
  for (const { name, options } of jobDefinitions()) {
    const queue: PgBoss.Queue = { name, retryLimit: queueRetryLimit(options.retryLimit ?? DEFAULT_RETRY_LIMIT) };
    for (const key of QUEUE_OPTION_KEYS) if (options[key] !== undefined) Object.assign(queue, { [key]: options[key] });
    await boss.createQueue(name, { ...queue });
    await boss.updateQueue(name, { ...queue });
  }
}

/** pg-boss's schema version (pg-boss/version.json), to tell whether a database needs migrating. */
export const JOBS_SCHEMA_VERSION: number = createRequire(import.meta.url)('pg-boss/version.json').schema;

/** One statement: pg-boss's schema is current and every defined job has its queue. */
async function jobsSchemaIsCurrent(executor: SqlExecutor): Promise<boolean> {
  const names = jobDefinitions().map((d) => d.name);
  try {
    const { rows } = await executor.executeSql(
      'SELECT (SELECT version FROM pgboss.version) AS version, (SELECT count(*)::int FROM pgboss.queue WHERE name = ANY($1::text[])) AS queues',
      [names],
    );
    return rows[0].version === JOBS_SCHEMA_VERSION && rows[0].queues === names.length;
  } catch {
    return false; // no pgboss schema yet
  }
}

/**
 * Installs or upgrades pg-boss's schema and creates the queues of the defined jobs, without
 * starting workers: in the admin CLI (so commands can enqueue), npm run migrate and the test
 * template. When all is in place it costs one statement (each CLI run pays it); changed retry
 * options of an existing queue are then applied by the next startJobs, which always updates them.
 */
export async function migrateJobs(db: Database, logger: Logger): Promise<void> {
  const executor = openExecutor(db, logger);
  try {
    if (await jobsSchemaIsCurrent(executor)) return;
    const boss = new PgBoss({ db: executor, supervise: false, schedule: false });
    boss.on('error', (err) => logger.warn({ err }, 'job queue migration error'));
    await boss.start();
    await ensureQueues(boss);
    await boss.stop({ graceful: false, close: false });
  } finally {
    await executor.close();
  }
}

/** Lets statements through until closed; close() then waits for those under way. Afterwards pg-boss gets no result, as from its own closed pool. */
function gate(executor: SqlExecutor): SqlExecutor & { close(): Promise<void> } {
  let open = true;
  const underWay = new Set<Promise<unknown>>();
  return {
    executeSql(text, values) {
      if (!open) return Promise.resolve(undefined as never);
      const p = executor.executeSql(text, values);
      underWay.add(p);
      p.then(
        () => underWay.delete(p),
        () => underWay.delete(p),
      );
      return p;
    },
    async close() {
      open = false;
      await Promise.allSettled([...underWay]);
    },
  };
}

/** A wait that a wake-up cuts short; a wake-up while awake makes the next wait return at once. */
function sleeper() {
  let pending = false;
  let cut: (() => void) | undefined;
  return {
    sleep(ms: number): Promise<void> {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          cut = undefined;
          resolve();
        }
        cut = done;
      });
    },
    wake() {
      if (cut) cut();
      else pending = true;
    },
  };
}

interface Running {
  definition: JobDefinition<any>;
  jobId: string;
  controller: AbortController;
  abandoned: boolean;
}

/** pg-boss's output of a run it expired (plans.js, failJobsByTimeout): the run never ended, its process died or hung. */
const EXPIRED = 'job failed by timeout in active state';
/** The output stop() records for a run it abandons: that run never ended either. */
const SHUT_DOWN = 'The server shut down while the job ran';

/** Whether pg-boss's record of a job's previous run (its output) says that run never ended. */
function previousRunDidNotEnd(output: unknown): boolean {
  const o = output as { message?: unknown; value?: { message?: unknown } } | null | undefined;
  return o?.value?.message === EXPIRED || o?.message === SHUT_DOWN;
}

/** The message of an error, or of a recorded output ({ message } or pg-boss's { value: { message } }). */
function messageOf(e: unknown): string | undefined {
  if (e instanceof Error) return e.message;
  const o = e as { message?: unknown; value?: { message?: unknown } } | null | undefined;
  const message = o?.message ?? o?.value?.message;
  if (typeof message === 'string') return message;
  return e === undefined || e === null ? undefined : typeof e === 'object' ? JSON.stringify(e) : String(e);
}

function withTimeLimit<T>(work: Promise<T>, seconds: number, controller: AbortController): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`The run took longer than its ${seconds} s`);
      controller.abort(error);
      reject(error);
    }, seconds * 1000);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

export async function startJobs(options: JobRunnerOptions): Promise<JobRunner> {
  const { db, config, logger } = options;
  const worked = jobDefinitions().filter((d) => !options.queues || options.queues.includes(d.name));
  const unknown = options.queues?.filter((name) => !worked.some((d) => d.name === name));
  if (unknown?.length) throw new Error(`No such jobs: ${unknown.join(', ')}`);
  const pollMs = (options.pollingIntervalSeconds ?? 2) * 1000;
  const schedules = options.schedules ?? true;
  const ownMailer = !options.mailer;
  const mailer = options.mailer ?? createMailer(config);
  const files = await createFileServices(config, db.prisma, logger);
  const integrations = createIntegrations(config.integrations);
  const executor = openExecutor(db, logger);
  const sql = gate(executor);
  let stopping = false;
  const boss = new PgBoss({ db: sql, supervise: true, schedule: schedules });
  boss.on('error', (err) => {
    if (!stopping) logger.warn({ err }, 'job queue error');
  });
  try {
    await boss.start();
    await ensureQueues(boss);
    for (const { name, options: o } of schedules ? jobDefinitions() : []) {
      const schedule = typeof o.schedule === 'function' ? o.schedule(config) : o.schedule;
      if (schedule) await boss.schedule(name, schedule, {}, { tz: 'UTC' });
      else await boss.unschedule(name); // a schedule an earlier version defined
    }
  } catch (e) {
    stopping = true;
    await boss.stop({ graceful: false, close: false }).catch(() => undefined);
    await executor.close();
    throw e;
  }

  const sleepers = new Map<string, ReturnType<typeof sleeper>[]>();
  const running = new Set<Running>();

  async function run(definition: JobDefinition<any>, job: PgBoss.JobWithMetadata<object>): Promise<void> {
    const entry: Running = { definition, jobId: job.id, controller: new AbortController(), abandoned: false };
    running.add(entry);
    const started = performance.now();
    let outcome: 'completed' | 'failed' | 'given_up' | undefined;
    const retryLimit = jobRetryLimit(job.retryLimit);
    const log = logger.child({ job: job.name, jobId: job.id });
    const seconds = Number(job.expireInSeconds);
    const context = (): JobContext => ({
      prisma: db.prisma,
      db,
      service: systemContext(db.prisma, { logger: log, files, integrations }),
      config,
      logger: log,
      mailer,
      job: { id: job.id, name: job.name, retryCount: job.retryCount, retryLimit, createdOn: job.createdOn },
      signal: entry.controller.signal,
      metrics: options.metrics,
    });

    /** Calls onGiveUp, then fails the job for good: no retry, whatever pg-boss's retry_limit. */
    async function giveUp(reason: string, error?: unknown): Promise<void> {
      let output: object = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { message: reason };
      const { onGiveUp } = definition.options;
      if (onGiveUp) {
        entry.controller = new AbortController(); // the run's may be aborted (its time was up)
        try {
          await withTimeLimit(Promise.resolve().then(() => onGiveUp(job.data, context(), reason)), seconds, entry.controller);
        } catch (err) {
          if (entry.abandoned) return;
          log.error({ err, reason }, 'onGiveUp failed; the job is failed all the same');
          output = { message: reason, onGiveUpError: messageOf(err) };
        }
      }
      if (entry.abandoned) return;
      try {
        // pg-boss's fail() would retry a last run (its retry_limit is one more) and leaves no way to say
        // "no retry": one statement of ours ends the job as fail() does one without retries left
        // (we use no dead-letter queues). Not `state = 'active'` only: if pg-boss's supervision has
        // just expired the run, the job must not be given up a second time either.
        await sql.executeSql(
          `UPDATE pgboss.job SET state = 'failed', completed_on = now(), output = $3::jsonb WHERE name = $1 AND id = $2::uuid AND state < 'completed'`,
          [job.name, job.id, JSON.stringify(output)],
        );
      } catch (err) {
        log.error({ err }, 'could not record that the job was given up; the run expires and the job is given up again');
      }
    }

    try {
      if (job.retryCount > retryLimit) {
        // Every run is used up: this is pg-boss's extra attempt (queueRetryLimit), never a run. The
        // run before it normally never ended (the last run's failures are given up at once).
        const reason = previousRunDidNotEnd(job.output) ? PROCESS_STOPPED : (messageOf(job.output) ?? PROCESS_STOPPED);
        log.warn({ reason, retryCount: job.retryCount, retryLimit }, 'the job has no run left: giving it up');
        outcome = 'given_up';
        await giveUp(reason);
        return;
      }
      if (job.retryCount > 0 && previousRunDidNotEnd(job.output)) {
        log.warn({ retryCount: job.retryCount, retryLimit }, 'the previous run of this job never ended (its process stopped); running it again');
      }
      let output: unknown;
      try {
        output = await withTimeLimit(
          Promise.resolve().then(() => definition.handler(job.data, context())),
          seconds,
          entry.controller,
        );
      } catch (err) {
        if (entry.abandoned) return;
        if (job.retryCount >= retryLimit) {
          log.warn({ err, retryCount: job.retryCount, retryLimit }, 'job failed for the last time: giving it up');
          outcome = 'given_up';
          await giveUp(messageOf(err) ?? 'the job failed', err);
          return;
        }
        outcome = 'failed';
        log.warn({ err, retryCount: job.retryCount, retryLimit }, 'job failed; it will be retried');
        await boss.fail(job.name, job.id, err instanceof Error ? err : { value: String(err) }).catch((e: unknown) => log.error({ err: e }, 'could not record the failure; the run expires and is retried'));
        return;
      }
      outcome = 'completed';
      await boss.complete(job.name, job.id, output !== null && typeof output === 'object' ? output : undefined);
    } finally {
      running.delete(entry);
      if (outcome) options.metrics?.observeJob(job.name, outcome, (performance.now() - started) / 1000);
    }
  }

  async function workLoop(definition: JobDefinition<any>): Promise<void> {
    const nap = sleeper();
    sleepers.set(definition.name, [...(sleepers.get(definition.name) ?? []), nap]);
    while (!stopping) {
      // pg-boss answers [] when the fetch fails (and logs nothing): the next poll tries again
      const [job] = await boss.fetch<object>(definition.name, { includeMetadata: true });
      if (job) await run(definition, job).catch((err: unknown) => logger.error({ err, job: definition.name }, 'job bookkeeping failed'));
      else await nap.sleep(pollMs);
    }
  }

  const loops = worked.flatMap((d) => Array.from({ length: d.options.concurrency ?? 1 }, () => workLoop(d)));
  const stopWaking = onEnqueued((name) => sleepers.get(name)?.forEach((s) => s.wake()));

  let stopped: Promise<void> | undefined;
  return {
    boss,
    running: () => !stopping,
    depth: async () => {
      const result = await sql.executeSql(
        `SELECT name, state::text, count(*)::int AS count FROM pgboss.job WHERE state IN ('created', 'retry', 'active') GROUP BY name, state`,
        [],
      );
      // every defined queue in every such state, 0 unless counted: a series does not vanish when its queue empties
      const counts = new Map(jobDefinitions().flatMap((d) => ['created', 'retry', 'active'].map((state) => [`${d.name}\0${state}`, 0] as [string, number])));
      for (const r of (result?.rows ?? []) as { name: string; state: string; count: number }[]) counts.set(`${r.name}\0${r.state}`, Number(r.count));
      return [...counts].map(([key, count]) => {
        const [queue, state] = key.split('\0');
        return { queue, state, count };
      });
    },
    stop: ({ timeoutMs = 10_000 } = {}) =>
      (stopped ??= (async () => {
        stopping = true;
        stopWaking();
        for (const list of sleepers.values()) list.forEach((s) => s.wake());
        let timer: NodeJS.Timeout | undefined;
        const finished = await Promise.race([
          Promise.all(loops).then(() => true),
          new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
        ]);
        clearTimeout(timer);
        if (!finished) {
          for (const entry of running) {
            entry.abandoned = true;
            entry.controller.abort(new Error('The server is shutting down'));
            // counts as a run that never ended: retried, or given up with PROCESS_STOPPED if it was the last
            await boss.fail(entry.definition.name, entry.jobId, { message: SHUT_DOWN }).catch(() => undefined);
          }
        }
        await boss.stop({ graceful: false, close: false });
        await sql.close();
        await executor.close();
        if (ownMailer) mailer.close();
      })()),
  };
}
