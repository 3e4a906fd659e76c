import type { Request, RequestHandler, Response } from 'express';
import { createHash } from 'node:crypto';
import type { Prisma } from '../../db/database.ts';
import { csrfToken, csrfValid, escapeHtml, many, oauthError, page, redirectToClient, REPEATED, single } from './http.ts';
import { normalizeResource, resourceIdentifiers, type HandoffRequest, type OauthProvider } from './provider.ts';
import { normalizeScope, scopeWithin } from './scopes.ts';
import { redirectTargetSource } from '../../http/security-headers.ts';

/** Where the authorize endpoint sends a browser that is not signed in. */
export const LOGIN_PAGE = '/public/v2/oauth/login';

const PKCE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const FORM_FIELDS = new Set(['confirm', 'csrf']);

/**
 * GET and POST /v2/oauth/authorize and /public/v2/oauth/authorize (spec 000 "Authorize"): the front
 * controller in front of oidc-provider's authorization endpoint.
 *
 * In order: 400 JSON for a missing client_id or redirect_uri (invalid_request), an unknown client
 * (invalid_client) or an unregistered redirect_uri (invalid_redirect_uri), never redirecting to an
 * unverified URI; then errors the client can handle go back to its redirect_uri (unsupported_response_type,
 * invalid_scope, invalid_request for PKCE, invalid_target); a browser that is not signed in goes to the
 * login page with the original URL in `next`; GET shows the consent form; POST `confirm=yes` grants
 * (delegated to the provider, which issues the code) and anything else denies (access_denied).
 */
