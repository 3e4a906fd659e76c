import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import { basic, oauthKit, pkcePair } from '../support/oauth.ts';

/**
 * Spec 000 "Errors", the "Token endpoint errors" table: every row, set up for real over HTTP (real
 * clients, real codes from login + consent, real refresh tokens), at both token endpoint locations
 * ("POST /v2/oauth/token and /public/v2/oauth/token").
 */

const PREFIXES = ['/public/v2/oauth', '/v2/oauth'] as const;
type Prefix = (typeof PREFIXES)[number];

/** The spec's table rows, verbatim, cited by the test names. */
const ROW = {
  invalidClient: '| 401 | invalid_client | | Missing or wrong client credentials |',
  unauthorizedClient: '| 400 | unauthorized_client | | Grant type not enabled for the client |',
  unsupportedGrantType: '| 400 | unsupported_grant_type | | Unknown grant_type |',
  codeRequired: '| 400 | invalid_grant | Authorization code is required | code missing |',
  codeInvalid: '| 400 | invalid_grant | Invalid authorization code | Code not found |',
  codeExpired: '| 400 | invalid_grant | Authorization code expired | Lifetime elapsed |',
  codeOtherClient: '| 400 | invalid_grant | Authorization code was issued to another client | Cross-client use |',
  redirectMismatch: '| 400 | invalid_grant | Redirect URI mismatch | redirect_uri differs |',
  verifierRequired: '| 400 | invalid_grant | Code verifier is required | Challenge was sent, verifier absent |',
  verifierInvalid: '| 400 | invalid_grant | Code verifier is invalid | Verifier does not match |',
  resourceRequired: '| 400 | invalid_grant | Resource parameter is required | resource sent at authorize, absent now |',
  resourceMismatch: '| 400 | invalid_grant | Resource parameter mismatch | Values differ |',
  refreshRequired: '| 400 | invalid_grant | Refresh token is required | refresh_token missing |',
  refreshInvalid: '| 400 | invalid_grant | Invalid refresh token | Not found, expired or revoked |',
  refreshOtherClient: '| 400 | invalid_grant | Refresh token was issued to another client | Cross-client use |',
} as const;

interface Row {
  rule: string;
  how: string;
  status: number;
  error: string;
  /** exact error_description, where the spec's table gives one */
  description?: string;
  run: (prefix: Prefix) => Promise<HttpResult>;
}

