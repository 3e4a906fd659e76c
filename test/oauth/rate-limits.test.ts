import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { Browser } from '../support/oauth.ts';

const form = { 'content-type': 'application/x-www-form-urlencoded' };

// Spec 000 "Limits" (per client IP): token 60/min, revoke 60/min, GET authorize 120/hour,
// login 60/hour, register 10/hour; "Exceeding a limit returns 429 Too Many Requests".
describe.each(targets())('rate limits of the OAuth endpoints (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target, { rateLimits: 'spec' });
  });
  afterAll(() => app?.close());

  const expect429 = (res: { status: number; headers: Headers; body: any }, limit: number) => {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'rate_limit_exceeded', error_description: expect.stringContaining(`at most ${limit} requests`) });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  };

  it('POST /v2/oauth/register: 10 per hour, the 11th registration is 429 with Retry-After and RateLimit-* headers', async () => {
    const body = { client_name: 'r', redirect_uris: ['https://client.example/cb'], grant_types: ['authorization_code'] };
    for (let i = 1; i <= 10; i++) {
      const res = await app.http('POST', '/v2/oauth/register', { body });
      expect(res.status).toBe(201);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(10 - i));
    }
    expect429(await app.http('POST', '/v2/oauth/register', { body }), 10);
  });

  it('POST token: 60 per minute counted across /v2/oauth/token and /public/v2/oauth/token together', async () => {
    for (let i = 0; i < 60; i++) {
      const prefix = i % 2 ? '/v2/oauth' : '/public/v2/oauth';
      const res = await app.http('POST', `${prefix}/token`, { body: 'grant_type=password', headers: form });
      expect(res.status).not.toBe(429);
    }
    expect429(await app.http('POST', '/v2/oauth/token', { body: 'grant_type=password', headers: form }), 60);
    expect429(await app.http('POST', '/public/v2/oauth/token', { body: 'grant_type=password', headers: form }), 60);
  });

  it('POST revoke: 60 per minute across both prefixes; token has its own count', async () => {
    for (let i = 0; i < 60; i++) {
      const res = await app.http('POST', `${i % 2 ? '/v2/oauth' : '/public/v2/oauth'}/revoke`, { body: 'token=x', headers: form });
      expect(res.status).toBe(401);
    }
    expect429(await app.http('POST', '/public/v2/oauth/revoke', { body: 'token=x', headers: form }), 60);
  });

  it('GET authorize: 120 per hour across both prefixes; POST (the consent form, "no limit" in issue 8 #9) has its own 120 per hour', async () => {
    const query = '/authorize?client_id=nobody&redirect_uri=https://x.example/';
    for (let i = 0; i < 120; i++) {
      const res = await app.http('GET', `${i % 2 ? '/v2/oauth' : '/public/v2/oauth'}${query}`);
      expect(res.status).toBe(400);
    }
    expect429(await app.http('GET', `/v2/oauth${query}`), 120);
    for (let i = 1; i <= 120; i++) {
      const res = await app.http('POST', `${i % 2 ? '/v2/oauth' : '/public/v2/oauth'}${query}`, { body: 'confirm=yes', headers: form });
      expect(res.status).toBe(400);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(120 - i));
    }
    expect429(await app.http('POST', `/public/v2/oauth${query}`, { body: 'confirm=yes', headers: form }), 120);
  });

  it('login: 60 per hour shared by POST /v2/oauth/login (JSON) and the sign-in form', async () => {
    for (let i = 0; i < 30; i++) {
      const res = await app.http('POST', '/v2/oauth/login', { body: { email: 'nobody@test.example', password: 'wrong-password' } });
      expect(res.status).toBe(401);
    }
    const browser = new Browser(app.url);
    for (let i = 0; i < 30; i++) {
      const res = await browser.post('/public/v2/oauth/login', { email: 'nobody@test.example', password: 'wrong', csrf: 'x' });
      expect(res.status).toBe(403);
    }
    expect429(await app.http('POST', '/v2/oauth/login', { body: { email: 'nobody@test.example', password: 'wrong-password' } }), 60);
    const page = await browser.post('/public/v2/oauth/login', { email: 'x', password: 'y', csrf: 'x' });
    expect(page.status).toBe(429);
  });
});
