import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { API_RATE_LIMIT, PASSWORD_CHECK_LIMIT, type RateLimitRules } from '../../src/http/rate-limit.ts';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import { oauthKit, PASSWORD } from '../support/oauth.ts';

// Issue 8 #9: "POST authorize, changePassword (password guessing with a session token) and the whole
// API (/api/v2, /graphql, /mcp) have no limit: add a per-user (per token subject) limit on the API
// with a sensible default (e.g. 600 requests/minute, Visma's published limit), configurable, shared
// across processes like the OAuth limits, with RateLimit-* headers and 429 + Retry-After, and a
// stricter one on password checks."

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Small limits so a test reaches them in a few requests (the rest stay relaxed). */
const SMALL: Partial<RateLimitRules> = { api: { limit: 6, windowMs: MINUTE }, passwordCheck: { limit: 3, windowMs: HOUR } };

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const CHANGE_PASSWORD = 'mutation($input: ChangePasswordInput!) { changePassword(input: $input) }';

describe('API_RATE_LIMIT and API_RATE_LIMIT_WINDOW_SECONDS', () => {
  it('default: 600 requests per minute per user (Visma eAccounting\'s published limit); password checks 10 per hour', () => {
    expect(API_RATE_LIMIT).toEqual({ limit: 600, windowMs: MINUTE });
    expect(loadConfig({}).apiRateLimit).toEqual({ limit: 600, windowMs: MINUTE });
    expect(PASSWORD_CHECK_LIMIT).toEqual({ limit: 10, windowMs: HOUR });
  });

  it.each([
    [{ API_RATE_LIMIT: '1200' }, { limit: 1200, windowMs: MINUTE }],
    [{ API_RATE_LIMIT: '5000', API_RATE_LIMIT_WINDOW_SECONDS: '3600' }, { limit: 5000, windowMs: HOUR }],
    [{ API_RATE_LIMIT: 'off' }, null],
    [{ API_RATE_LIMIT: 'OFF' }, null],
    [{ API_RATE_LIMIT: '0' }, null],
  ])('%j → %j', (env, rule) => {
    expect(loadConfig(env).apiRateLimit).toEqual(rule);
  });

  it.each([{ API_RATE_LIMIT: 'lots' }, { API_RATE_LIMIT: '-1' }, { API_RATE_LIMIT_WINDOW_SECONDS: '0' }, { API_RATE_LIMIT_WINDOW_SECONDS: '1.5' }])(
    '%j stops the boot naming the variable',
    (env) => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(Object.keys(env)[0]);
    },
  );
});

