import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { Browser, oauthKit, PASSWORD } from '../support/oauth.ts';

// spec 000 end to end, as an integrator drives it with the maintained client library oauth4webapi:
// discovery (RFC 9728 + RFC 8414), dynamic registration (RFC 7591), authorization code with PKCE S256
// and a resource indicator (RFC 8707) through the login and consent pages, API calls (REST and
// GraphQL), refresh with rotation ("Authentication" 5), revocation ("States and transitions").
// The test server is http://127.0.0.1, which oauth4webapi only talks to with allowInsecureRequests.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe.each(targets())('OAuth end to end with oauth4webapi (%s)', (db) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(db);
  });
  afterAll(() => app?.close());

  it('discovery → registration → authorization code + PKCE S256 + resource → REST and GraphQL → refresh → revoke', async () => {
    const kit = oauthKit(app);
    const u = await kit.user();
    const redirectUri = 'https://integrator.example/oauth/callback';

    // 1. The API names its authorization server (RFC 9728) ...
    const resourceId = new URL(app.url);
    const rs = await oauth.processResourceDiscoveryResponse(resourceId, await oauth.resourceDiscoveryRequest(resourceId, insecure));
    expect(rs.resource).toBe(app.url);
    expect(rs.authorization_servers).toEqual([app.url]);

    // ... whose metadata is at /.well-known/oauth-authorization-server (RFC 8414)
    const issuer = new URL(rs.authorization_servers![0]);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    expect(as.issuer).toBe(app.url);
    expect(as.code_challenge_methods_supported).toContain('S256');

    // 2. Dynamic registration (RFC 7591)
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Integrator', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], scope: 'read write' } as Partial<oauth.Client>,
        insecure,
      ),
    );
    expect(registered.token_endpoint_auth_method).toBe('client_secret_post');
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'client_secret_post' };
    const clientAuth = oauth.ClientSecretPost(registered.client_secret as string);

    // 3. Authorization request: PKCE S256, state, resource
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
    const state = oauth.generateRandomState();
    const resource = rs.resource;
    const authorizationUrl = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'read write',
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
      resource,
    })) {
      authorizationUrl.searchParams.set(k, v);
    }

    // the user's browser: not signed in → login page → back to authorize → consent → callback
    const browser = new Browser(app.url);
    const toLogin = await browser.get(authorizationUrl.href);
    expect(toLogin.status).toBe(302);
    expect(toLogin.location!.pathname).toBe('/public/v2/oauth/login');
    const loginPage = await browser.get(toLogin.location!.href);
    const signedIn = await browser.post('/public/v2/oauth/login', {
      csrf: Browser.field(loginPage.text, 'csrf'),
      next: Browser.field(loginPage.text, 'next'),
      email: u.email,
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    const callback = await browser.consent(signedIn.location!.href, 'yes');
    expect(callback.status).toBe(302);
    expect(callback.location!.href.startsWith(`${redirectUri}?`)).toBe(true);

    // 4. Back at the client: validate the response, exchange the code (resource repeated)
    const params = oauth.validateAuthResponse(as, client, callback.location!, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, codeVerifier, {
      additionalParameters: { resource },
      ...insecure,
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('read write');
    expect(tokens.refresh_token).toEqual(expect.any(String));

    // the access token is an RFC 9068 JWT for the resource
    const claims = await oauth.validateJwtAccessToken(
      as,
      new Request(`${app.url}/api/v2/items`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
      resource,
      insecure,
    );
    expect(claims).toMatchObject({ iss: app.url, aud: resource, client_id: client.client_id, scope: 'read write' });

    // 5. API calls with the access token: REST and GraphQL
    const callApi = async (accessToken: string) => {
      const rest = await oauth.protectedResourceRequest(accessToken, 'GET', new URL(`/api/v2/items?client_account_id=${u.clientAccountId}`, app.url), undefined, undefined, insecure);
      expect(rest.status).toBe(200);
      expect(await rest.json()).toMatchObject({ data: [], meta: { records: 0 } });
      const gql = await oauth.protectedResourceRequest(
        accessToken,
        'POST',
        new URL('/graphql', app.url),
        new Headers({ 'content-type': 'application/json' }),
        JSON.stringify({ query: '{ me { user { email } } }' }),
        insecure,
      );
      expect(gql.status).toBe(200);
      expect(await gql.json()).toEqual({ data: { me: { user: { email: u.email } } } });
    };
    await callApi(tokens.access_token);

    // 6. Refresh: a new access token and a new refresh token (rotation)
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure));
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.expires_in).toBe(3600);
    await callApi(refreshed.access_token);

    // 7. Revoke the current refresh token: 200 {}
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, { additionalParameters: { token_type_hint: 'refresh_token' }, ...insecure }),
    );

    // the revoked refresh token no longer works (400 invalid_grant)
    const afterRevoke = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, insecure));
    await expect(afterRevoke).rejects.toBeInstanceOf(oauth.ResponseBodyError);
    await expect(afterRevoke).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
    // nor does the one it replaced
    const rotatedAway = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure));
    await expect(rotatedAway).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
