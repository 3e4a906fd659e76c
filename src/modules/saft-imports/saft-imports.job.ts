import { rm } from 'node:fs/promises';
import { defineJob } from '../../jobs/jobs.ts';
import { systemContext } from '../../shared/context.ts';
import { removeStaleSaftFiles } from './cleanup.service.ts';
import { SAFT_IMPORT_JOB, runSaftImport, saftImportFile } from './saft-imports.service.ts';

/**
 * `saft-imports.run`: one SAF-T import, all or nothing (runSaftImport). Not retried: an import that
 * failed has its errors recorded and wrote nothing; a run whose process died is given up and marked
 * FAILED (onGiveUp), so the account is as it was and the file can be sent again.
 */
export const saftImportJob = defineJob<{ importId: number }>(
  SAFT_IMPORT_JOB,
  async ({ importId }, { prisma, logger, config }) => {
    const row = await prisma.saftImport.findUnique({ where: { id: importId }, select: { createdById: true } });
    if (!row) return { skipped: `SAF-T import ${importId} no longer exists` };
    return runSaftImport(systemContext(prisma, { actingUserId: row.createdById ?? undefined, logger }), importId, config.dataDir);
  },
  {
    retryLimit: 0,
    expireInSeconds: 45 * 60,
    onGiveUp: async ({ importId }, { prisma, config }, reason) => {
      await rm(saftImportFile(config.dataDir, importId), { force: true });
      await prisma.saftImport.updateMany({
        where: { id: importId, status: { in: ['QUEUED', 'RUNNING'] } },
        data: { status: 'FAILED', errors: [{ message: `the import stopped: ${reason}; nothing was written`, status: 500 }], content: null, finishedAt: new Date() },
      });
    },
  },
);

/**
 * `saft-imports.cleanup`: hourly (at :37 UTC), once for all processes sharing the database, removes
 * the files under $DATA_DIR/saft-imports that nothing reads any more (removeStaleSaftFiles: spool
 * files of dead requests, XML of finished imports, XML no import names), never those of a QUEUED or
 * RUNNING import. Not retried: the next run comes within the hour.
 */
export const saftImportCleanupJob = defineJob(
  'saft-imports.cleanup',
  async (_data, { prisma, logger, config }) => {
    const removed = await removeStaleSaftFiles(prisma, config.dataDir);
    if (removed.spools || removed.finished || removed.orphans) logger.info({ removed }, 'SAF-T import files removed');
    return removed;
  },
  { schedule: '37 * * * *', retryLimit: 0 },
);
