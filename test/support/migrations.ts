import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { PROJECT_ROOT } from '../../src/project-root.ts';
import type { Target } from './harness.ts';
import { createScratchDatabase } from './scratch-database.ts';

/** For tests of the migrations themselves: the committed history, and databases at a point of it. */
export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'prisma', 'migrations');

/** The committed migrations' folder names, oldest first. */
export const migrationNames = (): string[] =>
  readdirSync(MIGRATIONS_DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();

/** An empty database of the target (in memory, or a scratch database named after `label`), and how to get rid of it. */
export async function emptyDatabase(target: Target, label: string): Promise<{ db: Database; drop(): Promise<void> }> {
  if (target === 'pglite') {
    const db = await openDatabase({ memory: true });
    return { db, drop: () => db.close() };
  }
  const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, label);
  const db = await openDatabase({ databaseUrl: scratch.url });
  return {
    db,
    async drop() {
      await db.close();
      await scratch.drop();
    },
  };
}

/** A migrations folder holding only the named migrations (and the lock file), and how to remove it. */
export function migrationsFolder(names: string[]): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-migrations-'));
  cpSync(join(MIGRATIONS_DIR, 'migration_lock.toml'), join(dir, 'migration_lock.toml'));
  for (const name of names) cpSync(join(MIGRATIONS_DIR, name), join(dir, name), { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A database of the target migrated up to the migration whose name matches `migration`, not
 * including it: for a test of what that migration does to rows written before it. `rest` names it
 * and the migrations after it (what `applyMigrations` then applies); `sql` runs raw SQL.
 */
export async function databaseBefore(target: Target, migration: RegExp, label: string) {
  const all = migrationNames();
  const at = all.findIndex((name) => migration.test(name));
  if (at < 0) throw new Error(`no migration matches ${migration}`);
  const database = await emptyDatabase(target, label);
  const before = migrationsFolder(all.slice(0, at));
  try {
    await applyMigrations(database.db.adapterFactory, { migrationsDir: before.dir });
  } catch (error) {
    await database.drop();
    throw error;
  } finally {
    before.remove();
  }
  const { db } = database;
  return {
    ...database,
    rest: all.slice(at),
    sql: <T>(q: string, ...values: unknown[]) => db.prisma.$queryRawUnsafe<T[]>(q, ...values),
  };
}
