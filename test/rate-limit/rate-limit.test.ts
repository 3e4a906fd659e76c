import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Prisma } from '../../src/db/database.ts';
import type { Options } from 'express-rate-limit';
import { createRateLimiters, OAUTH_RATE_LIMITS, PrismaRateLimitStore, pruneRateLimitCounters, type RateLimitName, type RateLimitRule } from '../../src/http/rate-limit.ts';
import { openTestDatabase, targets } from '../support/harness.ts';

// Issue "Rate limiting": per client address, POST token 60/min, POST revoke 60/min, GET authorize
// 120/hour, POST login 60/hour, POST register 10/hour; over the limit 429 in the OAuth error shape;
// counts shared by every server process, so they live in the database. POST authorize (the consent
// form, "no limit" in issue 8 #9) gets GET's budget in a count of its own.

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Small limits so a test reaches them in a few requests. */
const SMALL: Record<RateLimitName, RateLimitRule> = {
  token: { limit: 3, windowMs: MINUTE },
  revoke: { limit: 3, windowMs: MINUTE },
  authorize: { limit: 5, windowMs: HOUR },
  consent: { limit: 4, windowMs: HOUR },
  login: { limit: 2, windowMs: HOUR },
  register: { limit: 1, windowMs: HOUR },
};

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

interface LimitedApp {
  namespace: string;
  call(method: string, path: string, headers?: Record<string, string>): Promise<Reply>;
}

const servers: Server[] = [];

/**
 * A stand-in for one server process: the OAuth paths behind one limiter set (each limiter mounted on
 * both path prefixes, as the app does), a JSON error handler like the app's, 'trust proxy' as in the
 * app so a test can pose as other addresses with X-Forwarded-For.
 */
