import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Prisma } from '../../db/database.ts';
import { sharedSecret } from '../../shared/server-secrets.ts';

/**
 * The authorization server's secrets: the RS256 key set that signs access tokens and the keys that
 * sign its cookies. Configuration (OAUTH_JWKS, OAUTH_COOKIE_KEYS) wins; otherwise they are generated on
 * first start and kept in server_secrets, so every process on the same database signs and verifies
 * with the same keys and restarts do not invalidate tokens or browser sessions.
 */
export interface OauthKeys {
  /** private JWKs (the provider signs with the first) */
  jwks: { keys: JWK[] };
  cookieKeys: string[];
}

async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: 'RS256', use: 'sig' };
}

export async function loadOauthKeys(prisma: Prisma, configured: { jwks?: { keys: JWK[] }; cookieKeys?: string[] }): Promise<OauthKeys> {
  const jwks = configured.jwks ?? (await sharedSecret(prisma, 'oauth.jwks', async () => ({ keys: [await generateSigningKey()] })));
  const cookieKeys = configured.cookieKeys ?? (await sharedSecret(prisma, 'oauth.cookie_keys', () => [randomBytes(32).toString('base64url')]));
  return { jwks, cookieKeys };
}

/** The public half of a private JWK set (what /v2/oauth/jwks publishes and the API verifies with). */
export function publicJwks(jwks: { keys: JWK[] }): { keys: JWK[] } {
  return { keys: jwks.keys.map(({ kty, n, e, crv, x, y, kid, alg, use }) => ({ kty, n, e, crv, x, y, kid, alg: alg ?? 'RS256', use: use ?? 'sig' })) };
}