describe.each(targets())('per-user API rate limit (%s)', (target) => {
  let app: TestApp;
  let kit: ReturnType<typeof oauthKit>;
  const namespace = `test-${randomUUID()}:`;

  beforeAll(async () => {
    app = await startTestApp(target, { rateLimits: SMALL, rateLimitNamespace: namespace });
    kit = oauthKit(app);
  });
  afterAll(() => app?.close());

  /** one request to each entry point, as the user */
  const rest = (token: string, path = '/api/v2/units?per_page=1') => app.http('GET', path, { token });
  const graphql = (token: string | undefined, query = '{ me { scopes } }') => app.http('POST', '/graphql', { token, body: { query } });
  const mcp = (token: string) => app.http('POST', '/mcp', { token, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: MCP_HEADERS });

  const expectCounted = (res: HttpResult, remaining: number, limit = 6) => {
    expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
    expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
    expect(res.headers.get('ratelimit-policy')).toBe(`${limit};w=60`);
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(50);
    expect(Number(res.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
  };

  /** 429 with Retry-After (seconds left in the minute) and the RateLimit-* headers at 0 */
  const expectLimited = (res: HttpResult) => {
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.get('ratelimit-limit')).toBe('6');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    return retryAfter;
  };

  const USER_MESSAGE = 'Rate limit exceeded: at most 6 requests per minute for one user';

  it('"one count per user" over /api/v2, /graphql and /mcp; the 7th request is 429 on each, in its own error shape', async () => {
    const { user } = await app.seed.tenant();
    const replies = [await rest(user.token), await graphql(user.token), await mcp(user.token), await rest(user.token), await graphql(user.token), await mcp(user.token)];
    replies.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expectCounted(res, 5 - i);
      expect(res.headers.get('retry-after')).toBeNull();
    });

    const api = await rest(user.token);
    expectLimited(api);
    expect(api.body).toEqual({ error: USER_MESSAGE, status: 429 });

    const gql = await graphql(user.token);
    const retryAfter = expectLimited(gql);
    expect(gql.body).toEqual({ errors: [{ message: USER_MESSAGE, extensions: { code: 'common.rate_limited', retryAfter } }] });

    const tool = await mcp(user.token);
    expectLimited(tool);
    expect(tool.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: USER_MESSAGE } });

    // counted after authentication, before routing: an unknown path or a write is refused the same way
    expect(await rest(user.token, '/api/v2/no-such-thing')).toMatchObject({ status: 429, body: { error: USER_MESSAGE, status: 429 } });
    const write = await app.http('POST', '/api/v2/units', { token: user.token, body: { name: 'x' } });
    expect(write).toMatchObject({ status: 429, body: { status: 429 } });
  });

  it("every token of one user shares the user's count: session tokens, a read-only one, a client_credentials client's", async () => {
    const owner = await kit.user();
    const readToken = await app.seed.token(owner.id, 'read');
    const client = await kit.ownedClient(owner, { grant_types: 'client_credentials', scope: 'read write' });
    const issued = await kit.token({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'read' });
    expect(issued.status).toBe(200);
    const jwt = issued.body.access_token as string;

    expectCounted(await rest(owner.sessionToken), 5);
    expectCounted(await rest(readToken), 4);
    expectCounted(await rest(jwt), 3);
    expectCounted(await graphql(jwt), 2);
    expectCounted(await mcp(readToken), 1);
    expectCounted(await graphql(owner.sessionToken), 0);
    expectLimited(await rest(jwt));
    expectLimited(await graphql(readToken));
    const row = await app.db.prisma.rateLimitCounter.findUniqueOrThrow({ where: { key: `${namespace}api:user:${owner.id}` } });
    expect(row.hits).toBe(8);
  });

  it('another user keeps a count of their own', async () => {
    const [a, b] = [await app.seed.user(), await app.seed.user()];
    for (let i = 0; i < 6; i++) await graphql(a.token);
    expectLimited(await graphql(a.token));
    const other = await graphql(b.token);
    expect(other.status).toBe(200);
    expectCounted(other, 5);
  });

  it('/graphql without a token (introspection only) counts per client address, apart from every user; the GraphiQL page and the API docs are not counted', async () => {
    const anonymous = () => graphql(undefined, '{ __typename }');
    // other tests of this file may have spent some of the address' count: spend the rest
    let res = await anonymous();
    while (res.status === 200) res = await anonymous();
    expectLimited(res);
    expect(res.body).toEqual({
      errors: [{ message: 'Rate limit exceeded: at most 6 requests per minute from one address without a token', extensions: { code: 'common.rate_limited', retryAfter: expect.any(Number) } }],
    });

    const u = await app.seed.user();
    expectCounted(await graphql(u.token), 5);

    const page = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('ratelimit-limit')).toBeNull();
    for (const path of ['/api/v2/openapi.json', '/api/v2/docs']) {
      const docs = await app.http('GET', path);
      expect(docs.status, path).toBe(200);
      expect(docs.headers.get('ratelimit-limit'), path).toBeNull();
    }
  });

  it('a request without a valid token is answered 401 before it is counted', async () => {
    const u = await app.seed.user();
    expect((await rest('rs_not-a-token')).status).toBe(401);
    expect((await rest('rs_not-a-token')).headers.get('ratelimit-limit')).toBeNull();
    expectCounted(await rest(u.token), 5);
  });

  it('"shared across processes": a second app on the same database and namespace continues the same count', async () => {
    // PGlite belongs to one process: there the second app serves the same database object; on
    // PostgreSQL it opens its own connection pool.
    const second = await startTestApp(target, { rateLimits: SMALL, rateLimitNamespace: namespace, database: target === 'pglite' ? app.db : undefined });
    try {
      const u = await app.seed.user();
      expectCounted(await rest(u.token), 5);
      const res = await second.http('GET', '/api/v2/units?per_page=1', { token: u.token });
      expect(res.status).toBe(200);
      expectCounted(res, 4);
      expectCounted(await graphql(u.token), 3);
      for (let i = 0; i < 3; i++) await second.http('POST', '/graphql', { token: u.token, body: { query: '{ me { scopes } }' } });
      expectLimited(await rest(u.token));
      expectLimited(await second.http('GET', '/api/v2/units?per_page=1', { token: u.token }));

      // another namespace on the same database counts apart
      const third = await startTestApp(target, { rateLimits: SMALL, database: target === 'pglite' ? app.db : undefined });
      try {
        expectCounted(await third.http('GET', '/api/v2/units?per_page=1', { token: u.token }), 5);
      } finally {
        await third.close();
      }
    } finally {
      await second.close();
    }
  });

  describe('changePassword: "a stricter one on password checks"', () => {
    it('every attempt counts, wrong or right: over 3 per hour (10 by default) the mutation is 429 with Retry-After and extensions.retryAfter, and changes nothing', async () => {
      const owner = await kit.user();
      const change = (currentPassword: string, newPassword: string) =>
        app.http('POST', '/graphql', { token: owner.sessionToken, body: { query: CHANGE_PASSWORD, variables: { input: { currentPassword, newPassword } } } });

      for (const attempt of ['wrong password 1', 'wrong password 2']) {
        const res = await change(attempt, 'new password 1');
        expect(res.status).toBe(400);
        expect(res.body.errors[0].extensions.code).toBe('common.validation_error');
      }
      const right = await change(PASSWORD, 'new password 1');
      expect(right.status).toBe(200);
      expect(right.body.data).toEqual({ changePassword: true });

      const over = await change('new password 1', 'new password 2');
      expect(over.status).toBe(429);
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(3590);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(over.body).toEqual({
        data: null,
        errors: [{ message: 'Too many password checks: at most 3 per hour', path: ['changePassword'], locations: expect.any(Array), extensions: { code: 'common.rate_limited', retryAfter } }],
      });
      // the API limit's headers are the request's own (one GraphQL request among the user's 6)
      expect(over.headers.get('ratelimit-limit')).toBe('6');

      const login = (password: string) => app.http('POST', '/v2/oauth/login', { body: { email: owner.email, password } });
      expect((await login('new password 1')).status).toBe(200);
      expect((await login('new password 2')).status).toBe(401);
    });

    it("MCP's graphql_mutation tool shares the user's count; another user is not affected", async () => {
      const owner = await kit.user();
      const other = await kit.user();
      const viaGraphql = (token: string) => app.gql(token, CHANGE_PASSWORD, { input: { currentPassword: 'wrong password', newPassword: 'new password 1' } });
      for (let i = 0; i < 3; i++) expect((await viaGraphql(owner.sessionToken)).errors?.[0].extensions?.code).toBe('common.validation_error');

      const tool = await app.http('POST', '/mcp', {
        token: owner.sessionToken,
        headers: MCP_HEADERS,
        body: {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'graphql_mutation', arguments: { query: CHANGE_PASSWORD, variables: { input: { currentPassword: PASSWORD, newPassword: 'new password 1' } } } },
        },
      });
      expect(tool.status).toBe(200);
      const result = JSON.parse(tool.body.result.content[0].text);
      expect(result.errors).toEqual([{ message: 'Too many password checks: at most 3 per hour', path: ['changePassword'], extensions: { code: 'common.rate_limited', retryAfter: expect.any(Number) } }]);

      expect((await viaGraphql(other.sessionToken)).errors?.[0].extensions?.code).toBe('common.validation_error');
      const counters = await app.db.prisma.rateLimitCounter.findMany({ where: { key: { in: [owner.id, other.id].map((id) => `${namespace}password-check:user:${id}`) } }, orderBy: { key: 'asc' } });
      expect(Object.fromEntries(counters.map((c) => [c.key.split(':').pop(), c.hits]))).toEqual({ [owner.id]: 4, [other.id]: 1 });
    });
  });
});

