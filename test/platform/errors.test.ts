import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getIntrospectionQuery } from 'graphql';
import { pino } from 'pino';
import type { TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// One error renderer for every entry point (issue "Platform v2", 3).

/** A page size no client sends: the list code throws an unexpected error for it. */
const BOOM = 4242;
vi.mock('../../src/shared/pagination.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/shared/pagination.ts')>();
  return {
    ...original,
    pageWindow: (args: { perPage?: number | null }, limits: never) => {
      if (args.perPage === BOOM) throw new TypeError('secret detail: connection to db-7.internal refused');
      return original.pageWindow(args as never, limits);
    },
  };
});

// Test files share one module registry per worker (vitest.config.ts: isolate false), so the app may
// already be loaded with the real pagination module: load it afresh, with the mock above.
vi.resetModules();
const { startTestApp, targets } = await import('../support/harness.ts');

describe.each(targets())('errors on every entry point (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  const logged: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    app = await startTestApp(target, { logger });
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  describe('unexpected errors are masked: 500, nothing of the cause, logged with the request id', () => {
    it('REST: {error, status} 500', async () => {
      const res = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}&per_page=${BOOM}`, { token: t.user.token });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error', status: 500 });
      expect(res.text).not.toMatch(/secret|db-7|TypeError|at /);
      const requestId = res.headers.get('x-request-id');
      expect(logged.some((l) => l.requestId === requestId && JSON.stringify(l).includes('secret detail'))).toBe(true);
    });

    it('GraphQL: an error in the GraphQL shape, masked', async () => {
      const res = await app.http('POST', '/graphql', { token: t.user.token, body: { query: `{ items(clientAccountId: ${t.account.id}, perPage: ${BOOM}) { meta { records } } }` } });
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].message).toBe('Unexpected error.');
      expect(res.text).not.toMatch(/secret|db-7|TypeError/);
      expect(JSON.stringify(logged)).toContain('secret detail');
    });
  });

  describe('spec 000 Errors: "{error: {code: <string>, message: <string>, request_id: <uuid string>}}"', () => {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

    it('request_id is a UUID the server made, also without an X-Request-Id', async () => {
      const res = await app.http('GET', '/api/v2/reports/trial-balance?date_from=2026-03-01&date_to=2026-01-01', { token: t.user.token });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.body.error.request_id).toMatch(UUID);
      expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
      expect(res.headers.get('x-client-request-id')).toBeNull();
    });

    it("a client's X-Request-Id is never the request_id: it is logged beside the request's own id and echoed in X-Client-Request-Id", async () => {
      const mine = 'client-trace-0001';
      const res = await app.http('GET', '/api/v2/reports/trial-balance?date_from=2026-03-01&date_to=2026-01-01', { token: t.user.token, headers: { 'x-request-id': mine } });
      expect(res.body.error.request_id).toMatch(UUID);
      expect(res.text).not.toContain(mine);
      expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
      expect(res.headers.get('x-client-request-id')).toBe(mine);
      expect(logged.some((l) => l.msg === 'request' && l.requestId === res.body.error.request_id && l.clientRequestId === mine)).toBe(true);
      // the 401 of the bearer middleware and an unexpected 500 too
      const unauthenticated = await app.http('GET', '/api/v2/reports/trial-balance', { headers: { 'x-request-id': mine } });
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.body.error.request_id).toMatch(UUID);
      const failed = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}&per_page=${BOOM}`, { token: t.user.token, headers: { 'x-request-id': mine } });
      expect(failed.status).toBe(500);
      const requestId = failed.headers.get('x-request-id');
      expect(requestId).toMatch(UUID);
      expect(logged.some((l) => l.requestId === requestId && l.clientRequestId === mine && JSON.stringify(l).includes('secret detail'))).toBe(true);
    });

    it('an X-Request-Id that is no plain token (spaces, too long) is neither echoed nor logged', async () => {
      for (const bad of ['has spaces in it', 'x'.repeat(200)]) {
        const res = await app.http('GET', '/api/v2/units?per_page=1', { token: t.user.token, headers: { 'x-request-id': bad } });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-request-id')).toMatch(UUID);
        expect(res.headers.get('x-client-request-id')).toBeNull();
        expect(JSON.stringify(logged)).not.toContain(bad);
      }
    });
  });

  describe('spec 000: "400 invalid request or validation failure" — every GraphQL error carries extensions.code (common.validation_error), on /graphql and through the MCP GraphQL tools', () => {
    const ITEM = 'query($id: Int!) { item(id: $id) { id } }';
    // [what, request, the status graphql-yoga answers (GraphQL over HTTP, unchanged), the code]
    it.each([
      ['a syntax error', { query: '{ me { ' }, 200, 'common.validation_error'],
      ['an unknown field', { query: '{ nope }' }, 200, 'common.validation_error'],
      ['a literal of the wrong type', { query: '{ item(id: "x") { id } }' }, 200, 'common.validation_error'],
      ['an undefined variable', { query: '{ item(id: $id) { id } }' }, 200, 'common.validation_error'],
      ['an unknown operation name', { query: 'query A { __typename }', operationName: 'B' }, 400, 'common.validation_error'],
      ['two operations and no operation name', { query: 'query A { __typename } query B { __typename }' }, 400, 'common.validation_error'],
      ['a variable of the wrong type', { query: ITEM, variables: { id: 'x' } }, 400, 'common.validation_error'],
      ['a missing required variable', { query: ITEM, variables: {} }, 400, 'common.validation_error'],
      ['an input object variable with an unknown and missing fields', { query: 'mutation($i: CreateItemInput!) { createItem(input: $i) { id } }', variables: { i: { foo: 1 } } }, 400, 'common.validation_error'],
      ['an unknown subscription field', { query: 'subscription { x }' }, 200, 'common.validation_error'],
      ['no query', {}, 200, 'common.validation_error'],
      ['a query that is no string', { query: 5 }, 400, 'common.validation_error'],
      ['variables that are no object', { query: '{ __typename }', variables: 5 }, 400, 'common.validation_error'],
      ['a body that is no JSON', '{"query": ', 400, 'common.validation_error'],
    ] as const)('/graphql, %s: every error has extensions.code, and the status is yoga\'s', async (_what, body, status, code) => {
      const res = await app.http('POST', '/graphql', { token: t.user.token, body, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(status);
      expect(res.body.errors.length).toBeGreaterThan(0);
      for (const e of res.body.errors) expect(e.extensions?.code, JSON.stringify(e)).toBe(code);
    });

    it('/graphql: a mutation sent with GET is 405 common.method_not_allowed; an unexpected error is common.internal_error', async () => {
      const get = await app.http('GET', `/graphql?query=${encodeURIComponent('mutation { deactivateItem(id: 1) { id } }')}`, { token: t.user.token, headers: { accept: 'application/json' } });
      expect(get.status).toBe(405);
      expect(get.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['common.method_not_allowed']);
      const masked = await app.http('POST', '/graphql', { token: t.user.token, body: { query: `{ items(clientAccountId: ${t.account.id}, perPage: ${BOOM}) { meta { records } } }` } });
      expect(masked.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['common.internal_error']);
    });

    const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    /** A GraphQL tool's answer: its errors, whether the call failed (isError) or ran with errors. */
    const tool = async (token: string, name: string, args: Record<string, unknown>) => {
      const res = await app.http('POST', '/mcp', { token, headers: MCP_HEADERS, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } } });
      expect(res.status).toBe(200);
      return JSON.parse(res.body.result.content[0].text) as { errors?: { message: string; extensions?: { code?: string } }[] };
    };

    it.each([
      ['a syntax error', 'graphql_query', { query: '{ me { ' }, 'common.validation_error'],
      ['an unknown field', 'graphql_query', { query: '{ nope }' }, 'common.validation_error'],
      ['an unknown operation name', 'graphql_query', { query: 'query A { __typename }', operationName: 'B' }, 'common.validation_error'],
      ['a mutation', 'graphql_query', { query: 'mutation { deactivateItem(id: 1) { id } }' }, 'common.validation_error'],
      ['a variable of the wrong type', 'graphql_query', { query: ITEM, variables: { id: 'x' } }, 'common.validation_error'],
      ['a missing required variable', 'graphql_query', { query: ITEM, variables: {} }, 'common.validation_error'],
      ['variables that are no object', 'graphql_query', { query: '{ __typename }', variables: 5 }, 'common.validation_error'],
      ['a query over a limit', 'graphql_query', { query: `{ ${Array.from({ length: 101 }, (_, i) => `a${i}: __typename`).join(' ')} }` }, 'common.query_too_complex'],
    ] as const)('MCP %s through %s: every error has extensions.code', async (_what, name, args, code) => {
      const body = await tool(t.user.token, name, args);
      expect(body.errors?.length).toBeGreaterThan(0);
      for (const e of body.errors!) expect(e.extensions?.code, JSON.stringify(e)).toBe(code);
    });

    it('MCP graphql_mutation with a token without write: {errors: [{extensions: {code: "insufficient_scope"}}]}', async () => {
      const body = await tool(t.user.readToken, 'graphql_mutation', { query: 'mutation { deactivateItem(id: 1) { id } }' });
      expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['insufficient_scope']);
    });
  });

  describe('401 on /graphql is a GraphQL response; introspection needs no token', () => {
    it('no token: introspection answers the schema (GraphiQL loads its docs before sign-in)', async () => {
      const res = await app.http('POST', '/graphql', { body: { query: getIntrospectionQuery() } });
      expect(res.status).toBe(200);
      expect(res.body.data.__schema.queryType.name).toBe('Query');
    });

    it('no token: any other operation → 401 {errors: [{message, extensions: {code}}]} with the bearer challenge', async () => {
      const res = await app.http('POST', '/graphql', { body: { query: '{ __typename items(clientAccountId: 1) { meta { records } } }' } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ errors: [{ message: 'A valid bearer token is required', extensions: { code: 'common.unauthenticated' } }] });
      expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="${app.url}", resource_metadata="${app.url}/.well-known/oauth-protected-resource/graphql"`);
    });

    it('a mutation hidden behind an introspection-looking fragment is refused too', async () => {
      const query = 'mutation M { ...F } fragment F on Mutation { __typename deactivateItem(id: 1) { id } }';
      const res = await app.http('POST', '/graphql', { body: { query } });
      expect(res.status).toBe(401);
    });

    it('an invalid token → 401 in the GraphQL shape with error="invalid_token"', async () => {
      const res = await app.http('POST', '/graphql', { token: 'not-a-token', body: { query: '{ __typename }' } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ errors: [{ message: 'A valid bearer token is required', extensions: { code: 'common.unauthenticated' } }] });
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });

    it('the GraphiQL page itself opens without a token', async () => {
      const res = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
    });
  });

  describe('REST: the route shape for the middleware and the router too', () => {
    it('no token → 401 {error, status} with the bearer challenge', async () => {
      const res = await app.http('GET', '/api/v2/units');
      expect(res).toMatchObject({ status: 401, body: { error: 'A valid bearer token is required', status: 401 } });
      expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="${app.url}", resource_metadata="${app.url}/.well-known/oauth-protected-resource"`);
    });

    it('unknown path → 404, known path with another method → 405 with Allow, malformed JSON → 400: all {error, status}', async () => {
      const missing = await app.http('GET', '/api/v2/nowhere', { token: t.user.token });
      expect(missing).toMatchObject({ status: 404, body: { error: 'No such endpoint: GET /api/v2/nowhere', status: 404 } });
      const method = await app.http('POST', '/api/v2/units', { token: t.user.token, body: {} });
      expect(method).toMatchObject({ status: 405, body: { status: 405 } });
      expect(method.headers.get('allow')).toBe('GET');
      const json = await app.http('POST', '/api/v2/items', { token: t.user.token, body: '{"item_no": ' });
      expect(json).toMatchObject({ status: 400, body: { error: 'Malformed JSON in the request body', status: 400 } });
    });

    it('a path outside every entry point → 404 {error, status}', async () => {
      expect(await app.http('GET', '/nowhere')).toMatchObject({ status: 404, body: { status: 404 } });
    });
  });

  describe('Decimal input: strings; a JSON number only when it is exact', () => {
    let vat: number;
    beforeAll(async () => {
      vat = await t.taxCode('3');
    });
    const item = (price: unknown) => ({ client_account_id: t.account.id, item_no: `P-${Math.random()}`, sales_unit_id: 1, tax_code_id: vat, price });

    it.each([
      ['a string', '1234567890.123456', '1234567890.123456'],
      ['a JSON number of at most 15 significant digits', 12.5, '12.500000'],
      ['a negative JSON number', -0.25, '-0.250000'],
      ['an integer JSON number', 100, '100.000000'],
      ['a JSON number written with an exponent that is exactly an integer (JSON.parse cannot tell)', 1.5e3, '1500.000000'],
    ])('%s is taken exactly', async (_name, price, stored) => {
      const res = await app.http('POST', '/api/v2/items', { token: t.user.token, body: item(price) });
      expect(res.status, res.text).toBe(201);
      expect(res.body.price).toBe(stored);
    });

    it.each([
      ['more than 15 significant digits', '{"price": 1234567890.12345678}'],
      ['an exponent it cannot drop', '{"price": 1.5e-7}'],
      ['a huge number', '{"price": 1e300}'],
    ])('a JSON number with %s → 400 telling the client to send a string', async (_name, json) => {
      const body = JSON.stringify(item(0)).replace('"price":0', json.slice(1, -1));
      const res = await app.http('POST', '/api/v2/items', { token: t.user.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^price: .*send it as a string/);
    });

    it('the same rule holds for GraphQL variables', async () => {
      const res = await app.gql(t.user.token, 'mutation($input: CreateItemInput!) { createItem(input: $input) { price } }', {
        input: { clientAccountId: t.account.id, itemNo: 'G-1', salesUnitId: 1, taxCodeId: vat, price: 12345678901234567 },
      });
      expect(res.errors?.[0].message).toMatch(/send it as a string/);
    });
  });
});

