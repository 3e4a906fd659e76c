import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { Browser, oauthKit } from '../support/oauth.ts';

// spec 000 "Authorize": "Grant: redirect to {redirect_uri}?code=<code>&state=<state>"; "Denial: redirect to
// {redirect_uri}?error=access_denied&state=<state>"; "302 redirect with error=unsupported_response_type".
// Issue 26: "the authorization response carries iss (RFC 9207) and the metadata says so
// (authorization_response_iss_parameter_supported: true) … The error answers, also denial redirect, must
// carry iss too." A maintained client library (oauth4webapi) checks iss whenever the metadata says so:
// these tests let it judge every kind of authorization response.
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const PREFIXES = ['/v2/oauth', '/public/v2/oauth'] as const;

describe.each(targets())('OAuth authorization responses carry iss (RFC 9207) (%s)', (db) => {
  let app: TestApp;
  let kit: ReturnType<typeof oauthKit>;
  let as: oauth.AuthorizationServer;
  beforeAll(async () => {
    app = await startTestApp(db);
    kit = oauthKit(app);
    const issuer = new URL(app.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });
  afterAll(() => app?.close());

  const clientOf = (c: { client_id: string }): oauth.Client => ({ client_id: c.client_id, token_endpoint_auth_method: 'client_secret_post' });

  it('RFC 8414 metadata: authorization_response_iss_parameter_supported true, so clients must require iss', async () => {
    const res = await app.http('GET', '/.well-known/oauth-authorization-server');
    expect(res.body.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.issuer).toBe(app.url);
  });

  describe.each(PREFIXES)('%s/authorize', (prefix) => {
    const params = (clientId: string, extra: Record<string, string> = {}) => ({ client_id: clientId, redirect_uri: kit.redirectUri, response_type: 'code', ...extra });

    it('spec 000 "Grant: redirect to {redirect_uri}?code=<code>&state=<state>": with iss = issuer; oauth4webapi validateAuthResponse accepts it, and the code redeems', async () => {
      const u = await kit.user();
      const registered = await kit.register();
      const client = clientOf(registered);
      const state = oauth.generateRandomState();
      const res = await u.browser.consent(kit.authorizePath(params(registered.client_id, { state }), prefix), 'yes');
      expect(res.status).toBe(302);
      expect(res.location!.searchParams.get('iss')).toBe(app.url);
      const validated = oauth.validateAuthResponse(as, client, res.location!, state);
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretPost(registered.client_secret), validated, kit.redirectUri, oauth.nopkce, insecure),
      );
      expect(tokens.access_token).toEqual(expect.any(String));

      // the library really checks it: another issuer's response, or one without iss, is refused
      const forged = new URL(res.location!);
      forged.searchParams.set('iss', 'https://evil.example');
      expect(() => oauth.validateAuthResponse(as, client, forged, state)).toThrow(/unexpected "iss"/);
      const stripped = new URL(res.location!);
      stripped.searchParams.delete('iss');
      expect(() => oauth.validateAuthResponse(as, client, stripped, state)).toThrow(/"iss" \(issuer\) missing/);
    });

    it('spec 000 "Denial: redirect to {redirect_uri}?error=access_denied&state=<state>": with iss; validateAuthResponse gets past the iss check to the error', async () => {
      const u = await kit.user();
      const registered = await kit.register();
      const state = oauth.generateRandomState();
      const res = await u.browser.consent(kit.authorizePath(params(registered.client_id, { state }), prefix), 'no');
      expect(res.status).toBe(302);
      expect(Object.fromEntries(res.location!.searchParams)).toEqual({ error: 'access_denied', state, iss: app.url });
      expect(() => oauth.validateAuthResponse(as, clientOf(registered), res.location!, state)).toThrow(oauth.AuthorizationResponseError);
      try {
        oauth.validateAuthResponse(as, clientOf(registered), res.location!, state);
      } catch (e) {
        expect((e as oauth.AuthorizationResponseError).error).toBe('access_denied');
      }
    });

    it.each<[string, Record<string, string>, string, boolean]>([
      ['spec 000 "302 redirect with error=unsupported_response_type" (before sign-in too)', { response_type: 'token' }, 'unsupported_response_type', false],
      ['an unknown scope → invalid_scope', { scope: 'admin' }, 'invalid_scope', true],
      ['an unknown resource → invalid_target', { resource: 'https://elsewhere.example' }, 'invalid_target', true],
      ['a code_challenge_method without code_challenge → invalid_request', { code_challenge_method: 'S256' }, 'invalid_request', true],
    ])('%s: the error redirect carries iss and state', async (_name, extra, error, signedIn) => {
      const registered = await kit.register();
      const browser = signedIn ? (await kit.user()).browser : new Browser(app.url);
      const state = oauth.generateRandomState();
      const res = await browser.get(kit.authorizePath(params(registered.client_id, { state, ...extra }), prefix));
      expect(res.status).toBe(302);
      expect(res.location!.searchParams.get('error')).toBe(error);
      expect(res.location!.searchParams.get('iss')).toBe(app.url);
      expect(() => oauth.validateAuthResponse(as, clientOf(registered), res.location!, state)).toThrow(oauth.AuthorizationResponseError);
    });

    it('errors answered as 400 JSON instead of a redirect (unknown client, unregistered redirect_uri) are not authorization responses: no iss to carry', async () => {
      const registered = await kit.register();
      const res = await new Browser(app.url).get(kit.authorizePath({ ...params(registered.client_id), redirect_uri: 'https://elsewhere.example/cb' }, prefix));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_redirect_uri', error_description: expect.any(String) });
      expect(res.location).toBeUndefined();
    });
  });
});
