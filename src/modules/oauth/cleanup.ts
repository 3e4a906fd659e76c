import type { Prisma } from '../../db/database.ts';
import type { Logger } from '../../shared/logger.ts';
import { pruneRateLimitCounters } from '../../shared/rate-limit.ts';
import { pruneIdempotencyKeys } from '../../shared/idempotency.ts';
import { pruneOauthObjects } from './adapter.ts';

/** How often the server deletes what has expired. */
export const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes expired state: authorization-server objects past their expiry plus the grace period,
 * session tokens of POST /v2/oauth/login past their expiry, rate-limit windows that have ended and
 * idempotency keys past their 24 hours.
 */
export async function cleanupExpired(prisma: Prisma): Promise<{ oauthObjects: number; sessions: number; rateLimitCounters: number; idempotencyKeys: number }> {
  const oauthObjects = await pruneOauthObjects(prisma);
  const { count: sessions } = await prisma.session.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  const rateLimitCounters = await pruneRateLimitCounters(prisma);
  const idempotencyKeys = await pruneIdempotencyKeys(prisma);
  return { oauthObjects, sessions, rateLimitCounters, idempotencyKeys };
}

/** Runs cleanupExpired now and every CLEANUP_INTERVAL_MS; returns a stop function. */
export function startCleanup(prisma: Prisma, logger: Logger, intervalMs = CLEANUP_INTERVAL_MS): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const deleted = await cleanupExpired(prisma);
      if (Object.values(deleted).some((n) => n > 0)) logger.info({ deleted }, 'expired rows deleted');
    } catch (err) {
      logger.warn({ err }, 'cleanup of expired rows failed; retrying at the next interval');
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
