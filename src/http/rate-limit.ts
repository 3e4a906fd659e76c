import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type ClientRateLimitInfo, type Logger as RateLimitLogger, type Options, type Store } from 'express-rate-limit';
import type { Prisma } from '../db/database.ts';
import type { AttemptLimiter, RequestContext } from '../shared/context.ts';
import { RateLimitedError } from '../shared/errors.ts';

/**
 * Rate limits, counted in the database (rate_limit_counters) so that every server process on the
 * same PostgreSQL shares one count: the OAuth endpoints' per client address, the API's per user
 * (/api/v2, /graphql and /mcp together) and changePassword's password checks per user.
 *
 * Fixed windows: a key's first hit opens a window of `windowMs`; hits in it are counted; the first
 * hit after it ends starts again at 1. Every decision uses the database clock (`now()`), never the
 * Node clock, so processes whose clocks disagree still agree on the windows.
 */

export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The OAuth endpoints' limits per client address (issue: "Rate limiting"). */
export const OAUTH_RATE_LIMITS = {
  /** POST /v2/oauth/token */
  token: { limit: 60, windowMs: MINUTE },
  /** POST /v2/oauth/revoke */
  revoke: { limit: 60, windowMs: MINUTE },
  /** GET /v2/oauth/authorize */
  authorize: { limit: 120, windowMs: HOUR },
  /**
   * POST /v2/oauth/authorize, the consent form (not in spec 000's table): its own count with GET's
   * budget, as every submission follows a consent page, so a real flow never meets it before GET's.
   */
  consent: { limit: 120, windowMs: HOUR },
  /** POST /v2/oauth/login */
  login: { limit: 60, windowMs: HOUR },
  /** POST /v2/oauth/register */
  register: { limit: 10, windowMs: HOUR },
} as const satisfies Record<string, RateLimitRule>;

export type RateLimitName = keyof typeof OAUTH_RATE_LIMITS;

/**
 * Requests per user to /api/v2, /graphql and /mcp together, by default (API_RATE_LIMIT,
 * API_RATE_LIMIT_WINDOW_SECONDS): Visma eAccounting's published 600 per minute.
 */
export const API_RATE_LIMIT: RateLimitRule = { limit: 600, windowMs: MINUTE };

/**
 * changePassword's check of the current password, per user. Every attempt counts, right or wrong:
 * a stolen session token must not become a password oracle (and a way to lock the owner out), while
 * a person changing their password needs a handful of tries a year.
 */
export const PASSWORD_CHECK_LIMIT: RateLimitRule = { limit: 10, windowMs: HOUR };

/** Every limit of the app; `api: null` turns the API limit off. */
export type RateLimitRules = Record<RateLimitName, RateLimitRule> & { api: RateLimitRule | null; passwordCheck: RateLimitRule };

interface CounterRow {
  hits: number;
  reset_at: Date;
  db_now: Date;
}

/**
 * express-rate-limit's Store on the rate_limit_counters table. Keys are stored as `prefix + key`;
 * give each limiter its own prefix (express-rate-limit also uses it to tell limiters apart in its
 * double-count check).
 */
export class PrismaRateLimitStore implements Store {
  /** Counts live in the database: another instance (or process) with the same prefix shares them. */
  readonly localKeys = false;

