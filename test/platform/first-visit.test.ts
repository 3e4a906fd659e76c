import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { onceTargets, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { CHROMIUM, hasChromium, signInFromGraphiql } from '../support/browser.ts';
import { oauthKit, PASSWORD, type OauthUser } from '../support/oauth.ts';
import type { Tenant } from '../support/seed.ts';

// Issue "A first visit that works": GET / is a landing page, GraphiQL opens on a runnable tab after
// sign-in, responses are compressed (gzip/br for HTML, JS and JSON above a size).

/** One request with the bytes as they came over the wire (fetch would decompress them). */
function raw(url: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const decode = (r: { headers: Record<string, string | string[] | undefined>; bytes: Buffer }) =>
  (r.headers['content-encoding'] === 'br' ? brotliDecompressSync(r.bytes) : r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.bytes) : r.bytes).toString('utf8');

describe.each(targets())('first visit (%s)', (target) => {
  let app: TestApp;
  let demoApp: TestApp;
  let t: Tenant;
  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    // a second app on the same database that knows a demo, as src/server.ts does after the seed
    demoApp = await startTestApp(target, {
      database: app.db,
      demo: { email: 'demo-of-this-test@example.no', password: 'demo-password', clientAccountId: t.account.id, companyName: 'Test Kaffe AS' },
    });
  });
  afterAll(async () => {
    await demoApp?.close();
    await app?.close();
  });

  describe('GET /', () => {
    it('a browser gets a small page: the product name, the banner\'s links; the demo login only when there is a demo', async () => {
      const page = await app.http('GET', '/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.text).toMatch(/<html lang="en">/);
      expect(page.text).toMatch(/<h1>Accounting API<\/h1>/);
      for (const path of ['/graphql', '/api/v2/docs', '/api/v2/openapi.json', '/.well-known/oauth-authorization-server', '/mcp']) expect(page.text).toContain(`href="${path}"`);
      expect(page.text).not.toContain('Demo login');
      expect(page.text.length).toBeLessThan(8000); // small
      expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*style-src 'sha256-/);

      const demo = await demoApp.http('GET', '/', { headers: { accept: 'text/html' } });
      expect(demo.text).toContain('Demo login');
      expect(demo.text).toContain('demo-of-this-test@example.no');
      expect(demo.text).toContain(`client account <code>${t.account.id}</code>`);
    });

    it('a client asking for JSON (or anything: curl) gets the links as JSON, not a 404', async () => {
      for (const accept of ['application/json', '*/*']) {
        const res = await demoApp.http('GET', '/', { headers: { accept } });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ name: 'Accounting API', links: { graphiql: '/graphql', docs: '/api/v2/docs', openapi: '/api/v2/openapi.json', mcp: '/mcp' } });
        expect(res.body.demo).toMatchObject({ email: 'demo-of-this-test@example.no', client_account_id: t.account.id });
      }
      expect((await app.http('GET', '/', { headers: { accept: 'application/json' } })).body.demo).toBeUndefined();
    });
  });

  describe('compressed responses', () => {
    it('openapi.json: br or gzip as asked, Vary: Accept-Encoding, the same document; plain without Accept-Encoding', async () => {
      const plain = await raw(`${app.url}/api/v2/openapi.json`);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const document = plain.bytes.toString('utf8');
      for (const encoding of ['br', 'gzip']) {
        const res = await raw(`${app.url}/api/v2/openapi.json`, { 'accept-encoding': encoding });
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(res.headers.vary).toMatch(/Accept-Encoding/i);
        expect(res.bytes.length).toBeLessThan(plain.bytes.length / 5);
        expect(decode(res)).toBe(document);
      }
    });

    it('the GraphiQL page (9 MB) goes out compressed once: br under 2.5 MB, gzip under 3 MB, same page, same headers', async () => {
      const html = { accept: 'text/html' };
      const plain = await raw(`${app.url}/graphql`, html);
      expect(plain.bytes.length).toBeGreaterThan(5_000_000);
      const br = await raw(`${app.url}/graphql`, { ...html, 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.bytes.length).toBeLessThan(2_500_000);
      const gz = await raw(`${app.url}/graphql`, { ...html, 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.bytes.length).toBeLessThan(3_000_000);
      expect(decode(br)).toBe(plain.bytes.toString('utf8'));
      expect(decode(gz)).toBe(plain.bytes.toString('utf8'));
      expect(br.headers['content-security-policy']).toBe(plain.headers['content-security-policy']);
      expect(br.headers['content-length']).toBe(String(br.bytes.length));
    });

    it('below 1 KB stays plain (GET /health); the docs files keep their ETag and answer 304', async () => {
      const health = await raw(`${app.url}/health`, { 'accept-encoding': 'br, gzip' });
      expect(health.headers['content-encoding']).toBeUndefined();
      const css = await raw(`${app.url}/api/v2/docs/assets/swagger-ui.css`, { 'accept-encoding': 'br' });
      expect(css.headers['content-encoding']).toBe('br');
      const etag = css.headers.etag as string;
      expect(etag).toBeTruthy();
      const again = await raw(`${app.url}/api/v2/docs/assets/swagger-ui.css`, { 'accept-encoding': 'br', 'if-none-match': etag });
      expect(again.status).toBe(304);
    });

    it('GraphQL and MCP answers above 1 KB are compressed and decode to the same JSON a plain request gets', async () => {
      const query = JSON.stringify({ query: '{ __schema { queryType { fields { name } } } }' });
      const post = (path: string, body: string, extra: Record<string, string> = {}) =>
        raw(`${app.url}${path}`, { authorization: `Bearer ${t.user.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra }, 'POST', body);
      const gql = await post('/graphql', query, { 'accept-encoding': 'br' });
      expect(gql.status).toBe(200);
      expect(gql.headers['content-encoding']).toBe('br');
      expect(JSON.parse(decode(gql))).toEqual(JSON.parse(decode(await post('/graphql', query))));
      const tools = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const mcp = await post('/mcp', tools, { 'accept-encoding': 'gzip' });
      expect(mcp.status).toBe(200);
      expect(mcp.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(decode(mcp)).result.tools.length).toBeGreaterThan(10);
    });

    it('an Idempotency-Key replay is compressed like the first answer and decodes to the same bytes', async () => {
      const key = `first-visit-${Date.now()}`;
      // twelve tags with long names: an answer above the 1 KB threshold
      const tags = Array.from({ length: 12 }, (_, i) => `t${i}: createTag(input: { clientAccountId: ${t.account.id}, name: "first visit ${key} ${i} ${'x'.repeat(50)}" }) { id name }`);
      const query = JSON.stringify({ query: `mutation { ${tags.join(' ')} }` });
      const send = () =>
        raw(`${app.url}/graphql`, { authorization: `Bearer ${t.user.token}`, 'content-type': 'application/json', 'idempotency-key': key, 'accept-encoding': 'gzip' }, 'POST', query);
      const first = await send();
      const second = await send();
      expect(first.status, decode(first)).toBe(200);
      expect(first.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(decode(first)).errors).toBeUndefined();
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.headers['content-encoding']).toBe(first.headers['content-encoding']);
      expect(decode(second)).toBe(decode(first));
    });
  });
});

const pageTargets = onceTargets();

describe.skipIf(!hasChromium || pageTargets.length === 0)('first visit in Chromium', { timeout: 240_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  afterAll(() => browser?.close());

  describe.each(pageTargets)('%s', (target) => {
    let app: TestApp;
    let base: TestApp;
    let user: OauthUser;
    beforeAll(async () => {
      base = await startTestApp(target);
      user = await oauthKit(base).user();
      app = await startTestApp(target, { database: base.db, demo: { email: user.email, password: PASSWORD, clientAccountId: user.clientAccountId, companyName: 'Test Kaffe AS' } });
    });
    afterAll(async () => {
      await app?.close();
      await base?.close();
    });

    /** a fresh profile that records CSP violations and page errors */
    const open = async () => {
      const context = await browser.newContext();
      context.setDefaultTimeout(60_000);
      const problems: string[] = [];
      context.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) problems.push(m.text());
      });
      const page = await context.newPage();
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      return { context, page, problems };
    };

    it('the landing page renders under its CSP: heading, links, the demo login; no violation', async () => {
      const { context, page, problems } = await open();
      try {
        const res = await page.goto(`${app.url}/`);
        expect(res!.headers()['content-type']).toContain('text/html');
        await expect(page.locator('h1').textContent()).resolves.toBe('Accounting API');
        await expect(page.locator('a[href="/graphql"]').first().isVisible()).resolves.toBe(true);
        await expect(page.locator('main').textContent()).resolves.toContain(user.email);
        // the stylesheet applied (allowed by its hash): main is a centred card, not the browser's default
        expect(await page.locator('main').evaluate((m) => getComputedStyle(m).borderTopStyle)).toBe('solid');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('GraphiQL after sign-in: the active tab is the first query, and running it answers data without errors', async () => {
      const { context, page, problems } = await open();
      try {
        await page.goto(`${app.url}/graphql`);
        await page.locator('.graphiql-query-editor', { hasText: 'query FirstSteps' }).waitFor();
        await signInFromGraphiql(page, app.url, user);
        // back from the sign-in: no new <untitled> tab, the query is in the editor as it opens
        await page.locator('.graphiql-query-editor', { hasText: 'query FirstSteps' }).waitFor();
        expect(await page.locator('.graphiql-tab', { hasText: '<untitled>' }).count()).toBe(0);
        const [answer] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${app.url}/graphql` && r.request().method() === 'POST' && /FirstSteps/.test(r.request().postData() ?? '')),
          page.locator('.graphiql-execute-button').click(),
        ]);
        const body = await answer.json();
        expect(body.errors).toBeUndefined();
        expect(body.data.me.user.email).toBe(user.email);
        expect(body.data.accounts).toBeDefined(); // the demo company's chart, by its id
        await page.locator('.graphiql-response', { hasText: 'clientAccounts' }).waitFor();
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
