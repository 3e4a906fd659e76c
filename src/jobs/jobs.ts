import type { RequestContext } from '../shared/context.ts';
import PgBoss from 'pg-boss';
import type { Config } from '../config.ts';
import type { Database, Db, Prisma } from '../db/database.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Logger } from '../shared/logger.ts';
import { prismaExecutor } from './sql.ts';

/**
 * Background jobs: a durable queue in the database (pg-boss, schema `pgboss`). A module defines a
 * job once, at import time, and enqueues it from a service, preferably inside the transaction of the
 * operation that asks for it:
 *
 *   export const sendWelcome = defineJob('users.send-welcome', async ({ userId }: { userId: number }, { prisma, mailer }) => { … },
 *     { retryLimit: 5, retryDelay: 30, retryBackoff: true });
 *   await prisma.$transaction(async (tx) => { …; await enqueue(tx, sendWelcome, { userId }); });
 *
 * Every server process works every queue (src/jobs/runner.ts); a job is fetched with
 * `FOR UPDATE SKIP LOCKED`, so it runs once however many processes share the database. A run that
 * throws, takes longer than expireInSeconds, or never ends because its process died (pg-boss's
 * supervision expires it after expireInSeconds) is retried after retryDelay seconds (doubling, with
 * jitter, when retryBackoff is set) until retryLimit retries are used up: at most 1 + retryLimit
 * runs, whatever the mix of errors and deaths. The job is then given up: its onGiveUp runs and it
 * stays `failed` with the reason as its output (see JobOptions.onGiveUp). Handlers must tolerate a
 * second run of the same job (a process can die between the work and the bookkeeping): delivery is
 * at least once.
 */

/** What a handler gets besides the job's data. */
export interface JobContext {
  prisma: Prisma;
  /** a system context on the database for calling services (src/shared/context.ts, systemContext) */
  service: RequestContext;
  config: Config;
  logger: Logger;
  mailer: Mailer;
  job: { id: string; name: string; retryCount: number; retryLimit: number; createdOn: Date };
  /** aborted when the run exceeds its time (expireInSeconds) or the process shuts down */
  signal: AbortSignal;
  /** the database the runner works on (a backup dumps the embedded one) */
  db: Database;
  /** the process's metrics, for what a job measures beyond its run (webhook delivery attempts) */
  metrics?: Pick<Metrics, 'observeWebhookAttempt'>;
}

export type JobHandler<T> = (data: T, ctx: JobContext) => Promise<unknown>;

export interface JobOptions<T extends object = any> {
  /** retries after the first run (default 2: three runs in all) */
  retryLimit?: number;
  /** seconds before a retry (default 0); with retryBackoff the first wait, doubling each time */
  retryDelay?: number;
  retryBackoff?: boolean;
  /** how long one run may take before it counts as failed (default 15 minutes) */
  expireInSeconds?: number;
  /** runs of this job at a time in each process (default 1) */
  concurrency?: number;
  /** cron expression (UTC): enqueue the job on this schedule, once for all processes; a function: from the configuration (undefined: not scheduled) */
  schedule?: string | ((config: Config) => string | undefined);
  /**
   * The job acts outside this database (sends mail, calls another service): what it does cannot be
   * rolled back, so a chat preview of a change that enqueues it says the change needs approval.
   */
  external?: boolean;
  /**
   * What to do when the job is given up, once no run is left: after the last run threw or took
   * longer than expireInSeconds (`reason` is its error message), and in place of a run when the
   * last one never ended because its process died, was killed or shut down while running it
   * (`reason` is PROCESS_STOPPED). The handler cannot do this itself in the second case: it is not
   * running any more, and a run that kills its process (a poison job) is not run again. Called at
   * least once per given-up job, with the job's data and a context like the handler's, within
   * expireInSeconds; it should be idempotent. If it throws, the job still ends `failed` (its output
   * says so). A handler that handles its own last failure (ctx.job.retryCount >= retryLimit) and
   * returns is not given up.
   */
  onGiveUp?: (data: T, ctx: JobContext, reason: string) => Promise<unknown>;
}

/** The reason a job is given up when its last run never ended (the process died, was killed or shut down). */
export const PROCESS_STOPPED = 'the process stopped while running this job';

/**
 * pg-boss's retry_limit of a job is one more than the job's retryLimit: that attempt never runs the
 * handler, it only gives the job up. pg-boss fails a job whose last run expired (its process died)
 * without any process seeing it again; the extra attempt is where a runner sees it and calls onGiveUp.
 */