  /** `windowMs`: until express-rate-limit's init() sets it (a store used without a middleware keeps it) */
  constructor(
    private readonly prisma: Prisma,
    readonly prefix: string,
    private windowMs = MINUTE,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  /**
   * One atomic statement: insert the key's first `hits`, or count them in the current window, or
   * start a new window with them when the stored one has ended. Concurrent increments of one key serialise on
   * the row (ON CONFLICT DO UPDATE), so none is lost.
   */
  async increment(key: string, hits = 1): Promise<ClientRateLimitInfo> {
    const [row] = await this.prisma.$queryRaw<CounterRow[]>`
      INSERT INTO rate_limit_counters AS c (key, hits, reset_at)
      VALUES (${this.prefix + key}, ${hits}, now() + ${this.windowMs}::double precision * interval '1 millisecond')
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN c.reset_at <= now() THEN EXCLUDED.hits ELSE c.hits + EXCLUDED.hits END,
        reset_at = CASE WHEN c.reset_at <= now() THEN EXCLUDED.reset_at ELSE c.reset_at END
      RETURNING c.hits, c.reset_at, now() AS db_now`;
    return { totalHits: row.hits, resetTime: this.localResetTime(row) };
  }

  async decrement(key: string): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE rate_limit_counters SET hits = hits - 1
      WHERE key = ${this.prefix + key} AND hits > 0 AND reset_at > now()`;
  }

  async resetKey(key: string): Promise<void> {
    await this.prisma.$executeRaw`DELETE FROM rate_limit_counters WHERE key = ${this.prefix + key}`;
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const [row] = await this.prisma.$queryRaw<CounterRow[]>`
      SELECT hits, reset_at, now() AS db_now FROM rate_limit_counters
      WHERE key = ${this.prefix + key} AND reset_at > now()`;
    return row && { totalHits: row.hits, resetTime: this.localResetTime(row) };
  }

  /**
   * express-rate-limit turns resetTime into RateLimit-Reset and Retry-After by subtracting
   * Date.now(). Hand it the database's reset moment shifted onto this process' clock, so the seconds
   * it prints are the database's remaining window even when the two clocks disagree. Capped at the
   * window: reset_at is rounded to milliseconds (timestamptz(3)) while now() has microseconds, so
   * the difference can exceed the window by 1 ms, and a 3600 s window would advertise 3601.
   */
  private localResetTime(row: CounterRow): Date {
    const remainingMs = Math.min(row.reset_at.getTime() - row.db_now.getTime(), this.windowMs);
    return new Date(Date.now() + remainingMs);
  }
}

/**
 * The API limit's store: counts in this process first and sends them to the database in batches,
 * so a request under its limit costs no statement (one upsert per request was the largest cost of a
 * minimal request). Per key it knows the shared count as of its last exchange with the database
 * (`synced`), what it has sent and awaits (`inFlight`) and what it has counted since (`pending`):
 *
 * - a key's first hit of a window, and every hit once the known total is within `hold` of the limit,
 *   is counted in the database before it is answered (with the pending hits), so near the limit the
 *   decision is the database's, exactly as with PrismaRateLimitStore;
 * - below that, a hit is counted here and answered at once; pending hits are sent after `flushMs`,
 *   or before the next hit once `hold` of them wait.
 *
 * `hold` is 5% of the limit (0 below 20: small limits are counted in the database every time). One
 * process alone is exact. Several processes on one database each hold at most `hold` unsent hits
 * for at most `flushMs`, so together they may admit up to `hold` per other process beyond the limit
 * before they see each other's counts. Exchanges of one key run one after another. Hits still
 * pending when a process stops, or whose batch the database refused, are not counted (the limit is a
 * safeguard; failing closed stays with the hits that are sent before they are answered).
 */
export class BatchedRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private readonly entries = new Map<string, BatchedEntry>();
  /** the rule's limit, and how many hits may wait unsent below it */
  private readonly limit: number;
  private readonly hold: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly inner: PrismaRateLimitStore,
    rule: RateLimitRule,
    private readonly flushMs = 1000,
    private readonly onError: (e: unknown) => void = () => {},
  ) {
    this.prefix = inner.prefix;
    this.limit = rule.limit;
    this.hold = Math.floor(rule.limit / 20);
  }

  init(options: Options): void {
    this.inner.init(options);
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    return this.hit(key);
  }

  /** increment, answered synchronously when the hit is counted in the process (no promise, no tick) */
  hit(key: string): ClientRateLimitInfo | Promise<ClientRateLimitInfo> {
    const now = Date.now();
    let e = this.entries.get(key);
    if (e && e.resetAt <= now) {
      e.pending = 0; // hits of an ended window are not carried into the next
      e.synced = 0;
    }
    if (!e) this.entries.set(key, (e = { synced: 0, inFlight: 0, pending: 0, resetAt: 0, chain: Promise.resolve() }));
    const known = e.synced + e.inFlight + e.pending;
    if (e.resetAt > now && known + 1 <= this.limit - this.hold && e.pending < this.hold) {
      e.pending++;
      this.timer ??= setTimeout(() => this.flush(), this.flushMs).unref();
      return { totalHits: known + 1, resetTime: new Date(e.resetAt) };
    }
    // this hit is the last of its batch: the database's total is its place in the count
    return this.exchange(key, e, 1);
  }

  /** Sends the key's pending hits plus `extra` (this request's), after any exchange of the key still running. */
  private exchange(key: string, e: BatchedEntry, extra: number): Promise<ClientRateLimitInfo> {
    const run = async () => {
      const hits = e.pending + extra;
      e.pending = 0;
      e.inFlight = hits;
      try {
        const info = await this.inner.increment(key, hits);
        e.synced = info.totalHits;
        e.resetAt = info.resetTime?.getTime() ?? 0;
        return info;
      } finally {
        e.inFlight = 0;
      }
    };
    const result = e.chain.then(run, run);
    e.chain = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /** Sends every key's pending hits; forgets keys whose window has ended. */
  private flush(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const [key, e] of this.entries) {
      if (e.pending > 0 && e.resetAt > now) this.exchange(key, e, 0).catch(this.onError);
      else if (e.resetAt <= now && e.inFlight === 0) this.entries.delete(key);
    }
  }

  async decrement(key: string): Promise<void> {
    const e = this.entries.get(key);
    if (e && e.pending > 0) e.pending--;
    else await this.inner.decrement(key);
  }

  async resetKey(key: string): Promise<void> {
    this.entries.delete(key);
    await this.inner.resetKey(key);
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const info = await this.inner.get(key);
    const e = this.entries.get(key);
    return info && { totalHits: info.totalHits + (e ? e.inFlight + e.pending : 0), resetTime: info.resetTime };
  }
}

interface BatchedEntry {
  /** the database's count at the last exchange (this process' sent hits and every other process') */
  synced: number;
  /** hits sent in the exchange running now */
  inFlight: number;
  /** hits counted here and not sent yet */
  pending: number;
  /** end of the window, on this process' clock; 0 before the first exchange */
  resetAt: number;
  /** the key's exchanges, one after another */
  chain: Promise<void>;
}

/** Deletes counters whose window has ended (the periodic cleanup job); returns how many. */
export async function pruneRateLimitCounters(prisma: Prisma): Promise<number> {
  return prisma.$executeRaw`DELETE FROM rate_limit_counters WHERE reset_at <= now()`;
}

/** Seconds until `resetTime`, rounded up, as express-rate-limit prints Retry-After. */
const secondsUntil = (resetTime: Date | undefined, windowMs: number): number =>
  Math.max(0, Math.ceil(((resetTime?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));

/** "minute", "hour", "2 minutes", "90 seconds": the window as the 429 message words it. */
function describeWindow(ms: number): string {
  const units: [number, string][] = [
    [HOUR, 'hour'],
    [MINUTE, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, unit] of units) {
    if (ms % size === 0) {
      const n = ms / size;
      return n === 1 ? unit : `${n} ${unit}s`;
    }
  }
  return `${ms} milliseconds`;
}

/** draft-6 RateLimit-* headers, no X-RateLimit-*, and fail closed (see createRateLimiters) */
const COMMON = { standardHeaders: 'draft-6', legacyHeaders: false, passOnStoreError: false } as const;

export interface RateLimitOptions {
  /** limits per name; OAUTH_RATE_LIMITS unless given (tests use small ones) */
  rules?: Record<RateLimitName, RateLimitRule>;
  /** prepended to every key, e.g. to keep test runs on a shared database apart; '' by default */
  namespace?: string;
  /** where express-rate-limit reports misconfiguration (pino fits); the console by default */
  logger?: RateLimitLogger;
}

/**
 * One middleware per limit name. Mount one instance on every path of an endpoint (/v2/oauth/token
 * and /public/v2/oauth/token) so they share one count per address. The stored key is
 * `${namespace}${name}:${address}`, with IPv6 addresses reduced to their /56 by ipKeyGenerator (one
 * IPv6 client usually holds a whole prefix). A request over the limit gets 429 in the OAuth error
 * shape with Retry-After; every limited response carries RateLimit-Limit, RateLimit-Remaining,
 * RateLimit-Reset and RateLimit-Policy (draft-6 headers).
 *
 * When the database cannot be reached the store's error goes to next(err) (express-rate-limit's
 * passOnStoreError: false) and the app's error handler answers 500 JSON and logs it: we fail closed,
 * as the limited endpoints need the same database to do anything anyway, and failing open would turn
 * an outage into an unthrottled password-guessing window.
 */
export function createRateLimiters(prisma: Prisma, options: RateLimitOptions = {}): Record<RateLimitName, RequestHandler> {
  const rules = options.rules ?? OAUTH_RATE_LIMITS;
  const namespace = options.namespace ?? '';
  const limiters = {} as Record<RateLimitName, RequestHandler>;
  for (const name of Object.keys(OAUTH_RATE_LIMITS) as RateLimitName[]) {
    const { limit, windowMs } = rules[name];
    const body = {
      error: 'rate_limit_exceeded',
      error_description: `Rate limit exceeded: at most ${limit} request${limit === 1 ? '' : 's'} per ${describeWindow(windowMs)} from one address`,
    };
    limiters[name] = rateLimit({
      windowMs,
      limit,
      store: new PrismaRateLimitStore(prisma, `${namespace}${name}:`),
      // req.ip honours the app's 'trust proxy'; it is undefined only once the socket is gone.
      keyGenerator: (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown'),
      ...COMMON,
      handler: (_req, res) => {
        res.status(429).json(body);
      },
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }
  return limiters;
}

/**
 * The API limit, mounted after the bearer middleware of /api/v2, /graphql and /mcp: one instance, so
 * one count per user whichever entry point (and whatever token: session, authorization code or a
 * client_credentials client, which acts for its owner) the requests use; `${namespace}api:user:<id>`.
 * /graphql without a token (introspection only) counts per client address instead
 * (`api:address:<ip>`, IPv6 per /56). Requests without a request context (the GraphiQL page) and
 * the public docs, mounted before, are not counted: they do not touch the database.
 *
 * Every counted response carries RateLimit-Limit, -Remaining, -Reset and -Policy; over the limit the
 * RateLimitedError (429, Retry-After) goes to the app's error renderer, which writes it in the entry
 * point's shape: {error, status} or the v2 envelope on /api/v2, a GraphQL error with extensions.code
 * and retryAfter on /graphql, the OAuth shape on /mcp. Fails closed when the database is down, like
 * the OAuth limits. `rule` null: no limit (a pass-through).
 */
export function createApiRateLimiter(prisma: Prisma, rule: RateLimitRule | null, options: Omit<RateLimitOptions, 'rules'> = {}): RequestHandler {
  if (!rule) return (_req, _res, next) => next();
  const { limit, windowMs } = rule;
  const per = `at most ${limit} request${limit === 1 ? '' : 's'} per ${describeWindow(windowMs)}`;
  const actorOf = (req: Request) => (req as Request & { ctx?: RequestContext }).ctx?.actor;
  const store = new BatchedRateLimitStore(new PrismaRateLimitStore(prisma, `${options.namespace ?? ''}api:`, windowMs), rule, 1000, (e) =>
    options.logger?.warn(`API rate limit: a batch of counts was not stored: ${(e as Error).message}`),
  );
  // The draft-6 headers exactly as express-rate-limit writes them for the OAuth limits. This limit
  // runs on every API request, so it is written out here: a hit counted in the process is answered
  // without a promise, where express-rate-limit awaited five steps per request.
  const policy = `${limit};w=${Math.ceil(windowMs / 1000)}`;
  const answer = (req: Request, res: Response, next: NextFunction, { totalHits, resetTime }: ClientRateLimitInfo) => {
    const reset = secondsUntil(resetTime, windowMs);
    if (!res.headersSent) {
      res.setHeader('RateLimit-Policy', policy);
      res.setHeader('RateLimit-Limit', String(limit));
      res.setHeader('RateLimit-Remaining', String(Math.max(limit - totalHits, 0)));
      res.setHeader('RateLimit-Reset', String(reset));
    }
    if (totalHits <= limit) return next();
    const anonymous = actorOf(req)!.tokenKind === 'anonymous';
    res.setHeader('Retry-After', String(reset));
    next(new RateLimitedError(reset, `Rate limit exceeded: ${per} ${anonymous ? 'from one address without a token' : 'for one user'}`));
  };
  return (req, res, next) => {
    const actor = actorOf(req);
    if (!actor) return next();
    const key = actor.tokenKind === 'anonymous' ? `address:${ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown')}` : `user:${actor.userId}`;
    let counted: ClientRateLimitInfo | Promise<ClientRateLimitInfo>;
    try {
      counted = store.hit(key);
    } catch (e) {
      return next(e);
    }
    // fails closed: a store error goes to the error renderer (500), as with the OAuth limits
    if (counted instanceof Promise) counted.then((info) => answer(req, res, next, info), next);
    else answer(req, res, next, counted);
  };
}

/**
 * A limit a service applies itself, where no middleware sees the operation (changePassword is one
 * field of a GraphQL document, also reachable through MCP's graphql_mutation). `hit(key)` counts one
 * attempt under `${prefix}${key}` on the app's own client, outside any transaction the service runs,
 * so a failed attempt that rolls back still counts; over the limit it throws RateLimitedError.
 */
export function createAttemptLimiter(prisma: Prisma, prefix: string, rule: RateLimitRule, what: string): AttemptLimiter {
  const store = new PrismaRateLimitStore(prisma, prefix, rule.windowMs);
  const message = `Too many ${what}: at most ${rule.limit} per ${describeWindow(rule.windowMs)}`;
  return {
    async hit(key) {
      const { totalHits, resetTime } = await store.increment(key);
      if (totalHits > rule.limit) throw new RateLimitedError(secondsUntil(resetTime, rule.windowMs), message);
    },
  };
}
