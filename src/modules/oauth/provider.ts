import type { IncomingMessage } from 'node:http';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Prisma } from '../../db/database.ts';
import type { Logger } from '../../shared/logger.ts';
import { prismaAdapterFactory, type OauthAnnotations } from './adapter.ts';
import type { OauthKeys } from './keys.ts';
import { mapRevocationError, mapTokenError } from './token-errors.ts';

/** The first-party public client GraphiQL signs in with (authorization code + PKCE S256, no secret). */
export const GRAPHIQL_CLIENT_ID = 'graphiql';

/**
 * The first-party public client of the tokens an accepted invitation answers with (spec 002, POST
 * /public/v2/invitations/{token}/accept; src/modules/oauth/user-tokens.ts): no secret, no redirect
 * URI, no authorization flow, only the refresh_token grant, so the new user's app refreshes them at
 * the token endpoint with `client_id` alone.
 */
export const INVITATION_CLIENT_ID = 'invitation';

/** Lifetimes (seconds). Access tokens: spec 000 (3600). The others are not given by the spec. */
export const TTL = {
  accessToken: 3600,
  /** RFC 6749 4.1.2 recommends at most 10 minutes */
  authorizationCode: 600,
  /** each rotation starts a new one, so this is how long a refresh token may lie unused */
  refreshToken: 30 * 24 * 3600,
  /** an authorization (consent) lasts at most this long, however often it is refreshed */
  grant: 365 * 24 * 3600,
  /** the browser sign-in at the authorize endpoint */
  browserSession: 8 * 3600,
} as const;

/**
 * What the authorize front controller hands to the provider on the request object: the user who
 * consented and the resources the authorize request itself sent. The provider reads it back in
 * `loadExistingGrant` and our adapter in its annotator.
 */
export interface AuthorizeHandoff {
  accountId: string;
  scope: string;
  resources: string[];
}
export type HandoffRequest = IncomingMessage & { oauthHandoff?: AuthorizeHandoff };

/** The resource indicators (RFC 8707) this server issues tokens for; the first is the default audience. */
export function resourceIdentifiers(baseUrl: string): string[] {
  return [...apiResourceIdentifiers(baseUrl), `${baseUrl}/mcp`];
}
/** The ones the tool endpoint accepts as audience: the service as a whole, or /mcp itself. */
export function mcpResourceIdentifiers(baseUrl: string): string[] {
  return [baseUrl, `${baseUrl}/mcp`];
}
/** The ones the REST and GraphQL API accept as audience (the tool endpoint /mcp is another resource). */
export function apiResourceIdentifiers(baseUrl: string): string[] {
  return [baseUrl, `${baseUrl}/api/v2`, `${baseUrl}/graphql`];
}
/** Resource indicators compare without a trailing slash ("https://x/" is "https://x"). */
export const normalizeResource = (r: string) => r.replace(/\/+$/, '');

/** What an access token for one of our resource indicators is: an RS256 JWT with that audience, read and write grantable. */
export const resourceServerInfo = (indicator: string) =>
  ({ scope: 'read write', audience: indicator, accessTokenFormat: 'jwt', accessTokenTTL: TTL.accessToken, jwt: { sign: { alg: 'RS256' } } }) as const;

export interface OauthProvider {
  provider: Provider;
  /** node (req, res) handler of the provider, to delegate from express */
  callback: ReturnType<Provider['callback']>;
}

/**
 * oidc-provider configured as spec 000's authorization server. What it does natively: client
 * authentication (basic and post), the code, refresh and client_credentials grants, refresh rotation
 * with reuse detection, RS256 JWT access tokens per resource, revocation, RFC 7591 registration and the
 * JWKS. What we put in front of it lives in authorize.route.ts, token.route.ts and registration.route.ts;
 * the exact error descriptions of the spec come from token-errors.ts.
 */
