import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onceTargets, startTestApp, type TestApp } from '../support/harness.ts';
import { jsonHead, rawRequest } from '../support/raw-http.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 27, connection hygiene: "header and request timeouts so that a body that never completes is
// answered 408 (in the path's error shape) within REQUEST_BODY_TIMEOUT_MS". The probe: a request
// whose Content-Length promises more than it sends held a connection for 30 s. The database plays
// no part: once per run.

const TIMEOUT_MS = 500;

if (onceTargets().length === 0) it.skip('a request that never completes: tested in the run that has PostgreSQL (no database involved)', () => {});

describe.each(onceTargets())('a request that never completes (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  const logLines: { level: number; msg: string }[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    app = await startTestApp(target, { env: { REQUEST_BODY_TIMEOUT_MS: String(TIMEOUT_MS) }, logger: pino({ level: 'info' }, sink) });
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  const message = `The request body was not received within ${TIMEOUT_MS} ms; the connection is closed`;

  it.each([
    ['REST {error, status}', '/api/v2/items', { error: message, status: 408 }],
    ['REST envelope (reports)', '/api/v2/reports/trial-balance', { error: { code: 'common.request_timeout', message, request_id: expect.any(String) } }],
    ['GraphQL', '/graphql', { errors: [{ message, extensions: { code: 'common.request_timeout' } }] }],
    ['OAuth', '/v2/oauth/token', { error: 'invalid_request', error_description: message }],
    ['MCP (JSON-RPC)', '/mcp', { jsonrpc: '2.0', id: null, error: { code: -32000, message } }],
  ])('%s: a body shorter than its Content-Length → 408 in the path’s shape within REQUEST_BODY_TIMEOUT_MS, Connection: close, the connection closed, nothing logged but the request line', async (_shape, path, body) => {
    const before = logLines.length;
    const method = path === '/api/v2/reports/trial-balance' ? 'GET' : 'POST';
    const form = path === '/v2/oauth/token';
    const headers = { Authorization: `Bearer ${t.user.token}`, Accept: 'application/json', ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) };
    const req = rawRequest(app.url, jsonHead(method, path, 100, headers) + (form ? 'grant_type=client_cre' : '{"query": "'));
    const res = await req.response();
    expect(res.status).toBe(408);
    expect(res.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(res.ms).toBeLessThan(TIMEOUT_MS + 1500);
    expect(res.headers.connection).toBe('close');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toEqual(body);
    await req.closed;
    // the body parser's abort afterwards: no second answer, no error logged
    await new Promise((r) => setTimeout(r, 100));
    const lines = logLines.slice(before);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'request').map((l) => (l as unknown as { status: number }).status)).toEqual([408]);
  });

  it('a body sent in full within the time is answered as usual, also when it comes slowly', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const req = rawRequest(app.url, jsonHead('POST', '/graphql', body.length, { Authorization: `Bearer ${t.user.token}` }) + body.slice(0, 5));
    await new Promise((r) => setTimeout(r, TIMEOUT_MS / 2));
    req.send(body.slice(5));
    const res = await req.response();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { __typename: 'Query' } });
    req.socket.destroy();
  });

  it('headers that never end (slowloris) → 408 in the path’s shape within REQUEST_BODY_TIMEOUT_MS and Node’s check interval', async () => {
    const req = rawRequest(app.url, `GET /api/v2/items HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n`);
    const timer = setInterval(() => req.send('X-More: 1\r\n'), 100);
    try {
      const res = await req.response();
      expect(res.status).toBe(408);
      expect(res.ms).toBeLessThan(TIMEOUT_MS + 1500);
      // Node 20 reports the headers' timeout as the request's (ERR_HTTP_REQUEST_TIMEOUT)
      expect(res.body).toEqual({ error: expect.stringMatching(/^The request (headers were|was) not received in time$/), status: 408 });
      await req.closed;
    } finally {
      clearInterval(timer);
    }
  });

  it('the server keeps answering after them', async () => {
    const stuck = Array.from({ length: 5 }, () => rawRequest(app.url, jsonHead('POST', '/api/v2/items', 1000, { Authorization: `Bearer ${t.user.token}` }) + '{'));
    const res = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`, { token: t.user.token });
    expect(res.status).toBe(200);
    expect((await Promise.all(stuck.map((s) => s.response()))).map((r) => r.status)).toEqual([408, 408, 408, 408, 408]);
    expect((await app.http('GET', '/health')).status).toBe(200);
    expect(app.admission.stats()).toMatchObject({ active: 0, queued: 0 });
  });
});
