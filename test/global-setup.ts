import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { migrateJobs } from '../src/jobs/runner.ts';
import { createLogger } from '../src/shared/logger.ts';
import { bundleStale } from '../src/bundle.mjs';
import { createScratchDatabase } from './support/scratch-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** a migrated, reference-seeded PGlite data dir dump (tar.gz) each test file loads */
    pgliteTemplate: string;
    /** a fresh, migrated PostgreSQL database for this run, when TEST_DATABASE_URL is set */
    postgresUrl: string | null;
  }
}

/**
 * Once per run: migrate a PGlite template (the Prisma schema and pg-boss's) (each test file clones it in well under a second) and,
 * when TEST_DATABASE_URL points at a PostgreSQL server, create a fresh database for the run and
 * drop it afterwards. Tests give every case its own tenant, so nothing needs cleaning in between.
 */
export default async function setup(project: TestProject) {
  // the admin CLI test runs `node src/start.mjs admin|server` as a user does: bring dist/ up to date
  // once here, not inside many concurrent CLI runs
  await bundleStale();
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-test-'));
  const mem = await openDatabase({ memory: true });
  await applyMigrations(mem.adapterFactory);
  await ensureReferenceData(mem.prisma);
  await migrateJobs(mem, createLogger('silent')); // pg-boss's schema and queues: test files need not install them
  const dump = await mem.pglite!.dumpDataDir('gzip');
  await mem.close();
  const file = join(dir, 'template.tar.gz');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);

  let drop: (() => Promise<void>) | undefined;
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const scratch = await createScratchDatabase(adminUrl, 'test');
    const pgDb = await openDatabase({ databaseUrl: scratch.url });
    await applyMigrations(pgDb.adapterFactory);
    await ensureReferenceData(pgDb.prisma);
    await migrateJobs(pgDb, createLogger('silent'));
    await pgDb.close();
    project.provide('postgresUrl', scratch.url);
    drop = scratch.drop;
  } else {
    project.provide('postgresUrl', null);
  }

  return async () => {
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  };
}
