import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { oauthKit } from '../support/oauth.ts';

// spec 000, "Endpoints": GET /.well-known/oauth-authorization-server (RFC 8414) and
// /.well-known/oauth-protected-resource (RFC 9728); the bodies are "not shown" in the spec, so the
// fields follow the RFCs, the OAuth part of the spec (scopes, grants, client authentication, PKCE
// methods) and notes/oauth-on-oidc-provider.md (sections 3 and 4, product decision 5).
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

describe.each(targets())('OAuth discovery (%s)', (db) => {
  let app: TestApp;
  let kit: ReturnType<typeof oauthKit>;
  beforeAll(async () => {
    app = await startTestApp(db);
    kit = oauthKit(app);
  });
  afterAll(() => app?.close());

  const metadata = async () => {
    const res = await app.http('GET', '/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    return res.body as Record<string, any>;
  };

  describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
    it('issuer is the base URL; endpoints and jwks_uri under {base_url}/v2/oauth', async () => {
      const res = await app.http('GET', '/.well-known/oauth-authorization-server');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({
        issuer: app.url,
        authorization_endpoint: `${app.url}/v2/oauth/authorize`,
        token_endpoint: `${app.url}/v2/oauth/token`,
        registration_endpoint: `${app.url}/v2/oauth/register`,
        revocation_endpoint: `${app.url}/v2/oauth/revoke`,
        jwks_uri: `${app.url}/v2/oauth/jwks`,
      });
    });

    it('scopes_supported [read, write]; response_types_supported [code]; the three grant types', async () => {
      const doc = await metadata();
      expect(doc.scopes_supported).toEqual(['read', 'write']);
      expect(doc.response_types_supported).toEqual(['code']);
      expect([...doc.grant_types_supported].sort()).toEqual(['authorization_code', 'client_credentials', 'refresh_token']);
    });

    it('token_endpoint_auth_methods_supported includes client_secret_basic and client_secret_post ("Authentication" 3)', async () => {
      const doc = await metadata();
      expect(doc.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
    });

    it('code_challenge_methods_supported ["S256", "plain"], S256 first ("challenge method S256 or plain")', async () => {
      const doc = await metadata();
      expect(doc.code_challenge_methods_supported).toEqual(['S256', 'plain']);
    });

    it('no OpenID Connect discovery document (this is an OAuth 2.0 server)', async () => {
      const doc = await metadata();
      expect(doc).not.toHaveProperty('userinfo_endpoint');
      expect(doc.scopes_supported).not.toContain('openid');
    });

    it('every advertised endpoint answers', async () => {
      const doc = await metadata();
      const u = await kit.user();
      const client = await kit.ownedClient(u);

      // authorization_endpoint: the OAuth 400 for a request without client_id
      const authorize = await fetch(doc.authorization_endpoint, { redirect: 'manual' });
      expect(authorize.status).toBe(400);
      expect(await authorize.json()).toMatchObject({ error: 'invalid_request' });

      // token_endpoint: client_credentials with client_secret_post
      const token = await fetch(doc.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
      });
      expect(token.status).toBe(200);
      const tokens = await token.json();
      expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });

      // revocation_endpoint: 200 {} for a well-formed request
      const revoke = await fetch(doc.revocation_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.access_token, client_id: client.client_id, client_secret: client.client_secret }),
      });
      expect(revoke.status).toBe(200);
      expect(await revoke.json()).toEqual({});

      // registration_endpoint: RFC 7591
      const registration = await fetch(doc.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Discovered', redirect_uris: [kit.redirectUri], grant_types: ['authorization_code'], scope: 'read' }),
      });
      expect(registration.status).toBe(201);
      expect(await registration.json()).toMatchObject({ client_id: expect.any(String), client_secret: expect.any(String) });

      // jwks_uri
      const jwks = await fetch(doc.jwks_uri);
      expect(jwks.status).toBe(200);
      expect((await jwks.json()).keys.length).toBeGreaterThan(0);
    });

    it('jwks_uri returns RSA signing keys with no private parts (no `d`)', async () => {
      const doc = await metadata();
      const res = await fetch(doc.jwks_uri);
      expect(res.headers.get('content-type')).toMatch(/json/);
      const jwks = (await res.json()) as { keys: Record<string, unknown>[] };
      expect(jwks.keys.length).toBeGreaterThan(0);
      for (const key of jwks.keys) {
        expect(key).toMatchObject({ kty: 'RSA', n: expect.any(String), e: expect.any(String), kid: expect.any(String) });
        for (const member of PRIVATE_JWK_MEMBERS) expect(key).not.toHaveProperty(member);
        if ('use' in key) expect(key.use).toBe('sig');
      }
    });

    it('JWKS at both prefixes (/v2/oauth/jwks and /public/v2/oauth/jwks), the same keys', async () => {
      const a = await app.http('GET', '/v2/oauth/jwks');
      const b = await app.http('GET', '/public/v2/oauth/jwks');
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.body).toEqual(a.body);
      expect(a.text).not.toMatch(/"d"\s*:/);
    });

    it('authorize, token and revoke also answer at the /public/v2/oauth prefix', async () => {
      const u = await kit.user();
      const client = await kit.ownedClient(u);
      const authorize = await app.http('GET', '/public/v2/oauth/authorize');
      expect(authorize).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      const token = await kit.token({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }, { prefix: '/public/v2/oauth' });
      expect(token.status).toBe(200);
      const revoke = await kit.revoke({ token: token.body.access_token, client_id: client.client_id, client_secret: client.client_secret }, { prefix: '/public/v2/oauth' });
      expect(revoke).toMatchObject({ status: 200, body: {} });
    });

    it('a JWT access token verifies with jose against the published JWKS (createRemoteJWKSet on jwks_uri, issuer = base URL)', async () => {
      const doc = await metadata();
      const u = await kit.user();
      const client = await kit.ownedClient(u);
      const code = await kit.code(u, client.client_id, { scope: 'write' });
      const ac = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret });
      const cc = await kit.token({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
      const keySet = createRemoteJWKSet(new URL(doc.jwks_uri));
      for (const res of [ac, cc]) {
        expect(res.status).toBe(200);
        const { payload, protectedHeader } = await jwtVerify(res.body.access_token, keySet, { issuer: app.url, audience: app.url, typ: 'at+jwt' });
        expect(protectedHeader.alg).toBe('RS256');
        expect(payload.iss).toBe(app.url);
        expect(payload.client_id).toBe(client.client_id);
        expect(payload.scope).toBe(res.body.scope);
        expect(payload.exp! - payload.iat!).toBe(3600);
      }
    });
  });

  describe('GET /.well-known/oauth-protected-resource (RFC 9728)', () => {
    it('resource = base URL, authorization_servers [base URL], scopes [read, write], bearer_methods_supported ["header"]', async () => {
      const res = await app.http('GET', '/.well-known/oauth-protected-resource');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({
        resource: app.url,
        authorization_servers: [app.url],
        scopes_supported: ['read', 'write'],
        bearer_methods_supported: ['header'],
      });
    });

    it('/.well-known/oauth-protected-resource/mcp → resource {base_url}/mcp', async () => {
      const res = await app.http('GET', '/.well-known/oauth-protected-resource/mcp');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ resource: `${app.url}/mcp`, authorization_servers: [app.url], bearer_methods_supported: ['header'] });
    });

    it('each authorization server listed publishes RFC 8414 metadata with that issuer', async () => {
      const res = await app.http('GET', '/.well-known/oauth-protected-resource');
      for (const as of res.body.authorization_servers as string[]) {
        const doc = await (await fetch(new URL('/.well-known/oauth-authorization-server', as))).json();
        expect(doc.issuer).toBe(as);
      }
    });
  });
});
