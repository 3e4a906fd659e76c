/**
 * GraphiQL sign-in: authorization code + PKCE S256 with the first-party public client `graphiql`, run
 * by the GraphiQL page itself. The page gets a "Sign in" button; the redirect comes back to the page
 * (`/graphql?code=…&state=…`), which exchanges the code, keeps the tokens in sessionStorage and wraps
 * `window.fetch` so that GraphiQL's requests to the GraphQL endpoint carry the access token.
 *
 * The functions in PAGE_FUNCTIONS are the page's script: graphiqlSignInScript serializes them with
 * Function.prototype.toString into one IIFE, and the tests call the very same functions in Node. So
 * each of them takes its environment as a parameter and may use only: its parameters, the other page
 * functions (by name), and globals that browsers and Node 20 share (URL, URLSearchParams, Headers,
 * Request, TextEncoder, btoa, JSON, Date). No imports, no module-level constants, no enums.
 * tsx (npm start) compiles with esbuild's keepNames, which puts `__name(fn, "name")` calls into
 * function bodies; the IIFE defines a `__name` that does nothing.
 */

/** What the server tells the page: the client and the OAuth endpoints (absolute URLs on BASE_URL). */
export interface SignInConfig {
  clientId: string;
  scope: string;
  /** the redirect_uri registered for the client: the GraphiQL page, `${BASE_URL}/graphql` */
  redirectUri: string;
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl: string;
}

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface SignInEnv extends SignInConfig {
  /** absolute URL of the GraphQL endpoint whose requests get the token (the page's own URL) */
  endpoint: string;
  /** the unwrapped fetch */
  fetch: typeof fetch;
  /** sessionStorage in the page: the tokens live as long as the tab */
  storage: KeyValueStorage;
  crypto: Pick<typeof globalThis.crypto, 'getRandomValues' | 'subtle'>;
  now(): number;
  /**
   * The refresh under way, shared by concurrent callers: refresh tokens rotate and a second use of
   * the old one counts as reuse, which revokes the whole grant.
   */
  refreshing?: Promise<StoredTokens | null> | null;
  /** the code exchange under way when the redirect has just arrived: requests wait for it */
  completing?: Promise<unknown> | null;
  /** called whenever the tokens change (sign-in, refresh, sign-out) */
  onChange?: (() => void) | null;
}

export interface StoredTokens {
  accessToken: string;
  refreshToken: string | null;
  /** epoch milliseconds */
  expiresAt: number;
  scope: string;
}

/** What came back on the redirect URI. */
export interface SignInRedirect {
  code: string | null;
  state: string | null;
  error: string | null;
  errorDescription: string | null;
  /** the page URL (path, query, hash) without the OAuth parameters */
  rest: string;
}

export interface TokenAnswer {
  ok: boolean;
  status: number;
  body: { access_token?: string; refresh_token?: string; expires_in?: number; scope?: string; error?: string; error_description?: string } | null;
}

/** base64url without padding (RFC 4648 §5), as PKCE wants it. */
export function base64url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function randomString(env: SignInEnv, bytes: number): string {
  const buffer = new Uint8Array(bytes);
  env.crypto.getRandomValues(buffer);
  return base64url(buffer);
}

/** POST a form to the token or revocation endpoint. */
export async function tokenRequest(env: SignInEnv, url: string, form: Record<string, string>): Promise<TokenAnswer> {
  const res = await env.fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
  let body: TokenAnswer['body'] = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  return { ok: res.ok, status: res.status, body };
}

export function readTokens(env: SignInEnv): StoredTokens | null {
  try {
    const tokens = JSON.parse(env.storage.getItem('graphiql-signin:tokens') ?? 'null') as StoredTokens | null;
    return tokens && typeof tokens.accessToken === 'string' ? tokens : null;
  } catch {
    return null;
  }
}

