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
import { jobDefinitions, onEnqueued, type JobContext, type JobDefinition } from './jobs.ts';
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
}

export interface JobRunner {
  /** the pg-boss instance (getJobById, getQueues, …) */
  boss: PgBoss;
  /** Stops fetching, waits up to timeoutMs for running jobs (then fails them, so they are retried), disconnects. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

const QUEUE_OPTION_KEYS = ['retryLimit', 'retryDelay', 'retryBackoff', 'expireInSeconds'] as const;

/** Creates or updates the queue of every defined job (its retry options live on the queue). */
async function ensureQueues(boss: PgBoss): Promise<void> {
  for (const { name, options } of jobDefinitions()) {
    const queue: PgBoss.Queue = { name };
    for (const key of QUEUE_OPTION_KEYS) if (options[key] !== undefined) Object.assign(queue, { [key]: options[key] });
    await boss.createQueue(name, { ...queue });
    await boss.updateQueue(name, { ...queue });
  }
}

/** pg-boss's schema version (pg-boss/version.json), to tell whether a database needs migrating. */
const SCHEMA_VERSION: number = createRequire(import.meta.url)('pg-boss/version.json').schema;

/** One statement: pg-boss's schema is current and every defined job has its queue. */
async function jobsSchemaIsCurrent(executor: SqlExecutor): Promise<boolean> {
  const names = jobDefinitions().map((d) => d.name);
  try {
    const { rows } = await executor.executeSql(
      'SELECT (SELECT version FROM pgboss.version) AS version, (SELECT count(*)::int FROM pgboss.queue WHERE name = ANY($1::text[])) AS queues',
      [names],
    );
    return rows[0].version === SCHEMA_VERSION && rows[0].queues === names.length;
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
  const files = await createFileServices(config, db.prisma);
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
      if (o.schedule) await boss.schedule(name, o.schedule, {}, { tz: 'UTC' });
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
    const controller = new AbortController();
    const entry: Running = { definition, jobId: job.id, controller, abandoned: false };
    running.add(entry);
    const log = logger.child({ job: job.name, jobId: job.id });
    const ctx: JobContext = {
      prisma: db.prisma,
      service: systemContext(db.prisma, { logger: log, files, integrations }),
      config,
      logger: log,
      mailer,
      job: { id: job.id, name: job.name, retryCount: job.retryCount, retryLimit: job.retryLimit, createdOn: job.createdOn },
      signal: controller.signal,
    };
    try {
      const output = await withTimeLimit(
        Promise.resolve().then(() => definition.handler(job.data, ctx)),
        Number(job.expireInSeconds),
        controller,
      );
      await boss.complete(job.name, job.id, output !== null && typeof output === 'object' ? output : undefined);
    } catch (err) {
      if (entry.abandoned) return;
      const last = job.retryCount >= job.retryLimit;
      log.warn({ err, retryCount: job.retryCount, retryLimit: job.retryLimit }, last ? 'job failed for the last time' : 'job failed; it will be retried');
      await boss.fail(job.name, job.id, err instanceof Error ? err : { value: String(err) }).catch((e: unknown) => log.error({ err: e }, 'could not record the failure; the run expires and is retried'));
    } finally {
      running.delete(entry);
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
            await boss.fail(entry.definition.name, entry.jobId, { message: 'The server shut down while the job ran' }).catch(() => undefined);
          }
        }
        await boss.stop({ graceful: false, close: false });
        await sql.close();
        await executor.close();
        if (ownMailer) mailer.close();
      })()),
  };
}
