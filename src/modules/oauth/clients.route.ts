import { jsonBody } from '../../http/input-guard.ts';
import { bearerChallenge } from '../../shared/errors.ts';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Prisma } from '../../db/database.ts';
import type { Authenticator } from '../../http/authentication.ts';
import { oauthError } from './http.ts';
import type { OauthProvider } from './provider.ts';
import { ClientMetadataError, deleteClient, listClients, registerClient, TOKEN_ENDPOINT_AUTH_METHODS, type ClientInput, type TokenEndpointAuthMethod } from './clients.service.ts';

type Body = Record<string, unknown>;
const FIELD_TYPES = { client_name: 'string', scope: 'string' } as const;

/** A type error in the request body, named by field; undefined when the body is fine. */
function checkBody(body: unknown, arrays: boolean): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'The body must be a JSON object';
  const b = body as Body;
  for (const [field, type] of Object.entries(FIELD_TYPES)) if (b[field] !== undefined && typeof b[field] !== type) return `${field} must be a string`;
  for (const field of ['redirect_uris', 'grant_types']) {
    const v = b[field];
    if (v === undefined) continue;
    if (arrays ? !Array.isArray(v) || !v.every((x) => typeof x === 'string') : typeof v !== 'string') {
      return `${field} must be ${arrays ? 'an array of strings' : field === 'grant_types' ? 'a space-separated string' : 'a string'}`;
    }
  }
  return undefined;
}

async function create(res: Response, oauth: OauthProvider, input: ClientInput) {
  try {
    return await registerClient(oauth, input);
  } catch (e) {
    if (e instanceof ClientMetadataError) oauthError(res, 400, e.error, e.message);
    else throw e;
    return undefined;
  }
}

const words = (s: unknown) => (typeof s === 'string' ? s.split(/[\s,]+/).filter(Boolean) : []);

/**
 * POST /v2/oauth/register (RFC 7591, open): arrays in, the dynamic-registration fields of spec 000's
 * OAuth client table out (201). client_credentials is refused: only a signed-in user gets it.
 * `token_endpoint_auth_method: "none"` registers a public client: no client_secret (nor
 * client_secret_expires_at) in the answer, PKCE at authorize, client_id alone at token and revoke.
 */
export function dynamicRegistrationRoute(oauth: OauthProvider): RequestHandler {
  return async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const problem = checkBody(req.body, true);
    if (problem) return oauthError(res, 400, 'invalid_client_metadata', problem);
    const b = req.body as Body;
    const grantTypes = (b.grant_types as string[] | undefined) ?? ['authorization_code', 'refresh_token'];
    if (grantTypes.includes('client_credentials')) {
      return oauthError(res, 400, 'invalid_client_metadata', 'client_credentials is not available to self-registered clients; a signed-in user registers such clients with POST /v2/oauth/clients');
    }
    const method = b.token_endpoint_auth_method;
    if (method !== undefined && !(TOKEN_ENDPOINT_AUTH_METHODS as readonly unknown[]).includes(method)) {
      return oauthError(res, 400, 'invalid_client_metadata', `token_endpoint_auth_method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')} (none: a public client without a secret)`);
    }
    const client = await create(res, oauth, {
      clientName: b.client_name as string | undefined,
      redirectUris: (b.redirect_uris as string[] | undefined) ?? [],
      grantTypes,
      scope: b.scope as string | undefined,
      tokenEndpointAuthMethod: method as TokenEndpointAuthMethod | undefined,
    });
    if (!client) return;
    // a public client's answer has no client_secret and no client_secret_expires_at (undefined fields are not sent)
    const { client_id, client_secret, client_name, redirect_uris, grant_types, response_types, scope, token_endpoint_auth_method, client_id_issued_at, client_secret_expires_at } = client;
    res.status(201).json({ client_id, client_secret, client_name, redirect_uris, grant_types, response_types, scope, token_endpoint_auth_method, client_id_issued_at, client_secret_expires_at });
  };
}

/**
 * /v2/oauth/clients: a signed-in user's own clients, authenticated by a session token from POST
 * /v2/oauth/login (not an OAuth access token: a client cannot mint clients). Strings in and out; the
 * secret is returned once, by POST.
 */
export function clientsRouter(deps: { oauth: OauthProvider; prisma: Prisma; authenticator: Authenticator }): Router {
  const router = express.Router();
  const { oauth, prisma, authenticator } = deps;

  const sessionUser = async (req: Request, res: Response): Promise<number | undefined> => {
    res.setHeader('Cache-Control', 'no-store');
    const actor = await authenticator.authenticate(req.get('authorization'), prisma);
    if (actor?.tokenKind === 'session') return actor.userId;
    res.setHeader('WWW-Authenticate', bearerChallenge({ error: 'invalid_token' }));
    oauthError(res, 401, 'invalid_token', 'A session token from POST /v2/oauth/login is required');
    return undefined;
  };

  router.post('/', jsonBody({ limit: '16kb' }), async (req, res) => {
    const userId = await sessionUser(req, res);
    if (userId === undefined) return;
    const problem = checkBody(req.body, false);
    if (problem) return oauthError(res, 400, 'invalid_client_metadata', problem);
    const b = req.body as Body;
    const client = await create(res, oauth, {
      clientName: b.client_name as string | undefined,
      redirectUris: words(b.redirect_uris),
      grantTypes: b.grant_types === undefined ? ['authorization_code', 'refresh_token'] : words(b.grant_types),
      scope: b.scope as string | undefined,
      ownerUserId: userId,
    });
    if (!client) return;
    res.status(201).json({
      client_id: client.client_id,
      client_secret: client.client_secret,
      client_name: client.client_name ?? null,
      redirect_uris: client.redirect_uris.join(' '),
      grant_types: client.grant_types.join(' '),
      scope: client.scope,
    });
  });

  router.get('/', async (req, res) => {
    const userId = await sessionUser(req, res);
    if (userId === undefined) return;
    res.json({ clients: await listClients(prisma, userId) });
  });

  router.delete('/:clientId', async (req, res) => {
    const userId = await sessionUser(req, res);
    if (userId === undefined) return;
    if (!(await deleteClient(prisma, userId, req.params.clientId))) {
      return oauthError(res, 404, 'not_found', 'You have no client with this client_id');
    }
    res.json({ status: 'success', message: 'Client deleted' });
  });

  return router;
}
