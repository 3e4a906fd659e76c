import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { oauthKit } from '../support/oauth.ts';

// Browser-based clients: discovery, registration, token and revoke answer cross-origin requests
// (no cookies are involved there; each request authenticates itself).
describe.each(targets())('CORS on the OAuth endpoints (%s)', (target) => {
  let app: TestApp;
  const origin = 'https://spa.example';
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  it.each(['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource'])('GET %s allows any origin', async (path) => {
    const res = await app.http('GET', path, { headers: { origin } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each(['/v2/oauth/token', '/public/v2/oauth/token', '/v2/oauth/revoke', '/public/v2/oauth/revoke', '/v2/oauth/register'])('a preflight of POST %s is answered 204 with the origin allowed', async (path) => {
    const res = await app.http('OPTIONS', path, { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(res.status).toBe(204);
    expect(['*', origin]).toContain(res.headers.get('access-control-allow-origin'));
    expect(res.headers.get('access-control-allow-headers')).toMatch(/content-type/i);
  });

  it('a cross-origin token request of a confidential client is served (not refused for its origin)', async () => {
    const kit = oauthKit(app);
    const owner = await kit.user();
    const client = await kit.ownedClient(owner, { grant_types: 'client_credentials' });
    const res = await app.http('POST', '/v2/oauth/token', {
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
  });
});
