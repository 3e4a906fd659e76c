import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Prisma } from '../../db/database.ts';
import { annotateOauthObject, findOauthObject } from './adapter.ts';
import { many, oauthError, single } from './http.ts';
import { normalizeResource, type OauthProvider } from './provider.ts';
import { normalizeScope } from './scopes.ts';

/** The client credentials a token or revoke request presents (HTTP Basic or form fields). */
interface Presented {
  clientId: string | undefined;
  secret: string | undefined;
  basic: boolean;
}

function presented(req: Request, body: Record<string, unknown>): Presented {
  const m = /^Basic\s+(\S+)$/i.exec(req.get('authorization') ?? '');
  if (m) {
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    try {
      // RFC 6749 2.3.1: both parts are form-urlencoded before base64
      return { clientId: decodeURIComponent(decoded.slice(0, i).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, ' ')), basic: true };
    } catch {
      return { clientId: undefined, secret: undefined, basic: true };
    }
  }
  const id = single(body.client_id);
  const secret = single(body.client_secret);
  return { clientId: id === 'repeated' ? undefined : id, secret: secret === 'repeated' ? undefined : secret, basic: false };
}

const sameSecret = (a: string, b: unknown) => typeof b === 'string' && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * A public client (spec 000: "Public clients using PKCE send client_id and code_verifier without a
 * secret"). oidc-provider authenticates every client by its secret, so when a request qualifies we
 * add the client's stored secret before handing it over; every other check stays the library's.
 * Qualifies: no secret sent, and either a code_verifier for a code of this client that carries a PKCE
 * challenge (the grant is then marked public), or a refresh token of a grant marked public.
 */
async function publicClientSecret(prisma: Prisma, who: Presented, find: () => Promise<{ clientId?: string } | null>): Promise<string | undefined> {
  if (who.basic || who.secret !== undefined || !who.clientId) return undefined;
  const token = await find();
  if (!token || token.clientId !== who.clientId) return undefined;
  const client = await findOauthObject(prisma, 'Client', who.clientId);
  return typeof client?.payload.client_secret === 'string' ? client.payload.client_secret : undefined;
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
    const who = presented(req, body);

    if (grantType === 'client_credentials' || grantType === 'refresh_token') {
      const scope = single(body.scope);
      if (scope === 'repeated') return oauthError(res, 400, 'invalid_request', 'scope may be sent only once');
      const normalized = normalizeScope(scope, grantType === 'client_credentials' ? 'read' : '');
      if (!normalized.ok) return oauthError(res, 400, 'invalid_scope', `Unknown scope: ${normalized.unknown.join(' ')} (use read, write)`);
      if (normalized.scope) body.scope = normalized.scope;
      else delete body.scope; // refresh without scope keeps the original
    }

    if (grantType === 'authorization_code' && typeof body.code === 'string') {
      const code = await findOauthObject(prisma, 'AuthorizationCode', body.code);
      if (code && !code.consumed && !code.expired) {
        const payload = code.payload as { clientId?: string; grantId?: string; codeChallenge?: string };
        const injected = typeof body.code_verifier === 'string' && payload.codeChallenge ? await publicClientSecret(prisma, who, async () => payload) : undefined;
        if (injected) {
          body.client_secret = injected;
          if (payload.grantId) await annotateOauthObject(prisma, 'Grant', payload.grantId, { publicClient: true });
        }
        const authenticated = injected !== undefined || (who.clientId === payload.clientId && (await clientSecretMatches(prisma, who)));
        if (authenticated) {
          const sentAtAuthorize = code.annotations.resources ?? [];
          const sent = many(body.resource);
          if (sentAtAuthorize.length && !sent.length) return oauthError(res, 400, 'invalid_grant', 'Resource parameter is required');
          const problem = resourceProblem(sent, sentAtAuthorize.length ? sentAtAuthorize : many(code.payload.resource));
          if (problem) return oauthError(res, 400, problem.error, problem.description);
        }
      }
    }

    if (grantType === 'refresh_token' && typeof body.refresh_token === 'string') {
      const token = await findOauthObject(prisma, 'RefreshToken', body.refresh_token);
      const secret = await publicRefreshSecret(prisma, who, body.refresh_token);
      if (secret) body.client_secret = secret;
      const payload = token?.payload as { clientId?: string; resource?: string | string[] } | undefined;
      const authenticated = secret !== undefined || (who.clientId === payload?.clientId && (await clientSecretMatches(prisma, who)));
      if (token && !token.consumed && !token.expired && authenticated) {
        const problem = resourceProblem(many(body.resource), many(payload?.resource));
        if (problem) return oauthError(res, 400, problem.error, problem.description);
      }
    }
    return delegate(oauth, req, res, '/token');
  };
}

/**
 * The `resource` of a token request against what the code or refresh token was granted for, checked
 * here because the library checks it only after it has consumed the code or rotated the refresh
 * token: a rejected request must leave them usable.
 */
function resourceProblem(sent: string[], granted: string[]): { error: string; description: string } | undefined {
  if (sent.length > 1) return { error: 'invalid_request', description: 'Send one resource at the token endpoint (one audience per access token)' };
  const allowed = new Set(granted.map(normalizeResource));
  if (sent.length && !allowed.has(normalizeResource(sent[0]))) return { error: 'invalid_grant', description: 'Resource parameter mismatch' };
  return undefined;
}

/** POST /v2/oauth/revoke and /public/v2/oauth/revoke: public clients may revoke their refresh tokens. */
export function revokeRoute(deps: { oauth: OauthProvider; prisma: Prisma }): RequestHandler {
  const { oauth, prisma } = deps;
  return async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : undefined;
    if (body && typeof body.token === 'string') {
      const secret = await publicRefreshSecret(prisma, presented(req, body), body.token);
      if (secret) body.client_secret = secret;
    }
    return delegate(oauth, req, res, '/revoke');
  };
}

async function publicRefreshSecret(prisma: Prisma, who: Presented, refreshToken: string): Promise<string | undefined> {
  return publicClientSecret(prisma, who, async () => {
    const token = await findOauthObject(prisma, 'RefreshToken', refreshToken);
    const grantId = (token?.payload as { grantId?: string } | undefined)?.grantId;
    if (!token || !grantId) return null;
    const grant = await findOauthObject(prisma, 'Grant', grantId);
    return grant?.annotations.publicClient ? (token.payload as { clientId?: string }) : null;
  });
}

async function clientSecretMatches(prisma: Prisma, who: Presented): Promise<boolean> {
  if (!who.clientId || who.secret === undefined) return false;
  const client = await findOauthObject(prisma, 'Client', who.clientId);
  return sameSecret(who.secret, client?.payload.client_secret);
}
