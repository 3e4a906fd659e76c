import { defineJob } from '../jobs/jobs.ts';
import { scheduledBackup } from './backup.ts';

/**
 * `backup.scheduled`: a backup of the database and the file store into BACKUP_DIR on BACKUP_SCHEDULE
 * (by default nightly for the embedded database, which only the server holding it can back up while
 * it serves), keeping the newest BACKUP_KEEP (src/backup/README.md).
 */
export const scheduledBackupJob = defineJob(
  'backup.scheduled',
  async (_data, { config, db, logger }) => {
    const { file, removed } = await scheduledBackup(config, db);
    logger.info({ file, removed }, 'backup written');
    return { file, removed };
  },
  { schedule: (config) => config.backup.schedule, retryLimit: 1, retryDelay: 300, expireInSeconds: 3600 },
);
