import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle } from '../../src/bundle.mjs';
import { DEMO_LOGIN } from '../../src/admin/seed-demo.ts';
import { PROJECT_ROOT } from '../../src/project-root.ts';
import { freePort } from '../support/free-port.ts';
import { checkSaft } from '../../src/modules/reports/saft/saft.checks.ts';

// Issue 9: npm start runs the server bundled into one file (dist/server.mjs). What a bundle can
// break is what loads files at run time: the packages left outside it (PGlite, Prisma, argon2,
// Swagger UI, GraphiQL's renderer), the modules loaded on first use (MCP, OpenAPI, mail) and
// oidc-provider's pages. The bundle of the current sources is started on a new embedded database
// and every one of those is asked once. (The database makes no difference to the bundle: this
// runs once, with the PGlite targets.)
const runs = (process.env.TEST_TARGETS ?? 'pglite').split(',').includes('pglite');

describe.runIf(runs)('the bundled server (dist/server.mjs, what npm start runs)', () => {
  const outDir = mkdtempSync(join(PROJECT_ROOT, 'dist-test-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'regnskap-bundle-'));
  let child: ChildProcess;
  let base = '';
  let token = '';

  beforeAll(async () => {
    await bundle(join(outDir, 'server.mjs'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Event-loop-delay shedding off, as in every functional test's app (test/support/harness.ts): with
    // both suites running, a CPU-starved machine made this server answer 503 while it seeded the demo
    // and ran its jobs (load-shedding.test.ts tests the shedding itself)
    child = spawn(process.execPath, [join(outDir, 'server.mjs')], {
      env: {
        ...process.env, NODE_ENV: 'production', DATA_DIR: dataDir, DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', BASE_URL: base, LOG_LEVEL: 'warn', SEED_DEMO: 'true',
        REQUEST_MAX_EVENT_LOOP_DELAY_MS: '0',
      },
      stdio: 'ignore',
    });
    for (const started = Date.now(); ; ) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (child.exitCode !== null || Date.now() - started > 90_000) throw new Error(`the bundle did not start (exit code ${child.exitCode})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const login = await fetch(`${base}/v2/oauth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(DEMO_LOGIN) });
    token = ((await login.json()) as { access_token: string }).access_token;
  }, 150_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(outDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });

  it('signs in (argon2, outside the bundle) and answers GraphQL with the token', async () => {
    expect(token).toMatch(/^\S{20,}$/);
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: '{ me { scopes } }' }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { me: { scopes: ['read', 'write'] } } });
  });

  it('serves REST through the operation table and the OpenAPI document built on first request', async () => {
    expect((await get('/api/v2/units?per_page=1', { authorization: `Bearer ${token}` })).status).toBe(200);
    const doc = (await (await get('/api/v2/openapi.json')).json()) as { openapi: string; paths: object };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/items');
  });

  it('serves the docs page with Swagger UI\'s files, GraphiQL, and the OAuth sign-in page', async () => {
    expect((await get('/api/v2/docs')).status).toBe(200);
    expect((await get('/api/v2/docs/assets/swagger-ui.css')).status).toBe(200);
    const graphiql = await get('/graphql', { accept: 'text/html' });
    expect(graphiql.status).toBe(200);
    expect(await graphiql.text()).toContain('GraphiQL');
    const login = await get('/public/v2/oauth/login');
    expect(login.status).toBe(200);
    expect(login.headers.get('content-type')).toMatch(/^text\/html/);
    expect(((await (await get('/.well-known/oauth-authorization-server')).json()) as { issuer: string }).issuer).toBe(base);
  });

  it('answers MCP (its SDK loaded on the first call)', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { tools: { name: string }[] } };
    expect(body.result.tools.length).toBeGreaterThan(5);
  });

  // issue 12: "npm start shows a demo year": the demo company's previous year in every report format
  // (pdfkit and exceljs load their data files from outside the bundle) and as a SAF-T file that
  // validates against the 1.30 XSD and passes our own checks
  it('answers the demo company’s reports as JSON, Excel, HTML and PDF, and its previous year as valid SAF-T', async () => {
    const me = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ me { clientAccounts { id uniqueName } } }' }),
    });
    const accounts = ((await me.json()) as { data: { me: { clientAccounts: { id: number; uniqueName: string }[] } } }).data.me.clientAccounts;
    const company = accounts.find((a) => a.uniqueName === 'demo-nordlys-kaffe-as')!.id;
    const year = new Date().getUTCFullYear() - 1;
    const period = `client_account_id=${company}&date_from=${year}-01-01&date_to=${year}-12-31`;
    const auth = { authorization: `Bearer ${token}` };
    const trial = (await (await get(`/api/v2/reports/trial-balance?${period}`, auth)).json()) as { debit: string; credit: string; account_code: string }[];
    expect(trial.length).toBeGreaterThan(20);
    // decimal strings with two decimals (spec 000)
    const cents = (k: 'debit' | 'credit') => trial.reduce((s, r) => s + BigInt(r[k].replace('.', '')), 0n);
    expect(cents('debit')).toBe(cents('credit'));
    for (const [accept, type] of [
      ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['text/html', 'text/html; charset=utf-8'],
      ['application/pdf', 'application/pdf'],
    ]) {
      const res = await get(`/api/v2/reports/income-statement?${period}`, { ...auth, accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
    const saft = await get(`/api/v2/reports/data-export?${period}`, { ...auth, accept: 'text/xml' });
    expect(saft.status).toBe(200);
    const xml = await saft.text();
    const file = join(dataDir, 'demo-saft.xml');
    writeFileSync(file, xml);
    const lint = spawnSync('xmllint', ['--noout', '--schema', join(PROJECT_ROOT, 'src/modules/reports/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd'), file], { encoding: 'utf8' });
    expect(lint.status, lint.stderr.slice(0, 2000)).toBe(0);
    expect(checkSaft(xml).problems).toEqual([]);
  }, 60_000);
});