async function startLimitedApp(prisma: Prisma, options: { namespace?: string; rules?: Record<RateLimitName, RateLimitRule> } = {}): Promise<LimitedApp> {
  const namespace = options.namespace ?? `${randomUUID()}:`;
  const limiters = createRateLimiters(prisma, { namespace, rules: options.rules ?? SMALL });
  const app = express();
  app.set('trust proxy', 'loopback');
  const ok: RequestHandler = (_req, res) => {
    res.json({ ok: true });
  };
  for (const prefix of ['/v2/oauth', '/public/v2/oauth']) {
    app.post(`${prefix}/token`, limiters.token, ok);
    app.post(`${prefix}/revoke`, limiters.revoke, ok);
    app.get(`${prefix}/authorize`, limiters.authorize, ok);
    app.post(`${prefix}/authorize`, limiters.consent, ok);
    app.post(`${prefix}/login`, limiters.login, ok);
    app.post(`${prefix}/register`, limiters.register, ok);
  }
  app.use((_err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ error: 'Internal server error', status: 500 });
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    namespace,
    async call(method, path, headers = {}) {
      const res = await fetch(url + path, { method, headers });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
  };
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('OAUTH_RATE_LIMITS', () => {
  it.each([
    ['POST token 60/min', 'token', 60, MINUTE],
    ['POST revoke 60/min', 'revoke', 60, MINUTE],
    ['GET authorize 120/hour', 'authorize', 120, HOUR],
    ['POST authorize (consent) 120/hour', 'consent', 120, HOUR],
    ['POST login 60/hour', 'login', 60, HOUR],
    ['POST register 10/hour', 'register', 10, HOUR],
  ] as const)('%s per client address', (_rule, name, limit, windowMs) => {
    expect(OAUTH_RATE_LIMITS[name]).toEqual({ limit, windowMs });
  });

  it("has exactly spec 000's five limited endpoints and the consent form", () => {
    expect(Object.keys(OAUTH_RATE_LIMITS).sort()).toEqual(['authorize', 'consent', 'login', 'register', 'revoke', 'token']);
  });
});

describe.each(targets())('database-backed rate limits (%s)', (target) => {
  let db: Database;

  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(() => db?.close());

  it('"POST login 60/hour": the (limit+1)th request → 429 {error: "rate_limit_exceeded", error_description} with Retry-After and RateLimit-* headers', async () => {
    const app = await startLimitedApp(db.prisma);
    for (const remaining of [1, 0]) {
      const res = await app.call('POST', '/v2/oauth/login');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('2');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
      expect(res.headers.get('ratelimit-policy')).toBe('2;w=3600');
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(3590);
      expect(Number(res.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(3600);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const res = await app.call('POST', '/v2/oauth/login');
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      error: 'rate_limit_exceeded',
      error_description: 'Rate limit exceeded: at most 2 requests per hour from one address',
    });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3590);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect(res.headers.get('ratelimit-limit')).toBe('2');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(3590);
  });

  it('"POST token 60/min": one count per address for /v2/oauth/token and /public/v2/oauth/token', async () => {
    const app = await startLimitedApp(db.prisma);
    expect((await app.call('POST', '/v2/oauth/token')).status).toBe(200);
    expect((await app.call('POST', '/public/v2/oauth/token')).status).toBe(200);
    expect((await app.call('POST', '/v2/oauth/token')).status).toBe(200);
    const res = await app.call('POST', '/public/v2/oauth/token');
    expect(res).toMatchObject({ status: 429, body: { error: 'rate_limit_exceeded', error_description: 'Rate limit exceeded: at most 3 requests per minute from one address' } });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const row = await db.prisma.rateLimitCounter.findUniqueOrThrow({ where: { key: `${app.namespace}token:127.0.0.1` } });
    expect(row.hits).toBe(4);
  });

  it('"counts are shared by every server process": two limiter sets on one database count together', async () => {
    // PGlite belongs to one process, so there the second "process" shares the client; on PostgreSQL
    // it has its own connection pool.
    const other = target === 'postgres' ? await openTestDatabase(target) : undefined;
    try {
      const first = await startLimitedApp(db.prisma);
      const second = await startLimitedApp((other ?? db).prisma, { namespace: first.namespace });
      expect((await first.call('GET', '/v2/oauth/authorize')).headers.get('ratelimit-remaining')).toBe('4');
      expect((await second.call('GET', '/v2/oauth/authorize')).headers.get('ratelimit-remaining')).toBe('3');
      expect((await first.call('GET', '/public/v2/oauth/authorize')).headers.get('ratelimit-remaining')).toBe('2');
      expect((await second.call('GET', '/v2/oauth/authorize')).headers.get('ratelimit-remaining')).toBe('1');
      expect((await second.call('GET', '/v2/oauth/authorize')).status).toBe(200);
      expect((await first.call('GET', '/v2/oauth/authorize')).status).toBe(429);
      expect((await second.call('GET', '/v2/oauth/authorize')).status).toBe(429);
    } finally {
      await other?.close();
    }
  });

  it('"fixed window": once reset_at has passed the next request starts a new window at 1', async () => {
    const app = await startLimitedApp(db.prisma);
    await app.call('POST', '/v2/oauth/register');
    expect((await app.call('POST', '/v2/oauth/register')).status).toBe(429);
    const key = `${app.namespace}register:127.0.0.1`;
    await db.prisma.$executeRaw`UPDATE rate_limit_counters SET reset_at = now() - interval '1 second' WHERE key = ${key}`;

    const res = await app.call('POST', '/v2/oauth/register');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(3590);
    const [row] = await db.prisma.$queryRaw<{ hits: number; open: boolean }[]>`
      SELECT hits, reset_at > now() + interval '59 minutes' AS open FROM rate_limit_counters WHERE key = ${key}`;
    expect(row).toEqual({ hits: 1, open: true });
    expect((await app.call('POST', '/v2/oauth/register')).status).toBe(429);
  });

  it('"one atomic statement per hit": 30 concurrent requests count exactly 30', async () => {
    const app = await startLimitedApp(db.prisma, { rules: { ...SMALL, token: { limit: 30, windowMs: MINUTE } } });
    const replies = await Promise.all(Array.from({ length: 30 }, () => app.call('POST', '/v2/oauth/token')));
    expect(replies.map((r) => r.status)).toEqual(Array(30).fill(200));
    const remaining = replies.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const row = await db.prisma.rateLimitCounter.findUniqueOrThrow({ where: { key: `${app.namespace}token:127.0.0.1` } });
    expect(row.hits).toBe(30);
    expect((await app.call('POST', '/v2/oauth/token')).status).toBe(429);
  });

  it('"limits per endpoint": a spent login limit leaves token, revoke, authorize, consent and register untouched', async () => {
    const app = await startLimitedApp(db.prisma);
    await app.call('POST', '/v2/oauth/login');
    await app.call('POST', '/v2/oauth/login');
    expect((await app.call('POST', '/v2/oauth/login')).status).toBe(429);
    for (const [method, path, limit] of [
      ['POST', '/v2/oauth/token', 3],
      ['POST', '/v2/oauth/revoke', 3],
      ['GET', '/v2/oauth/authorize', 5],
      ['POST', '/v2/oauth/authorize', 4],
      ['POST', '/v2/oauth/register', 1],
    ] as const) {
      const res = await app.call(method, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('ratelimit-remaining'), path).toBe(String(limit - 1));
    }
    const rows = await db.prisma.rateLimitCounter.findMany({ where: { key: { startsWith: app.namespace } }, orderBy: { key: 'asc' } });
    expect(rows.map((r) => [r.key.slice(app.namespace.length), r.hits])).toEqual([
      ['authorize:127.0.0.1', 1],
      ['consent:127.0.0.1', 1],
      ['login:127.0.0.1', 3],
      ['register:127.0.0.1', 1],
      ['revoke:127.0.0.1', 1],
      ['token:127.0.0.1', 1],
    ]);
  });

  it('"per client address": other addresses keep their own counts; IPv6 addresses count per /56', async () => {
    const app = await startLimitedApp(db.prisma);
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    await app.call('POST', '/v2/oauth/login', from('192.0.2.1'));
    await app.call('POST', '/v2/oauth/login', from('192.0.2.1'));
    expect((await app.call('POST', '/v2/oauth/login', from('192.0.2.1'))).status).toBe(429);
    expect((await app.call('POST', '/v2/oauth/login', from('192.0.2.2'))).status).toBe(200);
    expect((await app.call('POST', '/v2/oauth/login')).status).toBe(200);

    // 2001:db8::/56 holds :0:1::, :0:2a:: and :0:ff::; 2001:db8:0:100:: is the next /56
    await app.call('POST', '/v2/oauth/login', from('2001:db8:0:1::1'));
    await app.call('POST', '/v2/oauth/login', from('2001:db8:0:2a::99'));
    expect((await app.call('POST', '/v2/oauth/login', from('2001:db8:0:ff::1'))).status).toBe(429);
    expect((await app.call('POST', '/v2/oauth/login', from('2001:db8:0:100::1'))).status).toBe(200);
  });

  it('PrismaRateLimitStore: get, decrement and resetKey act on the current window of the prefixed key', async () => {
    const ns = `${randomUUID()}:`;
    const store = new PrismaRateLimitStore(db.prisma, ns);
    store.init({ windowMs: MINUTE } as Options);
    expect(await store.get('192.0.2.7')).toBeUndefined();
    await store.increment('192.0.2.7');
    expect((await store.increment('192.0.2.7')).totalHits).toBe(2);
    const info = await store.get('192.0.2.7');
    expect(info?.totalHits).toBe(2);
    expect(info!.resetTime!.getTime() - Date.now()).toBeGreaterThan(55_000);
    await store.decrement('192.0.2.7');
    expect((await store.get('192.0.2.7'))?.totalHits).toBe(1);
    await store.resetKey('192.0.2.7');
    expect(await store.get('192.0.2.7')).toBeUndefined();
    expect((await store.increment('192.0.2.7')).totalHits).toBe(1);
    expect(await db.prisma.rateLimitCounter.count({ where: { key: `${ns}192.0.2.7` } })).toBe(1);

    // a window that has ended: reset_at is timestamptz(3), so a bare now() may round up past the next
    // statement's now() on a fast machine (and the window would still be open for it)
    await db.prisma.$executeRaw`UPDATE rate_limit_counters SET reset_at = now() - interval '1 second' WHERE key = ${`${ns}192.0.2.7`}`;
    expect(await store.get('192.0.2.7')).toBeUndefined();
    await store.decrement('192.0.2.7');
    expect((await db.prisma.rateLimitCounter.findUniqueOrThrow({ where: { key: `${ns}192.0.2.7` } })).hits).toBe(1);
  });

  it('pruneRateLimitCounters deletes only counters whose window has ended', async () => {
    const ns = `${randomUUID()}:`;
    await db.prisma.$executeRaw`
      INSERT INTO rate_limit_counters (key, hits, reset_at) VALUES
        (${`${ns}expired-1`}, 5, now() - interval '1 minute'),
        (${`${ns}expired-2`}, 1, now() - interval '1 millisecond'),
        (${`${ns}open`}, 2, now() + interval '1 minute')`;
    const deleted = await pruneRateLimitCounters(db.prisma);
    // on PostgreSQL other test files' expired rows may go too
    expect(deleted).toBeGreaterThanOrEqual(2);
    const left = await db.prisma.rateLimitCounter.findMany({ where: { key: { startsWith: ns } } });
    expect(left.map((r) => [r.key, r.hits])).toEqual([[`${ns}open`, 2]]);
  });
});

describe('rate limits without a database', () => {
  it('an unreachable database fails closed: the store error reaches next(err) and the JSON error handler (500), never a pass', async () => {
    const down = await openDatabase({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none' });
    try {
      const app = await startLimitedApp(down.prisma);
      const res = await app.call('POST', '/v2/oauth/token');
      expect(res).toMatchObject({ status: 500, body: { error: 'Internal server error', status: 500 } });
    } finally {
      await down.close();
    }
  });
});
