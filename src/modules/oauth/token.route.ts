import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Prisma } from '../../db/database.ts';
import { annotateOauthObject, findOauthObject } from './adapter.ts';
import { many, oauthError, REPEATED, single } from './http.ts';
import { normalizeResource, type OauthProvider } from './provider.ts';
import { normalizeScope } from './scopes.ts';
import type { WireError } from './token-errors.ts';

/**
 * Who a token or revoke request says it is (HTTP Basic or form fields), with the secret we hold for
 * that client when it names a registered one.
 */
interface Caller {
  clientId: string | undefined;
  secret: string | undefined;
  basic: boolean;
  storedSecret: string | undefined;
}

function presented(req: Request, body: Record<string, unknown>): Omit<Caller, 'storedSecret'> {
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

async function caller(prisma: Prisma, req: Request, body: Record<string, unknown>): Promise<Caller> {
  const who = presented(req, body);
  const client = who.clientId ? await findOauthObject(prisma, 'Client', who.clientId) : null;
  const stored = client?.payload.client_secret;
  return { ...who, storedSecret: typeof stored === 'string' ? stored : undefined };
}

const secretMatches = ({ secret, storedSecret: stored }: Caller) =>
  secret !== undefined && stored !== undefined && secret.length === stored.length && timingSafeEqual(Buffer.from(secret), Buffer.from(stored));

/**
 * A public client (spec 000: "Public clients using PKCE send client_id and code_verifier without a
 * secret"). oidc-provider authenticates every client by its secret, so when a request qualifies we
 * add the client's stored secret before handing it over; every other check stays the library's
 * (including "already consumed", which revokes the grant). Qualifies: a registered client_id in the
 * form and no secret at all, plus a code_verifier for a code carrying a PKCE challenge (the grant is
 * then marked public), or a refresh token of a grant marked public. A code or token that does not
 * exist at all also qualifies: nothing can be redeemed with it, and the client hears the spec's
 * "Invalid …" answer (or 200 {} at revoke) instead of a misleading invalid_client.
 */
const mayActPublic = (c: Caller) => !c.basic && c.secret === undefined && c.storedSecret !== undefined;

function actAsPublic(c: Caller, body: Record<string, unknown>): true {
  body.client_secret = c.storedSecret;
  return true;
}

/**
 * A stored code or refresh token issued to the caller's client, consumed or expired ones included;
 * 'unknown' when no such token exists at all (never issued, or revoked and deleted).
 */
async function callersToken(prisma: Prisma, kind: 'AuthorizationCode' | 'RefreshToken', id: unknown, c: Caller) {
  if (typeof id !== 'string' || !c.clientId) return null;
  const token = await findOauthObject(prisma, kind, id);
  if (!token) return 'unknown' as const;
  return token.payload.clientId === c.clientId ? token : null;
}

type Stored = Exclude<Awaited<ReturnType<typeof callersToken>>, null | 'unknown'>;

async function publicRefresh(prisma: Prisma, c: Caller, body: Record<string, unknown>, refreshToken: Stored): Promise<boolean> {
  if (!mayActPublic(c) || !refreshToken.payload.grantId) return false;
  const grant = await findOauthObject(prisma, 'Grant', refreshToken.payload.grantId);
  return grant?.annotations.publicClient ? actAsPublic(c, body) : false;
}

/** Hands the (possibly amended) request to the provider's own endpoint. */
function delegate(oauth: OauthProvider, req: Request, res: Response, path: string) {
  req.url = path;
  req.originalUrl = req.baseUrl + path;
  return oauth.callback(req, res);
}

/**
 * POST /v2/oauth/token and /public/v2/oauth/token: scope aliases and defaults, public PKCE clients,
 * and the resource checks that must not consume the code ("Resource parameter is required" /
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

    const c = await caller(prisma, req, body);
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

/** authorization_code: a public client's secret, then the resource rules, on a live code of an authenticated caller. */
async function prepareCodeExchange(prisma: Prisma, c: Caller, body: Record<string, unknown>): Promise<WireError | undefined> {
  const code = await callersToken(prisma, 'AuthorizationCode', body.code, c);
  // an unknown code cannot be redeemed by anyone: let a public client hear "Invalid authorization code"
  if (code === 'unknown' && mayActPublic(c) && typeof body.code_verifier === 'string') actAsPublic(c, body);
  if (!code || code === 'unknown') return undefined;
  const { grantId, codeChallenge } = code.payload as { grantId?: string; codeChallenge?: string };
  let authenticated = secretMatches(c);
  if (!authenticated && mayActPublic(c) && typeof body.code_verifier === 'string' && codeChallenge) {
    authenticated = actAsPublic(c, body);
    if (grantId) await annotateOauthObject(prisma, 'Grant', grantId, { publicClient: true });
  }
  if (!authenticated || code.consumed || code.expired) return undefined;
  const sentAtAuthorize = code.annotations.resources ?? [];
  const sent = many(body.resource);
  if (sentAtAuthorize.length && !sent.length) return { status: 400, error: 'invalid_grant', description: 'Resource parameter is required' };
  return resourceProblem(sent, sentAtAuthorize.length ? sentAtAuthorize : many(code.payload.resource));
}

/** refresh_token: a public grant's secret, then the resource rule, on a live token of an authenticated caller. */
async function prepareRefresh(prisma: Prisma, c: Caller, body: Record<string, unknown>): Promise<WireError | undefined> {
  const token = await callersToken(prisma, 'RefreshToken', body.refresh_token, c);
  // a revoked (deleted) refresh token cannot be redeemed: a public client hears "Invalid refresh token"
  if (token === 'unknown' && mayActPublic(c)) actAsPublic(c, body);
  if (!token || token === 'unknown') return undefined;
  const authenticated = secretMatches(c) || (await publicRefresh(prisma, c, body, token));
  if (!authenticated || token.consumed || token.expired) return undefined;
  return resourceProblem(many(body.resource), many(token.payload.resource));
}

/** POST /v2/oauth/revoke and /public/v2/oauth/revoke: public clients may revoke their refresh tokens. */
export function revokeRoute(deps: { oauth: OauthProvider; prisma: Prisma }): RequestHandler {
  const { oauth, prisma } = deps;
  return async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : undefined;
    if (body) {
      const c = await caller(prisma, req, body);
      const token = await callersToken(prisma, 'RefreshToken', body.token, c);
      if (token === 'unknown' && mayActPublic(c)) actAsPublic(c, body); // unknown token: 200 {} for a public client too
      else if (token && token !== 'unknown' && !secretMatches(c)) await publicRefresh(prisma, c, body, token);
    }
    return delegate(oauth, req, res, '/revoke');
  };
}
