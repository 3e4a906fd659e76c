import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import { basic, Browser, decode, oauthKit, pkcePair, type OauthUser } from '../support/oauth.ts';

// spec 000, "OAuth client", "POST /v2/oauth/register", "POST/GET/DELETE /v2/oauth/clients",
// "Authentication" 4 (ways to obtain client credentials), "Errors" (OAuth error shape).
const DCR_FIELDS = [
  'client_id',
  'client_id_issued_at',
  'client_name',
  'client_secret',
  'client_secret_expires_at',
  'grant_types',
  'redirect_uris',
  'response_types',
  'scope',
  'token_endpoint_auth_method',
];
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** spec 000 "Errors": OAuth endpoints answer {error: <oauth_code>, error_description: <text>} */
function expectOauthError(res: HttpResult, status: number, error?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.error).toMatch(/^[a-z_]+$/);
  if (error) expect(res.body.error).toBe(error);
  for (const key of Object.keys(res.body)) expect(['error', 'error_description']).toContain(key);
  if ('error_description' in res.body) expect(typeof res.body.error_description).toBe('string');
}

describe.each(targets())('OAuth clients (%s)', (db) => {
  let app: TestApp;
  let kit: ReturnType<typeof oauthKit>;
  beforeAll(async () => {
    app = await startTestApp(db);
    kit = oauthKit(app);
  });
  afterAll(() => app?.close());

  const register = (body: unknown) => app.http('POST', '/v2/oauth/register', { body });
  const createOwned = (owner: OauthUser, body: unknown) => app.http('POST', '/v2/oauth/clients', { token: owner.sessionToken, body });
  const list = (owner: OauthUser) => app.http('GET', '/v2/oauth/clients', { token: owner.sessionToken });
  const remove = (owner: OauthUser, clientId: string) => app.http('DELETE', `/v2/oauth/clients/${encodeURIComponent(clientId)}`, { token: owner.sessionToken });
  const ccToken = (client: { client_id: string; client_secret: string }, extra: Record<string, string> = {}) =>
    kit.token({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, ...extra });

  describe('POST /v2/oauth/register (RFC 7591, no auth)', () => {
    it('201 with exactly the dynamic-registration fields of the OAuth client table, including client_secret', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await register({
        client_name: 'Ledger Sync',
        redirect_uris: ['https://client.example/callback', 'https://client.example/other'],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'read write',
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(res.body).sort()).toEqual(DCR_FIELDS);
      expect(res.body).toEqual({
        client_id: expect.any(String),
        client_secret: expect.any(String),
        client_name: 'Ledger Sync',
        redirect_uris: ['https://client.example/callback', 'https://client.example/other'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: 'read write',
        token_endpoint_auth_method: 'client_secret_post',
        client_id_issued_at: expect.any(Number),
        client_secret_expires_at: 0,
      });
      expect(res.body.client_id.length).toBeGreaterThan(0);
      expect(res.body.client_secret.length).toBeGreaterThanOrEqual(32);
      expect(Number.isInteger(res.body.client_id_issued_at)).toBe(true);
      expect(res.body.client_id_issued_at).toBeGreaterThanOrEqual(before - 5);
      expect(res.body.client_id_issued_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 5);
    });

    it('two registrations get different client_id and client_secret', async () => {
      const a = await kit.register();
      const b = await kit.register();
      expect(a.client_id).not.toBe(b.client_id);
      expect(a.client_secret).not.toBe(b.client_secret);
    });

    it('the issued credentials work: the client completes the authorization code flow (client_secret_post)', async () => {
      const u = await kit.user();
      const client = await kit.register({ scope: 'read' });
      const code = await kit.code(u, client.client_id, { scope: 'read' });
      const t = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret });
      expect(t.status).toBe(200);
      expect(t.body.scope).toBe('read');
    });

    it('token_endpoint_auth_method "none" (RFC 7591, a public client) → 201 without client_secret and client_secret_expires_at', async () => {
      const res = await register({ client_name: 'MCP host', redirect_uris: [kit.redirectUri], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        client_id: expect.any(String),
        client_name: 'MCP host',
        redirect_uris: [kit.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: 'read write',
        token_endpoint_auth_method: 'none',
        client_id_issued_at: expect.any(Number),
      });
    });

    it.each(['client_secret_post', 'client_secret_basic'])('token_endpoint_auth_method %j → 201 with a client_secret, the method echoed; the secret works via HTTP Basic and in the form', async (method) => {
      const res = await register({ client_name: 'x', redirect_uris: [kit.redirectUri], token_endpoint_auth_method: method });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ token_endpoint_auth_method: method, client_secret: expect.any(String), client_secret_expires_at: 0 });
      const u = await kit.user();
      for (const how of ['basic', 'post']) {
        const code = await kit.code(u, res.body.client_id);
        const form = { grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri };
        const t =
          how === 'basic'
            ? await kit.token(form, { authorization: basic(res.body.client_id, res.body.client_secret) })
            : await kit.token({ ...form, client_id: res.body.client_id, client_secret: res.body.client_secret });
        expect(t.status, `${how}: ${t.text}`).toBe(200);
      }
    });

    it.each([['private_key_jwt'], ['client_secret_jwt'], ['tls_client_auth'], ['NONE'], [''], [42], [null]])(
      'token_endpoint_auth_method %j → 400 invalid_client_metadata',
      async (method) => {
        const res = await register({ client_name: 'x', redirect_uris: [kit.redirectUri], token_endpoint_auth_method: method });
        expectOauthError(res, 400, 'invalid_client_metadata');
        expect(res.body.error_description).toMatch(/token_endpoint_auth_method/);
      },
    );

    it.each([
      [['client_credentials']],
      [['authorization_code', 'client_credentials']],
      [['authorization_code', 'refresh_token', 'client_credentials']],
    ])('grant_types %j: client_credentials "is not available to self-registered clients" → 400 OAuth error', async (grantTypes) => {
      const res = await register({ client_name: 'x', redirect_uris: [kit.redirectUri], grant_types: grantTypes, scope: 'read' });
      expectOauthError(res, 400);
    });

    it.each([
      ['redirect_uris not a URI', { redirect_uris: ['not a uri'] }],
      ['redirect_uris relative', { redirect_uris: ['/callback'] }],
      ['redirect_uris empty string', { redirect_uris: [''] }],
      ['redirect_uris a string instead of an array', { redirect_uris: 'https://client.example/callback' }],
      ['redirect_uris an array of numbers', { redirect_uris: [42] }],
      ['grant_types a string instead of an array', { grant_types: 'authorization_code' }],
      ['grant_types an unknown value', { grant_types: ['implicit'] }],
      ['grant_types an unknown value (password)', { grant_types: ['authorization_code', 'password'] }],
      ['client_name a number', { client_name: 42 }],
      ['scope an array', { scope: ['read'] }],
      ['scope unknown', { scope: 'admin' }],
    ])('400 OAuth error shape: %s', async (_, patch) => {
      const res = await register({ client_name: 'x', redirect_uris: [kit.redirectUri], grant_types: ['authorization_code', 'refresh_token'], scope: 'read', ...patch });
      expectOauthError(res, 400);
    });

    it('400 OAuth error shape for a body that is not a JSON object', async () => {
      expectOauthError(await register([1, 2]), 400);
    });

    it.each(['/v2/oauth/register', '/v2/oauth/clients', '/v2/oauth/login'])('malformed JSON on POST %s → 400 in the OAuth error shape {error: invalid_request, error_description}', async (path) => {
      const u = await kit.user();
      const res = await app.http('POST', path, { token: u.sessionToken, body: '{"client_name":' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: 'Malformed JSON in the request body' });
    });

    it('400 invalid_redirect_uri / invalid_client_metadata for an invalid redirect URI', async () => {
      const res = await register({ client_name: 'x', redirect_uris: ['not a uri'], grant_types: ['authorization_code'], scope: 'read' });
      expectOauthError(res, 400);
      expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(res.body.error);
    });

    it('a self-registered client that asks for client_credentials at the token endpoint → 400 unauthorized_client', async () => {
      const client = await kit.register();
      const res = await ccToken(client);
      expectOauthError(res, 400, 'unauthorized_client');
    });
  });

  describe('POST /v2/oauth/clients (Bearer session token)', () => {
    it('201 {client_id, client_secret, client_name, redirect_uris (string), grant_types (space-separated string), scope}', async () => {
      const u = await kit.user();
      const res = await createOwned(u, {
        client_name: 'My integration',
        redirect_uris: kit.redirectUri,
        grant_types: 'authorization_code refresh_token client_credentials',
        scope: 'read write',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        client_id: expect.any(String),
        client_secret: expect.any(String),
        client_name: 'My integration',
        redirect_uris: kit.redirectUri,
        grant_types: 'authorization_code refresh_token client_credentials',
        scope: 'read write',
      });
      expect(res.body.client_secret.length).toBeGreaterThanOrEqual(32);
    });

    it('client_credentials is allowed ("the only way to get client_credentials"): token without refresh_token', async () => {
      const u = await kit.user();
      const client = await kit.ownedClient(u, { grant_types: 'client_credentials', scope: 'read write' });
      const t = await ccToken(client, { scope: 'read' });
      expect(t.status).toBe(200);
      expect(t.body).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'read' });
      expect(t.body).not.toHaveProperty('refresh_token');
    });

    it('the owned client also does the authorization code flow', async () => {
      const u = await kit.user();
      const client = await kit.ownedClient(u);
      const code = await kit.code(u, client.client_id, { scope: 'write' });
      const t = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret });
      expect(t.status).toBe(200);
      expect(t.body.refresh_token).toEqual(expect.any(String));
    });

    it.each([
      ['redirect_uris an array (strings here)', { redirect_uris: ['https://client.example/callback'] }],
      ['grant_types an array (space-separated string here)', { grant_types: ['client_credentials'] }],
      ['grant_types an unknown value', { grant_types: 'authorization_code password' }],
      ['scope unknown', { scope: 'admin' }],
      ['redirect_uris not a URI', { redirect_uris: 'not a uri' }],
    ])('400 OAuth error shape: %s', async (_, patch) => {
      const u = await kit.user();
      const res = await createOwned(u, { client_name: 'x', redirect_uris: kit.redirectUri, grant_types: 'authorization_code client_credentials', scope: 'read', ...patch });
      expectOauthError(res, 400);
    });

    it('401 without a token', async () => {
      const res = await app.http('POST', '/v2/oauth/clients', { body: { client_name: 'x', redirect_uris: kit.redirectUri, grant_types: 'client_credentials', scope: 'read' } });
      expect(res.status).toBe(401);
    });

    it('401 with an unknown bearer token', async () => {
      const res = await app.http('POST', '/v2/oauth/clients', { token: 'rs_not-a-session', body: { client_name: 'x', grant_types: 'client_credentials', scope: 'read' } });
      expect(res.status).toBe(401);
    });

    it('401 with an OAuth JWT access token (client_credentials and authorization_code): a session token is required', async () => {
      const u = await kit.user();
      const owned = await kit.ownedClient(u);
      const cc = (await ccToken(owned, { scope: 'write' })).body.access_token as string;
      const code = await kit.code(u, owned.client_id, { scope: 'write' });
      const ac = (await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: owned.client_id, client_secret: owned.client_secret })).body
        .access_token as string;
      for (const token of [cc, ac]) {
        expect(decode(token).iss).toBe(app.url);
        const post = await app.http('POST', '/v2/oauth/clients', { token, body: { client_name: 'x', grant_types: 'client_credentials', scope: 'read' } });
        expect(post.status).toBe(401);
        expect((await app.http('GET', '/v2/oauth/clients', { token })).status).toBe(401);
        expect((await app.http('DELETE', `/v2/oauth/clients/${owned.client_id}`, { token })).status).toBe(401);
      }
      // the client is still there for its owner
      expect((await list(u)).body.clients.map((c: { client_id: string }) => c.client_id)).toContain(owned.client_id);
    });
  });

  describe('redirect URIs: https, http on loopback, private-use schemes of native apps (RFC 8252); nothing else', () => {
    const ACCEPTED = [
      'https://client.example/callback',
      'https://client.example:8443/cb?x=1',
      'http://127.0.0.1:8765/callback',
      'http://[::1]:8765/callback',
      'http://localhost:3000/callback',
      'http://localhost/callback',
      'com.example.app:/callback',
      'com.example.app://oauth/callback',
    ];
    const REFUSED = [
      'http://evil.example/cb',
      'http://127.0.0.1.evil.example/cb',
      'http://localhost.evil.example/cb',
      'http://10.0.0.1/cb',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'myapp:/callback',
      'https://client.example/cb#fragment',
      'https://client.example/cb#',
      'https://user:password@client.example/cb',
      'not a uri',
      '/callback',
    ];
    const endpoints = [
      ['POST /v2/oauth/register', (uri: string) => register({ client_name: 'x', redirect_uris: [uri] })],
      ['POST /v2/oauth/clients', async (uri: string) => createOwned(await kit.user(), { client_name: 'x', redirect_uris: uri, grant_types: 'authorization_code' })],
    ] as const;

    describe.each(endpoints)('%s', (_endpoint, create) => {
      it.each(ACCEPTED)('%s → 201', async (uri) => {
        const res = await create(uri);
        expect(res.status, res.text).toBe(201);
      });

      it.each(REFUSED)('%s → 400 {error: invalid_redirect_uri, error_description}', async (uri) => {
        const res = await create(uri);
        expectOauthError(res, 400, 'invalid_redirect_uri');
        expect(res.body.error_description).toEqual(expect.any(String));
      });
    });

    it('one refused URI among accepted ones refuses the registration, on both endpoints', async () => {
      expectOauthError(await register({ client_name: 'x', redirect_uris: ['https://client.example/callback', 'http://evil.example/cb'] }), 400, 'invalid_redirect_uri');
      const owned = await createOwned(await kit.user(), { client_name: 'x', redirect_uris: 'https://client.example/callback http://evil.example/cb', grant_types: 'authorization_code' });
      expectOauthError(owned, 400, 'invalid_redirect_uri');
    });

    it('a native public client with a private-use redirect URI gets its code there and redeems it with PKCE', async () => {
      const u = await kit.user();
      const uri = 'com.example.app:/oauth/callback';
      const client = (await register({ client_name: 'Native app', redirect_uris: [uri], token_endpoint_auth_method: 'none' })).body;
      const pkce = pkcePair();
      const consent = await u.browser.consent(kit.authorizePath({ client_id: client.client_id, redirect_uri: uri, response_type: 'code', state: 's', code_challenge: pkce.s256, code_challenge_method: 'S256' }), 'yes');
      expect(consent.status, consent.text).toBe(302);
      expect(consent.headers.get('location')).toMatch(/^com\.example\.app:\/oauth\/callback\?code=[^&]+&state=s&iss=[^&]+$/);
      expect(consent.location!.searchParams.get('iss')).toBe(app.url);
      const code = consent.location!.searchParams.get('code')!;
      const t = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: uri, client_id: client.client_id, code_verifier: pkce.verifier });
      expect(t.status, t.text).toBe(200);
    });
  });

  describe('GET /v2/oauth/clients', () => {
    it('{clients: [{client_id, client_name, redirect_uris, grant_types, scope, created_at}]}: only the caller\'s clients, no secret anywhere', async () => {
      const a = await kit.user();
      const b = await kit.user();
      const a1 = await kit.ownedClient(a, { client_name: 'A one', grant_types: 'authorization_code refresh_token', scope: 'read' });
      const a2 = await kit.ownedClient(a, { client_name: 'A two', grant_types: 'client_credentials', scope: 'read write' });
      const b1 = await kit.ownedClient(b, { client_name: 'B one' });
      const dynamic = await kit.register();

      const res = await list(a);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['clients']);
      expect(res.body.clients).toHaveLength(2);
      const byId = Object.fromEntries(res.body.clients.map((c: { client_id: string }) => [c.client_id, c]));
      expect(byId[a1.client_id]).toEqual({
        client_id: a1.client_id,
        client_name: 'A one',
        redirect_uris: kit.redirectUri,
        grant_types: 'authorization_code refresh_token',
        scope: 'read',
        created_at: expect.stringMatching(ISO_UTC),
      });
      expect(byId[a2.client_id]).toMatchObject({ client_id: a2.client_id, client_name: 'A two', grant_types: 'client_credentials', scope: 'read write' });
      for (const c of res.body.clients) {
        expect(Object.keys(c).sort()).toEqual(['client_id', 'client_name', 'created_at', 'grant_types', 'redirect_uris', 'scope']);
        expect(typeof c.redirect_uris).toBe('string');
        expect(typeof c.grant_types).toBe('string');
        expect(Math.abs(Date.parse(c.created_at) - Date.now())).toBeLessThan(5 * 60_000);
      }
      // "The secret is never returned"
      expect(res.text).not.toContain('client_secret');
      for (const secret of [a1.client_secret, a2.client_secret]) expect(res.text).not.toContain(secret);
      // another user's client and a self-registered one are not listed
      expect(byId[b1.client_id]).toBeUndefined();
      expect(byId[dynamic.client_id]).toBeUndefined();

      const other = await list(b);
      expect(other.body.clients.map((c: { client_id: string }) => c.client_id)).toEqual([b1.client_id]);
    });

    it('{clients: []} for a user without clients', async () => {
      const u = await kit.user();
      const res = await list(u);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ clients: [] });
    });

    it('401 without a token', async () => {
      expect((await app.http('GET', '/v2/oauth/clients')).status).toBe(401);
    });
  });

  describe('DELETE /v2/oauth/clients/{client_id}', () => {
    it('→ {status: "success", message: "Client deleted"}; afterwards the client cannot get tokens (401 invalid_client) nor start authorize (400 invalid_client)', async () => {
      const u = await kit.user();
      const client = await kit.ownedClient(u);
      // a refresh token and an unused code (from a second browser of the user) obtained before the deletion
      const early = await kit.code(u, client.client_id, { scope: 'read' });
      const issued = await kit.token({ grant_type: 'authorization_code', code: early, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret });
      expect(issued.status).toBe(200);
      const secondBrowser = new Browser(app.url);
      expect((await secondBrowser.signIn(u.email)).status).toBe(200);
      const pendingRes = await secondBrowser.consent(kit.authorizePath({ client_id: client.client_id, redirect_uri: kit.redirectUri, response_type: 'code' }), 'yes');
      const pending = pendingRes.location!.searchParams.get('code')!;
      expect(pending).toBeTruthy();
      expect((await ccToken(client)).status).toBe(200);

      const res = await remove(u, client.client_id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'success', message: 'Client deleted' });

      expectOauthError(await ccToken(client), 401, 'invalid_client');
      expectOauthError(
        await kit.token({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, client_id: client.client_id, client_secret: client.client_secret }),
        401,
        'invalid_client',
      );
      expectOauthError(
        await kit.token({ grant_type: 'authorization_code', code: pending, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret }),
        401,
        'invalid_client',
      );
      const authorize = await u.browser.get(kit.authorizePath({ client_id: client.client_id, redirect_uri: kit.redirectUri, response_type: 'code', state: 's' }));
      expect(authorize.status).toBe(400);
      expect(authorize.body).toMatchObject({ error: 'invalid_client' });
      expect(authorize.location).toBeUndefined();

      expect((await list(u)).body.clients).toEqual([]);
      // a second delete finds nothing
      expect((await remove(u, client.client_id)).status).toBe(404);
    });

    it("another user's client cannot be deleted (404); it still works for its owner", async () => {
      const owner = await kit.user();
      const intruder = await kit.user();
      const client = await kit.ownedClient(owner);
      const res = await remove(intruder, client.client_id);
      expect(res.status).toBe(404);
      expect((await ccToken(client)).status).toBe(200);
      expect((await list(owner)).body.clients.map((c: { client_id: string }) => c.client_id)).toEqual([client.client_id]);
    });

    it('a self-registered client (no owner) cannot be deleted through this endpoint (404)', async () => {
      const u = await kit.user();
      const client = await kit.register();
      expect((await remove(u, client.client_id)).status).toBe(404);
      const code = await kit.code(u, client.client_id);
      expect((await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret })).status).toBe(200);
    });

    it('404 for an unknown client_id; 401 without a token', async () => {
      const u = await kit.user();
      expect((await remove(u, 'no-such-client')).status).toBe(404);
      const client = await kit.ownedClient(u);
      expect((await app.http('DELETE', `/v2/oauth/clients/${client.client_id}`)).status).toBe(401);
      expect((await ccToken(client)).status).toBe(200);
    });
  });

  describe('client ownership: "tokens issued to it act on that user\'s client accounts"', () => {
    it('a client_credentials token acts as the owning user: own account → 200, another account → 403', async () => {
      const owner = await kit.user();
      const stranger = await kit.user();
      const client = await kit.ownedClient(owner);
      const t = await ccToken(client, { scope: 'read' });
      expect(t.status).toBe(200);
      const token = t.body.access_token as string;

      const own = await app.http('GET', `/api/v2/items?client_account_id=${owner.clientAccountId}`, { token });
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ data: [], meta: expect.any(Object) });

      const foreign = await app.http('GET', `/api/v2/items?client_account_id=${stranger.clientAccountId}`, { token });
      expect(foreign.status).toBe(403);

      const me = await app.gql(token, '{ me { user { email } } }');
      expect(me.errors).toBeUndefined();
      expect(me.data.me.user.email).toBe(owner.email);
    });
  });
});
