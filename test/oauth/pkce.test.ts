import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { decode, oauthKit, pkcePair } from '../support/oauth.ts';

/**
 * PKCE (spec 000 "Authorize": "code_challenge_method | plain (default) or S256"; "Token":
 * "code_verifier | conditional | Required when a code_challenge was sent"; "Public clients using PKCE
 * send client_id and code_verifier without a secret"; "Authentication" 2: "Authorization Code with PKCE
 * (public clients; challenge method S256 or plain)").
 */

type Method = 'default' | 'plain' | 'S256';
const METHODS: Method[] = ['default', 'plain', 'S256'];

describe.each(targets())('PKCE (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  const kit = () => oauthKit(app);
  const creds = (c: { client_id: string; client_secret: string }) => ({ client_id: c.client_id, client_secret: c.client_secret });

  /** authorize parameters for a method: the challenge is the verifier for plain, its SHA-256 for S256 */
  function challenge(method: Method) {
    const pair = pkcePair();
    const params =
      method === 'S256'
        ? { code_challenge: pair.s256, code_challenge_method: 'S256' }
        : method === 'plain'
          ? { code_challenge: pair.verifier, code_challenge_method: 'plain' }
          : { code_challenge: pair.verifier };
    return { verifier: pair.verifier, s256: pair.s256, params };
  }

  async function codeWith(method: Method, clientBody: Record<string, unknown> = {}) {
    const k = kit();
    const user = await k.user();
    const client = await k.register({ scope: 'read write', ...clientBody });
    const pkce = challenge(method);
    const code = await k.code(user, client.client_id, pkce.params);
    return { user, client, code, ...pkce };
  }

  const exchange = (form: Record<string, string | undefined>) => kit().token({ grant_type: 'authorization_code', redirect_uri: kit().redirectUri, ...form });

  describe.each(METHODS)('code_challenge_method %s ("plain (default) or S256")', (method) => {
    it('the matching code_verifier gets tokens', async () => {
      const { client, code, verifier } = await codeWith(method);
      const res = await exchange({ code, code_verifier: verifier, ...creds(client) });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String), refresh_token: expect.any(String) });
    });

    it('"| 400 | invalid_grant | Code verifier is invalid | Verifier does not match |"', async () => {
      const { client, code } = await codeWith(method);
      const res = await exchange({ code, code_verifier: pkcePair().verifier, ...creds(client) });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Code verifier is invalid' });
    });

    it('"| 400 | invalid_grant | Code verifier is required | Challenge was sent, verifier absent |"', async () => {
      const { client, code } = await codeWith(method);
      const res = await exchange({ code, ...creds(client) });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Code verifier is required' });
    });
  });

  it('S256 compares the hash: sending the challenge itself as verifier is "Code verifier is invalid"', async () => {
    const { client, code, s256 } = await codeWith('S256');
    const res = await exchange({ code, code_verifier: s256, ...creds(client) });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Code verifier is invalid' });
  });

  it('plain compares as is: the S256 hash of the challenge as verifier is "Code verifier is invalid"', async () => {
    const { client, code, s256 } = await codeWith('plain');
    const res = await exchange({ code, code_verifier: s256, ...creds(client) });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Code verifier is invalid' });
  });

  it('a code_verifier sent for a code without a challenge does no harm ("Required when a code_challenge was sent")', async () => {
    const k = kit();
    const user = await k.user();
    const client = await k.register();
    const code = await k.code(user, client.client_id);
    const res = await exchange({ code, ...creds(client) });
    expect(res.status, res.text).toBe(200);
  });

  /** RFC 7591: a public client registers token_endpoint_auth_method "none" and gets no secret */
  const PUBLIC = { token_endpoint_auth_method: 'none' };
  const refresh = (form: Record<string, string>) => kit().token({ grant_type: 'refresh_token', ...form });

  describe('"Public clients using PKCE send client_id and code_verifier without a secret" (registered with token_endpoint_auth_method "none")', () => {
    it.each(METHODS)('client_id + code_verifier (%s), no secret → tokens', async (method) => {
      const { user, client, code, verifier } = await codeWith(method, PUBLIC);
      expect(client.client_secret).toBeUndefined();
      const res = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String), refresh_token: expect.any(String) });
      expect(decode(res.body.access_token)).toMatchObject({ client_id: client.client_id, user_id: user.id });
    });

    it('a public client replaying its code gets "| 400 | invalid_grant | Invalid authorization code |" and the tokens of the first exchange are revoked (single use)', async () => {
      const { client, code, verifier } = await codeWith('S256', PUBLIC);
      const first = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
      expect(first.status, first.text).toBe(200);
      const replay = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
      expect(replay.status, replay.text).toBe(400);
      expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid authorization code' });
      const again = await refresh({ refresh_token: first.body.refresh_token, client_id: client.client_id });
      expect(again.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid refresh token' });
    });

    it('a public client with a wrong verifier: "Code verifier is invalid"', async () => {
      const { client, code } = await codeWith('S256', PUBLIC);
      const res = await exchange({ code, client_id: client.client_id, code_verifier: pkcePair().verifier });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Code verifier is invalid' });
    });

    it('a public client with a code that was never issued: "Invalid authorization code" (it is authenticated by its client_id)', async () => {
      const client = await kit().register(PUBLIC);
      const res = await exchange({ code: pkcePair().verifier, client_id: client.client_id, code_verifier: pkcePair().verifier });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid authorization code' });
    });

    it('a public client must send a code_challenge at authorize: 302 error=invalid_request, before any consent', async () => {
      const k = kit();
      const user = await k.user();
      const client = await k.register(PUBLIC);
      const res = await user.browser.get(k.authorizePath({ client_id: client.client_id, redirect_uri: k.redirectUri, response_type: 'code', state: 's' }));
      expect(res.status, res.text).toBe(302);
      expect(Object.fromEntries(res.location!.searchParams)).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/code_challenge/), state: 's', iss: app.url });
    });

    it('a public client that sends a client_secret anyway is not authenticated (401 invalid_client): it has none', async () => {
      const { client, code, verifier } = await codeWith('S256', PUBLIC);
      const res = await exchange({ code, client_id: client.client_id, client_secret: 'anything', code_verifier: verifier });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });

    it("another client's id with the right verifier and no secret is not authenticated (401 invalid_client)", async () => {
      const { code, verifier } = await codeWith('S256', PUBLIC);
      const other = await kit().register();
      const res = await exchange({ code, client_id: other.client_id, code_verifier: verifier });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });

    it('product decision 2: a public client refreshes without a secret; rotation still applies', async () => {
      const { client, code, verifier } = await codeWith('S256', PUBLIC);
      const first = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
      expect(first.status, first.text).toBe(200);

      const second = await refresh({ refresh_token: first.body.refresh_token, client_id: client.client_id });
      expect(second.status, second.text).toBe(200);
      expect(second.body.refresh_token).toEqual(expect.any(String));
      expect(second.body.refresh_token).not.toBe(first.body.refresh_token);

      const third = await refresh({ refresh_token: second.body.refresh_token, client_id: client.client_id });
      expect(third.status, third.text).toBe(200);
    });

    it('a public client revokes its refresh token without a secret: 200 {} and the token is dead; revoking it again (now unknown) is 200 {} too', async () => {
      const { client, code, verifier } = await codeWith('S256', PUBLIC);
      const first = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
      const revoke = () => kit().revoke({ token: first.body.refresh_token, client_id: client.client_id });
      expect(await revoke()).toMatchObject({ status: 200, body: {} });
      const again = await refresh({ refresh_token: first.body.refresh_token, client_id: client.client_id });
      expect(again.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid refresh token' });
      expect(await revoke()).toMatchObject({ status: 200, body: {} });
    });

    it("a public client's refresh token presented by another client without a secret is 401 invalid_client", async () => {
      const { client, code, verifier } = await codeWith('S256', PUBLIC);
      const first = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
      expect(first.status, first.text).toBe(200);
      const other = await kit().register();
      const res = await refresh({ refresh_token: first.body.refresh_token, client_id: other.client_id });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });
  });

  describe('a confidential client (registered without token_endpoint_auth_method: it got a secret) must send it, PKCE or not', () => {
    it.each(METHODS)('code with a %s challenge, client_id + code_verifier and no secret → 401 invalid_client; the code still works with the secret', async (method) => {
      const { client, code, verifier } = await codeWith(method);
      const res = await exchange({ code, client_id: client.client_id, code_verifier: verifier });
      expect(res.status, res.text).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
      const ok = await exchange({ code, code_verifier: verifier, ...creds(client) });
      expect(ok.status, ok.text).toBe(200);
    });

    it('refresh and revoke with client_id only → 401 invalid_client, even for a grant an earlier version marked public; the refresh token stays valid with the secret', async () => {
      const { client, code, verifier } = await codeWith('S256');
      const first = await exchange({ code, code_verifier: verifier, ...creds(client) });
      expect(first.status, first.text).toBe(200);
      // before this fix, redeeming with client_id + code_verifier annotated the grant {publicClient: true} and
      // such grants refreshed and revoked without a secret; rows written then must not keep that door open
      const stored = await app.db.prisma.oauthObject.findUniqueOrThrow({ where: { kind_id: { kind: 'RefreshToken', id: first.body.refresh_token } } });
      const grantId = (stored.payload as { grantId: string }).grantId;
      await app.db.prisma.oauthObject.updateMany({ where: { kind: 'Grant', id: grantId }, data: { annotations: { publicClient: true } } });
      const res = await refresh({ refresh_token: first.body.refresh_token, client_id: client.client_id });
      expect(res.status, res.text).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
      const revoked = await kit().revoke({ token: first.body.refresh_token, client_id: client.client_id });
      expect(revoked.status, revoked.text).toBe(401);
      expect(revoked.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
      const still = await refresh({ refresh_token: first.body.refresh_token, ...creds(client) });
      expect(still.status, still.text).toBe(200);
    });

    it('without PKCE, client_id and no secret is "| 401 | invalid_client | | Missing or wrong client credentials |"', async () => {
      const k = kit();
      const user = await k.user();
      const client = await k.register();
      const code = await k.code(user, client.client_id);
      const res = await exchange({ code, client_id: client.client_id });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });

    it('without a challenge at authorize, a code_verifier does not stand in for the secret (401 invalid_client)', async () => {
      const k = kit();
      const user = await k.user();
      const client = await k.register();
      const code = await k.code(user, client.client_id);
      const res = await exchange({ code, client_id: client.client_id, code_verifier: pkcePair().verifier });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });
  });
});
