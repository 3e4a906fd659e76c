import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import { Browser, decode, oauthKit, type OauthUser } from '../support/oauth.ts';

// spec 000, "Authentication" 1 (Bearer on /api/v2), 2 (grant types), 5 (lifetime 3600 s), 6 (read and
// write: a token without write cannot POST, PUT, PATCH or DELETE), 8 (resource binds the audience);
// "States and transitions" (codes and refresh tokens); "Token response" (access_token is a signed JWT).
type Grant = 'authorization_code' | 'refresh_token' | 'client_credentials';
const GRANTS: Grant[] = ['authorization_code', 'refresh_token', 'client_credentials'];
const ME = '{ me { user { email } } }';
const UPDATE_ME = 'mutation($input: UpdateMeInput!) { updateMe(input: $input) { id firstName } }';

function expectInsufficientScope(res: HttpResult) {
  expect(res.status).toBe(403);
  expect(res.headers.get('www-authenticate') ?? '').toContain('error="insufficient_scope"');
}

function expectUnauthorized(res: HttpResult) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate') ?? '').toMatch(/^Bearer\b/);
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe.each(targets())('OAuth tokens on the API (%s)', (db) => {
  let app: TestApp;
  let kit: ReturnType<typeof oauthKit>;
  beforeAll(async () => {
    app = await startTestApp(db);
    kit = oauthKit(app);
  });
  afterAll(() => app?.close());

  /** An access token of `grant` for the user, asking for `scope` (undefined: none requested). */
  async function accessToken(grant: Grant, u: OauthUser, scope?: string): Promise<string> {
    if (grant === 'client_credentials') {
      const owned = await kit.ownedClient(u, { grant_types: 'client_credentials', scope: 'read write' });
      const t = await kit.token({ grant_type: 'client_credentials', client_id: owned.client_id, client_secret: owned.client_secret, scope });
      expect(t.status).toBe(200);
      return t.body.access_token;
    }
    const client = await kit.register({ scope: 'read write' });
    const code = await kit.code(u, client.client_id, { scope });
    const t = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret });
    expect(t.status).toBe(200);
    if (grant === 'authorization_code') return t.body.access_token;
    const r = await kit.token({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: client.client_id, client_secret: client.client_secret });
    expect(r.status).toBe(200);
    return r.body.access_token;
  }

  /** A valid POST /api/v2/items body in the user's client account. */
  async function itemBody(u: OauthUser) {
    const unit = await app.seed.unitId('H87');
    const tax = await app.db.prisma.taxCode.findUniqueOrThrow({ where: { clientAccountId_code: { clientAccountId: u.clientAccountId, code: '3' } } });
    return { client_account_id: u.clientAccountId, item_no: `OAUTH-${Math.random().toString(36).slice(2, 10)}`, name: 'Kaffe', sales_unit_id: unit, tax_code_id: tax.id };
  }

  const gql = (token: string, query: string, variables?: Record<string, unknown>) => app.http('POST', '/graphql', { token, body: { query, variables } });

  describe('a token from each grant calls the API', () => {
    it.each(GRANTS)('%s: GET /api/v2/items?client_account_id=… → 200 and POST /graphql { me } → 200', async (grant) => {
      const u = await kit.user();
      const token = await accessToken(grant, u, 'read');
      const items = await app.http('GET', `/api/v2/items?client_account_id=${u.clientAccountId}`, { token });
      expect(items.status).toBe(200);
      expect(items.body).toMatchObject({ data: [], meta: { page: 1, records: 0 } });
      const me = await gql(token, ME);
      expect(me.status).toBe(200);
      expect(me.body.errors).toBeUndefined();
      expect(me.body.data.me.user.email).toBe(u.email);
    });

    it.each(GRANTS)('%s: the token is a JWT with iss = base URL, user_id of the user, expires in 3600 s', async (grant) => {
      const u = await kit.user();
      const claims = decode(await accessToken(grant, u));
      expect(claims.iss).toBe(app.url);
      expect(claims.user_id).toBe(u.id);
      expect(claims.exp! - claims.iat!).toBe(3600);
    });

    it.each(GRANTS)('%s: no requested scope → read ("Without a requested scope, read is granted")', async (grant) => {
      const u = await kit.user();
      const token = await accessToken(grant, u);
      expect(decode(token).scope).toBe('read');
      expect((await app.http('GET', `/api/v2/items?client_account_id=${u.clientAccountId}`, { token })).status).toBe(200);
      expectInsufficientScope(await app.http('POST', '/api/v2/items', { token, body: await itemBody(u) }));
    });

    it.each(GRANTS)('%s: the token reaches only the user\'s eligible client accounts (another account → 403)', async (grant) => {
      const u = await kit.user();
      const other = await app.seed.clientAccount();
      const token = await accessToken(grant, u, 'write');
      expect((await app.http('GET', `/api/v2/items?client_account_id=${other.id}`, { token })).status).toBe(403);
    });
  });

  it('a verified token is kept in memory only until it expires: the same token is refused after exp', async () => {
    const u = await kit.user();
    const token = await accessToken('client_credentials', u, 'read');
    expect((await gql(token, ME)).status).toBe(200);
    expect((await gql(token, ME)).status).toBe(200); // the second use is answered from the cache
    try {
      vi.useFakeTimers({ toFake: ['Date'], now: decode(token).exp! * 1000 });
      expectUnauthorized(await gql(token, ME));
    } finally {
      vi.useRealTimers();
    }
  });

  describe('scopes ("Authentication" 6: a token without write cannot perform POST, PUT, PATCH or DELETE)', () => {
    it.each(GRANTS)('%s, scope read: REST POST /api/v2/items → 403 with WWW-Authenticate error="insufficient_scope"; nothing is created', async (grant) => {
      const u = await kit.user();
      const token = await accessToken(grant, u, 'read');
      const body = await itemBody(u);
      const res = await app.http('POST', '/api/v2/items', { token, body });
      expectInsufficientScope(res);
      expect(await app.db.prisma.item.count({ where: { clientAccountId: u.clientAccountId } })).toBe(0);
    });

    it('scope read: PUT and DELETE on /api/v2/items/{id} → 403 insufficient_scope (they are mutations), even with a malformed body; PATCH is no operation of the path (405); the item is unchanged', async () => {
      const u = await kit.user();
      const writer = await accessToken('authorization_code', u, 'write');
      const created = await app.http('POST', '/api/v2/items', { token: writer, body: await itemBody(u) });
      expect(created.status).toBe(201);
      const reader = await accessToken('authorization_code', u, 'read');
      for (const method of ['PUT', 'DELETE']) {
        expectInsufficientScope(await app.http(method, `/api/v2/items/${created.body.id}`, { token: reader, body: method === 'DELETE' ? undefined : { name: 'Changed' } }));
      }
      expectInsufficientScope(await app.http('PUT', `/api/v2/items/${created.body.id}`, { token: reader, body: { name: 7, colour: 'red' } }));
      const patch = await app.http('PATCH', `/api/v2/items/${created.body.id}`, { token: reader, body: { name: 'Changed' } });
      expect(patch).toMatchObject({ status: 405, body: { error: expect.stringContaining('PATCH'), status: 405 } });
      expect(patch.headers.get('allow')).toBe('GET, PUT, DELETE');
      const after = await app.http('GET', `/api/v2/items/${created.body.id}`, { token: reader });
      expect(after.status).toBe(200);
      expect(after.body.name).toBe('Kaffe');
    });

    it.each(GRANTS)('%s, scope read: GraphQL mutation (updateMe) → 403 with WWW-Authenticate error="insufficient_scope"; nothing changes', async (grant) => {
      const u = await kit.user();
      const token = await accessToken(grant, u, 'read');
      const res = await gql(token, UPDATE_ME, { input: { firstName: 'Mallory' } });
      expectInsufficientScope(res);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('insufficient_scope');
      const user = await app.db.prisma.user.findUniqueOrThrow({ where: { id: u.id } });
      expect(user.firstName).not.toBe('Mallory');
    });

    it.each(GRANTS)('%s, scope write: REST POST /api/v2/items → 201 and GraphQL updateMe → 200', async (grant) => {
      const u = await kit.user();
      const token = await accessToken(grant, u, 'write');
      expect(decode(token).scope).toBe('read write');
      const created = await app.http('POST', '/api/v2/items', { token, body: await itemBody(u) });
      expect(created.status).toBe(201);
      expect(created.body.client_account_id).toBe(u.clientAccountId);
      const res = await gql(token, UPDATE_ME, { input: { firstName: 'Kari' } });
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.updateMe).toEqual({ id: u.id, firstName: 'Kari' });
    });

    it('refresh with scope=read narrows a write grant: the new token is read-only (403 on a write)', async () => {
      const u = await kit.user();
      const client = await kit.register({ scope: 'read write' });
      const code = await kit.code(u, client.client_id, { scope: 'write' });
      const t = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret });
      const r = await kit.token({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, scope: 'read', client_id: client.client_id, client_secret: client.client_secret });
      expect(r.status).toBe(200);
      expect(r.body.scope).toBe('read');
      expectInsufficientScope(await app.http('POST', '/api/v2/items', { token: r.body.access_token, body: await itemBody(u) }));
      expect((await app.http('GET', `/api/v2/items?client_account_id=${u.clientAccountId}`, { token: r.body.access_token })).status).toBe(200);
    });
  });

  describe('invalid tokens → 401', () => {
    /** the server's own signing key (kept by the app in server_secrets), to forge otherwise-valid tokens */
    async function serverKey() {
      const row = await app.db.prisma.serverSecret.findUniqueOrThrow({ where: { name: 'oauth.jwks' } });
      const jwk = (row.value as unknown as { keys: JWK[] }).keys[0];
      return { key: await importJWK(jwk, 'RS256'), kid: jwk.kid! };
    }
    async function sign(claims: JWTPayload, key: CryptoKey | Uint8Array, header: { kid: string; typ?: string; alg?: string }) {
      return new SignJWT(claims).setProtectedHeader({ alg: header.alg ?? 'RS256', typ: header.typ ?? 'at+jwt', kid: header.kid }).sign(key);
    }
    async function realToken() {
      const u = await kit.user();
      const token = await accessToken('authorization_code', u, 'write');
      return { u, token, claims: decode(token) };
    }
    const items = (u: OauthUser, token: string) => app.http('GET', `/api/v2/items?client_account_id=${u.clientAccountId}`, { token });

    it('control: a token signed with the server key and the same claims is accepted (the forgeries below differ in one point)', async () => {
      const { u, claims } = await realToken();
      const { key, kid } = await serverKey();
      const now = Math.floor(Date.now() / 1000);
      expect((await items(u, await sign({ ...claims, iat: now, exp: now + 600 }, key, { kid }))).status).toBe(200);
    });

    it.each(['', 'admin', 'read:nothing'])('scope %j (no read or write), signed with the real key → 401 ("a token with no scopes cannot access the API")', async (scope) => {
      const { u, claims } = await realToken();
      const { key, kid } = await serverKey();
      const now = Math.floor(Date.now() / 1000);
      const scopeless = await sign({ ...claims, scope, iat: now, exp: now + 600 }, key, { kid });
      expectUnauthorized(await items(u, scopeless));
      expectUnauthorized(await gql(scopeless, ME));
    });

    it('expired (exp in the past, signed with the real key) → 401 ("Access token lifetime 3600 seconds")', async () => {
      const { u, claims } = await realToken();
      const { key, kid } = await serverKey();
      const now = Math.floor(Date.now() / 1000);
      const expired = await sign({ ...claims, iat: now - 7200, exp: now - 3600 }, key, { kid });
      expectUnauthorized(await items(u, expired));
      expectUnauthorized(await gql(expired, ME));
    });

    it('payload altered (scope, user_id or exp changed), signature kept → 401', async () => {
      const { u, token, claims } = await realToken();
      const [header, , signature] = token.split('.');
      const other = await kit.user();
      for (const patch of [{ scope: 'read write admin' }, { user_id: other.id }, { exp: claims.exp! + 86_400 }]) {
        const tampered = `${header}.${b64({ ...claims, ...patch })}.${signature}`;
        expectUnauthorized(await items(u, tampered));
        expectUnauthorized(await gql(tampered, ME));
      }
    });

    it('signature altered → 401', async () => {
      const { u, token } = await realToken();
      const [header, payload, signature] = token.split('.');
      const flipped = (signature[5] === 'A' ? 'B' : 'A');
      expectUnauthorized(await items(u, `${header}.${payload}.${signature.slice(0, 5)}${flipped}${signature.slice(6)}`));
      expectUnauthorized(await items(u, `${header}.${payload}.`));
    });

    it('signed with a different key (same kid) → 401', async () => {
      const { u, claims } = await realToken();
      const { privateKey } = await generateKeyPair('RS256', { extractable: true });
      const { kid } = await serverKey();
      expect((await exportJWK(privateKey)).kty).toBe('RSA');
      const forged = await sign(claims, privateKey, { kid });
      expectUnauthorized(await items(u, forged));
      expectUnauthorized(await gql(forged, ME));
    });

    it('alg none → 401', async () => {
      const { u, token, claims } = await realToken();
      const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
      const unsigned = `${b64({ ...header, alg: 'none' })}.${b64(claims)}.`;
      expectUnauthorized(await items(u, unsigned));
    });

    it('another issuer (signed with the real key) → 401', async () => {
      const { u, claims } = await realToken();
      const { key, kid } = await serverKey();
      expectUnauthorized(await items(u, await sign({ ...claims, iss: 'https://evil.example' }, key, { kid })));
    });

    it('not an access token (typ JWT instead of at+jwt, signed with the real key) → 401', async () => {
      const { u, claims } = await realToken();
      const { key, kid } = await serverKey();
      expectUnauthorized(await items(u, await sign(claims, key, { kid, typ: 'JWT' })));
    });

    it('a refresh token or an authorization code used as a bearer token → 401', async () => {
      const u = await kit.user();
      const client = await kit.register();
      const code = await kit.code(u, client.client_id);
      const t = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret });
      expectUnauthorized(await items(u, t.body.refresh_token));
      expectUnauthorized(await items(u, code));
    });

    it('no token → 401 on /api/v2 and on POST /graphql', async () => {
      const u = await kit.user();
      expectUnauthorized(await app.http('GET', `/api/v2/items?client_account_id=${u.clientAccountId}`));
      expectUnauthorized(await app.http('POST', '/graphql', { body: { query: ME } }));
    });
  });

  describe('resource binds the audience ("Authentication" 8)', () => {
    async function ccToken(u: OauthUser, resource: string) {
      const owned = await kit.ownedClient(u, { grant_types: 'client_credentials', scope: 'read write' });
      const t = await kit.token({ grant_type: 'client_credentials', client_id: owned.client_id, client_secret: owned.client_secret, scope: 'read', resource });
      expect(t.status).toBe(200);
      return t.body.access_token as string;
    }

    it('a token bound to {base_url}/mcp is refused by /api/v2 and /graphql (401)', async () => {
      const u = await kit.user();
      const token = await ccToken(u, `${app.url}/mcp`);
      expect(decode(token).aud).toBe(`${app.url}/mcp`);
      expectUnauthorized(await app.http('GET', `/api/v2/items?client_account_id=${u.clientAccountId}`, { token }));
      expectUnauthorized(await gql(token, ME));
    });

    it('a code-flow token bound to {base_url}/mcp is refused by /api/v2 (401)', async () => {
      const u = await kit.user();
      const client = await kit.register();
      const resource = `${app.url}/mcp`;
      const code = await kit.code(u, client.client_id, { resource });
      const t = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, resource, client_id: client.client_id, client_secret: client.client_secret });
      expect(t.status).toBe(200);
      expect(decode(t.body.access_token).aud).toBe(resource);
      expectUnauthorized(await app.http('GET', `/api/v2/items?client_account_id=${u.clientAccountId}`, { token: t.body.access_token }));
    });

    it.each(['', '/api/v2', '/graphql'])('a token bound to {base_url}%s is accepted by /api/v2 and /graphql', async (suffix) => {
      const u = await kit.user();
      const token = await ccToken(u, app.url + suffix);
      expect(decode(token).aud).toBe(app.url + suffix);
      expect((await app.http('GET', `/api/v2/items?client_account_id=${u.clientAccountId}`, { token })).status).toBe(200);
      expect((await gql(token, ME)).status).toBe(200);
    });
  });

  describe('GraphiQL', () => {
    it('GET /graphql from a browser (Accept text/html, no token) still shows GraphiQL', async () => {
      const res = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toMatch(/graphiql/i);
    });

    it('GET /graphql asking for JSON without a token → 401', async () => {
      const res = await app.http('GET', `/graphql?query=${encodeURIComponent(ME)}`, { headers: { accept: 'application/json' } });
      expectUnauthorized(res);
    });
  });

  describe('"States and transitions": only a token request or revoke moves an issued code or refresh token', () => {
    const exchange = (code: string, client: { client_id: string; client_secret: string }) =>
      kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret });
    const refresh = (refreshToken: string, client: { client_id: string; client_secret: string }) =>
      kit.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.client_id, client_secret: client.client_secret });

    it('an unused authorization code stays exchangeable when the user authorizes the same client again in the same browser', async () => {
      const u = await kit.user();
      const client = await kit.register();
      const first = await kit.code(u, client.client_id, { scope: 'read' });
      const second = await kit.code(u, client.client_id, { scope: 'read' });
      const a = await exchange(first, client);
      expect(a.body).toMatchObject({ access_token: expect.any(String) });
      expect(a.status).toBe(200);
      expect((await exchange(second, client)).status).toBe(200);
    });

    it('a refresh token stays active when the user authorizes the same client again in the same browser (e.g. reconnects the integration)', async () => {
      const u = await kit.user();
      const client = await kit.register();
      const t = await exchange(await kit.code(u, client.client_id, { scope: 'read' }), client);
      expect(t.status).toBe(200);
      const again = await exchange(await kit.code(u, client.client_id, { scope: 'read' }), client);
      expect(again.status).toBe(200);
      const r = await refresh(t.body.refresh_token, client);
      expect(r.body).toMatchObject({ access_token: expect.any(String) });
      expect(r.status).toBe(200);
      expect((await refresh(again.body.refresh_token, client)).status).toBe(200);
    });

    it('a refresh token stays active after the browser sign-in that authorized it has ended', async () => {
      const u = await kit.user();
      const client = await kit.register();
      const t = await exchange(await kit.code(u, client.client_id, { scope: 'read' }), client);
      expect(t.status).toBe(200);
      // the browser session ends (its lifetime elapses and it is pruned): the sign-in is gone
      await app.db.prisma.oauthObject.deleteMany({ where: { kind: 'Session', payload: { path: ['accountId'], equals: String(u.id) } } });
      const signedOut = await u.browser.get(kit.authorizePath({ client_id: client.client_id, redirect_uri: kit.redirectUri, response_type: 'code' }));
      expect(signedOut.location?.pathname).toBe('/public/v2/oauth/login');
      const r = await refresh(t.body.refresh_token, client);
      expect(r.body).toMatchObject({ access_token: expect.any(String) });
      expect(r.status).toBe(200);
    });

    it('signing in again in the same browser does not end earlier refresh tokens', async () => {
      const u = await kit.user();
      const client = await kit.register();
      const t = await exchange(await kit.code(u, client.client_id, { scope: 'read' }), client);
      expect((await u.browser.signIn(u.email)).status).toBe(200);
      expect((await refresh(t.body.refresh_token, client)).status).toBe(200);
    });

    it('a refresh token obtained in one browser survives a sign-in and authorization of the same client in another browser', async () => {
      const u = await kit.user();
      const client = await kit.register();
      const t = await exchange(await kit.code(u, client.client_id, { scope: 'read' }), client);
      const other = new Browser(app.url);
      expect((await other.signIn(u.email)).status).toBe(200);
      const c = await other.consent(kit.authorizePath({ client_id: client.client_id, redirect_uri: kit.redirectUri, response_type: 'code' }), 'yes');
      expect((await exchange(c.location!.searchParams.get('code')!, client)).status).toBe(200);
      expect((await refresh(t.body.refresh_token, client)).status).toBe(200);
    });
  });
});
