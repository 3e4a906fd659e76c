import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { DemoInfo } from '../../src/graphiql.ts';
import type { Admission } from '../../src/http/admission.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { startJobs, type JobRunner, type JobRunnerOptions } from '../../src/jobs/runner.ts';
import { createLogger, type Logger } from '../../src/shared/logger.ts';
import { answerClientErrors } from '../../src/http/client-errors.ts';
import { applyServerTimeouts, serverOptions } from '../../src/http/body-timeout.ts';
import { API_RATE_LIMIT, OAUTH_RATE_LIMITS, PASSWORD_CHECK_LIMIT, type RateLimitRules } from '../../src/http/rate-limit.ts';
import { createSeed, type Seed } from './seed.ts';
import { schema } from '../../src/schema.ts';
import { buildOpenApiDocument } from '../../src/openapi/openapi.ts';
import { DOCS_PATH } from '../../src/openapi/docs-route.ts';
import { createResponseValidator, type ReceivedResponse } from './openapi-validator.ts';

export type Target = 'pglite' | 'postgres';

/**
 * The databases a suite runs on (use with describe.each): PGlite always, PostgreSQL too when the run
 * has TEST_DATABASE_URL. TEST_TARGETS=pglite or =postgres narrows it (CI runs each once).
 */
export function targets(): Target[] {
  const available: Target[] = inject('postgresUrl') ? ['pglite', 'postgres'] : ['pglite'];
  const wanted = process.env.TEST_TARGETS?.split(',').map((s) => s.trim());
  return wanted ? available.filter((t) => wanted.includes(t)) : available;
}

/**
 * Where a test whose checks do not depend on the database runs, once per CI run (CI runs one suite
 * per database, TEST_TARGETS=pglite and TEST_TARGETS=postgres): on PostgreSQL, or on PGlite in a run
 * without PostgreSQL (TEST_TARGETS unset and none found). Empty in CI's PGlite suite.
 */
export function onceTargets(): Target[] {
  const all = targets();
  if (all.includes('postgres')) return ['postgres'];
  return !process.env.TEST_TARGETS ? all : [];
}

/**
 * Whether the other database's suite runs what this one leaves to it: in a run with both databases,
 * or a run that TEST_TARGETS narrows to one (CI runs a suite per database, as onceTargets() assumes),
 * not in a run on PGlite alone without TEST_TARGETS.
 */
function otherTargetRuns(): boolean {
  return targets().length === 2 || process.env.TEST_TARGETS?.split(',').filter((s) => s.trim()).length === 1;
}

/**
 * Whether a case whose checks do not depend on the database runs on `target`, where such cases are
 * shared out between the two databases instead of each sending them all: each goes to one of them by
 * a hash of its `key` (a name without ids, the same in both suites), so the suites agree without
 * talking and together run every case. Every case runs when the other suite does not
 * (otherTargetRuns()).
 */
export function sharedOut(target: Target, key: string): boolean {
  if (!otherTargetRuns()) return true;
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return ((h >>> 0) % 2 === 0) === (target === 'pglite');
}

/** The migrated PGlite template (Prisma and pg-boss schemas, reference data) as a data dir dump. */
export const pgliteTemplate = (): Blob => new Blob([readFileSync(inject('pgliteTemplate'))]);

/**
 * Opens a database of the target: a clone of the migrated PGlite template (in memory, or in
 * `dataDir` when the test reopens it like a restarted server), or the run's PostgreSQL db.
 */
export async function openTestDatabase(target: Target, options: Pick<StartOptions, 'log'> & { dataDir?: string } = {}): Promise<Database> {
  const log = options.log?.map((level) => ({ level, emit: 'event' as const }));
  if (target === 'postgres') return openDatabase({ databaseUrl: inject('postgresUrl')! }, { log });
  if (options.dataDir) {
    const fresh = !existsSync(join(options.dataDir, 'pglite', 'PG_VERSION'));
    return openDatabase({ dataDir: options.dataDir, purpose: 'test', loadDataDir: fresh ? pgliteTemplate() : undefined }, { log });
  }
  return openDatabase({ memory: true, loadDataDir: pgliteTemplate() }, { log });
}

