import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import { basic, decode, oauthKit, type OauthUser } from '../support/oauth.ts';

/**
 * Refresh tokens and revocation (spec 000 "States and transitions", "Token response", "Token: POST
 * /public/v2/oauth/token" refresh_token and client_credentials rows, "Revoke: POST
 * /public/v2/oauth/revoke", "Authentication" 5-7), and the product decisions in
 * notes/oauth-on-oidc-provider.md (1: write is stored as "read write"; 3: reuse detection).
 */

const PREFIXES = ['/public/v2/oauth', '/v2/oauth'] as const;

describe.each(targets())('refresh and revoke (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  const kit = () => oauthKit(app);
  const creds = (c: { client_id: string; client_secret: string }) => ({ client_id: c.client_id, client_secret: c.client_secret });
  const unknownToken = () => randomBytes(32).toString('base64url');

  /** a user, a client and the token response of a real code exchange for `scope` */
  async function tokens(scope?: string) {
    const k = kit();
    const user = await k.user();
    const client = await k.register({ scope: 'read write' });
    const code = await k.code(user, client.client_id, scope === undefined ? {} : { scope });
    const res = await k.token({ grant_type: 'authorization_code', code, redirect_uri: k.redirectUri, ...creds(client) });
    if (res.status !== 200) throw new Error(`exchange: ${res.status} ${res.text}`);
    return { user, client, res, accessToken: res.body.access_token as string, refreshToken: res.body.refresh_token as string };
  }

  const refresh = (client: { client_id: string; client_secret: string }, refreshToken: string, extra: Record<string, string> = {}, prefix?: string) =>
    kit().token({ grant_type: 'refresh_token', refresh_token: refreshToken, ...extra, ...creds(client) }, { prefix });

  const invalidRefresh = (res: HttpResult) => {
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid refresh token' });
  };

  /** an API call the token's user may make (their own client account) */
  const apiCall = (user: OauthUser, accessToken: string) => app.http('GET', `/api/v2/items?client_account_id=${user.clientAccountId}`, { token: accessToken });

  describe('refresh_token grant', () => {
    it('a refresh token expires after 30 days unused and every refresh issues a fresh one; the authorization itself lasts a year (README)', async () => {
      const { client, refreshToken: rt1 } = await tokens('read');
      const expiry = async (kind: string, id: string) => (await app.db.prisma.oauthObject.findUniqueOrThrow({ where: { kind_id: { kind, id } } })).expiresAt!.getTime();
      const days = (ms: number) => Math.round((ms - Date.now()) / 86_400_000);
      expect(days(await expiry('RefreshToken', rt1))).toBe(30);
      const grantId = ((await app.db.prisma.oauthObject.findUniqueOrThrow({ where: { kind_id: { kind: 'RefreshToken', id: rt1 } } })).payload as { grantId: string }).grantId;
      expect(days(await expiry('Grant', grantId))).toBe(365);
      const next = await refresh(client, rt1);
      expect(next.status, next.text).toBe(200);
      expect(days(await expiry('RefreshToken', next.body.refresh_token))).toBe(30);
    });

    it('"a new refresh token is issued (rotation); the old one becomes invalid" on every refresh', async () => {
      const { client, refreshToken: rt1 } = await tokens('read write');
      const second = await refresh(client, rt1);
      expect(second.status, second.text).toBe(200);
      const rt2 = second.body.refresh_token;
      expect(rt2).toEqual(expect.any(String));
      expect(rt2).not.toBe(rt1);

      const third = await refresh(client, rt2);
      expect(third.status, third.text).toBe(200);
      const rt3 = third.body.refresh_token;
      expect(rt3).toEqual(expect.any(String));
      expect(new Set([rt1, rt2, rt3]).size).toBe(3);

      // the old ones are invalid: "| 400 | invalid_grant | Invalid refresh token | Not found, expired or revoked |"
      invalidRefresh(await refresh(client, rt1));
    });

    it('product decision 3: replaying an already-rotated refresh token revokes the grant, so the newest refresh token fails too', async () => {
      const { client, refreshToken: rt1 } = await tokens();
      const second = await refresh(client, rt1);
      expect(second.status, second.text).toBe(200);
      const rt2 = second.body.refresh_token;

      invalidRefresh(await refresh(client, rt1));
      invalidRefresh(await refresh(client, rt2));
    });

    it('"scope | no | Subset of the original scope": scope=read narrows a "read write" grant (response and JWT)', async () => {
      const { client, refreshToken, res } = await tokens('write');
      expect(res.body.scope).toBe('read write'); // product decision 1
      const narrowed = await refresh(client, refreshToken, { scope: 'read' });
      expect(narrowed.status, narrowed.text).toBe(200);
      expect(narrowed.body.scope).toBe('read');
      expect(decode(narrowed.body.access_token).scope).toBe('read');
    });

    it('"defaults to original": refresh without scope keeps "read write", also after a narrowed refresh', async () => {
      const { client, refreshToken } = await tokens('read write');
      const same = await refresh(client, refreshToken);
      expect(same.status, same.text).toBe(200);
      expect(same.body.scope).toBe('read write');
      expect(decode(same.body.access_token).scope).toBe('read write');

      const narrowed = await refresh(client, same.body.refresh_token, { scope: 'read' });
      expect(narrowed.status, narrowed.text).toBe(200);
      expect(narrowed.body.scope).toBe('read');

      const back = await refresh(client, narrowed.body.refresh_token);
      expect(back.status, back.text).toBe(200);
      expect(back.body.scope).toBe('read write');
      expect(decode(back.body.access_token).scope).toBe('read write');
    });

    it('a scope wider than granted ("Subset of the original scope") is 400 invalid_scope, and the refresh token stays active', async () => {
      const { client, refreshToken, res } = await tokens('read');
      expect(res.body.scope).toBe('read');
      const wider = await refresh(client, refreshToken, { scope: 'write' });
      expect(wider.status, wider.text).toBe(400);
      expect(wider.body.error).toBe('invalid_scope');
      expect(wider.body).not.toHaveProperty('access_token');

      const retry = await refresh(client, refreshToken);
      expect(retry.status, retry.text).toBe(200);
      expect(retry.body.scope).toBe('read');
    });

    it.each([
      ['read:accounting', 'read'],
      ['read:profile', 'read'],
      ['write:accounting', 'read write'],
    ])('"Legacy scope names … are accepted as deprecated aliases mapped onto read and write": refresh scope=%s → %s', async (alias, expected) => {
      const { client, refreshToken } = await tokens('read write');
      const res = await refresh(client, refreshToken, { scope: alias });
      expect(res.status, res.text).toBe(200);
      expect(res.body.scope).toBe(expected);
      expect(decode(res.body.access_token).scope).toBe(expected);
    });

    it('a refreshed access token is accepted by the API as the same user', async () => {
      const { user, client, refreshToken } = await tokens('read');
      const res = await refresh(client, refreshToken);
      expect(res.status, res.text).toBe(200);
      expect(decode(res.body.access_token)).toMatchObject({ user_id: user.id, client_id: client.client_id });
      const api = await apiCall(user, res.body.access_token);
      expect(api.status, api.text).toBe(200);
    });
  });

  describe('client_credentials grant', () => {
    it('"refresh_token | Not issued for client_credentials"; "The client_credentials token is associated with the client\'s owning user"', async () => {
      const k = kit();
      const owner = await k.user();
      const c = await k.ownedClient(owner);
      const res = await k.token({ grant_type: 'client_credentials', ...creds(c) });
      expect(res.status, res.text).toBe(200);
      expect(res.body).not.toHaveProperty('refresh_token');
      const claims = decode(res.body.access_token);
      expect(claims.user_id).toBe(owner.id);
      expect(claims.client_id).toBe(c.client_id);

      const api = await apiCall(owner, res.body.access_token);
      expect(api.status, api.text).toBe(200);
    });

    it('"Without a requested scope, read is granted"; scope=write is "read write" (product decision 1)', async () => {
      const k = kit();
      const c = await k.ownedClient(await k.user());
      const none = await k.token({ grant_type: 'client_credentials', ...creds(c) });
      expect(none.status, none.text).toBe(200);
      expect(none.body.scope).toBe('read');
      expect(decode(none.body.access_token).scope).toBe('read');

      const write = await k.token({ grant_type: 'client_credentials', scope: 'write' }, { authorization: basic(c.client_id, c.client_secret) });
      expect(write.status, write.text).toBe(200);
      expect(write.body.scope).toBe('read write');
      expect(decode(write.body.access_token).scope).toBe('read write');
    });
  });

  describe('Token response ("token_type | Bearer", "expires_in | 3600 (seconds)"), not cached', () => {
    const grants = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
    it.each(grants)('%s', async (grant) => {
      let res: HttpResult;
      if (grant === 'client_credentials') {
        const k = kit();
        const c = await k.ownedClient(await k.user());
        res = await k.token({ grant_type: 'client_credentials', ...creds(c) });
      } else {
        const t = await tokens('read write');
        res = grant === 'authorization_code' ? t.res : await refresh(t.client, t.refreshToken);
      }
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toMatch(/no-store/);
      expect(res.body.token_type).toBe('Bearer');
      expect(res.body.expires_in).toBe(3600);
      expect(res.body.scope).toEqual(expect.any(String));
      if (grant === 'client_credentials') expect(res.body).not.toHaveProperty('refresh_token');
      else expect(res.body.refresh_token).toEqual(expect.any(String));
      // "access_token | Signed JWT bearer token"; "Access token lifetime 3600 seconds"
      const claims = decode(res.body.access_token);
      expect(claims.iss).toBe(app.url);
      expect(claims.exp! - claims.iat!).toBe(3600);
    });
  });

  describe.each(PREFIXES)('POST %s/revoke', (prefix) => {
    const revoke = (form: Record<string, string | undefined>, authorization?: string) => kit().revoke(form, { prefix, authorization });
    const ok = (res: HttpResult) => {
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({});
    };

    it('"| Refresh token | active | POST revoke | token recognised and belongs to the authenticated client | revoked | response 200 with empty object |"', async () => {
      const { client, refreshToken } = await tokens();
      ok(await revoke({ token: refreshToken, token_type_hint: 'refresh_token', ...creds(client) }));
      invalidRefresh(await refresh(client, refreshToken));
    });

    it('client_secret_basic works too (Authentication 3)', async () => {
      const { client, refreshToken } = await tokens();
      ok(await revoke({ token: refreshToken }, basic(client.client_id, client.client_secret)));
      invalidRefresh(await refresh(client, refreshToken));
    });

    it('"| Refresh token | active | POST revoke | token unknown … | unchanged | response still 200 with empty object |"', async () => {
      const c = await kit().register();
      ok(await revoke({ token: unknownToken(), ...creds(c) }));
    });

    it('"| Refresh token | active | POST revoke | token … belongs to another client | unchanged | response still 200 with empty object |": the owner can still refresh', async () => {
      const { client, refreshToken } = await tokens();
      const other = await kit().register();
      ok(await revoke({ token: refreshToken, ...creds(other) }));
      const still = await refresh(client, refreshToken);
      expect(still.status, still.text).toBe(200);
    });

    it('"| Access token | valid | … | not tracked server-side; revoking one returns success with no effect |"', async () => {
      const { user, client, accessToken } = await tokens();
      ok(await revoke({ token: accessToken, token_type_hint: 'access_token', ...creds(client) }));
      ok(await revoke({ token: accessToken, ...creds(client) }));
      const api = await apiCall(user, accessToken);
      expect(api.status, api.text).toBe(200);
    });

    it('"token_type_hint … the lookup still happens if the hint is wrong": a refresh token hinted as access_token is revoked', async () => {
      const { client, refreshToken } = await tokens();
      ok(await revoke({ token: refreshToken, token_type_hint: 'access_token', ...creds(client) }));
      invalidRefresh(await refresh(client, refreshToken));
    });

    it('an access token hinted as refresh_token still answers 200 {}', async () => {
      const { client, accessToken } = await tokens();
      ok(await revoke({ token: accessToken, token_type_hint: 'refresh_token', ...creds(client) }));
    });

    it('"Errors: 400 invalid_request (token missing)"', async () => {
      const c = await kit().register();
      const res = await revoke({ ...creds(c) });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    type Auth = (c: { client_id: string; client_secret: string }) => { form: Record<string, string>; authorization?: string };
    it.each<[string, Auth]>([
      ['no client credentials', (_c: { client_id: string; client_secret: string }) => ({ form: {} as Record<string, string> })],
      ['client_id without client_secret', (c: { client_id: string; client_secret: string }) => ({ form: { client_id: c.client_id } })],
      ['a wrong client_secret in the form', (c: { client_id: string; client_secret: string }) => ({ form: { client_id: c.client_id, client_secret: 'wrong' } })],
      ['a wrong client_secret via HTTP Basic', (c: { client_id: string; client_secret: string }) => ({ form: {}, authorization: basic(c.client_id, 'wrong') })],
      ['an unknown client via HTTP Basic', (_c: { client_id: string; client_secret: string }) => ({ form: {}, authorization: basic(unknownToken(), 'x') })],
    ])('"Errors: … 401 invalid_client": %s, and the token is not revoked', async (_how, auth) => {
      const { client, refreshToken } = await tokens();
      const { form, authorization } = auth(client);
      const res = await revoke({ token: refreshToken, ...form }, authorization);
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toBe('invalid_client');
      const still = await refresh(client, refreshToken);
      expect(still.status, still.text).toBe(200);
    });
  });
});
