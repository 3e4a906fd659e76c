import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { sendPage } from '../../http/page.ts';

/** Helpers of the OAuth endpoints: their error shape, redirects back to the client, cookies, CSRF, HTML. */

/** OAuth error shape of spec 000: {error, error_description}. */
export function oauthError(res: Response, status: number, error: string, description?: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).json(description ? { error, error_description: description } : { error });
}

/** 302 to the client's redirect_uri with these parameters added (its own query is kept). */
export function redirectToClient(res: Response, redirectUri: string, params: Record<string, string | undefined>): void {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(302, url.href);
}

/** What `single` answers for a parameter sent more than once (never equal to a value a client sends). */
export const REPEATED = Symbol('repeated');

/** A single-valued parameter: undefined when absent, REPEATED when sent more than once. */
export function single(value: unknown): string | undefined | typeof REPEATED {
  if (Array.isArray(value)) return value.length === 1 ? String(value[0]) : REPEATED;
  return typeof value === 'string' ? value : undefined;
}

export function many(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

export function cookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) {
      try {
        out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        /* a malformed cookie is ignored */
      }
    }
  }
  return out;
}

/**
 * CSRF protection of the login and consent forms: a double-submit token, the same random value in an
 * HttpOnly SameSite=Lax cookie and in a hidden form field.
 */
const CSRF_COOKIE = 'oauth_csrf';

export function csrfToken(req: Request, res: Response): string {
  const existing = cookies(req)[CSRF_COOKIE];
  const token = existing && /^[\w-]{43}$/.test(existing) ? existing : randomBytes(32).toString('base64url');
  const secure = req.secure ? '; Secure' : '';
  res.append('Set-Cookie', `${CSRF_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax${secure}`);
  return token;
}

export function csrfValid(req: Request): boolean {
  const cookie = cookies(req)[CSRF_COOKIE];
  const field = (req.body as Record<string, unknown> | undefined)?.csrf;
  if (!cookie || typeof field !== 'string' || cookie.length !== field.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(field));
}

/** CORS for the metadata and registration endpoints: any origin, no credentials (RFC 8414/9728 clients in browsers). */
export const openCors: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method !== 'OPTIONS') return next();
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
  res.setHeader('Access-Control-Allow-Headers', req.get('access-control-request-headers') ?? 'content-type');
  res.setHeader('Access-Control-Max-Age', '3600');
  res.status(204).end();
};

export { escapeHtml } from '../../http/page.ts';

/** A page of the authorization server (sign-in, consent, errors): the server's page shell (src/http/page.ts). */
export function page(res: Response, status: number, title: string, body: string, formAction: string[] = []): void {
  sendPage(res, status, title, body, { formAction });
}
