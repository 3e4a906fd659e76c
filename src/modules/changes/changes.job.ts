import { defineJob } from '../../jobs/jobs.ts';
import { changeRetention, deleteExpiredChanges, sequenceChanges } from './changes.service.ts';

/**
 * `changes.sequence`, every minute once for all processes: positions the changes no feed read has
 * positioned yet, so afterChangesSequenced (webhooks) gets them without a reader. A failed run is
 * not retried: the next one comes soon, and every feed read sequences too.
 */
export const sequenceChangesJob = defineJob(
  'changes.sequence',
  async (_data, { prisma, logger }) => ({ sequenced: (await sequenceChanges(prisma, logger)).length }),
  { schedule: '* * * * *', retryLimit: 0 },
);

/**
 * `changes.cleanup`, hourly: deletes the changes older than CHANGE_RETENTION_DAYS. A cursor older
 * than that is refused with 410 by the feed, so no reader is left standing before a deleted change.
 */
export const cleanupChangesJob = defineJob(
  'changes.cleanup',
  async (_data, { prisma, config, logger }) => {
    const deleted = await deleteExpiredChanges(prisma, config.changeRetentionDays ?? changeRetention.days);
    if (deleted) logger.info({ deleted }, 'expired changes deleted');
    return { deleted };
  },
  { schedule: '17 * * * *', retryLimit: 0 },
);
