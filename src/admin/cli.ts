import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { DataDirLockedError } from '../db/lock.ts';
import { applyMigrations } from '../db/migrate.ts';
import { ensureReferenceData } from '../db/reference-data.ts';
import { systemContext } from '../shared/context.ts';
import { migrateJobs } from '../jobs/runner.ts';
import { AppError } from '../shared/errors.ts';
import { fromPrismaError } from '../shared/graphql-errors.ts';
import { createLogger } from '../shared/logger.ts';
import { parseInvocation, usage, UsageError, type CommandContext } from './commands.ts';
import { BackupError } from '../backup/backup.ts';

/**
 * npm run --silent admin -- <command> [--flag value ...]   (commands: src/admin/commands.ts)
 *
 * Exactly one JSON object on stdout and exit 0, or a message on stderr and exit 2 (usage) or 1
 * (configuration, database, domain errors). Same configuration as the server: DATABASE_URL, else the
 * embedded database in DATA_DIR, which refuses to open while the server holds it.
 */
async function main(argv: readonly string[]): Promise<number> {
  let invocation;
  try {
    invocation = parseInvocation(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\nRun 'npm run --silent admin -- help' for usage.\n`);
    return 2;
  }
  if (!invocation) {
    process.stderr.write(`${usage()}\n`);
    return 2;
  }

  const config = loadConfig();
  if (invocation.command.withoutDatabase) {
    const result = await invocation.command.run({ config } as CommandContext, invocation.flags);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return invocation.command.exitCode?.(result) ?? 0;
  }
  const db = await openDatabase(
    config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir, purpose: `admin ${invocation.name}` },
  );
  try {
    await applyMigrations(db.adapterFactory);
    await ensureReferenceData(db.prisma);
    await migrateJobs(db, createLogger('silent')); // so commands can enqueue jobs, and `jobs` finds its tables
    const result = await invocation.command.run({ ctx: systemContext(db.prisma), prisma: db.prisma, config }, invocation.flags);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return invocation.command.exitCode?.(result) ?? 0;
  } finally {
    await db.close();
  }
}

function message(e: unknown): string {
  if (e instanceof DataDirLockedError || e instanceof ConfigError || e instanceof BackupError) return e.message;
  const app = e instanceof AppError ? e : fromPrismaError(e);
  if (app) return `error: ${app.message}`;
  return `error: ${e instanceof Error ? e.message : String(e)}`;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code), // the wasm engine leaves a timer behind: exit explicitly
  (e: unknown) => {
    process.stderr.write(`${message(e)}\n`);
    process.exit(1);
  },
);
