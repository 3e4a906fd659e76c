import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphiqlSignInConfig } from '../../src/graphiql.ts';
import {
  accessToken,
  completeSignIn,
  readTokens,
  refreshSignIn,
  signedInFetch,
  signOut,
  startSignIn,
  takeRedirect,
  type KeyValueStorage,
  type PageButton,
  type PageWindow,
  type SignInEnv,
} from '../../src/graphiql-signin.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { oauthKit, type OauthUser } from '../support/oauth.ts';

class MapStorage implements KeyValueStorage {
  readonly map = new Map<string, string>();
  getItem = (key: string) => this.map.get(key) ?? null;
  setItem = (key: string, value: string) => void this.map.set(key, value);
  removeItem = (key: string) => void this.map.delete(key);
}

const ME = JSON.stringify({ query: '{ me { user { email } } }' });

async function until(what: string, condition: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The page script as `npm start` (tsx, esbuild keepNames) compiles it. */
async function scriptCompiledByTsx(baseUrl: string): Promise<string> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const code = `const { graphiqlSignInConfig } = await import('./src/graphiql.ts');
const { graphiqlSignInScript } = await import('./src/graphiql-signin.ts');
process.stdout.write(graphiqlSignInScript(graphiqlSignInConfig(${JSON.stringify(baseUrl)})));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: root });
  return stdout;
}

/** A browser tab just enough for the page script: location, history, sessionStorage, fetch, a body. */
function fakeTab(href: string, storage: MapStorage) {
  const assigned: string[] = [];
  const body: PageButton[] = [];
  let onClick: (() => void) | undefined;
  const button: PageButton = {
    id: '',
    type: '',
    title: '',
    disabled: false,
    textContent: null,
    style: { cssText: '' },
    addEventListener: (_type, listener) => {
      onClick = listener;
    },
  };
  const url = new URL(href);
  const win: PageWindow = {
    location: {
      href,
      origin: url.origin,
      pathname: url.pathname,
      assign: (to) => void assigned.push(to),
    },
    history: {
      state: null,
      replaceState: (_data, _unused, to) => {
        win.location.href = new URL(to!, win.location.href).href;
      },
    },
    sessionStorage: storage,
    crypto: globalThis.crypto,
    fetch: globalThis.fetch,
    document: {
      body: { appendChild: (node) => body.push(node) },
      createElement: () => button,
      addEventListener: () => undefined,
    },
    console: { warn: () => undefined },
  };
  return { win, button, body, assigned, click: () => onClick!() };
}

describe.each(targets())('GraphiQL sign-in (%s)', (target) => {
  let app: TestApp;
  let kit: ReturnType<typeof oauthKit>;
  beforeAll(async () => {
    app = await startTestApp(target);
    kit = oauthKit(app);
  });
  afterAll(() => app?.close());

  const envFor = (storage = new MapStorage()): SignInEnv & { storage: MapStorage; clock: { now: number } } => {
    const clock = { now: Date.now() };
    return { ...graphiqlSignInConfig(app.url), endpoint: `${app.url}/graphql`, fetch: globalThis.fetch, storage, crypto: globalThis.crypto, now: () => clock.now, clock };
  };

  /** start → consent as the user in their browser → the redirect URL the page is loaded with */
  async function signInRedirect(env: SignInEnv, user: OauthUser): Promise<URL> {
    const authorize = new URL(await startSignIn(env));
    const answer = await user.browser.consent(authorize.pathname + authorize.search, 'yes');
    expect(answer.status).toBe(302);
    return answer.location!;
  }

  const pageScript = (html: string) => [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]).find((s) => s.includes('bootGraphiQLSignIn'));

  it('GET /graphql in a browser renders GraphiQL with the sign-in script for the graphiql client', async () => {
    const page = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('YogaGraphiQL.renderYogaGraphiQL');
    const script = pageScript(page.text);
    expect(script).toBeDefined();
    expect(script).toContain('"clientId":"graphiql"');
    expect(script).toContain(`"redirectUri":"${app.url}/graphql"`);
    // in <head>: it runs before GraphiQL's own scripts
    expect(page.text.indexOf('bootGraphiQLSignIn')).toBeLessThan(page.text.indexOf('</head>'));
  });

  it('the GraphiQL page is self-contained (works without internet access): no script or stylesheet from another host', async () => {
    const page = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.text).not.toMatch(/<script[^>]+src=/i);
    expect(page.text).not.toMatch(/<link[^>]+rel="stylesheet"[^>]+href="https?:/i);
    expect(page.text).not.toMatch(/unpkg\.com|jsdelivr/);
  });

  it('GET /graphql?code=…&state=… (the OAuth redirect arriving) renders GraphiQL too', async () => {
    const page = await app.http('GET', '/graphql?code=x&state=y', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('YogaGraphiQL.renderYogaGraphiQL');
    expect(pageScript(page.text)).toBeDefined();
  });

  it('start: authorize URL for the graphiql client with an S256 challenge of a stored 32-byte verifier and a random state', async () => {
    const env = envFor();
    const url = new URL(await startSignIn(env));
    expect(url.origin + url.pathname).toBe(`${app.url}/public/v2/oauth/authorize`);
    const pending = JSON.parse(env.storage.getItem('graphiql-signin:pending')!);
    expect(Buffer.from(pending.verifier, 'base64url')).toHaveLength(32);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'graphiql',
      redirect_uri: `${app.url}/graphql`,
      response_type: 'code',
      scope: 'read write',
      state: pending.state,
      code_challenge: createHash('sha256').update(pending.verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(new URL(await startSignIn(env)).searchParams.get('state')).not.toBe(pending.state);
  });

  it('sign in, query without setting a header, refresh before expiry, sign out revokes the refresh token', async () => {
    const user = await kit.user();
    const env = envFor();
    const back = await signInRedirect(env, user);
    expect(back.origin + back.pathname).toBe(`${app.url}/graphql`);

    const redirect = takeRedirect(back.href)!;
    expect(redirect.rest).toBe('/graphql');
    const tokens = await completeSignIn(env, redirect);
    expect(readTokens(env)).toEqual(tokens);
    expect(tokens).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), scope: 'read write' });
    expect(env.storage.getItem('graphiql-signin:pending')).toBeNull();

    // no Authorization header, or GraphiQL's placeholder: the signed-in token is used
    const noHeader: Record<string, string>[] = [{ 'content-type': 'application/json' }, { 'content-type': 'application/json', Authorization: 'Bearer <paste a token>' }];
    for (const headers of noHeader) {
      const res = await signedInFetch(env, `${app.url}/graphql`, { method: 'POST', headers, body: ME });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: { me: { user: { email: user.email } } } });
    }
    // a header the person set wins
    const own = await signedInFetch(env, `${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-token' }, body: ME });
    expect(own.status).toBe(401);

    // shortly before expires_in elapses the next request refreshes first; the rotated refresh token is stored
    env.clock.now = tokens.expiresAt - 30_000;
    const res = await signedInFetch(env, `${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ME });
    expect((await res.json()).data.me.user.email).toBe(user.email);
    const refreshed = readTokens(env)!;
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.expiresAt).toBe(env.clock.now + 3600_000);

    // concurrent refreshes share one request (a second use of a rotated refresh token would end the grant)
    const [a, b] = await Promise.all([refreshSignIn(env), refreshSignIn(env)]);
    expect(a).toBe(b);
    expect(a!.refreshToken).not.toBe(refreshed.refreshToken);
    expect(await accessToken(env)).toBe(a!.accessToken);

    await signOut(env);
    expect(readTokens(env)).toBeNull();
    expect(await kit.token({ grant_type: 'refresh_token', refresh_token: a!.refreshToken!, client_id: 'graphiql' })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const after = await signedInFetch(env, `${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ME });
    expect(after.status).toBe(401);
  });

  it('a 401 with the stored access token refreshes once and repeats the request', async () => {
    const user = await kit.user();
    const env = envFor();
    await completeSignIn(env, takeRedirect((await signInRedirect(env, user)).href)!);
    const stored = readTokens(env)!;
    env.storage.setItem('graphiql-signin:tokens', JSON.stringify({ ...stored, accessToken: 'expired.or.revoked' }));
    const res = await signedInFetch(env, `${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ME });
    expect(res.status).toBe(200);
    expect(readTokens(env)!.refreshToken).not.toBe(stored.refreshToken);
  });

  it('refuses an answer whose state this tab did not start (no token request, pending sign-in dropped)', async () => {
    const user = await kit.user();
    const env = envFor();
    const back = await signInRedirect(env, user);
    back.searchParams.set('state', 'forged');
    await expect(completeSignIn(env, takeRedirect(back.href)!)).rejects.toThrow(/state mismatch/);
    expect(readTokens(env)).toBeNull();
    expect(env.storage.getItem('graphiql-signin:pending')).toBeNull();
    await expect(completeSignIn(envFor(), takeRedirect(`${app.url}/graphql?error=access_denied&state=s`)!)).rejects.toThrow(/cancelled/);
  });

  it.each(['vitest', 'tsx'])('the page script (compiled by %s) signs in through the button, serves GraphiQL the token and signs out', async (compiler) => {
    const script = compiler === 'tsx' ? await scriptCompiledByTsx(app.url) : pageScript((await app.http('GET', '/graphql', { headers: { accept: 'text/html' } })).text)!;
    const run = (tab: ReturnType<typeof fakeTab>) => new Function('window', script)(tab.win);
    const user = await kit.user();
    const storage = new MapStorage(); // one tab's sessionStorage, across its page loads

    // first load: the button says "Sign in"; clicking it goes to the authorize endpoint
    const first = fakeTab(`${app.url}/graphql`, storage);
    run(first);
    expect(first.body).toEqual([first.button]);
    expect(first.button.textContent).toBe('Sign in');
    first.click();
    await until('the authorize redirect', () => first.assigned.length === 1);
    const authorize = new URL(first.assigned[0]);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const consent = await user.browser.consent(authorize.pathname + authorize.search, 'yes');

    // the redirect loads the page again: code and state leave the URL at once, the code is exchanged
    const second = fakeTab(consent.location!.href, storage);
    run(second);
    expect(second.win.location.href).toBe(`${app.url}/graphql`);
    expect(second.button.textContent).toBe('Signing in…');
    // GraphiQL's first request (headers from its Headers tab) waits for the exchange and carries the token
    const res = await second.win.fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', Authorization: 'Bearer <paste a token>' }, body: ME });
    expect(await res.json()).toEqual({ data: { me: { user: { email: user.email } } } });
    expect(second.button.textContent).toBe('Signed in · Sign out');

    // other requests (GraphiQL's worker downloads, the OAuth endpoints) pass through untouched
    const jwks = await second.win.fetch(`${app.url}/public/v2/oauth/jwks`);
    expect(jwks.status).toBeLessThan(500);

    const refreshToken = JSON.parse(storage.getItem('graphiql-signin:tokens')!).refreshToken;
    second.click();
    await until('the sign-out', () => second.button.textContent === 'Sign in' && !second.button.disabled);
    expect(storage.getItem('graphiql-signin:tokens')).toBeNull();
    expect(await kit.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'graphiql' })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // opened on another origin than BASE_URL: the button opens GraphiQL on BASE_URL (sessionStorage is per origin)
    const elsewhere = fakeTab(`${app.url.replace('127.0.0.1', 'localhost')}/graphql`, new MapStorage());
    run(elsewhere);
    elsewhere.click();
    expect(elsewhere.assigned).toEqual([`${app.url}/graphql`]);
  });
});