describe('an operation with the v2 envelope gets it for the errors before it runs too', () => {
  it('401 from the bearer middleware and malformed JSON answer {error: {code, message, request_id}}', async () => {
    const express = (await import('express')).default;
    const { errorShapeRouter } = await import('../../rest-adapter/index.ts');
    const { errorShapeOf, sendError } = await import('../../src/http/error-renderer.ts');
    const { UnauthenticatedError } = await import('../../src/shared/errors.ts');
    const app = express();
    const table = [{ method: 'GET' as const, path: '/reports/x', document: '', summary: '', errorShape: 'envelope' as const }];
    app.use('/api/v2', errorShapeRouter(table), (req, _res, next) => next(req.get('authorization') ? undefined : new UnauthenticatedError('A valid bearer token is required')));
    app.use('/api/v2', (_req, res) => res.json({}));
    app.use((err: unknown, req: import('express').Request, res: import('express').Response, _next: unknown) => sendError(res, err, errorShapeOf(req, res), 'rid-1', pino({ level: 'silent' })));
    const server = app.listen(0);
    const port = (server.address() as { port: number }).port;
    try {
      const envelope = await fetch(`http://127.0.0.1:${port}/api/v2/reports/x`);
      expect(envelope.status).toBe(401);
      expect(await envelope.json()).toEqual({ error: { code: 'common.unauthenticated', message: 'A valid bearer token is required', request_id: 'rid-1' } });
      const simple = await fetch(`http://127.0.0.1:${port}/api/v2/items`);
      expect(await simple.json()).toEqual({ error: 'A valid bearer token is required', status: 401 });
    } finally {
      server.close();
    }
  });
});
