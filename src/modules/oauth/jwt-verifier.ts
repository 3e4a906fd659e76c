import { createLocalJWKSet, jwtVerify } from 'jose';
import { parseScopes, type TokenVerifier } from '../../http/authentication.ts';
import type { Actor } from '../../shared/context.ts';
import { publicJwks, type OauthKeys } from './keys.ts';
import { normalizeResource, resourceIdentifiers } from './provider.ts';

/**
 * The API side of OAuth: access tokens are RS256 JWTs (typ at+jwt) from our authorization server,
 * verified locally with its public keys. The token's audiences must be resource identifiers of this
 * service; which ones an entry point accepts is the bearer middleware's check (`actor.audience`):
 * /api/v2 and /graphql take the base URL, /api/v2 and /graphql; /mcp the base URL and /mcp.
 * Access tokens are not tracked server-side (spec 000): revocation does not reach them, expiry does.
 *
 * A verified token's actor is kept in memory until the token expires (at most MAX_CACHED tokens, the
 * oldest dropped first): the RS256 signature check costs more CPU than the rest of a small request,
 * and a client sends the same token many times. Only the identical token string hits the cache, and
 * the keys only change with a restart, so this accepts exactly what verifying again would.
 */
const MAX_CACHED = 10_000;

export function jwtTokenVerifier(keys: OauthKeys, baseUrl: string): TokenVerifier {
  const keySet = createLocalJWKSet(publicJwks(keys.jwks));
  const audiences = new Set(resourceIdentifiers(baseUrl).map(normalizeResource));
  const verified = new Map<string, { actor: Actor; expiresAt: number }>();
  return {
    accepts: (token) => token.startsWith('eyJ') && token.split('.').length === 3,
    async verify(token) {
      const cached = verified.get(token);
      if (cached) {
        if (cached.expiresAt > Date.now()) return cached.actor;
        verified.delete(token);
      }
      try {
        const { payload } = await jwtVerify(token, keySet, { issuer: baseUrl, typ: 'at+jwt', algorithms: ['RS256'] });
        const aud = (Array.isArray(payload.aud) ? payload.aud : [payload.aud ?? '']).map(normalizeResource).filter((a) => audiences.has(a));
        if (!aud.length) return null;
        const userId = payload.user_id;
        if (typeof userId !== 'number' || !Number.isSafeInteger(userId)) return null;
        const actor: Actor = {
          userId,
          scopes: parseScopes(typeof payload.scope === 'string' ? payload.scope : ''),
          clientId: typeof payload.client_id === 'string' ? payload.client_id : null,
          // a client_credentials token's subject is its client (oidc-provider), a user's token's the user
          ...(typeof payload.client_id === 'string' && payload.sub === payload.client_id && payload.sub !== String(userId) ? { clientCredentials: true } : {}),
          tokenKind: 'jwt',
          sessionId: null,
          audience: aud,
        };
        // access tokens always carry exp (jose checked it); without one nothing is kept
        if (typeof payload.exp === 'number') {
          if (verified.size >= MAX_CACHED) verified.delete(verified.keys().next().value!);
          verified.set(token, { actor, expiresAt: payload.exp * 1000 });
        }
        return actor;
      } catch {
        return null;
      }
    },
  };
}