describe.each(targets())('API rate limit configured by environment (%s)', (target) => {
  it('API_RATE_LIMIT=3, API_RATE_LIMIT_WINDOW_SECONDS=3600: the headers name the configured policy; the 4th request is 429', async () => {
    const app = await startTestApp(target, { rateLimits: 'spec', env: { API_RATE_LIMIT: '3', API_RATE_LIMIT_WINDOW_SECONDS: '3600' } });
    try {
      const { user } = await app.seed.tenant();
      for (const remaining of [2, 1, 0]) {
        const res = await app.http('GET', '/api/v2/units?per_page=1', { token: user.token });
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
        expect(res.headers.get('ratelimit-policy')).toBe('3;w=3600');
      }
      const res = await app.http('GET', '/api/v2/units?per_page=1', { token: user.token });
      expect(res).toMatchObject({ status: 429, body: { error: 'Rate limit exceeded: at most 3 requests per hour for one user', status: 429 } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3590);
    } finally {
      await app.close();
    }
  });

  it('API_RATE_LIMIT=off: no limit, no RateLimit-* headers, nothing counted', async () => {
    const namespace = `test-${randomUUID()}:`;
    const app = await startTestApp(target, { rateLimits: 'spec', rateLimitNamespace: namespace, env: { API_RATE_LIMIT: 'off' } });
    try {
      const { user } = await app.seed.tenant();
      const res = await app.http('GET', '/api/v2/units?per_page=1', { token: user.token });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
      expect((await app.gql(user.token, '{ me { scopes } }')).data).toBeDefined();
      expect(await app.db.prisma.rateLimitCounter.count({ where: { key: { startsWith: namespace } } })).toBe(0);
    } finally {
      await app.close();
    }
  });
});
