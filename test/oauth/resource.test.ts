import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { decode, oauthKit } from '../support/oauth.ts';

/**
 * Resource indicators (RFC 8707) in spec 000: authorize "resource | no | RFC 8707 indicator; must be
 * repeated at the token endpoint; becomes the access token audience"; token "resource | conditional |
 * Required and equal when sent at authorize", refresh "resource | no | Bound as audience of the new access
 * token", client_credentials "resource | no | Bound as audience"; "Authentication" 8: "The `resource`
 * parameter binds the access token audience".
 */

/** "OAuth error codes" as the spec lists them */
const SPEC_OAUTH_ERRORS = ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'access_denied'];

describe.each(targets())('resource indicators (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  const kit = () => oauthKit(app);
  const creds = (c: { client_id: string; client_secret: string }) => ({ client_id: c.client_id, client_secret: c.client_secret });

  async function issuedCode(params: Record<string, string | string[] | undefined> = {}) {
    const k = kit();
    const user = await k.user();
    const client = await k.register({ scope: 'read write' });
    const code = await k.code(user, client.client_id, params);
    return { user, client, code };
  }
  const exchange = (form: Record<string, string | string[] | undefined>) => kit().token({ grant_type: 'authorization_code', redirect_uri: kit().redirectUri, ...form });
  const audOf = (accessToken: string) => decode(accessToken).aud;

  /** the resource identifiers the server knows (src/modules/oauth/provider.ts resourceIdentifiers) */
  const resources = () => ({ base: app.url, api: `${app.url}/api/v2`, graphql: `${app.url}/graphql`, mcp: `${app.url}/mcp` });

  it.each(['base', 'api', 'graphql', 'mcp'] as const)(
    'resource (%s) sent at authorize and repeated at the token endpoint "becomes the access token audience"',
    async (name) => {
      const resource = resources()[name];
      const { client, code } = await issuedCode({ resource });
      const res = await exchange({ code, resource, ...creds(client) });
      expect(res.status, res.text).toBe(200);
      expect(audOf(res.body.access_token)).toBe(resource);
    },
  );

  it('no resource at authorize nor at the token endpoint: the audience is the service base URL', async () => {
    const { client, code } = await issuedCode();
    const res = await exchange({ code, ...creds(client) });
    expect(res.status, res.text).toBe(200);
    expect(audOf(res.body.access_token)).toBe(app.url);
  });

  it('"| 400 | invalid_grant | Resource parameter is required | resource sent at authorize, absent now |", and the code is not consumed by it', async () => {
    const { api } = resources();
    const { client, code } = await issuedCode({ resource: api });
    const missing = await exchange({ code, ...creds(client) });
    expect(missing.status, missing.text).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_grant', error_description: 'Resource parameter is required' });

    const retry = await exchange({ code, resource: api, ...creds(client) });
    expect(retry.status, retry.text).toBe(200);
    expect(audOf(retry.body.access_token)).toBe(api);
  });

  it('"Required … when sent at authorize" holds when the authorize request named the default (base URL) resource', async () => {
    const { client, code } = await issuedCode({ resource: app.url });
    const res = await exchange({ code, ...creds(client) });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Resource parameter is required' });
  });

  it('"| 400 | invalid_grant | Resource parameter mismatch | Values differ |", and the code is not consumed by it', async () => {
    const { api, graphql } = resources();
    const { client, code } = await issuedCode({ resource: api });
    const differs = await exchange({ code, resource: graphql, ...creds(client) });
    expect(differs.status, differs.text).toBe(400);
    expect(differs.body).toEqual({ error: 'invalid_grant', error_description: 'Resource parameter mismatch' });

    const retry = await exchange({ code, resource: api, ...creds(client) });
    expect(retry.status, retry.text).toBe(200);
    expect(audOf(retry.body.access_token)).toBe(api);
  });

  it('a resource unknown to the server at the token endpoint is "Resource parameter mismatch" when another was sent at authorize', async () => {
    const { client, code } = await issuedCode({ resource: resources().api });
    const res = await exchange({ code, resource: 'https://elsewhere.example/api', ...creds(client) });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Resource parameter mismatch' });
  });

  it('an unknown resource at the token endpoint (none at authorize) is a 400 with a spec OAuth error code', async () => {
    const { client, code } = await issuedCode();
    const res = await exchange({ code, resource: 'https://elsewhere.example/api', ...creds(client) });
    expect(res.status, res.text).toBe(400);
    expect(SPEC_OAUTH_ERRORS).toContain(res.body.error);
    expect(res.body).not.toHaveProperty('access_token');
  });

  it.each([
    ['unknown to the server', () => 'https://elsewhere.example/api'],
    ['known, but not the one the code was issued for (none at authorize)', () => resources().mcp],
  ])(
    'a code exchange answered 400 for its resource (%s) leaves the code usable: "consumed" only when "verifier and resource checks pass"',
    async (_how, resource) => {
      const { client, code } = await issuedCode();
      const rejected = await exchange({ code, resource: resource(), ...creds(client) });
      expect(rejected.status, rejected.text).toBe(400);

      const retry = await exchange({ code, ...creds(client) });
      expect(retry.status, retry.text).toBe(200);
      expect(audOf(retry.body.access_token)).toBe(app.url);
    },
  );

  describe('refresh_token "resource | no | Bound as audience of the new access token"', () => {
    async function refreshable(authorizeResources: string[], tokenResource: string) {
      const { client, code } = await issuedCode({ resource: authorizeResources });
      const t = await exchange({ code, resource: tokenResource, ...creds(client) });
      expect(t.status, t.text).toBe(200);
      expect(audOf(t.body.access_token)).toBe(tokenResource);
      return { client, refreshToken: t.body.refresh_token as string };
    }

    it('refresh with the granted resource: the new access token has it as aud', async () => {
      const { api } = resources();
      const { client, refreshToken } = await refreshable([api], api);
      const res = await kit().token({ grant_type: 'refresh_token', refresh_token: refreshToken, resource: api, ...creds(client) });
      expect(res.status, res.text).toBe(200);
      expect(audOf(res.body.access_token)).toBe(api);
    });

    it('refresh naming another resource granted at authorize binds that one as aud', async () => {
      const { api, mcp } = resources();
      const { client, refreshToken } = await refreshable([api, mcp], api);
      const res = await kit().token({ grant_type: 'refresh_token', refresh_token: refreshToken, resource: mcp, ...creds(client) });
      expect(res.status, res.text).toBe(200);
      expect(audOf(res.body.access_token)).toBe(mcp);
    });

    it('refresh with a resource unknown to the server is a 400 with a spec OAuth error code', async () => {
      const { api } = resources();
      const { client, refreshToken } = await refreshable([api], api);
      const res = await kit().token({ grant_type: 'refresh_token', refresh_token: refreshToken, resource: 'https://elsewhere.example/api', ...creds(client) });
      expect(res.status, res.text).toBe(400);
      expect(SPEC_OAUTH_ERRORS).toContain(res.body.error);
    });

    it.each([
      ['unknown to the server', () => 'https://elsewhere.example/api'],
      ['known, but not granted at authorize', () => resources().graphql],
    ])(
      'a refresh answered 400 for its resource (%s) issues nothing, so the refresh token stays active (it is rotated only when "a new refresh token is issued")',
      async (_how, resource) => {
        const { api } = resources();
        const { client, refreshToken } = await refreshable([api], api);
        const rejected = await kit().token({ grant_type: 'refresh_token', refresh_token: refreshToken, resource: resource(), ...creds(client) });
        expect(rejected.status, rejected.text).toBe(400);
        expect(rejected.body).not.toHaveProperty('refresh_token');

        const retry = await kit().token({ grant_type: 'refresh_token', refresh_token: refreshToken, resource: api, ...creds(client) });
        expect(retry.status, retry.text).toBe(200);
        expect(audOf(retry.body.access_token)).toBe(api);
      },
    );
  });

  describe('client_credentials "resource | no | Bound as audience"', () => {
    it.each(['api', 'graphql', 'mcp'] as const)('resource (%s) becomes the aud', async (name) => {
      const k = kit();
      const owner = await k.user();
      const c = await k.ownedClient(owner);
      const resource = resources()[name];
      const res = await k.token({ grant_type: 'client_credentials', resource, ...creds(c) });
      expect(res.status, res.text).toBe(200);
      expect(audOf(res.body.access_token)).toBe(resource);
      expect(decode(res.body.access_token).user_id).toBe(owner.id);
    });

    it('no resource: the audience is the service base URL', async () => {
      const k = kit();
      const c = await k.ownedClient(await k.user());
      const res = await k.token({ grant_type: 'client_credentials', ...creds(c) });
      expect(res.status, res.text).toBe(200);
      expect(audOf(res.body.access_token)).toBe(app.url);
    });

    it('a resource unknown to the server is a 400 with a spec OAuth error code', async () => {
      const k = kit();
      const c = await k.ownedClient(await k.user());
      const res = await k.token({ grant_type: 'client_credentials', resource: 'https://elsewhere.example/api', ...creds(c) });
      expect(res.status, res.text).toBe(400);
      expect(SPEC_OAUTH_ERRORS).toContain(res.body.error);
      expect(res.body).not.toHaveProperty('access_token');
    });
  });
});
