import type { Request, RequestHandler, Response } from 'express';
import type { Prisma } from '../../db/database.ts';
import { findOauthObject } from './adapter.ts';
import { many, oauthError, REPEATED, single } from './http.ts';
import { normalizeResource, type OauthProvider } from './provider.ts';
import { normalizeScope } from './scopes.ts';
import type { WireError } from './token-errors.ts';

/** The client a token request names (HTTP Basic or form fields) and the credentials it presents. */
function presented(req: Request, body: Record<string, unknown>): { clientId: string | undefined; secret: string | undefined; basic: boolean } {
  const m = /^Basic\s+(\S+)$/i.exec(req.get('authorization') ?? '');
  if (m) {
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) return { clientId: undefined, secret: undefined, basic: true };
    try {
      // RFC 6749 2.3.1: both parts are form-urlencoded before base64
      const part = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
      return { clientId: part(decoded.slice(0, i)), secret: part(decoded.slice(i + 1)), basic: true };
    } catch {
      return { clientId: undefined, secret: undefined, basic: true };
    }
  }
  const id = single(body.client_id);
  const secret = single(body.client_secret);
  return { clientId: id === REPEATED ? undefined : id, secret: secret === REPEATED ? undefined : secret, basic: false };
}

/**
 * Who a token request is, decided the way the provider will decide it right after us: a confidential
 * client with its secret, or a public one (registered with token_endpoint_auth_method "none", like
 * GraphiQL) with its client_id and no credentials at all. The shim only reads this to decide whether
 * the resource checks below may answer; it never adds or removes credentials, so the provider alone
 * authenticates (a confidential client without its secret is 401 invalid_client).
 */
interface Caller {
  clientId: string | undefined;
  /** the secret of a confidential client */
  secretMatches: boolean;
  /** a public client presenting nothing but its client_id */
  public: boolean;
}

async function caller(oauth: OauthProvider, req: Request, body: Record<string, unknown>): Promise<Caller> {
  const who = presented(req, body);
  const client = who.clientId ? await oauth.provider.Client.find(who.clientId).catch(() => undefined) : undefined;
  if (!client) return { clientId: who.clientId, secretMatches: false, public: false };
  const isPublic = client.clientAuthMethod === 'none';
  return {
    clientId: who.clientId,
    secretMatches: !isPublic && who.secret !== undefined && client.clientSecret !== undefined && (await client.compareClientSecret(who.secret)),
    public: isPublic && !who.basic && who.secret === undefined,
  };
}

/** A stored code or refresh token issued to the caller's client, consumed or expired ones included. */
async function callersToken(prisma: Prisma, kind: 'AuthorizationCode' | 'RefreshToken', id: unknown, c: Caller) {
  if (typeof id !== 'string' || !c.clientId) return null;
  const token = await findOauthObject(prisma, kind, id);
  return token?.payload.clientId === c.clientId ? token : null;
}

/** Hands the (possibly amended) request to the provider's own endpoint. */
function delegate(oauth: OauthProvider, req: Request, res: Response, path: string) {
  req.url = path;
  req.originalUrl = req.baseUrl + path;
  return oauth.callback(req, res);
}

/**
 * POST /v2/oauth/token and /public/v2/oauth/token: scope aliases and defaults, and the resource checks that must not consume the code ("Resource parameter is required" /
 * "mismatch"), then oidc-provider's token endpoint.
 */
export function tokenRoute(deps: { oauth: OauthProvider; prisma: Prisma }): RequestHandler {
  const { oauth, prisma } = deps;
  return async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (!req.body || typeof req.body !== 'object') return delegate(oauth, req, res, '/token'); // not a form: the library answers
    const body = req.body as Record<string, unknown>;
    const grantType = single(body.grant_type);

    if (grantType === 'client_credentials' || grantType === 'refresh_token') {
      const scope = single(body.scope);
      if (scope === REPEATED) return oauthError(res, 400, 'invalid_request', 'scope may be sent only once');
      const normalized = normalizeScope(scope, grantType === 'client_credentials' ? 'read' : '');
      if (!normalized.ok) return oauthError(res, 400, 'invalid_scope', `Unknown scope: ${normalized.unknown.join(' ')} (use read, write)`);
      if (normalized.scope) body.scope = normalized.scope;
      else delete body.scope; // refresh without scope keeps the original
    }

    const c = await caller(oauth, req, body);
    const problem =
      grantType === 'authorization_code' ? await prepareCodeExchange(prisma, c, body) : grantType === 'refresh_token' ? await prepareRefresh(prisma, c, body) : undefined;
    if (problem) return oauthError(res, 400, problem.error, problem.description);
    return delegate(oauth, req, res, '/token');
  };
}

/**
 * The `resource` of a token request against what the code or refresh token was granted for, checked
 * here because the library checks it only after it has consumed the code or rotated the refresh
 * token: a rejected request must leave them usable.
 */
function resourceProblem(sent: string[], granted: string[]): WireError | undefined {
  if (sent.length > 1) return { status: 400, error: 'invalid_request', description: 'Send one resource at the token endpoint (one audience per access token)' };
  const allowed = new Set(granted.map(normalizeResource));
  if (sent.length && !allowed.has(normalizeResource(sent[0]))) return { status: 400, error: 'invalid_grant', description: 'Resource parameter mismatch' };
  return undefined;
}

/**
 * authorization_code: the resource rules, on a live code of an authenticated caller (a public client
 * also sends the code_verifier, which the provider checks next).
 */
async function prepareCodeExchange(prisma: Prisma, c: Caller, body: Record<string, unknown>): Promise<WireError | undefined> {
  const authenticated = c.secretMatches || (c.public && typeof body.code_verifier === 'string');
  const code = authenticated ? await callersToken(prisma, 'AuthorizationCode', body.code, c) : null;
  if (!code || code.consumed || code.expired) return undefined;
  const sentAtAuthorize = code.annotations.resources ?? [];
  const sent = many(body.resource);
  if (sentAtAuthorize.length && !sent.length) return { status: 400, error: 'invalid_grant', description: 'Resource parameter is required' };
  return resourceProblem(sent, sentAtAuthorize.length ? sentAtAuthorize : many(code.payload.resource));
}

/** refresh_token: the resource rule, on a live token of an authenticated caller. */
async function prepareRefresh(prisma: Prisma, c: Caller, body: Record<string, unknown>): Promise<WireError | undefined> {
  const token = c.secretMatches || c.public ? await callersToken(prisma, 'RefreshToken', body.refresh_token, c) : null;
  if (!token || token.consumed || token.expired) return undefined;
  return resourceProblem(many(body.resource), many(token.payload.resource));
}

/**
 * POST /v2/oauth/revoke and /public/v2/oauth/revoke: the provider's own endpoint, which authenticates
 * like the token endpoint (secret, or client_id alone for a public client).
 */
export function revokeRoute(deps: { oauth: OauthProvider }): RequestHandler {
  const { oauth } = deps;
  return (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    return delegate(oauth, req, res, '/revoke');
  };
}
