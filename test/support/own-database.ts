import { openDatabase, type Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { ensureReferenceData } from '../../src/db/reference-data.ts';
import { migrateJobs } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { openTestDatabase, type Target } from './harness.ts';
import { createScratchDatabase } from './scratch-database.ts';

/**
 * A database of the target that no other test file uses: on PGlite a clone of the template, on
 * PostgreSQL a scratch database (named after `label`) migrated like the run's, with the reference
 * data and the job tables. For tests that write rows with fixed names (the demo: its firm, company,
 * login and organisation number), which the run's shared database may hold from another file.
 * `close()` closes it (and drops the scratch database).
 */
export async function openOwnDatabase(target: Target, label: string): Promise<{ db: Database; close(): Promise<void> }> {
  if (target === 'pglite') {
    const db = await openTestDatabase('pglite');
    return { db, close: () => db.close() };
  }
  const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, label);
  const db = await openDatabase({ databaseUrl: scratch.url });
  await applyMigrations(db.adapterFactory);
  await ensureReferenceData(db.prisma);
  await migrateJobs(db, createLogger('silent'));
  return {
    db,
    async close() {
      await db.close();
      await scratch.drop();
    },
  };
}