export const queueRetryLimit = (retryLimit: number): number => retryLimit + 1;
/** The job's own retryLimit from pg-boss's retry_limit (see queueRetryLimit). */
export const jobRetryLimit = (queueLimit: number): number => Math.max(0, queueLimit - 1);
export const DEFAULT_RETRY_LIMIT = 2;

export interface JobDefinition<T extends object = object> {
  readonly name: string;
  readonly handler: JobHandler<T>;
  readonly options: JobOptions<T>;
}

const definitions = new Map<string, JobDefinition<any>>();

/**
 * Registers a job. Call it at module top level so the definition exists before the runner starts;
 * src/jobs/all.ts imports every module that defines jobs.
 */
export function defineJob<T extends object = Record<string, never>>(name: string, handler: JobHandler<T>, options: JobOptions<T> = {}): JobDefinition<T> {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) throw new Error(`Job name '${name}': use lower-case letters, digits, '.', '_' and '-'`);
  if (definitions.has(name)) throw new Error(`Job '${name}' is defined twice`);
  const definition: JobDefinition<T> = { name, handler, options };
  definitions.set(name, definition);
  return definition;
}

export function jobDefinitions(): JobDefinition<any>[] {
  return [...definitions.values()];
}

/** When and how (overrides of the job's retry options, as JobOptions counts them; deduplication by singletonKey, priority). */
export type EnqueueOptions = Pick<
  PgBoss.SendOptions,
  'startAfter' | 'priority' | 'singletonKey' | 'singletonSeconds' | 'retryLimit' | 'retryDelay' | 'retryBackoff' | 'expireInSeconds'
>;

/** Who watches the jobs enqueued through one transaction client (a chat preview records them). */
type EnqueueObserver = (job: JobDefinition<any>) => void;
const observers = new WeakMap<object, EnqueueObserver>();

/** Calls `observer` for every job enqueued through `db` (a transaction client) until the returned function is called. */
export function observeEnqueues(db: Db, observer: EnqueueObserver): () => void {
  observers.set(db, observer);
  return () => observers.delete(db);
}

/** Builds pg-boss's INSERT; never connects (every send names its `db`). */
let sender: PgBoss | undefined;

/** Wakes this process's workers of a job; set by the runner. */
type Waker = (name: string) => void;
const wakers = new Set<Waker>();
export function onEnqueued(waker: Waker): () => void {
  wakers.add(waker);
  return () => wakers.delete(waker);
}

/**
 * Adds a job to the queue through `db`: a transaction client puts it in that transaction (nothing
 * is enqueued if it rolls back, and workers see it only after the commit); the plain client commits
 * it at once. Also accepts anything with a `prisma` (a request context). Returns the job id, or null
 * when a singletonKey/singletonSeconds job of the same key already exists.
 *
 * Inside `$transaction(async (tx) => …)` pass `tx`, never the outer client: PGlite is one
 * connection, so a statement through the outer client waits for the transaction, which waits for
 * it (until the transaction times out).
 */
export async function enqueue<T extends object>(
  target: Db | { db: Db; actor: unknown },
  job: JobDefinition<T> | string,
  data: T,
  options: EnqueueOptions = {},
): Promise<string | null> {
  const name = typeof job === 'string' ? job : job.name;
  const definition = definitions.get(name);
  if (!definition) throw new Error(`Unknown job '${name}' (define it with defineJob and import it in src/jobs/all.ts)`);
  const db = 'actor' in target ? target.db : target;
  sender ??= new PgBoss({ db: { executeSql: () => Promise.reject(new Error('pg-boss sender has no connection of its own')) } });
  const retries = options.retryLimit === undefined ? {} : { retryLimit: queueRetryLimit(options.retryLimit) };
  const id = await sender.send(name, data, { ...options, ...retries, db: prismaExecutor(db) });
  if (id === null && options.singletonKey === undefined && options.singletonSeconds === undefined) {
    // pg-boss joins the insert with its queue table: no queue row, no job
    throw new Error(`Job queue '${name}' does not exist: the database's job schema is not migrated (migrateJobs)`);
  }
  if (id !== null) observers.get(db)?.(definition);
  // Wake this process's idle workers. Inside a transaction they find nothing yet (on PGlite they wait
  // for the commit) and poll again after their interval: no harm either way.
  if (id !== null) for (const wake of wakers) wake(name);
  return id;
}
