import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 34, Observability: "GET /metrics in the Prometheus text format (prom-client): HTTP requests by
// operation (the operation table's name, not the raw path), method and status, a latency histogram
// per operation, GraphQL operations by name, MCP tool calls, admission control (running, queued,
// shed), rate-limit refusals, job queue depth, runs, failures and durations per queue, … database
// pool use, and the process defaults. Open on loopback by default; METRICS_TOKEN requires a bearer
// token for other addresses." and "GET /health/live and GET /health/ready (database reachable,
// migrations current, job runner up), as orchestrators expect; keep /health."

/** The samples of a Prometheus text exposition: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?) (\S+)$/.exec(line);
    expect(m, `a sample line: ${line}`).toBeTruthy();
    out.set(m![1], Number(m![2]));
  }
  return out;
}

const TOKEN = 'metrics-token-for-the-test-0123456789';

describe.each(targets())('metrics and health (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  beforeAll(async () => {
    app = await startTestApp(target, { jobs: { queues: ['invitations.send'] }, env: { METRICS_TOKEN: TOKEN } });
    t = await app.seed.tenant();
  });
  afterAll(async () => {
    await app?.close();
  });

  const scrape = async () => {
    const res = await fetch(`${app.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return samples(await res.text());
  };

  it('"GET /metrics in the Prometheus text format": the process defaults, admission, the job queue and database turns are there from loopback', async () => {
    const s = await scrape();
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'admission_shed_total']) {
      expect(s.has(name), name).toBe(true);
    }
    expect(s.has('admission_requests{state="active"}')).toBe(true);
    expect(s.has('admission_requests{state="queued"}')).toBe(true);
    expect(s.get('db_query_turns{state="slots"}')).toBeGreaterThanOrEqual(1);
  });

  it('"HTTP requests by operation (the operation table\'s name, not the raw path), method and status, a latency histogram per operation"', async () => {
    const list = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`, { token: t.user.token });
    expect(list.status).toBe(200);
    const missing = await app.http('GET', `/api/v2/items/999999999?client_account_id=${t.account.id}`, { token: t.user.token });
    expect(missing.status).toBe(404);
    const s = await scrape();
    expect(s.get('http_requests_total{operation="list_items",method="GET",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(s.get('http_requests_total{operation="get_item",method="GET",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(s.get('http_request_duration_seconds_count{operation="list_items",method="GET"}')).toBeGreaterThanOrEqual(1);
    expect(s.has('http_request_duration_seconds_bucket{le="0.5",operation="list_items",method="GET"}')).toBe(true);
    // no series carries a raw path (with its ids)
    expect([...s.keys()].filter((k) => k.includes('/api/v2'))).toEqual([]);
  });

  it('"GraphQL operations by name": a named query counts under its name, ok or error', async () => {
    const ok = await app.gql(t.user.token, 'query WhoAmI { me { user { email } } }');
    expect(ok.errors).toBeUndefined();
    await app.gql(t.user.token, 'query Missing { item(id: 999999999) { id } }');
    const s = await scrape();
    expect(s.get('graphql_operations_total{operation_name="WhoAmI",operation_type="query",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(s.get('graphql_operations_total{operation_name="Missing",operation_type="query",outcome="error"}')).toBeGreaterThanOrEqual(1);
    expect(s.get('http_requests_total{operation="graphql",method="POST",status="200"}')).toBeGreaterThanOrEqual(1);
  });

  it('"MCP tool calls": a tool called through the MCP SDK client counts under the tool', async () => {
    const client = new Client({ name: 'metrics-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.user.token}` } } }));
    try {
      const res = await client.callTool({ name: 'list_items', arguments: { client_account_id: t.account.id } });
      expect(res.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const s = await scrape();
    expect(s.get('mcp_tool_calls_total{tool="list_items",outcome="ok"}')).toBe(1);
    expect(s.get('http_requests_total{operation="mcp",method="POST",status="200"}')).toBeGreaterThanOrEqual(1);
  });

  it('"job queue depth, runs, failures and durations per queue": an invitation mail job run is counted and timed', async () => {
    // an invitation's e-mail is an invitations.send job (the queue this app works)
    const before = (await scrape()).get('job_runs_total{queue="invitations.send",outcome="completed"}') ?? 0;
    const invited = await app.http('POST', '/api/v2/invitations', {
      token: t.user.token,
      body: { client_account_id: t.account.id, email: `metrics-${Date.now()}@example.no`, role_id: 5 },
    });
    expect(invited.status, invited.text).toBeLessThan(300);
    let s = await scrape();
    for (let i = 0; i < 100 && (s.get('job_runs_total{queue="invitations.send",outcome="completed"}') ?? 0) <= before; i++) {
      await new Promise((r) => setTimeout(r, 200));
      s = await scrape();
    }
    expect(s.get('job_runs_total{queue="invitations.send",outcome="completed"}')).toBeGreaterThan(before);
    expect(s.get('job_run_duration_seconds_count{queue="invitations.send"}')).toBeGreaterThan(0);
    expect([...s.keys()].some((k) => k.startsWith('job_queue_depth') || k === 'job_queue_depth')).toBe(true);
  });

  it('"Open on loopback by default; METRICS_TOKEN requires a bearer token for other addresses": a forwarded request needs the token', async () => {
    const forwarded = { 'x-forwarded-for': '203.0.113.7' };
    const without = await fetch(`${app.url}/metrics`, { headers: forwarded });
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await fetch(`${app.url}/metrics`, { headers: { ...forwarded, authorization: 'Bearer not-the-token-at-all-0000000' } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${app.url}/metrics`, { headers: { ...forwarded, authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    // an API token is no metrics token
    const api = await fetch(`${app.url}/metrics`, { headers: { ...forwarded, authorization: `Bearer ${t.user.token}` } });
    expect(api.status).toBe(401);
  });

  it('"GET /health/live and GET /health/ready (database reachable, migrations current, job runner up) … keep /health"', async () => {
    const live = await fetch(`${app.url}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${app.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok', jobs: 'ok' } });
    const health = await fetch(`${app.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const s = await scrape();
    expect(s.get('http_requests_total{operation="health",method="GET",status="200"}')).toBeGreaterThanOrEqual(3);
  });
});

describe.each(targets())('readiness without workers, and /metrics without a token (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('"/health/ready": a process whose job workers have not started is not ready (503, naming the check); live is 200', async () => {
    const ready = await fetch(`${app.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', migrations: 'ok', jobs: 'starting' } });
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);
  });

  it('"Open on loopback by default": without METRICS_TOKEN another address is refused (403) and loopback is served', async () => {
    const forwarded = await fetch(`${app.url}/metrics`, { headers: { forwarded: 'for=203.0.113.7' } });
    expect(forwarded.status).toBe(403);
    expect((await fetch(`${app.url}/metrics`)).status).toBe(200);
  });
});
