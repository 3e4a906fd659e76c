import type { Prisma } from '../../db/database.ts';
import { defineJob } from '../../jobs/jobs.ts';
import { pruneRateLimitCounters } from '../../http/rate-limit.ts';
import { pruneIdempotencyKeys } from '../../http/idempotency.ts';
import { pruneOauthObjects } from './adapter.ts';

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

/**
 * Every 10 minutes, once for all server processes sharing the database (a pg-boss schedule). A
 * failed run is not retried: the next one comes soon enough.
 */
export const cleanupJob = defineJob(
  'oauth.cleanup',
  async (_data, { prisma, logger }) => {
    const deleted = await cleanupExpired(prisma);
    if (deleted.oauthObjects || deleted.sessions || deleted.rateLimitCounters) logger.info({ deleted }, 'expired rows deleted');
    return deleted;
  },
  { schedule: '*/10 * * * *', retryLimit: 0 },
);