/** Stores a token response; a refresh answer without a refresh token keeps the previous one. */
export function writeTokens(env: SignInEnv, body: NonNullable<TokenAnswer['body']>, previousRefreshToken: string | null): StoredTokens {
  const tokens: StoredTokens = {
    accessToken: String(body.access_token),
    refreshToken: body.refresh_token ?? previousRefreshToken,
    expiresAt: env.now() + (Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600) * 1000,
    scope: body.scope ?? '',
  };
  env.storage.setItem('graphiql-signin:tokens', JSON.stringify(tokens));
  if (env.onChange) env.onChange();
  return tokens;
}

export function clearTokens(env: SignInEnv): void {
  env.storage.removeItem('graphiql-signin:tokens');
  if (env.onChange) env.onChange();
}

/**
 * Starts a sign-in: a fresh PKCE verifier (32 random bytes) and state, kept in storage for the
 * return; answers the authorize URL to send the browser to.
 */
export async function startSignIn(env: SignInEnv): Promise<string> {
  const verifier = randomString(env, 32);
  const state = randomString(env, 16);
  const digest = await env.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  env.storage.setItem('graphiql-signin:pending', JSON.stringify({ state, verifier }));
  const url = new URL(env.authorizeUrl);
  url.search = new URLSearchParams({
    client_id: env.clientId,
    redirect_uri: env.redirectUri,
    response_type: 'code',
    scope: env.scope,
    state,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}

/** The OAuth answer in a page URL (`?code&state` or `?error&state`), or null when there is none. */
export function takeRedirect(href: string): SignInRedirect | null {
  const url = new URL(href);
  const params = url.searchParams;
  if (!params.has('code') && !params.has('error')) return null;
  const found = { code: params.get('code'), state: params.get('state'), error: params.get('error'), errorDescription: params.get('error_description') };
  for (const name of ['code', 'state', 'error', 'error_description', 'iss']) params.delete(name);
  return { ...found, rest: url.pathname + url.search + url.hash };
}

/**
 * Finishes the sign-in the redirect brings back: checks the state against the one this tab started
 * with, exchanges the code with the verifier and stores the tokens. Throws with a message for the
 * person (denied, state mismatch, token endpoint error).
 */
export async function completeSignIn(env: SignInEnv, back: SignInRedirect): Promise<StoredTokens> {
  const raw = env.storage.getItem('graphiql-signin:pending');
  env.storage.removeItem('graphiql-signin:pending'); // one attempt per start
  if (back.error) throw new Error(back.error === 'access_denied' ? 'Sign-in was cancelled (access denied)' : `Sign-in failed: ${back.errorDescription || back.error}`);
  let pending: { state?: string; verifier?: string } | null = null;
  try {
    pending = JSON.parse(raw ?? 'null');
  } catch {
    pending = null;
  }
  if (!pending || !pending.verifier || !back.state || pending.state !== back.state) {
    throw new Error('Sign-in failed: the answer does not belong to a sign-in started in this tab (state mismatch); sign in again');
  }
  if (!back.code) throw new Error('Sign-in failed: no code came back');
  const answer = await tokenRequest(env, env.tokenUrl, {
    grant_type: 'authorization_code',
    code: back.code,
    redirect_uri: env.redirectUri,
    client_id: env.clientId,
    code_verifier: pending.verifier,
  });
  if (!answer.ok || !answer.body || !answer.body.access_token) {
    throw new Error(`Sign-in failed: ${(answer.body && (answer.body.error_description || answer.body.error)) || `token endpoint answered ${answer.status}`}`);
  }
  return writeTokens(env, answer.body, null);
}

/**
 * New tokens from the refresh token (which rotates: the new one is stored). A refused refresh token
 * (invalid_grant: expired, revoked) ends the sign-in and answers null; other failures throw and keep
 * the tokens. Concurrent callers share one request.
 */
export function refreshSignIn(env: SignInEnv): Promise<StoredTokens | null> {
  if (env.refreshing) return env.refreshing;
  const run = async (): Promise<StoredTokens | null> => {
    const tokens = readTokens(env);
    if (!tokens || !tokens.refreshToken) return null;
    const answer = await tokenRequest(env, env.tokenUrl, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: env.clientId });
    if (answer.ok && answer.body && answer.body.access_token) return writeTokens(env, answer.body, tokens.refreshToken);
    if (answer.status === 401 || (answer.body && answer.body.error === 'invalid_grant')) {
      clearTokens(env);
      return null;
    }
    throw new Error(`Refreshing the token failed: ${(answer.body && (answer.body.error_description || answer.body.error)) || answer.status}`);
  };
  const shared = run().finally(() => {
    env.refreshing = null;
  });
  env.refreshing = shared;
  return shared;
}

/** The access token to send: refreshed when it expires within a minute; null when signed out. */
export async function accessToken(env: SignInEnv): Promise<string | null> {
  if (env.completing) await env.completing;
  const tokens = readTokens(env);
  if (!tokens) return null;
  if (tokens.expiresAt - env.now() > 60_000) return tokens.accessToken;
  try {
    const fresh = await refreshSignIn(env);
    return fresh ? fresh.accessToken : null;
  } catch {
    return tokens.expiresAt > env.now() ? tokens.accessToken : null;
  }
}

/**
 * fetch as the page uses it: a request to the GraphQL endpoint without an Authorization header (or
 * with an empty or `<placeholder>` one) gets the signed-in person's access token; on a 401 the token is
 * refreshed and the request sent once more. A real Authorization header the person set wins.
 */
export async function signedInFetch(env: SignInEnv, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const isRequest = typeof Request !== 'undefined' && input instanceof Request;
  const url = new URL(typeof input === 'string' ? input : isRequest ? (input as Request).url : String(input), env.endpoint);
  const endpoint = new URL(env.endpoint);
  if (url.origin !== endpoint.origin || url.pathname !== endpoint.pathname) return env.fetch(input, init);
  const headers = new Headers(init && init.headers !== undefined ? init.headers : isRequest ? (input as Request).headers : undefined);
  const own = headers.get('authorization');
  if (own && !/^\s*(bearer\s*)?(<[^>]*>)?\s*$/i.test(own)) return env.fetch(input, init);
  const token = await accessToken(env);
  if (!token) {
    headers.delete('authorization');
    return env.fetch(input, { ...init, headers });
  }
  headers.set('authorization', `Bearer ${token}`);
  const res = await env.fetch(input, { ...init, headers });
  const repeatable = !isRequest && (!init || init.body === undefined || init.body === null || typeof init.body === 'string');
  if (res.status !== 401 || !repeatable) return res;
  const fresh = await refreshSignIn(env).catch(() => null);
  if (!fresh) return res;
  headers.set('authorization', `Bearer ${fresh.accessToken}`);
  return env.fetch(input, { ...init, headers });
}

/** Signs out: revokes the refresh token (with it the grant's tokens) and forgets the tokens. */
export async function signOut(env: SignInEnv): Promise<void> {
  const tokens = readTokens(env);
  try {
    if (tokens && tokens.refreshToken) await tokenRequest(env, env.revokeUrl, { token: tokens.refreshToken, client_id: env.clientId });
  } finally {
    clearTokens(env);
  }
}

/** The parts of a browser window the page script uses. */
export interface PageWindow {
  location: { href: string; origin: string; pathname: string; assign(url: string): void };
  history: { state: unknown; replaceState(data: unknown, unused: string, url?: string): void };
  sessionStorage: KeyValueStorage;
  crypto: SignInEnv['crypto'];
  fetch: typeof fetch;
  document: {
    body: { appendChild(node: PageButton): unknown } | null;
    createElement(tag: 'button'): PageButton;
    addEventListener(type: 'DOMContentLoaded', listener: () => void): void;
  };
  console: { warn(...data: unknown[]): void };
}

export interface PageButton {
  id: string;
  type: string;
  title: string;
  disabled: boolean;
  textContent: string | null;
  style: { cssText: string };
  addEventListener(type: 'click', listener: () => void): void;
}

/**
 * The page script: takes an arriving redirect out of the URL at once (before GraphiQL reads the URL
 * and writes it back on every edit) and completes it, wraps window.fetch, and shows the button.
 */
export function bootGraphiQLSignIn(win: PageWindow, config: SignInConfig): SignInEnv {
  const unwrapped = win.fetch;
  const env: SignInEnv = {
    ...config,
    endpoint: win.location.origin + win.location.pathname,
    fetch: (input, init) => unwrapped.call(win, input, init),
    storage: win.sessionStorage,
    crypto: win.crypto,
    now: () => Date.now(),
    refreshing: null,
    completing: null,
    onChange: null,
  };
  const home = new URL(config.redirectUri);
  let failure = '';

  const button = win.document.createElement('button');
  const render = () => {
    const tokens = readTokens(env);
    button.disabled = !!env.completing;
    button.textContent = env.completing ? 'Signing in…' : tokens ? 'Signed in · Sign out' : failure ? 'Sign-in failed · Sign in' : 'Sign in';
    button.title = tokens
      ? `Signed in (scope ${tokens.scope}). Requests without an Authorization header of your own carry your token.`
      : failure || `Sign in with your account (OAuth authorization code + PKCE at ${home.origin})`;
  };
  env.onChange = render;

  const back = takeRedirect(win.location.href);
  if (back) {
    win.history.replaceState(win.history.state, '', back.rest);
    env.completing = completeSignIn(env, back)
      .catch((e: Error) => {
        failure = e.message;
        win.console.warn(`GraphiQL sign-in: ${e.message}`);
      })
      .finally(() => {
        env.completing = null;
        render();
      });
  }

  win.fetch = (input, init) => signedInFetch(env, input, init);

  button.id = 'graphiql-signin';
  button.type = 'button';
  button.style.cssText =
    'position:fixed;top:12px;right:200px;z-index:1000;padding:4px 10px;border-radius:6px;border:1px solid rgba(127,127,127,.5);background:#fff;color:#1b2240;font:13px/1.4 system-ui,sans-serif;cursor:pointer';
  button.addEventListener('click', () => {
    if (readTokens(env)) {
      button.disabled = true;
      signOut(env)
        .catch((e: Error) => win.console.warn(`GraphiQL sign-out: ${e.message}`))
        .finally(render);
      return;
    }
    // sessionStorage is per origin and the redirect URI is fixed: sign in on the page at BASE_URL
    if (win.location.origin !== home.origin) return win.location.assign(config.redirectUri);
    failure = '';
    startSignIn(env).then(
      (url) => win.location.assign(url),
      (e: Error) => {
        failure = `Sign-in failed: ${e.message}`;
        render();
      },
    );
  });
  render();
  const mount = () => win.document.body!.appendChild(button);
  if (win.document.body) mount();
  else win.document.addEventListener('DOMContentLoaded', mount);
  return env;
}

/** The functions the page script is made of (each references the others by name only). */
const PAGE_FUNCTIONS = [
  base64url,
  randomString,
  tokenRequest,
  readTokens,
  writeTokens,
  clearTokens,
  startSignIn,
  takeRedirect,
  completeSignIn,
  refreshSignIn,
  accessToken,
  signedInFetch,
  signOut,
  bootGraphiQLSignIn,
];

/** The page script: PAGE_FUNCTIONS as source in an IIFE that boots with `config`. For a <script> in the page head. */
export function graphiqlSignInScript(config: SignInConfig): string {
  const source = PAGE_FUNCTIONS.map((fn) => fn.toString()).join('\n');
  if (/<\/script|<!--/i.test(source)) throw new Error('the GraphiQL sign-in source cannot be inlined in a <script>');
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return `(function () {\n'use strict';\nvar __name = function (fn) { return fn; };\n${source}\nbootGraphiQLSignIn(window, ${json});\n})();`;
}
