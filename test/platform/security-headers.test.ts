import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { oauthKit, pkcePair } from '../support/oauth.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 8, defect 7: "HTML pages without protection: GraphiQL (GET /graphql as HTML) has no CSP and no
// X-Frame-Options; no HTML page sends X-Content-Type-Options: nosniff or a Referrer-Policy. Use a
// maintained middleware (helmet) with a CSP that GraphiQL and the docs page still work under."
// That they still work is checked in a browser: browser-pages.test.ts.

/** Content-Security-Policy as directive → sources */
function csp(headers: Headers): Record<string, string[]> {
  const value = headers.get('content-security-policy');
  expect(value, 'Content-Security-Policy').toBeTruthy();
  return Object.fromEntries(
    value!
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name, sources]),
  );
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** the headers every response has, page or not */
function expectCommonHeaders(headers: Headers) {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(csp(headers)['frame-ancestors']).toEqual(["'none'"]);
  // nothing that would stop other origins from using the API (CORS) or popups from reaching their opener
  expect(headers.get('cross-origin-embedder-policy')).toBeNull();
  // BASE_URL is http here: no HSTS
  expect(headers.get('strict-transport-security')).toBeNull();
}

const API_POLICY = { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] };

describe.each(targets())('security headers (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  describe('GET /graphql with Accept: text/html (GraphiQL)', () => {
    it('has a CSP allowing exactly its inline scripts by hash, and X-Frame-Options, nosniff, Referrer-Policy', async () => {
      const page = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expectCommonHeaders(page.headers);
      const policy = csp(page.headers);
      const scripts = [...page.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
      expect(scripts.length).toBeGreaterThanOrEqual(2); // GraphiQL's and the sign-in script
      expect(policy['script-src']).toEqual(scripts.map(sha256));
      expect(policy['default-src']).toEqual(["'none'"]);
      expect(policy['worker-src']).toEqual(['blob:']); // Monaco's workers
      expect(policy['connect-src']).toEqual(["'self'", app.url]);
      expect(policy['base-uri']).toEqual(["'none'"]);
      expect(policy['object-src']).toEqual(["'none'"]);
      expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    });

    it('the OAuth redirect arriving (?code&state, a browser Accept header) gets the same page and policy', async () => {
      const plain = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
      const back = await app.http('GET', '/graphql?code=x&state=y', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
      expect(back.status).toBe(200);
      expect(back.headers.get('content-security-policy')).toBe(plain.headers.get('content-security-policy'));
    });

    it('GraphQL answers (JSON) get the API policy, not the page one', async () => {
      const res = await app.http('POST', '/graphql', { token: t.user.token, body: { query: '{ __typename }' } });
      expect(res.status).toBe(200);
      expectCommonHeaders(res.headers);
      expect(csp(res.headers)).toEqual(API_POLICY);
      expect(res.headers.get('cross-origin-opener-policy')).toBeNull();
    });
  });

  describe('/api/v2/docs (Swagger UI)', () => {
    it('the page: script-src and style-src self only (no inline script), X-Frame-Options, nosniff, Referrer-Policy', async () => {
      const page = await app.http('GET', '/api/v2/docs');
      expect(page.status).toBe(200);
      expectCommonHeaders(page.headers);
      const policy = csp(page.headers);
      expect(policy['default-src']).toEqual(["'none'"]);
      expect(policy['script-src']).toEqual(["'self'"]);
      expect(policy['style-src']).toEqual(["'self'"]);
      expect(policy['connect-src']).toEqual(["'self'", app.url]);
    });

    it("Swagger UI's OAuth redirect page (a file of the docs) has the docs policy: it loads its script from 'self'", async () => {
      const res = await app.http('GET', '/api/v2/docs/assets/oauth2-redirect.html');
      expect(res.status).toBe(200);
      expect(res.text).toContain('<script src="oauth2-redirect.js">');
      expect(csp(res.headers)['script-src']).toEqual(["'self'"]);
      expectCommonHeaders(res.headers);
    });

    it('openapi.json is no page: the API policy', async () => {
      const res = await app.http('GET', '/api/v2/openapi.json');
      expect(csp(res.headers)).toEqual(API_POLICY);
    });
  });

  describe('JSON API responses', () => {
    it('GET /api/v2/units: nosniff, the API policy, nothing that limits cross-origin use', async () => {
      const res = await app.http('GET', '/api/v2/units?per_page=1', { token: t.user.token, headers: { origin: 'https://spa.example' } });
      expect(res.status).toBe(200);
      expectCommonHeaders(res.headers);
      expect(csp(res.headers)).toEqual(API_POLICY);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('cross-origin-resource-policy')).toBeNull();
      expect(res.headers.get('cross-origin-opener-policy')).toBeNull();
    });

    it('errors too (401 without a token, 404 of an unknown path)', async () => {
      for (const res of [await app.http('GET', '/api/v2/units'), await app.http('GET', '/no/such/path')]) {
        expect([401, 404]).toContain(res.status);
        expectCommonHeaders(res.headers);
        expect(csp(res.headers)).toEqual(API_POLICY);
      }
    });

    // /mcp allows only the origins its Origin check lets through (MCP_ALLOWED_ORIGINS): test/mcp/transport.test.ts
    it.each(['/api/v2/items', '/graphql'])('CORS still works: a preflight of POST %s from another origin is 204 with Access-Control-Allow-Origin', async (path) => {
      const res = await app.http('OPTIONS', path, { headers: { origin: 'https://spa.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
      expect(res.headers.get('cross-origin-resource-policy')).toBeNull();
    });
  });

  describe('OAuth login and consent pages', () => {
    it('login: no script, its <style> by hash, the form may post to this origin only', async () => {
      const page = await app.http('GET', '/public/v2/oauth/login', { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expectCommonHeaders(page.headers);
      const policy = csp(page.headers);
      const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)![1];
      expect(policy).toEqual({
        'default-src': ["'none'"],
        'base-uri': ["'none'"],
        'object-src': ["'none'"],
        'frame-ancestors': ["'none'"],
        'style-src': [sha256(style)],
        'form-action': ["'self'"],
      });
      expect(page.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    });

    it("consent: form-action allows this origin and the client's redirect_uri origin (Chrome checks the redirect after the post)", async () => {
      const kit = oauthKit(app);
      const user = await kit.user();
      const client = await kit.register({ redirect_uris: ['https://client.example/callback'] });
      const page = await user.browser.get(kit.authorizePath({ client_id: client.client_id, redirect_uri: 'https://client.example/callback', response_type: 'code', state: 's' }));
      expect(page.status).toBe(200);
      expect(page.text).toContain('Allow access?');
      expectCommonHeaders(page.headers);
      expect(csp(page.headers)['form-action']).toEqual(["'self'", 'https://client.example']);
    });

    it('a native client (custom scheme redirect_uri): form-action names the scheme', async () => {
      const kit = oauthKit(app);
      const user = await kit.user();
      const client = await kit.register({ redirect_uris: ['com.example.app:/callback'], token_endpoint_auth_method: 'none' });
      const page = await user.browser.get(
        kit.authorizePath({ client_id: client.client_id, redirect_uri: 'com.example.app:/callback', response_type: 'code', code_challenge: pkcePair().s256, code_challenge_method: 'S256' }),
      );
      expect(page.status).toBe(200);
      expect(csp(page.headers)['form-action']).toEqual(["'self'", 'com.example.app:']);
    });
  });
});

describe.each(targets())('BASE_URL on https (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target, { env: { BASE_URL: 'https://api.example' } });
  });
  afterAll(() => app?.close());

  it('every response has Strict-Transport-Security for a year, without includeSubDomains', async () => {
    for (const path of ['/health', '/api/v2/docs', '/public/v2/oauth/login']) {
      const res = await app.http('GET', path, { headers: { accept: 'text/html' } });
      expect(res.headers.get('strict-transport-security'), path).toBe('max-age=31536000');
    }
  });
});
