import { createHash, randomBytes } from 'node:crypto';
import type { Prisma } from '../../db/database.ts';
import { parseScopes, type TokenVerifier } from '../../http/authentication.ts';
import { verifyPassword } from '../../shared/passwords.ts';
import { systemContext, type Actor } from '../../shared/context.ts';
import { SessionCache } from './session-cache.ts';
import { findUserByEmail } from '../users/users.service.ts';

/**
 * Session tokens (POST /v2/oauth/login): opaque `rs_…` strings; only their SHA-256 is stored.
 * A session token acts as its user with read and write.
 */
const PREFIX = 'rs_';
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export interface IssuedSession {
  accessToken: string;
  expiresIn: number;
}

/** The user with this email and password, or null (the same work is done for unknown emails). */
export async function authenticateUser(prisma: Prisma, email: string, password: string) {
  const user = await findUserByEmail(systemContext(prisma), { email });
  return (await verifyPassword(user?.passwordHash ?? null, password)) && user ? user : null;
}

export async function login(prisma: Prisma, email: string, password: string, ttlSeconds: number): Promise<IssuedSession | null> {
  const user = await authenticateUser(prisma, email, password);
  if (!user) return null;
  const accessToken = PREFIX + randomBytes(32).toString('base64url');
  const now = new Date();
  await prisma.$transaction([
    prisma.session.deleteMany({ where: { userId: user.id, expiresAt: { lt: now } } }),
    prisma.session.create({
      data: { tokenHash: digest(accessToken), userId: user.id, scope: 'read write', expiresAt: new Date(now.getTime() + ttlSeconds * 1000) },
    }),
  ]);
  return { accessToken, expiresIn: ttlSeconds };
}

/**
 * Session tokens become actors here: looked up by their SHA-256, then kept in this process for
 * `cacheSeconds` (SESSION_CACHE_SECONDS; 0: every request looks the session up), see session-cache.ts.
 */
export function sessionTokenVerifier({ cacheSeconds }: { cacheSeconds: number }): TokenVerifier {
  const cache = new SessionCache(cacheSeconds * 1000);
  return {
    accepts: (token) => token.startsWith(PREFIX),
    async verify(token, prisma) {
      const hash = digest(token);
      const cached = cache.get(hash);
      if (cached) return cached;
      const session = await prisma.session.findUnique({ where: { tokenHash: hash } });
      if (!session || session.expiresAt <= new Date()) return null;
      const actor: Actor = { userId: session.userId, scopes: parseScopes(session.scope), clientId: null, tokenKind: 'session', sessionId: session.id };
      cache.set(hash, actor, session.expiresAt);
      return actor;
    },
  };
}