export function createOauthProvider(deps: { config: Config; prisma: Prisma; keys: OauthKeys; logger: Logger }): OauthProvider {
  const { config, prisma, keys, logger } = deps;
  const base = config.baseUrl;
  const resources = new Set(resourceIdentifiers(base));

  const handoffOf = (ctx: KoaContextWithOIDC | undefined) => (ctx?.req as HandoffRequest | undefined)?.oauthHandoff;

  const annotate = (kind: string): OauthAnnotations | undefined => {
    if (kind !== 'AuthorizationCode') return undefined;
    const handoff = handoffOf(Provider.ctx as KoaContextWithOIDC | undefined);
    return handoff ? { resources: handoff.resources } : undefined;
  };

  const configuration: Configuration = {
    adapter: prismaAdapterFactory(prisma, annotate),
    jwks: keys.jwks as Configuration['jwks'],
    cookies: {
      keys: keys.cookieKeys,
      names: { session: 'oauth_session', interaction: 'oauth_interaction', resume: 'oauth_resume' },
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    async findAccount(_ctx, sub) {
      const id = Number(sub);
      if (!Number.isSafeInteger(id)) return undefined;
      const user = await prisma.user.findUnique({ where: { id }, select: { id: true } });
      return user ? { accountId: sub, claims: async () => ({ sub }) } : undefined;
    },
    scopes: ['read', 'write'],
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'RS256',
    },
    // `none`: public clients without a secret (GraphiQL, and clients registered with token_endpoint_auth_method
    // "none"); they authenticate with client_id alone, PKCE required. Every other client must send its secret.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    clients: [
      {
        client_id: GRAPHIQL_CLIENT_ID,
        client_name: 'GraphiQL',
        redirect_uris: [`${base}/graphql`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'read write',
      },
      {
        client_id: INVITATION_CLIENT_ID,
        client_name: 'Invitation sign-up',
        redirect_uris: [],
        grant_types: ['refresh_token'],
        response_types: [],
        token_endpoint_auth_method: 'none',
        scope: 'read write',
      },
    ],
    allowOmittingSingleRegisteredRedirectUri: false,
    // PKCE is optional (spec: code_challenge "no") except for clients without a secret; plain is turned
    // into S256 by the front controller.
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    routes: { authorization: '/authorize', token: '/token', revocation: '/revoke', jwks: '/jwks' },
    ttl: {
      AccessToken: TTL.accessToken,
      ClientCredentials: TTL.accessToken,
      AuthorizationCode: TTL.authorizationCode,
      RefreshToken: TTL.refreshToken,
      Grant: TTL.grant,
      Session: TTL.browserSession,
      Interaction: 600,
    },
    rotateRefreshToken: true,
    // Codes and refresh tokens live by their own lifetimes (spec 000 states table), not by the browser
    // sign-in that authorized them: a new consent or the end of that sign-in does not revoke them.
    expiresWithSession: async () => false,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // The front controller does login and consent; the provider never starts an interaction of its own.
    interactions: { policy: [], url: () => '/public/v2/oauth/login' },
    async loadExistingGrant(ctx) {
      const handoff = handoffOf(ctx);
      if (!handoff || !ctx.oidc.client || handoff.accountId !== ctx.oidc.session?.accountId) return undefined; // fails closed: access_denied
      const grant = new ctx.oidc.provider.Grant({ accountId: handoff.accountId, clientId: ctx.oidc.client.clientId });
      grant.addOIDCScope(handoff.scope);
      for (const resource of Object.keys(ctx.oidc.resourceServers ?? {})) grant.addResourceScope(resource, handoff.scope);
      await grant.save();
      return grant;
    },
    extraClientMetadata: {
      properties: ['owner_user_id', 'created_at'],
      validator(_ctx, key, value) {
        if (key === 'owner_user_id' && value !== undefined && !Number.isSafeInteger(value)) {
          throw new errors.InvalidClientMetadata('owner_user_id must be a user id');
        }
      },
    },
    async extraTokenClaims(ctx, token) {
      if (token.kind === 'ClientCredentials') {
        const owner = ctx.oidc.client?.metadata().owner_user_id;
        return typeof owner === 'number' ? { user_id: owner } : undefined;
      }
      const accountId = (token as { accountId?: string }).accountId;
      return accountId ? { user_id: Number(accountId) } : undefined;
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      clientCredentials: { enabled: true },
      // registration is ours (clients.route.ts): the spec's two shapes, one client store
      registration: { enabled: false },
      revocation: {
        enabled: true,
        // someone else's token: nothing happens and the answer is still 200 {} (spec 000 states table)
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => base,
        useGrantedResource: async () => true,
        async getResourceServerInfo(_ctx, indicator) {
          if (!resources.has(normalizeResource(indicator))) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          return resourceServerInfo(indicator);
        },
      },
    },
    // Browser apps may call token and revoke from any origin: no cookies are involved there, and the
    // request authenticates itself (secret or PKCE). The library's default allows only public clients.
    clientBasedCORS: (_ctx, origin) => origin !== 'null',
    async renderError(ctx, out) {
      ctx.type = 'json';
      ctx.body = out;
    },
  };

  const provider = new Provider(base, configuration);

  // Wire details the library does differently from the spec.
  provider.use(async (ctx, next) => {
    await next();
    const route = ctx.oidc?.route;
    if ((route === 'authorization' || route === 'resume') && ctx.status === 303) {
      // spec: 302 to {redirect_uri}?code=…&state=…; the library answers 303. Its RFC 9207 `iss` stays:
      // the metadata says authorization_response_iss_parameter_supported (discovery.route.ts)
      ctx.status = 302;
    }
    if (route === 'revocation' && ctx.status === 200 && !ctx.body) ctx.body = {};
  });

  provider.on('grant.error', (ctx: KoaContextWithOIDC, err: Error) => {
    const mapped = mapTokenError(ctx.oidc?.params?.grant_type as string | undefined, err);
    if (mapped) applyError(ctx, mapped);
  });
  provider.on('revocation.error', (ctx: KoaContextWithOIDC, err: Error) => {
    const mapped = mapRevocationError(err);
    if (mapped === 'success') {
      ctx.status = 200;
      ctx.body = {};
    } else if (mapped) applyError(ctx, mapped);
  });
  provider.on('server_error', (_ctx: KoaContextWithOIDC, err: Error) => logger.error({ err }, 'authorization server error'));

  return { provider, callback: provider.callback() };
}

function applyError(ctx: KoaContextWithOIDC, e: { status: number; error: string; description?: string }) {
  ctx.status = e.status;
  ctx.body = e.description ? { error: e.error, error_description: e.description } : { error: e.error };
  if (e.status === 401) ctx.set('WWW-Authenticate', 'Basic realm="oauth"');
}
