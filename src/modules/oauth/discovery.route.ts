import type { RequestHandler } from 'express';
import { SCOPES } from './scopes.ts';
import { resourceIdentifiers } from './provider.ts';

/**
 * GET /.well-known/oauth-authorization-server (RFC 8414). Issuer is the base URL; endpoints are listed
 * at /v2/oauth (each is also served at /public/v2/oauth). `none` is the public-client method (PKCE
 * without a secret). S256 comes first among the PKCE methods; plain stays the default (spec 000).
 * Authorization responses carry RFC 9207's `iss`.
 */
export function authorizationServerMetadata(baseUrl: string): RequestHandler {
  const doc = {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/v2/oauth/authorize`,
    token_endpoint: `${baseUrl}/v2/oauth/token`,
    registration_endpoint: `${baseUrl}/v2/oauth/register`,
    revocation_endpoint: `${baseUrl}/v2/oauth/revoke`,
    jwks_uri: `${baseUrl}/v2/oauth/jwks`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256', 'plain'],
    // RFC 9207: every authorization response (code, error, denial) carries iss = issuer, so a client
    // talking to several authorization servers can tell which one answered (mix-up attacks)
    authorization_response_iss_parameter_supported: true,
  };
  return (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(doc);
  };
}

/**
 * GET /.well-known/oauth-protected-resource (RFC 9728) for the API as a whole (the base URL), and with
 * a path suffix (/api/v2, /graphql, /mcp) for each resource identifier tokens can be bound to.
 */
export function protectedResourceMetadata(baseUrl: string): RequestHandler {
  const known = new Set(resourceIdentifiers(baseUrl));
  return (req, res) => {
    const suffix = req.path.replace(/^\/\.well-known\/oauth-protected-resource/, '').replace(/\/+$/, '');
    const resource = baseUrl + suffix;
    if (!known.has(resource)) return res.status(404).json({ error: `No protected resource ${resource}`, status: 404 });
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json({
      resource,
      authorization_servers: [baseUrl],
      jwks_uri: `${baseUrl}/v2/oauth/jwks`,
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Accounting API',
    });
  };
}