/**
 * The PGlite database the test apps of this worker share, as every file of a PostgreSQL run shares
 * its one database: files are independent (own tenants, own rate-limit namespaces, named job queues),
 * and opening a clone of the template for each of some 150 files, with the app's start on it, was
 * about 3 s a file on a loaded machine — some 8 minutes of a PGlite run. Tests that need a database
 * of their own (a data dir reopened, query logging, a migration test) still open one
 * (openTestDatabase). Never closed: it ends with the worker.
 */
let sharedDatabase: Promise<Database> | undefined;
function sharedPglite(): Promise<Database> {
  sharedDatabase ??= openTestDatabase('pglite').catch((e: unknown) => {
    sharedDatabase = undefined;
    throw e;
  });
  return sharedDatabase;
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestApp {
  url: string;
  config: Config;
  db: Database;
  /** the app's admission gate (its stats: what is at work and waiting, per key) */
  admission: Admission;
  /** the job queue, when started with `{ jobs: true }` (or options) */
  jobs?: JobRunner;
  seed: Seed;
  /** HTTP request to the running app; `body` is sent as JSON unless it is a string */
  http<T = any>(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<HttpResult<T>>;
  /** every SQL statement Prisma sends, when started with `{ log: ['query'] }` (clear it with `length = 0`) */
  statements: string[];
  /** POST /graphql with the token */
  gql<T = any>(token: string, query: string, variables?: Record<string, unknown>): Promise<{ data?: T; errors?: { message: string; extensions?: any }[] }>;
  close(): Promise<void>;
}

/** extensions.code of the first GraphQL error (undefined when there is none) */
export const errorCode = (res: { errors?: { extensions?: { code?: string } }[] }): string | undefined => res.errors?.[0]?.extensions?.code;

let validator: ((r: ReceivedResponse) => void) | undefined;

/**
 * Every /api/v2 answer a test receives is checked against the OpenAPI document the app serves (built
 * by the same code, once per test file; schemas compiled on first use): an undocumented status or a
 * body that does not match fails the test that received it.
 */
export function checkAgainstOpenApi(r: ReceivedResponse): void {
  validator ??= createResponseValidator(buildOpenApiDocument(schema, { baseUrl: 'http://localhost' }), { ignore: DOCS_PATH });
  validator(r);
}

/**
 * Rate limits high enough that no functional test meets them, the API's too (a test file may send
 * thousands of requests with one token); the rate-limit tests use the real or small ones.
 */
const RELAXED_LIMITS = Object.fromEntries(
  Object.entries({ ...OAUTH_RATE_LIMITS, api: API_RATE_LIMIT, passwordCheck: PASSWORD_CHECK_LIMIT }).map(([name, rule]) => [name, { ...rule, limit: 1_000_000 }]),
) as RateLimitRules;

export interface StartOptions {
  log?: ('query' | 'info' | 'warn' | 'error')[];
  /**
   * 'spec' applies the app's real rate limits (spec 000's, and the API's from API_RATE_LIMIT in
   * `env`); by default they are out of reach; rules given here replace the relaxed ones they name
   */
  rateLimits?: 'spec' | 'relaxed' | Partial<RateLimitRules>;
  /** prefix of the rate-limit keys (default: one of its own); apps with the same one on one database share counts */
  rateLimitNamespace?: string;
  /** serve this open database instead of a new one (a second "process" on the same database); close() leaves it open */
  database?: Database;
  /** the app's logger (default: silent, or TEST_LOG_LEVEL) */
  logger?: Logger;
  /**
   * Start the job queue's workers (polling every 0.5 s, no cron schedules unless asked); off by
   * default. On PostgreSQL, test files running in parallel share the database: name the `queues`
   * the test works, or another file's workers may take its jobs.
   */
  jobs?: boolean | Pick<JobRunnerOptions, 'pollingIntervalSeconds' | 'schedules' | 'mailer' | 'queues'>;
  /**
   * more configuration (environment variable names), e.g. SMTP_URL. Without DATA_DIR the app gets a
   * temporary one of its own (uploaded files, the mail outbox), removed by close().
   */
  env?: Record<string, string>;
  /** the demo the app shows (GET /, GraphiQL's first query), as src/server.ts passes findDemo's answer */
  demo?: DemoInfo;
}

/**
 * Starts the real app on a free port over a test database (one per test file and target). BASE_URL is
 * the app's real address, so OAuth issuer, audiences and redirects are what a client sees.
 */
export async function startTestApp(target: Target, options: StartOptions = {}): Promise<TestApp> {
  const shared = !options.database && target === 'pglite' && !options.log;
  const db = options.database ?? (shared ? await sharedPglite() : await openTestDatabase(target, options));
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer(serverOptions, (req, res) => handler!(req, res));
  answerClientErrors(server);
  // fetch (undici) keeps an idle connection 4 s by the server's Keep-Alive hint of 5 s; on a starved
  // machine that one second was not always enough, and a request sent on a connection the server was
  // closing failed as "fetch failed" (the hostile sweep, CI). The server keeps them longer than fetch does.
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Event-loop-delay shedding is off and the queue waits 2 minutes, not 5 s: a loaded CI machine must not
  // turn functional tests into 503s (an upload weighs HEAVY_WEIGHT slots and waited past 5 s in the
  // hostile sweep on PostgreSQL). test/platform/load-shedding.test.ts and fairness.test.ts set their own.
  const ownDataDir = options.env?.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'regnskap-test-app-')) : undefined;
  // An app whose statements a test counts keeps verified session tokens for 5 minutes (the most allowed): with the 5 s
  // default a loaded machine could let the entry expire between the two requests a query-count test
  // compares, and the second would count one session lookup more (the session-cache tests set it).
  const countsStatements = options.log?.includes('query') ? { SESSION_CACHE_SECONDS: '300' } : {};
  const config = loadConfig({
    PORT: '0', LOG_LEVEL: 'silent', BASE_URL: url, REQUEST_MAX_EVENT_LOOP_DELAY_MS: '0', REQUEST_QUEUE_TIMEOUT_MS: '120000', ...countsStatements, ...(ownDataDir && { DATA_DIR: ownDataDir }), ...options.env,
  });
  applyServerTimeouts(server, config); // as src/server.ts: headers within REQUEST_BODY_TIMEOUT_MS
  const logger = options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const { express, admission, metrics, readiness } = await createApp({
    config,
    db,
    logger,
    rateLimits: options.rateLimits === 'spec' ? undefined : { ...RELAXED_LIMITS, ...(typeof options.rateLimits === 'object' ? options.rateLimits : {}) },
    rateLimitNamespace: options.rateLimitNamespace ?? `test-${randomUUID()}:`,
    demo: options.demo,
  });
  handler = express;
  const jobs = options.jobs
    ? await startJobs({ db, config, logger, metrics, pollingIntervalSeconds: 0.5, schedules: false, ...(options.jobs === true ? {} : options.jobs) })
    : undefined;
  // as src/server.ts: GET /health/ready and /metrics see the workers
  if (jobs) {
    readiness.jobs = jobs.running;
    metrics.watchJobQueue(jobs.depth);
  }

  const http: TestApp['http'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body }).catch((e: unknown) => {
      // undici's "fetch failed" says nothing of why: its cause does (a reset, a closed socket)
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`${method} ${path.slice(0, 200)}: fetch failed${cause ? `: ${cause.code ?? ''} ${cause.message ?? ''}` : ''}`, { cause: e });
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: tests assert on that */
    }
    checkAgainstOpenApi({ method, path, status: res.status, contentType: res.headers.get('content-type'), text });
    return { status: res.status, headers: res.headers, body: parsed as never, text };
  };

  const statements: string[] = [];
  if (options.log?.includes('query')) {
    // The rate limiter's counters are sent on its own timer (a batch a second, a new window a minute), not by
    // the request being counted: a flush landing during a request was one statement too many (CI, 11 vs 10).
    (db.prisma as unknown as { $on(e: 'query', cb: (e: { query: string }) => void): void }).$on('query', (e) => {
      if (!e.query.includes('rate_limit_counters')) statements.push(e.query);
    });
  }

  return {
    url,
    config,
    db,
    admission,
    jobs,
    seed: createSeed(db.prisma),
    http,
    statements,
    async gql(token, query, variables) {
      const res = await http('POST', '/graphql', { token, body: { query, variables } });
      return res.body;
    },
    async close() {
      admission.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await jobs?.stop();
      if (!options.database && !shared) await db.close();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns something other than undefined/false (jobs run in the background). */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
