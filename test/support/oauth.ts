import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { createUser } from '../../src/modules/users/users.service.ts';
import type { TestApp } from './harness.ts';

/**
 * OAuth test kit: a cookie-keeping browser that follows the login and consent pages as a person
 * would, and helpers to register clients and exchange codes over HTTP.
 */
export const PASSWORD = 'correct horse battery staple';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  /** Location header, resolved against the app URL */
  location?: URL;
}

async function answer(res: Response, base: string): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* HTML */
  }
  const loc = res.headers.get('location');
  return { status: res.status, headers: res.headers, text, body, location: loc ? new URL(loc, base) : undefined };
}

/** A browser: keeps cookies, never follows redirects by itself. */
export class Browser {
  private readonly jar = new Map<string, string>();
  constructor(private readonly base: string) {}

  private remember(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      this.jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const res = await fetch(new URL(path, this.base), { method, headers, body, redirect: 'manual' });
    this.remember(res);
    return answer(res, this.base);
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, form: Record<string, string>) => this.request('POST', path, form);

  /** the value of a hidden input in an HTML page */
  static field(html: string, name: string): string {
    const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
    if (!m) throw new Error(`no field ${name} in page`);
    return m[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
  }

  /** Signs in on the login page (following the authorize redirect when `from` is one). */
  async signIn(email: string, password = PASSWORD, next = ''): Promise<Answer> {
    const form = await this.get(`/public/v2/oauth/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
    return this.post('/public/v2/oauth/login', { csrf: Browser.field(form.text, 'csrf'), next, email, password });
  }

  /** Opens the consent page at an authorize URL and submits `confirm` (the page's own form). */
  async consent(authorizePath: string, confirm: string): Promise<Answer> {
    const page = await this.get(authorizePath);
    if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.text}`);
    const action = /<form method="post" action="([^"]+)"/.exec(page.text)![1].replace(/&amp;/g, '&');
    return this.post(action, { csrf: Browser.field(page.text, 'csrf'), confirm });
  }
}

export interface OauthUser {
  id: number;
  email: string;
  /** a client account the user holds role CA on (so API calls have something to read) */
  clientAccountId: number;
  browser: Browser;
  /** session token from POST /v2/oauth/login */
  sessionToken: string;
}

export const pkcePair = () => {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, s256: createHash('sha256').update(verifier).digest('base64url') };
};

export const decode = (jwt: string) => decodeJwt(jwt);

/** Basic authorization header value for client_secret_basic (RFC 6749 2.3.1 encoding). */
export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export function oauthKit(app: TestApp) {
  const redirectUri = 'https://client.example/callback';

  /** a user with a password and a client account, signed in on a fresh browser, with a session token */
  async function user(): Promise<OauthUser> {
    const email = `oauth-${randomUUID()}@test.example`;
    const u = await createUser(app.seed.system, { input: { email, password: PASSWORD } });
    const account = await app.seed.clientAccount();
    await app.seed.grantRole({ userId: u.id, clientAccountId: account.id, role: 'CA' });
    const login = await app.http('POST', '/v2/oauth/login', { body: { email, password: PASSWORD } });
    const browser = new Browser(app.url);
    const signed = await browser.signIn(email);
    if (signed.status !== 200) throw new Error(`sign in: ${signed.status}`);
    return { id: u.id, email, clientAccountId: account.id, browser, sessionToken: login.body.access_token };
  }

  /** POST /v2/oauth/register */
  async function register(body: Record<string, unknown> = {}) {
    const res = await app.http('POST', '/v2/oauth/register', { body: { client_name: 'Test client', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], ...body } });
    if (res.status !== 201) throw new Error(`register: ${res.status} ${res.text}`);
    return res.body as { client_id: string; client_secret: string; redirect_uris: string[] };
  }

  /** POST /v2/oauth/clients as the user */
  async function ownedClient(owner: OauthUser, body: Record<string, unknown> = {}) {
    const res = await app.http('POST', '/v2/oauth/clients', { token: owner.sessionToken, body: { client_name: 'Owned client', redirect_uris: redirectUri, grant_types: 'authorization_code refresh_token client_credentials', scope: 'read write', ...body } });
    if (res.status !== 201) throw new Error(`clients: ${res.status} ${res.text}`);
    return res.body as { client_id: string; client_secret: string };
  }

  const authorizePath = (params: Record<string, string | string[] | undefined>, prefix = '/public/v2/oauth') => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const x of v === undefined ? [] : Array.isArray(v) ? v : [v]) q.append(k, x);
    return `${prefix}/authorize?${q.toString()}`;
  };

  /** Authorize + consent "yes" as the user; returns the code (throws when none comes back). */
  async function code(owner: OauthUser, clientId: string, params: Record<string, string | string[] | undefined> = {}) {
    const res = await owner.browser.consent(authorizePath({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', ...params }), 'yes');
    const c = res.location?.searchParams.get('code');
    if (res.status !== 302 || !c) throw new Error(`no code: ${res.status} ${res.location ?? res.text}`);
    return c;
  }

  /** POST form to the token endpoint */
  async function token(form: Record<string, string | string[] | undefined>, options: { prefix?: string; authorization?: string } = {}) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of v === undefined ? [] : Array.isArray(v) ? v : [v]) q.append(k, x);
    return app.http('POST', `${options.prefix ?? '/public/v2/oauth'}/token`, {
      body: q.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(options.authorization ? { authorization: options.authorization } : {}) },
    });
  }

  async function revoke(form: Record<string, string | undefined>, options: { prefix?: string; authorization?: string } = {}) {
    const q = new URLSearchParams(Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined));
    return app.http('POST', `${options.prefix ?? '/public/v2/oauth'}/revoke`, {
      body: q.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(options.authorization ? { authorization: options.authorization } : {}) },
    });
  }

  return { redirectUri, user, register, ownedClient, authorizePath, code, token, revoke };
}
