import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEMO_LOGIN } from '../../src/admin/seed-demo.ts';
import { PROJECT_ROOT } from '../../src/project-root.ts';
import { freePort } from '../support/free-port.ts';
import { targets } from '../support/harness.ts';
import { startServerProcess, stopProcess, type ServerProcess } from '../support/server-process.ts';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';

// Issue 34, Observability: "OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT is set (the official
// Node SDK with HTTP, Express, GraphQL and pg instrumentations), one span per request with the request
// id; off and without cost otherwise." The server is started as npm start starts it (src/start.mjs),
// with the endpoint pointing at an OTLP/HTTP receiver in this test, which keeps every span it is sent.

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  scope: string;
  attributes: Record<string, unknown>;
}

/** An OTLP/HTTP (JSON) trace receiver: POST /v1/traces. */
async function receiver(): Promise<{ url: string; spans: Span[]; server: Server }> {
  const spans: Span[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { scope: { name: string }; spans: (Omit<Span, 'scope' | 'attributes'> & { attributes: { key: string; value: Record<string, unknown> }[] })[] }[] }[] };
        for (const rs of doc.resourceSpans)
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans) spans.push({ ...s, scope: ss.scope.name, attributes: Object.fromEntries(s.attributes.map((a) => [a.key, Object.values(a.value)[0]])) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, spans, server };
}

describe.each(targets())('OpenTelemetry traces (%s)', (target) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'regnskap-tracing-'));
  let otlp: Awaited<ReturnType<typeof receiver>>;
  let scratch: ScratchDatabase | undefined;
  let server: ServerProcess;
  let token = '';

  beforeAll(async () => {
    otlp = await receiver();
    if (target === 'postgres') scratch = await createScratchDatabase(inject('postgresUrl')!, 'tracing');
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: scratch?.url ?? '',
      SEED_DEMO: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '100', // export every 0.1 s instead of 5 s
    });
    const login = await fetch(`${server.base}/v2/oauth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(DEMO_LOGIN) });
    token = ((await login.json()) as { access_token: string }).access_token;
  }, 180_000);

  afterAll(async () => {
    await stopProcess(server?.child);
    otlp?.server.close();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The spans of the trace whose HTTP server span carries `requestId`, once they have arrived. */
  async function traceOf(requestId: string, until: (spans: Span[]) => boolean): Promise<Span[]> {
    for (const started = Date.now(); Date.now() - started < 15_000; await new Promise((r) => setTimeout(r, 100))) {
      const root = otlp.spans.find((s) => s.attributes['request.id'] === requestId);
      const spans = root ? otlp.spans.filter((s) => s.traceId === root.traceId) : [];
      if (root && until(spans)) return spans;
    }
    throw new Error(`no complete trace for request ${requestId}; spans seen: ${otlp.spans.map((s) => s.name).join(', ')}`);
  }

  it('"one span per request with the request id": a REST call is one HTTP server span with its x-request-id and operation, its handler an Express span under it', async () => {
    const res = await fetch(`${server.base}/api/v2/units?per_page=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const spans = await traceOf(requestId, (s) => s.some((x) => x.scope.includes('express')) && (target === 'pglite' || s.some((x) => x.scope.includes('pg'))));
    const roots = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-http' && s.attributes['request.id'] === requestId);
    expect(roots).toHaveLength(1);
    expect(roots[0]!.attributes['operation']).toBe('list_units');
    expect(roots[0]!.attributes['http.response.status_code'] ?? roots[0]!.attributes['http.status_code']).toBe(200);
    const express = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-express');
    expect(express.length).toBeGreaterThan(0);
    expect(express.map((s) => s.name).filter((n) => n.startsWith('middleware'))).toEqual([]); // routers and handlers only
    if (target === 'postgres') {
      // the pg instrumentation: the request's queries are spans of the same trace
      const queries = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-pg');
      expect(queries.length).toBeGreaterThan(0);
      expect(queries.some((q) => q.attributes['db.system'] === 'postgresql' || q.attributes['db.system.name'] === 'postgresql')).toBe(true);
    }
  });

  it('a GraphQL operation: parse and validate (the GraphQL instrumentation) and its execution, named by type and name, in the request\'s trace', async () => {
    const res = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'query WhoAmI { me { user { email } } }' }),
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const spans = await traceOf(requestId, (s) => s.some((x) => x.name === 'query WhoAmI') && s.some((x) => x.name === 'graphql.validate'));
    const execute = spans.find((s) => s.name === 'query WhoAmI')!;
    expect(execute.attributes['graphql.operation.name']).toBe('WhoAmI');
    expect(spans.some((s) => s.name === 'graphql.parse')).toBe(true);
    if (target === 'postgres') {
      // the resolvers' queries are children of the execution
      await traceOf(requestId, (s) => s.some((x) => x.scope === '@opentelemetry/instrumentation-pg' && x.parentSpanId === execute.spanId));
    }
  });

  it('probes are not traced: /health, /health/live, /health/ready and /metrics make no spans', async () => {
    const before = otlp.spans.length;
    for (const path of ['/health', '/health/live', '/health/ready', '/metrics']) expect((await fetch(server.base + path)).status).toBe(200);
    const marker = await fetch(`${server.base}/api/v2/units?per_page=1`, { headers: { authorization: `Bearer ${token}` } });
    await traceOf(marker.headers.get('x-request-id')!, () => true);
    const paths = otlp.spans.slice(before).map((s) => String(s.attributes['url.path'] ?? s.attributes['http.target'] ?? ''));
    expect(paths.filter((p) => /^\/(health|metrics)/.test(p))).toEqual([]);
  });

  it('"off and without cost otherwise": without the endpoint the server runs the plain bundle, which holds no OpenTelemetry SDK, and sends nothing', async () => {
    if (target !== 'pglite') return; // a property of the start, not of the database
    const plainDir = mkdtempSync(join(tmpdir(), 'regnskap-untraced-'));
    const plain = await startServerProcess({ DATA_DIR: plainDir, DATABASE_URL: '', SEED_DEMO: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url + '/v1/traces' });
    try {
      const before = otlp.spans.length;
      expect((await fetch(`${plain.base}/api/v2/units?per_page=1`)).status).toBe(401);
      await new Promise((r) => setTimeout(r, 1000));
      expect(otlp.spans.length).toBe(before);
      const bundle = readFileSync(join(PROJECT_ROOT, 'dist/server.mjs'), 'utf8');
      expect(bundle).not.toContain('@opentelemetry/sdk-node');
      expect(bundle).not.toContain('OTLPTraceExporter');
    } finally {
      expect(await stopProcess(plain.child)).toBe(0);
      rmSync(plainDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('SIGTERM flushes the spans still buffered before the process exits', async () => {
    const res = await fetch(`${server.base}/api/v2/units?per_page=2`, { headers: { authorization: `Bearer ${token}` } });
    const requestId = res.headers.get('x-request-id')!;
    expect(await stopProcess(server.child)).toBe(0);
    expect(otlp.spans.some((s) => s.attributes['request.id'] === requestId)).toBe(true);
  });
});
