import { loadConfig } from '../config.ts';
import { migrateJobs } from '../jobs/runner.ts';
import { createLogger } from '../shared/logger.ts';
import { openDatabase } from './database.ts';
import { DataDirLockedError } from './lock.ts';
import { applyMigrations, createMigration } from './migrate.ts';

/**
 * npm run migrate            apply pending migrations to DATABASE_URL or the embedded database
 * npm run migrate:create -- <name>   write a migration for the schema changes (needs no database)
 */
async function main(): Promise<void> {
  const [command, name] = process.argv.slice(2);
  if (command === 'create') {
    if (!name) throw new Error('Usage: npm run migrate:create -- <name>');
    const dir = await createMigration(name);
    console.log(dir ? `Created ${dir}` : 'No schema changes: no migration created.');
    return;
  }
  if (command === 'deploy') {
    const config = loadConfig();
    const db = await openDatabase(
      config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir, purpose: 'migrate' },
    );
    try {
      const applied = await applyMigrations(db.adapterFactory);
      await migrateJobs(db, createLogger('silent')); // pg-boss's schema (pgboss) and the job queues
      console.log(applied.length ? `Applied ${applied.join(', ')} to ${db.describe}` : `${db.describe} is up to date.`);
    } finally {
      await db.close();
    }
    return;
  }
  throw new Error('Usage: migrate deploy | migrate create <name>');
}

main().then(
  () => process.exit(0), // the wasm engine leaves a timer behind: exit explicitly
  (e: unknown) => {
    console.error(e instanceof DataDirLockedError ? e.message : e instanceof Error ? e.message : String(e));
    process.exit(1);
  },
);
