import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { Browser, decode, oauthKit, PASSWORD, type Answer } from '../support/oauth.ts';

// spec 000, "Authorize: GET and POST /public/v2/oauth/authorize" (also at /v2/oauth/authorize, "Endpoints"),
// "Authentication" 6 and 7 (scopes and their legacy aliases), "Errors" (OAuth error shape).
const PREFIXES = ['/v2/oauth', '/public/v2/oauth'] as const;
const METHODS = ['GET', 'POST'] as const;

/** A GET, or a POST with a form (the authorize parameters stay in the query). */
const send = (browser: Browser, method: 'GET' | 'POST', path: string, form: Record<string, string> = { confirm: 'yes' }) =>
  method === 'GET' ? browser.get(path) : browser.post(path, form);

/** The redirect's target without its query: what the client registered. */
const target = (a: Answer) => (a.location ? `${a.location.origin}${a.location.pathname}` : undefined);
const paramNames = (a: Answer) => [...(a.location?.searchParams.keys() ?? [])];

function expectJsonError(res: Answer, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ error });
  expect(res.location).toBeUndefined();
}

describe.each(targets())('OAuth authorize (%s)', (db) => {
  let app: TestApp;
  let kit: ReturnType<typeof oauthKit>;
  beforeAll(async () => {
    app = await startTestApp(db);
    kit = oauthKit(app);
  });
  afterAll(() => app?.close());

  describe.each(PREFIXES)('%s/authorize', (prefix) => {
    const path = (params: Record<string, string | string[] | undefined>) => kit.authorizePath(params, prefix);
    const codeParams = (clientId: string, extra: Record<string, string | undefined> = {}) => ({
      client_id: clientId,
      redirect_uri: kit.redirectUri,
      response_type: 'code',
      ...extra,
    });
    /** authorization_code grant at the token endpoint for a code of `clientId` */
    const exchange = (code: string, client: { client_id: string; client_secret: string }, redirectUri = kit.redirectUri) =>
      kit.token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, client_secret: client.client_secret });

    describe('errors answered with 400 JSON, never a redirect', () => {
      it.each(METHODS)('%s: 400 {error: invalid_request} when client_id is missing', async (method) => {
        const res = await send(new Browser(app.url), method, path({ redirect_uri: kit.redirectUri, response_type: 'code', state: 's' }));
        expectJsonError(res, 400, 'invalid_request');
      });

      it.each(METHODS)('%s: 400 {error: invalid_request} when redirect_uri is missing', async (method) => {
        const client = await kit.register();
        const res = await send(new Browser(app.url), method, path({ client_id: client.client_id, response_type: 'code', state: 's' }));
        expectJsonError(res, 400, 'invalid_request');
      });

      it.each(METHODS)('%s: 400 {error: invalid_request} when both are missing', async (method) => {
        const res = await send(new Browser(app.url), method, path({ response_type: 'code' }));
        expectJsonError(res, 400, 'invalid_request');
      });

      it.each(METHODS)('%s: 400 {error: invalid_client} for an unknown client_id', async (method) => {
        const res = await send(new Browser(app.url), method, path(codeParams('no-such-client', { state: 's' })));
        expectJsonError(res, 400, 'invalid_client');
      });

      it.each(METHODS)('%s: 400 {error: invalid_client} for an unknown client_id, also for a signed-in user', async (method) => {
        const u = await kit.user();
        const res = await send(u.browser, method, path(codeParams('no-such-client', { state: 's' })));
        expectJsonError(res, 400, 'invalid_client');
      });

      it.each([
        ['a different host', 'https://evil.example/callback'],
        ['a trailing slash', 'https://client.example/callback/'],
        ['an added query', 'https://client.example/callback?x=1'],
        ['another scheme', 'http://client.example/callback'],
        ['another path', 'https://client.example/other'],
        ['different case', 'https://client.example/Callback'],
      ])('400 {error: invalid_redirect_uri}: redirect_uri "must exactly match a registered URI" (%s), no redirect', async (_, uri) => {
        const u = await kit.user();
        const client = await kit.register();
        for (const method of METHODS) {
          const res = await send(u.browser, method, path({ client_id: client.client_id, redirect_uri: uri, response_type: 'code', state: 's' }));
          expectJsonError(res, 400, 'invalid_redirect_uri');
          expect(res.text).not.toContain('code=');
        }
      });

      it('400 invalid_redirect_uri also when the response_type is wrong (the URI is checked before anything is sent to it)', async () => {
        const client = await kit.register();
        const res = await new Browser(app.url).get(path({ client_id: client.client_id, redirect_uri: 'https://evil.example/cb', response_type: 'token', state: 's' }));
        expectJsonError(res, 400, 'invalid_redirect_uri');
      });
    });

    describe('response_type', () => {
      it.each(METHODS)('%s: response_type other than code → 302 to redirect_uri with error=unsupported_response_type and state', async (method) => {
        const u = await kit.user();
        const client = await kit.register();
        for (const rt of ['token', 'id_token', 'code token']) {
          const res = await send(u.browser, method, path(codeParams(client.client_id, { response_type: rt, state: 'st-1' })));
          expect(res.status).toBe(302);
          expect(target(res)).toBe(kit.redirectUri);
          expect(res.location!.searchParams.get('error')).toBe('unsupported_response_type');
          expect(res.location!.searchParams.get('state')).toBe('st-1');
          expect(res.location!.searchParams.has('code')).toBe(false);
        }
      });

      it('unsupported_response_type redirect without state when none was sent; also before sign-in', async () => {
        const client = await kit.register();
        const res = await new Browser(app.url).get(path(codeParams(client.client_id, { response_type: 'token' })));
        expect(res.status).toBe(302);
        expect(target(res)).toBe(kit.redirectUri);
        expect(res.location!.searchParams.get('error')).toBe('unsupported_response_type');
        expect(res.location!.searchParams.has('state')).toBe(false);
      });
    });

    describe('not logged in', () => {
      it('GET: 302 to /public/v2/oauth/login with the original authorize URL in `next`; after login (303 back to next) the user sees the consent form', async () => {
        const u = await kit.user();
        const client = await kit.register();
        const original = path(codeParams(client.client_id, { scope: 'read', state: 'abc' }));
        const browser = new Browser(app.url);

        const first = await browser.get(original);
        expect(first.status).toBe(302);
        expect(first.location!.origin).toBe(app.url);
        expect(first.location!.pathname).toBe('/public/v2/oauth/login');
        const next = first.location!.searchParams.get('next')!;
        expect(next).toBeTruthy();
        const nextUrl = new URL(next, app.url);
        const originalUrl = new URL(original, app.url);
        expect(nextUrl.origin + nextUrl.pathname).toBe(originalUrl.origin + originalUrl.pathname);
        expect([...nextUrl.searchParams].sort()).toEqual([...originalUrl.searchParams].sort());

        const form = await browser.get(first.location!.pathname + first.location!.search);
        expect(form.status).toBe(200);
        expect(form.headers.get('content-type')).toMatch(/^text\/html/);
        expect(Browser.field(form.text, 'next')).toBe(next);
        const login = await browser.post('/public/v2/oauth/login', { csrf: Browser.field(form.text, 'csrf'), next: Browser.field(form.text, 'next'), email: u.email, password: PASSWORD });
        expect(login.status).toBe(303);
        expect(login.location!.href).toBe(new URL(next, app.url).href);

        const consent = await browser.get(login.location!.pathname + login.location!.search);
        expect(consent.status).toBe(200);
        expect(consent.headers.get('content-type')).toMatch(/^text\/html/);
        expect(consent.text).toMatch(/<form method="post"/);
        expect(consent.text).toContain('name="confirm" value="yes"');

        // and the consent form grants
        const action = /<form method="post" action="([^"]+)"/.exec(consent.text)![1].replace(/&amp;/g, '&');
        const granted = await browser.post(action, { csrf: Browser.field(consent.text, 'csrf'), confirm: 'yes' });
        expect(granted.status).toBe(302);
        expect(target(granted)).toBe(kit.redirectUri);
        expect(granted.location!.searchParams.get('state')).toBe('abc');
        const tokens = await exchange(granted.location!.searchParams.get('code')!, client);
        expect(tokens.status).toBe(200);
      });

      it('POST: 302 to /public/v2/oauth/login with the authorize URL in `next`, no code', async () => {
        const client = await kit.register();
        const res = await new Browser(app.url).post(path(codeParams(client.client_id, { state: 'abc' })), { confirm: 'yes' });
        expect(res.status).toBe(302);
        expect(res.location!.origin).toBe(app.url);
        expect(res.location!.pathname).toBe('/public/v2/oauth/login');
        const next = new URL(res.location!.searchParams.get('next')!, app.url);
        expect(next.pathname).toBe(`${prefix}/authorize`);
        expect(next.searchParams.get('client_id')).toBe(client.client_id);
        expect(next.searchParams.get('state')).toBe('abc');
      });
    });

    describe('consent', () => {
      it('POST confirm=yes → 302 to `{redirect_uri}?code=<code>&state=<state>`, plus RFC 9207 iss and nothing else', async () => {
        const u = await kit.user();
        const client = await kit.register();
        const res = await u.browser.consent(path(codeParams(client.client_id, { state: 'state-123' })), 'yes');
        expect(res.status).toBe(302);
        expect(target(res)).toBe(kit.redirectUri);
        expect(paramNames(res).sort()).toEqual(['code', 'iss', 'state']);
        expect(res.location!.searchParams.get('state')).toBe('state-123');
        expect(res.location!.searchParams.get('iss')).toBe(app.url);
        expect(res.location!.hash).toBe('');
        const code = res.location!.searchParams.get('code')!;
        expect((await exchange(code, client)).status).toBe(200);
      });

      it('POST confirm=yes without state → `{redirect_uri}?code=<code>` (state only if supplied)', async () => {
        const u = await kit.user();
        const client = await kit.register();
        const res = await u.browser.consent(path(codeParams(client.client_id)), 'yes');
        expect(res.status).toBe(302);
        expect(target(res)).toBe(kit.redirectUri);
        expect(paramNames(res).sort()).toEqual(['code', 'iss']);
        expect((await exchange(res.location!.searchParams.get('code')!, client)).status).toBe(200);
      });

      it('state is echoed back unchanged, special characters included', async () => {
        const u = await kit.user();
        const client = await kit.register();
        const state = 'a b&c=d/é?#+';
        const res = await u.browser.consent(path(codeParams(client.client_id, { state })), 'yes');
        expect(res.location!.searchParams.get('state')).toBe(state);
      });

      it('a state value that reads "repeated" is an ordinary value: echoed with the code', async () => {
        const u = await kit.user();
        const client = await kit.register();
        const res = await u.browser.consent(path(codeParams(client.client_id, { state: 'repeated' })), 'yes');
        expect(res.location!.searchParams.get('code')).toEqual(expect.any(String));
        expect(res.location!.searchParams.get('state')).toBe('repeated');
      });

      it.each(['no', 'NO', 'YES', 'Yes', 'true', '1', '', 'yes ', 'allow'])('POST confirm=%j denies: 302 `{redirect_uri}?error=access_denied&state=<state>` ("anything else denies")', async (confirm) => {
        const u = await kit.user();
        const client = await kit.register();
        const res = await u.browser.consent(path(codeParams(client.client_id, { state: 'st' })), confirm);
        expect(res.status).toBe(302);
        expect(target(res)).toBe(kit.redirectUri);
        expect(res.location!.searchParams.get('error')).toBe('access_denied');
        expect(res.location!.searchParams.get('state')).toBe('st');
        expect(res.location!.searchParams.has('code')).toBe(false);
      });

      it('POST without a confirm field denies (access_denied), no state param when none was sent', async () => {
        const u = await kit.user();
        const client = await kit.register();
        const authorize = path(codeParams(client.client_id));
        const page = await u.browser.get(authorize);
        const res = await u.browser.post(authorize, { csrf: Browser.field(page.text, 'csrf') });
        expect(res.status).toBe(302);
        expect(target(res)).toBe(kit.redirectUri);
        expect(res.location!.searchParams.get('error')).toBe('access_denied');
        expect(res.location!.searchParams.has('state')).toBe(false);
        expect(res.location!.searchParams.has('code')).toBe(false);
      });

      it('GET shows the consent form (200 HTML) and issues no code', async () => {
        const u = await kit.user();
        const client = await kit.register({ client_name: 'Ledger Sync' });
        const res = await u.browser.get(path(codeParams(client.client_id, { state: 's' })));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.text).toContain('Ledger Sync');
        expect(res.location).toBeUndefined();
      });

      it('consent POST without the CSRF field → no code', async () => {
        const u = await kit.user();
        const client = await kit.register();
        const authorize = path(codeParams(client.client_id, { state: 's' }));
        expect((await u.browser.get(authorize)).status).toBe(200);
        const res = await u.browser.post(authorize, { confirm: 'yes' });
        expect(res.location?.searchParams.get('code') ?? null).toBeNull();
        expect(res.status).toBeGreaterThanOrEqual(400);
      });

      it('consent POST with a CSRF value from another browser → no code', async () => {
        const u = await kit.user();
        const other = await kit.user();
        const client = await kit.register();
        const authorize = path(codeParams(client.client_id, { state: 's' }));
        const foreign = await other.browser.get(authorize);
        expect((await u.browser.get(authorize)).status).toBe(200);
        const res = await u.browser.post(authorize, { csrf: Browser.field(foreign.text, 'csrf'), confirm: 'yes' });
        expect(res.location?.searchParams.get('code') ?? null).toBeNull();
        expect(res.status).toBeGreaterThanOrEqual(400);
      });

      it('redirect_uri with its own query string keeps it (code, error and denial redirects)', async () => {
        const u = await kit.user();
        const withQuery = 'https://client.example/cb?tenant=7';
        const client = await kit.register({ redirect_uris: [withQuery] });
        const params = { client_id: client.client_id, redirect_uri: withQuery, response_type: 'code', state: 's' };

        const granted = await u.browser.consent(path(params), 'yes');
        expect(granted.status).toBe(302);
        expect(target(granted)).toBe('https://client.example/cb');
        expect(paramNames(granted)).toEqual(['tenant', 'code', 'state', 'iss']);
        expect(granted.location!.searchParams.get('tenant')).toBe('7');
        expect((await exchange(granted.location!.searchParams.get('code')!, client, withQuery)).status).toBe(200);

        const denied = await u.browser.consent(path(params), 'no');
        expect(denied.location!.searchParams.get('tenant')).toBe('7');
        expect(denied.location!.searchParams.get('error')).toBe('access_denied');

        const unsupported = await u.browser.get(path({ ...params, response_type: 'token' }));
        expect(unsupported.location!.searchParams.get('tenant')).toBe('7');
        expect(unsupported.location!.searchParams.get('error')).toBe('unsupported_response_type');
      });

      it('a client registered with several redirect URIs may use any one of them', async () => {
        const u = await kit.user();
        const second = 'https://client.example/second';
        const client = await kit.register({ redirect_uris: [kit.redirectUri, second] });
        const res = await u.browser.consent(path({ client_id: client.client_id, redirect_uri: second, response_type: 'code' }), 'yes');
        expect(target(res)).toBe(second);
        expect((await exchange(res.location!.searchParams.get('code')!, client, second)).status).toBe(200);
      });
    });

    describe('scopes ("Authentication" 6 and 7)', () => {
      it.each([
        ['read:accounting', 'read'],
        ['read:profile', 'read'],
        ['write:profile', 'read write'],
        ['write:accounting', 'read write'],
        ['read', 'read'],
        ['write', 'read write'],
        ['read write', 'read write'],
        ['read:accounting write:profile', 'read write'],
        [undefined, 'read'],
      ])('scope %j at authorize → token scope %j (legacy names are aliases; no scope grants read; write implies read)', async (scope, expected) => {
        const u = await kit.user();
        const client = await kit.register({ scope: 'read write' });
        const res = await u.browser.consent(path(codeParams(client.client_id, { scope, state: 's' })), 'yes');
        expect(res.status).toBe(302);
        const tokens = await exchange(res.location!.searchParams.get('code')!, client);
        expect(tokens.status).toBe(200);
        expect(tokens.body.scope).toBe(expected);
        expect(decode(tokens.body.access_token).scope).toBe(expected);
      });

      it.each(['admin', 'read admin', 'openid', 'read:everything'])('unknown scope %j → 302 to redirect_uri with error=invalid_scope and state', async (scope) => {
        const u = await kit.user();
        const client = await kit.register({ scope: 'read write' });
        const res = await u.browser.get(path(codeParams(client.client_id, { scope, state: 'st' })));
        expect(res.status).toBe(302);
        expect(target(res)).toBe(kit.redirectUri);
        expect(res.location!.searchParams.get('error')).toBe('invalid_scope');
        expect(res.location!.searchParams.get('state')).toBe('st');
        expect(res.location!.searchParams.has('code')).toBe(false);
      });

      it('unknown scope on the consent POST → error=invalid_scope, no code', async () => {
        const u = await kit.user();
        const client = await kit.register({ scope: 'read write' });
        const page = await u.browser.get(path(codeParams(client.client_id, { state: 'st' })));
        const res = await u.browser.post(path(codeParams(client.client_id, { scope: 'admin', state: 'st' })), { csrf: Browser.field(page.text, 'csrf'), confirm: 'yes' });
        expect(res.status).toBe(302);
        expect(res.location!.searchParams.get('error')).toBe('invalid_scope');
        expect(res.location!.searchParams.has('code')).toBe(false);
      });
    });
  });

  describe('login form (/public/v2/oauth/login)', () => {
    async function notSignedIn(browser: Browser) {
      const client = await kit.register();
      const res = await browser.get(kit.authorizePath({ client_id: client.client_id, redirect_uri: kit.redirectUri, response_type: 'code' }));
      expect(res.status).toBe(302);
      expect(res.location!.pathname).toBe('/public/v2/oauth/login');
    }

    it('wrong password → 401 page, no session', async () => {
      const u = await kit.user();
      const browser = new Browser(app.url);
      const res = await browser.signIn(u.email, 'not the password');
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      await notSignedIn(browser);
    });

    it('unknown email → 401 page, no session', async () => {
      const browser = new Browser(app.url);
      const res = await browser.signIn('nobody-here@test.example');
      expect(res.status).toBe(401);
      await notSignedIn(browser);
    });

    it('missing CSRF field → 403 and no session (right password)', async () => {
      const u = await kit.user();
      const browser = new Browser(app.url);
      await browser.get('/public/v2/oauth/login');
      const res = await browser.post('/public/v2/oauth/login', { next: '', email: u.email, password: PASSWORD });
      expect(res.status).toBe(403);
      await notSignedIn(browser);
    });

    it('wrong CSRF field → 403 and no session (right password)', async () => {
      const u = await kit.user();
      const browser = new Browser(app.url);
      const form = await browser.get('/public/v2/oauth/login');
      const csrf = Browser.field(form.text, 'csrf');
      const wrong = (csrf[0] === 'A' ? 'B' : 'A') + csrf.slice(1);
      const res = await browser.post('/public/v2/oauth/login', { csrf: wrong, next: '', email: u.email, password: PASSWORD });
      expect(res.status).toBe(403);
      await notSignedIn(browser);
    });

    it('CSRF field without the cookie (a form posted from another site) → 403 and no session', async () => {
      const u = await kit.user();
      const form = await new Browser(app.url).get('/public/v2/oauth/login');
      const attacker = new Browser(app.url);
      const res = await attacker.post('/public/v2/oauth/login', { csrf: Browser.field(form.text, 'csrf'), next: '', email: u.email, password: PASSWORD });
      expect(res.status).toBe(403);
      await notSignedIn(attacker);
    });

    // Issue 26: "`next` after login is followed only to this server's own authorize endpoint (both
    // /v2/oauth/authorize and /public/v2/oauth/authorize with their query), never to a path that redirects onward"
    it.each(PREFIXES)('spec 000 "after login the user returns to the authorize endpoint and sees the consent form": `next` = %s/authorize with its query is followed (303, exactly)', async (prefix) => {
      const u = await kit.user();
      const client = await kit.register();
      const next = kit.authorizePath({ client_id: client.client_id, redirect_uri: kit.redirectUri, response_type: 'code', state: 'a b&c' }, prefix);
      const browser = new Browser(app.url);
      const res = await browser.signIn(u.email, PASSWORD, next);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(next);
      expect((await browser.get(next)).text).toContain('name="confirm" value="yes"');
    });

    it.each([
      ['the portal callback, which sends the browser on to its return_to', '/public/v2/integrations/govportal/callback?code=x&state=y'],
      ['the login page itself, whose own next could point anywhere', '/public/v2/oauth/login?next=https%3A%2F%2Fevil.example%2F'],
      ['GraphiQL', '/graphql?query=%7B__typename%7D'],
      ['another OAuth endpoint', '/v2/oauth/token'],
      ['a path that only starts like authorize', '/v2/oauth/authorizeX?client_id=x'],
      ['a dot-segment walk out of authorize', '/v2/oauth/authorize/../../public/v2/integrations/govportal/callback?state=y'],
      ['an encoded walk out of authorize', '/public/v2/oauth/authorize%2F..%2F..%2Fintegrations%2Fgovportal%2Fcallback'],
      ['authorize with a fragment', '/v2/oauth/authorize#https://evil.example'],
      ['authorize on another host, protocol-relative', '//evil.example/v2/oauth/authorize?client_id=x'],
    ])('`next` = %s is not followed: after sign-in the safe default, the "Signed in" page (200, no redirect)', async (_name, next) => {
      const u = await kit.user();
      const browser = new Browser(app.url);
      const form = await browser.get(`/public/v2/oauth/login?next=${encodeURIComponent(next)}`);
      expect(Browser.field(form.text, 'next')).toBe('');
      const res = await browser.post('/public/v2/oauth/login', { csrf: Browser.field(form.text, 'csrf'), next, email: u.email, password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      expect(res.text).toContain('You are signed in as');
    });

    it.each(['https://evil.example/', '//evil.example/', '/\\evil.example/', 'https://evil.example/public/v2/oauth/authorize?client_id=x', 'javascript:alert(1)'])(
      '`next` pointing elsewhere (%s) is ignored: no open redirect',
      async (next) => {
        const u = await kit.user();
        const browser = new Browser(app.url);
        const page = await browser.get(`/public/v2/oauth/login?next=${encodeURIComponent(next)}`);
        expect(page.text).not.toContain('evil.example');
        const res = await browser.post('/public/v2/oauth/login', { csrf: Browser.field(page.text, 'csrf'), next, email: u.email, password: PASSWORD });
        expect(res.status).toBeLessThan(400);
        if (res.location) expect(res.location.origin).toBe(app.url);
        expect(res.headers.get('location') ?? '').not.toContain('evil.example');
        expect(res.headers.get('location') ?? '').not.toMatch(/^javascript:/);
      },
    );
  });
});
