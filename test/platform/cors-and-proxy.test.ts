import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Hardening: "preflights to /graphql and /api/v2 answer 401, so a frontend on another origin cannot call
// the API at all. Answer preflights without authentication and allow the origins in CORS_ORIGINS";
// "a local peer rotating X-Forwarded-For made 150 wrong-password logins with no 429 — make the proxy
// trust a configuration (TRUST_PROXY, off by default)".

const preflight = (app: TestApp, path: string, origin: string) =>
  app.http('OPTIONS', path, { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' } });

describe.each(targets())('CORS on the API and proxy trust (%s)', (target) => {
  describe('CORS_ORIGINS unset: any origin (bearer tokens, no cookies)', () => {
    let app: TestApp;
    let t: Tenant;
    beforeAll(async () => {
      app = await startTestApp(target, { rateLimits: 'spec' });
      t = await app.seed.tenant();
    });
    afterAll(() => app?.close());

    // /mcp allows only the origins its Origin check lets through (MCP_ALLOWED_ORIGINS): test/mcp/transport.test.ts
    it.each(['/api/v2/items', '/graphql'])('a preflight of POST %s is 204 without a token, allowing the API headers', async (path) => {
      const res = await preflight(app, path, 'https://spa.example');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
      expect(res.headers.get('access-control-allow-headers')).toMatch(/idempotency-key/i);
    });

    it('a cross-origin GET is answered with the origin allowed and x-request-id exposed', async () => {
      const res = await app.http('GET', '/api/v2/units?per_page=1', { token: t.user.token, headers: { origin: 'https://spa.example' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toMatch(/x-request-id/i);
    });

    it('TRUST_PROXY is off by default: rotating X-Forwarded-For does not escape the login limit (60 per hour)', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++) {
        const res = await app.http('POST', '/v2/oauth/login', { body: { email: t.user.email, password: 'wrong' }, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 60).every((s) => s === 401)).toBe(true);
      expect(statuses[60]).toBe(429);
    });
  });

  describe('CORS_ORIGINS=https://app.example', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(target, { env: { CORS_ORIGINS: 'https://app.example, https://admin.example/' } });
    });
    afterAll(() => app?.close());

    it('a listed origin is allowed by name', async () => {
      const res = await preflight(app, '/api/v2/items', 'https://admin.example');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://admin.example');
    });

    it('another origin gets no Access-Control-Allow-Origin', async () => {
      const res = await preflight(app, '/graphql', 'https://evil.example');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});