describe.each(targets())('token endpoint errors (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  const kit = () => oauthKit(app);
  const unknownId = () => randomBytes(16).toString('base64url');
  const creds = (c: { client_id: string; client_secret: string }) => ({ client_id: c.client_id, client_secret: c.client_secret });

  /** a user, a dynamically registered client and a code the user granted it */
  async function issuedCode(params: Record<string, string | string[] | undefined> = {}, body: Record<string, unknown> = {}) {
    const k = kit();
    const user = await k.user();
    const client = await k.register({ scope: 'read write', ...body });
    const code = await k.code(user, client.client_id, params);
    return { user, client, code };
  }

  const exchange = (prefix: Prefix, form: Record<string, string | string[] | undefined>, authorization?: string) =>
    kit().token({ grant_type: 'authorization_code', redirect_uri: kit().redirectUri, ...form }, { prefix, authorization });

  /** a client holding a refresh token from a real code exchange */
  async function refreshable() {
    const { user, client, code } = await issuedCode();
    const t = await exchange('/public/v2/oauth', { code, ...creds(client) });
    if (t.status !== 200 || !t.body.refresh_token) throw new Error(`exchange: ${t.status} ${t.text}`);
    return { user, client, refreshToken: t.body.refresh_token as string };
  }

  const refresh = (prefix: Prefix, form: Record<string, string | undefined>, authorization?: string) =>
    kit().token({ grant_type: 'refresh_token', ...form }, { prefix, authorization });

  /**
   * Moves a stored code or refresh token past its lifetime. oidc-provider keeps its own `exp` inside
   * the payload and reads that (not the row's expires_at, which only drives our adapter and cleanup),
   * so both are set; expires_at alone leaves the code exchangeable.
   */
  async function expire(kind: 'AuthorizationCode' | 'RefreshToken', id: string) {
    const row = await app.db.prisma.oauthObject.findUniqueOrThrow({ where: { kind_id: { kind, id } } });
    const past = Date.now() - 1000;
    await app.db.prisma.oauthObject.updateMany({
      where: { kind, id },
      data: { expiresAt: new Date(past), payload: { ...(row.payload as Record<string, unknown>), exp: Math.floor(past / 1000) } },
    });
  }

  const rows: Row[] = [
    // 401 invalid_client
    {
      rule: ROW.invalidClient,
      how: 'no client_id and no client_secret, no Basic header',
      status: 401,
      error: 'invalid_client',
      run: async (p) => exchange(p, { code: (await issuedCode()).code }),
    },
    {
      rule: ROW.invalidClient,
      how: 'client_id without client_secret (confidential code, no PKCE)',
      status: 401,
      error: 'invalid_client',
      run: async (p) => {
        const { client, code } = await issuedCode();
        return exchange(p, { code, client_id: client.client_id });
      },
    },
    {
      rule: ROW.invalidClient,
      how: 'client_id + code_verifier without client_secret for an S256 code of a confidential client (only clients registered with token_endpoint_auth_method "none" may)',
      status: 401,
      error: 'invalid_client',
      run: async (p) => {
        const pkce = pkcePair();
        const { client, code } = await issuedCode({ code_challenge: pkce.s256, code_challenge_method: 'S256' });
        return exchange(p, { code, client_id: client.client_id, code_verifier: pkce.verifier });
      },
    },
    {
      rule: ROW.invalidClient,
      how: 'refresh_token grant with client_id only (confidential client)',
      status: 401,
      error: 'invalid_client',
      run: async (p) => {
        const { client, refreshToken } = await refreshable();
        return refresh(p, { refresh_token: refreshToken, client_id: client.client_id });
      },
    },
    {
      rule: ROW.invalidClient,
      how: 'wrong client_secret in the form (client_secret_post)',
      status: 401,
      error: 'invalid_client',
      run: async (p) => {
        const { client, code } = await issuedCode();
        return exchange(p, { code, client_id: client.client_id, client_secret: `${client.client_secret}x` });
      },
    },
    {
      rule: ROW.invalidClient,
      how: 'wrong client_secret via HTTP Basic (client_secret_basic)',
      status: 401,
      error: 'invalid_client',
      run: async (p) => {
        const { client, code } = await issuedCode();
        return exchange(p, { code }, basic(client.client_id, 'not-the-secret'));
      },
    },
    {
      rule: ROW.invalidClient,
      how: 'unknown client_id in the form',
      status: 401,
      error: 'invalid_client',
      run: async (p) => exchange(p, { code: (await issuedCode()).code, client_id: unknownId(), client_secret: unknownId() }),
    },
    {
      rule: ROW.invalidClient,
      how: 'an HTTP Basic value without the client_id:client_secret colon',
      status: 401,
      error: 'invalid_client',
      run: async (p) => exchange(p, { code: (await issuedCode()).code }, `Basic ${Buffer.from('no-colon-here').toString('base64')}`),
    },
    {
      rule: ROW.invalidClient,
      how: 'unknown client via HTTP Basic',
      status: 401,
      error: 'invalid_client',
      run: async (p) => exchange(p, { code: (await issuedCode()).code }, basic(unknownId(), unknownId())),
    },
    {
      rule: ROW.invalidClient,
      how: 'refresh_token grant with a wrong client_secret',
      status: 401,
      error: 'invalid_client',
      run: async (p) => {
        const { client, refreshToken } = await refreshable();
        return refresh(p, { refresh_token: refreshToken, client_id: client.client_id, client_secret: 'wrong' });
      },
    },
    {
      rule: ROW.invalidClient,
      how: 'client_credentials grant without any credentials',
      status: 401,
      error: 'invalid_client',
      run: async (p) => kit().token({ grant_type: 'client_credentials' }, { prefix: p }),
    },
    {
      rule: ROW.invalidClient,
      how: 'client_credentials grant with a wrong secret via HTTP Basic',
      status: 401,
      error: 'invalid_client',
      run: async (p) => {
        const k = kit();
        const c = await k.ownedClient(await k.user());
        return k.token({ grant_type: 'client_credentials' }, { prefix: p, authorization: basic(c.client_id, 'wrong') });
      },
    },

    // 400 unauthorized_client ("The grant must be among the client's registered grant_types")
    {
      rule: ROW.unauthorizedClient,
      how: 'registered client with only authorization_code asks refresh_token',
      status: 400,
      error: 'unauthorized_client',
      run: async (p) => {
        const c = await kit().register({ grant_types: ['authorization_code'] });
        return refresh(p, { refresh_token: unknownId(), ...creds(c) });
      },
    },
    {
      rule: ROW.unauthorizedClient,
      how: 'registered client with only authorization_code asks client_credentials',
      status: 400,
      error: 'unauthorized_client',
      run: async (p) => {
        const c = await kit().register({ grant_types: ['authorization_code'] });
        return kit().token({ grant_type: 'client_credentials', ...creds(c) }, { prefix: p });
      },
    },
    {
      rule: ROW.unauthorizedClient,
      how: 'dynamically registered client (authorization_code refresh_token) asks client_credentials',
      status: 400,
      error: 'unauthorized_client',
      run: async (p) => {
        const c = await kit().register();
        return kit().token({ grant_type: 'client_credentials', scope: 'read' }, { prefix: p, authorization: basic(c.client_id, c.client_secret) });
      },
    },
    {
      rule: ROW.unauthorizedClient,
      how: "user's client registered with only authorization_code asks client_credentials",
      status: 400,
      error: 'unauthorized_client',
      run: async (p) => {
        const k = kit();
        const c = await k.ownedClient(await k.user(), { grant_types: 'authorization_code' });
        return k.token({ grant_type: 'client_credentials', ...creds(c) }, { prefix: p });
      },
    },
    {
      rule: ROW.unauthorizedClient,
      how: "user's client registered with only client_credentials asks authorization_code",
      status: 400,
      error: 'unauthorized_client',
      run: async (p) => {
        const k = kit();
        const c = await k.ownedClient(await k.user(), { grant_types: 'client_credentials', redirect_uris: '' });
        return exchange(p, { code: unknownId(), ...creds(c) });
      },
    },

    // 400 unsupported_grant_type
    ...['password', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code', 'nonsense'].map(
      (grantType): Row => ({
        rule: ROW.unsupportedGrantType,
        how: `grant_type=${grantType} from an authenticated client`,
        status: 400,
        error: 'unsupported_grant_type',
        run: async (p) => {
          const c = await kit().register();
          return kit().token({ grant_type: grantType, username: 'a', password: 'b', ...creds(c) }, { prefix: p });
        },
      }),
    ),

    // invalid_grant, authorization_code grant
    {
      rule: ROW.codeRequired,
      how: 'no code field',
      status: 400,
      error: 'invalid_grant',
      description: 'Authorization code is required',
      run: async (p) => exchange(p, { ...creds((await issuedCode()).client) }),
    },
    {
      rule: ROW.codeRequired,
      how: 'code and redirect_uri both missing',
      status: 400,
      error: 'invalid_grant',
      description: 'Authorization code is required',
      run: async (p) => kit().token({ grant_type: 'authorization_code', ...creds(await kit().register()) }, { prefix: p }),
    },
    {
      rule: ROW.codeInvalid,
      how: 'a code the server never issued',
      status: 400,
      error: 'invalid_grant',
      description: 'Invalid authorization code',
      run: async (p) => exchange(p, { code: unknownId(), ...creds((await issuedCode()).client) }),
    },
    {
      rule: 'States and transitions: "Authorization code | issued | token exchange … | consumed (single use)"',
      how: 'a code exchanged once already (replayed)',
      status: 400,
      error: 'invalid_grant',
      description: 'Invalid authorization code',
      run: async (p) => {
        const { client, code } = await issuedCode();
        const first = await exchange(p, { code, ...creds(client) });
        expect(first.status).toBe(200);
        return exchange(p, { code, ...creds(client) });
      },
    },
    {
      rule: ROW.codeExpired,
      how: 'a real code moved past its lifetime',
      status: 400,
      error: 'invalid_grant',
      description: 'Authorization code expired',
      run: async (p) => {
        const { client, code } = await issuedCode();
        await expire('AuthorizationCode', code);
        return exchange(p, { code, ...creds(client) });
      },
    },
    {
      rule: ROW.codeOtherClient,
      how: "client B presents client A's code with B's own credentials",
      status: 400,
      error: 'invalid_grant',
      description: 'Authorization code was issued to another client',
      run: async (p) => {
        const { code } = await issuedCode();
        const other = await kit().register();
        return exchange(p, { code, ...creds(other) });
      },
    },
    {
      rule: ROW.redirectMismatch,
      how: 'redirect_uri differs from the authorize request',
      status: 400,
      error: 'invalid_grant',
      description: 'Redirect URI mismatch',
      run: async (p) => {
        const { client, code } = await issuedCode({}, { redirect_uris: [kit().redirectUri, 'https://client.example/other'] });
        return exchange(p, { code, redirect_uri: 'https://client.example/other', ...creds(client) });
      },
    },
    {
      rule: ROW.redirectMismatch,
      how: 'redirect_uri absent ("redirect_uri | yes | Must equal the authorize request value")',
      status: 400,
      error: 'invalid_grant',
      description: 'Redirect URI mismatch',
      run: async (p) => {
        const { client, code } = await issuedCode();
        return exchange(p, { code, redirect_uri: undefined, ...creds(client) });
      },
    },
    {
      rule: ROW.verifierRequired,
      how: 'S256 challenge at authorize, no code_verifier',
      status: 400,
      error: 'invalid_grant',
      description: 'Code verifier is required',
      run: async (p) => {
        const pkce = pkcePair();
        const { client, code } = await issuedCode({ code_challenge: pkce.s256, code_challenge_method: 'S256' });
        return exchange(p, { code, ...creds(client) });
      },
    },
    {
      rule: ROW.verifierInvalid,
      how: 'S256 challenge at authorize, another verifier',
      status: 400,
      error: 'invalid_grant',
      description: 'Code verifier is invalid',
      run: async (p) => {
        const pkce = pkcePair();
        const { client, code } = await issuedCode({ code_challenge: pkce.s256, code_challenge_method: 'S256' });
        return exchange(p, { code, code_verifier: pkcePair().verifier, ...creds(client) });
      },
    },
    {
      rule: ROW.resourceRequired,
      how: 'resource=<base>/api/v2 at authorize, none at the token endpoint',
      status: 400,
      error: 'invalid_grant',
      description: 'Resource parameter is required',
      run: async (p) => {
        const { client, code } = await issuedCode({ resource: `${app.url}/api/v2` });
        return exchange(p, { code, ...creds(client) });
      },
    },
    {
      rule: ROW.resourceMismatch,
      how: 'resource=<base>/api/v2 at authorize, <base>/mcp at the token endpoint',
      status: 400,
      error: 'invalid_grant',
      description: 'Resource parameter mismatch',
      run: async (p) => {
        const { client, code } = await issuedCode({ resource: `${app.url}/api/v2` });
        return exchange(p, { code, resource: `${app.url}/mcp`, ...creds(client) });
      },
    },

    // invalid_grant, refresh_token grant
    {
      rule: ROW.refreshRequired,
      how: 'no refresh_token field',
      status: 400,
      error: 'invalid_grant',
      description: 'Refresh token is required',
      run: async (p) => refresh(p, { ...creds((await refreshable()).client) }),
    },
    {
      rule: ROW.refreshInvalid,
      how: 'a refresh token the server never issued (not found)',
      status: 400,
      error: 'invalid_grant',
      description: 'Invalid refresh token',
      run: async (p) => refresh(p, { refresh_token: unknownId(), ...creds((await refreshable()).client) }),
    },
    {
      rule: ROW.refreshInvalid,
      how: 'a refresh token revoked at the revoke endpoint',
      status: 400,
      error: 'invalid_grant',
      description: 'Invalid refresh token',
      run: async (p) => {
        const { client, refreshToken } = await refreshable();
        const revoked = await kit().revoke({ token: refreshToken, ...creds(client) });
        expect(revoked.status).toBe(200);
        return refresh(p, { refresh_token: refreshToken, ...creds(client) });
      },
    },
    {
      rule: ROW.refreshInvalid,
      how: 'a real refresh token moved past its lifetime (expired)',
      status: 400,
      error: 'invalid_grant',
      description: 'Invalid refresh token',
      run: async (p) => {
        const { client, refreshToken } = await refreshable();
        await expire('RefreshToken', refreshToken);
        return refresh(p, { refresh_token: refreshToken, ...creds(client) });
      },
    },
    {
      rule: ROW.refreshOtherClient,
      how: "client B presents client A's refresh token with B's own credentials",
      status: 400,
      error: 'invalid_grant',
      description: 'Refresh token was issued to another client',
      run: async (p) => {
        const { refreshToken } = await refreshable();
        const other = await kit().register();
        return refresh(p, { refresh_token: refreshToken }, basic(other.client_id, other.client_secret));
      },
    },
  ];

  describe.each(PREFIXES)('POST %s/token', (prefix) => {
    it.each(rows.map((r) => [`${r.rule} — ${r.how}`, r] as const))('%s', async (_name, { status, error, description, run }) => {
      const res = await run(prefix);
      expect(res.status, res.text).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      // Errors: "{error: <oauth_code>, error_description: <text>}" for OAuth endpoints
      expect(res.body.error).toBe(error);
      if (description !== undefined) expect(res.body.error_description).toBe(description);
      expect(res.body).not.toHaveProperty('access_token');
    });

    it('the success path answers here too ("POST | /v2/oauth/token and /public/v2/oauth/token | Obtain tokens")', async () => {
      const { client, code } = await issuedCode();
      const res = await exchange(prefix, { code, ...creds(client) });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    });
  });

  describe('failed exchanges leave the code usable ("consumed" only when "code known, unexpired, same client, redirect_uri equal, verifier and resource checks pass")', () => {
    type Form = Record<string, string | undefined>;
    const failures: { how: string; description: string; pkce?: boolean; resource?: boolean; bad: (good: Form) => Promise<Form> }[] = [
      { how: 'another client presents it', description: 'Authorization code was issued to another client', bad: async (good) => ({ ...good, ...creds(await kit().register()) }) },
      { how: 'redirect_uri differs', description: 'Redirect URI mismatch', bad: async (good) => ({ ...good, redirect_uri: 'https://client.example/other' }) },
      { how: 'verifier absent', description: 'Code verifier is required', pkce: true, bad: async (good) => ({ ...good, code_verifier: undefined }) },
      { how: 'verifier wrong', description: 'Code verifier is invalid', pkce: true, bad: async (good) => ({ ...good, code_verifier: pkcePair().verifier }) },
      { how: 'resource absent', description: 'Resource parameter is required', resource: true, bad: async (good) => ({ ...good, resource: undefined }) },
      { how: 'resource differs', description: 'Resource parameter mismatch', resource: true, bad: async (good) => ({ ...good, resource: `${app.url}/mcp` }) },
    ];
    it.each(failures.map((f) => [`${f.how} → "${f.description}", then the right request still gets tokens`, f] as const))('%s', async (_name, { description, pkce, resource, bad }) => {
      const pair = pkcePair();
      const params = { ...(pkce ? { code_challenge: pair.s256, code_challenge_method: 'S256' } : {}), ...(resource ? { resource: `${app.url}/api/v2` } : {}) };
      const { client, code } = await issuedCode(params, { redirect_uris: [kit().redirectUri, 'https://client.example/other'] });
      const good: Form = { code, ...creds(client), ...(pkce ? { code_verifier: pair.verifier } : {}), ...(resource ? { resource: `${app.url}/api/v2` } : {}) };

      const failed = await exchange('/public/v2/oauth', await bad(good));
      expect(failed.status, failed.text).toBe(400);
      expect(failed.body).toEqual({ error: 'invalid_grant', error_description: description });

      const ok = await exchange('/public/v2/oauth', good);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.access_token).toEqual(expect.any(String));
    });
  });
});