export function authorizeRoute(deps: { oauth: OauthProvider; prisma: Prisma; baseUrl: string }): RequestHandler {
  const { oauth, prisma } = deps;
  const { provider } = oauth;
  const knownResources = new Set(resourceIdentifiers(deps.baseUrl));

  return async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    // parameters come in the query; a POST may also carry them as form fields
    const body = (req.method === 'POST' && req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const params: Record<string, unknown> = { ...Object.fromEntries(Object.entries(body).filter(([k]) => !FORM_FIELDS.has(k))), ...req.query };

    const clientId = single(params.client_id);
    const redirectUri = single(params.redirect_uri);
    if (clientId === REPEATED || redirectUri === REPEATED) return oauthError(res, 400, 'invalid_request', 'client_id and redirect_uri may be sent only once');
    if (!clientId || !redirectUri) {
      return oauthError(res, 400, 'invalid_request', `Missing required parameter ${!clientId ? 'client_id' : 'redirect_uri'}`);
    }
    const client = await provider.Client.find(clientId);
    if (!client) return oauthError(res, 400, 'invalid_client', 'Unknown client_id');
    if (!(client.redirectUris ?? []).includes(redirectUri)) return oauthError(res, 400, 'invalid_redirect_uri', 'redirect_uri does not match a URI registered for this client');

    const state = single(params.state);
    // an error or denial goes back like a code does: with state and RFC 9207's iss (the provider adds it to its own redirects)
    const back = (error: string, description?: string) =>
      redirectToClient(res, redirectUri, { error, error_description: description, state: state === REPEATED ? undefined : state, iss: deps.baseUrl });
    if (state === REPEATED) return back('invalid_request', 'state may be sent only once');

    if (single(params.response_type) !== 'code') return back('unsupported_response_type');
    if (!client.grantTypeAllowed('authorization_code')) return back('unauthorized_client', 'The client is not registered for the authorization_code grant');

    const scopeParam = single(params.scope);
    if (scopeParam === REPEATED) return back('invalid_scope', 'scope may be sent only once');
    const scope = normalizeScope(scopeParam, 'read');
    if (!scope.ok) return back('invalid_scope', `Unknown scope: ${scope.unknown.join(' ')} (use read, write)`);
    if (!scopeWithin(scope.scope, client.scope)) return back('invalid_scope', `The client is registered for scope "${client.scope}"`);

    const challenge = single(params.code_challenge);
    const method = single(params.code_challenge_method);
    if (challenge === REPEATED || method === REPEATED) return back('invalid_request', 'code_challenge and code_challenge_method may be sent only once');
    if (method !== undefined && challenge === undefined) return back('invalid_request', 'code_challenge_method was sent without code_challenge');
    if (challenge !== undefined) {
      if (method !== undefined && method !== 'plain' && method !== 'S256') return back('invalid_request', 'code_challenge_method must be plain or S256');
      if (!PKCE_CHALLENGE.test(challenge)) return back('invalid_request', 'code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
    } else if (client.clientAuthMethod === 'none') {
      // a public client has no secret: the code_verifier is what proves it redeems its own code
      return back('invalid_request', 'A public client must send a code_challenge (PKCE)');
    }

    const resources = many(params.resource);
    const unknownResource = resources.find((r) => !knownResources.has(normalizeResource(r)));
    if (unknownResource !== undefined) return back('invalid_target', `Unknown resource ${unknownResource}`);

    const ctx = provider.createContext(req, res);
    const session = await provider.Session.get(ctx);
    if (!session.accountId) {
      const next = `${req.baseUrl}/authorize?${new URLSearchParams(flatten(params)).toString()}`;
      res.redirect(302, `${LOGIN_PAGE}?${new URLSearchParams({ next }).toString()}`);
      return;
    }

    if (req.method !== 'POST') {
      const user = await prisma.user.findUnique({ where: { id: Number(session.accountId) }, select: { email: true } });
      return consentPage(req, res, { clientName: client.clientName ?? client.clientId, scope: scope.scope, email: user?.email ?? '', resources, redirectUri });
    }
    if (!csrfValid(req)) {
      return oauthError(res, 403, 'invalid_request', 'The consent form was not submitted from this site or has expired; open the authorize URL again');
    }
    if (body.confirm !== 'yes') return back('access_denied');

    // Granted: hand over to the provider as a plain GET authorization request. PKCE `plain` (and the
    // default, no method) becomes S256 of the challenge here and only here: the library implements S256
    // only, and hashing the verifier at the token endpoint matches exactly when verifier = challenge.
    const query = new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: scope.scope });
    if (state !== undefined) query.set('state', state);
    for (const r of resources) query.append('resource', r);
    if (challenge !== undefined) {
      query.set('code_challenge', method === 'S256' ? challenge : createHash('sha256').update(challenge).digest('base64url'));
      query.set('code_challenge_method', 'S256');
    }
    const r = req as Request & HandoffRequest;
    r.oauthHandoff = { accountId: session.accountId, scope: scope.scope, resources };
    r.method = 'GET';
    r.url = `/authorize?${query.toString()}`;
    r.originalUrl = r.baseUrl + r.url;
    delete (r as { body?: unknown }).body;
    await oauth.callback(r, res);
  };
}

function flatten(params: Record<string, unknown>): [string, string][] {
  return Object.entries(params).flatMap(([k, v]) => many(v).map((x): [string, string] => [k, x]));
}

function consentPage(req: Request, res: Response, c: { clientName: string; scope: string; email: string; resources: string[]; redirectUri: string }) {
  const csrf = csrfToken(req, res);
  const abilities = c.scope.includes('write') ? ['read your accounting data', 'create and change your accounting data'] : ['read your accounting data'];
  page(
    res,
    200,
    'Allow access?',
    `<p><strong>${escapeHtml(c.clientName)}</strong> asks to act as <strong>${escapeHtml(c.email)}</strong> on the client accounts you can access. It will be able to:</p>
<ul>${abilities.map((a) => `<li>${a}</li>`).join('')}</ul>
${c.resources.length ? `<p>For: ${c.resources.map(escapeHtml).join(', ')}</p>` : ''}
<form method="post" action="${escapeHtml(req.originalUrl)}">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" name="confirm" value="yes">Allow</button>
<button type="submit" name="confirm" value="no">Deny</button>
</form>
<p><a href="${LOGIN_PAGE}?${escapeHtml(new URLSearchParams({ next: req.originalUrl }).toString())}">Not ${escapeHtml(c.email)}? Sign in as someone else</a></p>`,
    // the form posts here, and the answer redirects to the client (code or access_denied): the
    // redirect_uri registered for it, checked above, is the one other place the submission may end
    ["'self'", redirectTargetSource(c.redirectUri)],
  );
}
