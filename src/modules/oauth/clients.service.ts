import { randomBytes } from 'node:crypto';
import type { Adapter, AdapterPayload, ClientMetadata } from 'oidc-provider';
import type { Prisma } from '../../db/database.ts';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { classifyRedirectUri } from './clients.rules.ts';
import type { OauthProvider } from './provider.ts';
import { normalizeScope } from './scopes.ts';

/**
 * OAuth clients (spec 000 "OAuth client"): registered dynamically (RFC 7591, open) or by a signed-in
 * user (the only way to get client_credentials; the client then belongs to that user and its tokens act
 * as that user). Both are stored as the provider's Client objects, checked by the provider's own client
 * schema before they are saved.
 */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;

/**
 * How a client authenticates at token and revoke. `none` is a public client (RFC 7591; what MCP
 * hosts and other apps that cannot keep a secret register): it gets no secret, must use PKCE and
 * sends only its client_id. Every other client gets a secret and must send it (basic and post are
 * interchangeable).
 */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_post', 'client_secret_basic', 'none'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

export interface ClientInput {
  clientName: string | undefined;
  redirectUris: string[];
  grantTypes: string[];
  scope: string | undefined;
  /** set for POST /v2/oauth/clients; dynamic registration has no owner */
  ownerUserId?: number;
  /** default client_secret_post */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

export interface RegisteredClient {
  client_id: string;
  /** none for a public client */
  client_secret?: string;
  client_name: string | undefined;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  scope: string;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  client_id_issued_at: number;
  client_secret_expires_at?: 0;
  /** native when a redirect URI uses a private-use scheme (the provider refuses those for web clients) */
  application_type: 'web' | 'native';
  owner_user_id?: number;
  created_at: string;
}

export class ClientMetadataError extends Error {
  constructor(
    readonly error: 'invalid_client_metadata' | 'invalid_redirect_uri',
    message: string,
  ) {
    super(message);
  }
}

export async function registerClient(oauth: OauthProvider, input: ClientInput): Promise<RegisteredClient> {
  const unknownGrant = input.grantTypes.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unknownGrant) throw new ClientMetadataError('invalid_client_metadata', `Unknown grant type ${unknownGrant} (allowed: ${GRANT_TYPES.join(', ')})`);
  const grantTypes = [...new Set(input.grantTypes)];
  if (!grantTypes.length) throw new ClientMetadataError('invalid_client_metadata', 'grant_types must name at least one grant type');
  if (grantTypes.includes('refresh_token') && !grantTypes.includes('authorization_code')) {
    throw new ClientMetadataError('invalid_client_metadata', 'refresh_token needs the authorization_code grant');
  }
  const scope = normalizeScope(input.scope, 'read');
  if (!scope.ok) throw new ClientMetadataError('invalid_client_metadata', `Unknown scope: ${scope.unknown.join(' ')} (use read, write)`);
  const withCode = grantTypes.includes('authorization_code');
  if (withCode && !input.redirectUris.length) throw new ClientMetadataError('invalid_redirect_uri', 'redirect_uris must name at least one URI for the authorization_code grant');
  const kinds = input.redirectUris.map(classifyRedirectUri);
  for (const k of kinds) if (!k.ok) throw new ClientMetadataError('invalid_redirect_uri', k.problem);
  const method = input.tokenEndpointAuthMethod ?? 'client_secret_post';
  const secret = method === 'none' ? {} : { client_secret: randomBytes(32).toString('base64url'), client_secret_expires_at: 0 as const };
  const now = new Date();
  const metadata: RegisteredClient = {
    client_id: randomBytes(16).toString('base64url'),
    ...secret,
    client_name: input.clientName,
    redirect_uris: input.redirectUris,
    grant_types: grantTypes,
    response_types: withCode ? ['code'] : [],
    scope: input.scope === undefined || input.scope.trim() === '' ? 'read write' : scope.scope,
    token_endpoint_auth_method: method,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    application_type: kinds.some((k) => k.ok && k.kind === 'private-use') ? 'native' : 'web',
    ...(input.ownerUserId !== undefined ? { owner_user_id: input.ownerUserId } : {}),
    created_at: now.toISOString(),
  };
  try {
    await oauth.provider.Client.validate(metadata as unknown as ClientMetadata);
  } catch (e) {
    const err = e as { error?: string; error_description?: string };
    const description = err.error_description ?? 'Invalid client metadata';
    // the provider reports its own redirect URI rules (e.g. a native client's https on localhost) as client metadata
    if (err.error === 'invalid_client_metadata' && description.startsWith('redirect_uris')) throw new ClientMetadataError('invalid_redirect_uri', description);
    if (err.error === 'invalid_redirect_uri' || err.error === 'invalid_client_metadata') throw new ClientMetadataError(err.error, description);
    throw e;
  }
  // the provider's own Client adapter (ours, see adapter.ts); Client.find re-reads it, so no cache to clear
  const { adapter } = oauth.provider.Client as unknown as { adapter: Adapter };
  await adapter.upsert(metadata.client_id, metadata as unknown as AdapterPayload);
  return metadata;
}

export async function listClients(prisma: Prisma, ownerUserId: number) {
  const rows = await prisma.oauthObject.findMany({ where: { kind: 'Client', ownerUserId }, orderBy: { createdAt: 'asc' } });
  return rows.map((r) => {
    const m = r.payload as unknown as RegisteredClient;
    return {
      client_id: m.client_id,
      client_name: m.client_name ?? null,
      redirect_uris: m.redirect_uris.join(' '),
      grant_types: m.grant_types.join(' '),
      scope: m.scope,
      created_at: r.createdAt.toISOString(),
    };
  });
}

/**
 * Deletes one of the user's clients with everything issued to it (grants, codes, refresh tokens), in
 * one transaction. False when the user owns no such client. Access tokens already issued are JWTs and
 * stay valid until they expire (spec 000: access tokens are not tracked).
 */
export async function deleteClient(prisma: Prisma, ownerUserId: number, clientId: string): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.oauthObject.deleteMany({ where: { kind: 'Client', id: clientId, ownerUserId } });
    if (!count) return false;
    const issued: PrismaNS.OauthObjectWhereInput = { kind: { in: ['Grant', 'AuthorizationCode', 'RefreshToken'] }, payload: { path: ['clientId'], equals: clientId } };
    await tx.oauthObject.deleteMany({ where: issued });
    return true;
  });
}
