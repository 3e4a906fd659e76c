import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { PROJECT_ROOT } from '../../src/project-root.ts';
import { targets } from '../support/harness.ts';
import { createScratchDatabase } from '../support/scratch-database.ts';

/**
 * applyMigrations on an empty database of each target: the schema engine applies what is missing,
 * and a database whose _prisma_migrations records every migration is checked with one query,
 * without starting the engine (what every server start does).
 */
const migrationsDir = join(PROJECT_ROOT, 'prisma', 'migrations');
const all = readdirSync(migrationsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();

/** The adapter factory, recording the SQL of every statement sent outside transactions. */
function recording(factory: SqlMigrationAwareDriverAdapterFactory) {
  const sql: string[] = [];
  const record = (adapter: SqlDriverAdapter): SqlDriverAdapter =>
    Object.assign(Object.create(adapter) as SqlDriverAdapter, {
      queryRaw: (q: Parameters<SqlDriverAdapter['queryRaw']>[0]) => (sql.push(q.sql), adapter.queryRaw(q)),
      executeRaw: (q: Parameters<SqlDriverAdapter['executeRaw']>[0]) => (sql.push(q.sql), adapter.executeRaw(q)),
      executeScript: (script: string) => (sql.push(script), adapter.executeScript(script)),
    });
  return {
    sql,
    factory: {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: async () => record(await factory.connect()),
      connectToShadowDb: () => factory.connectToShadowDb(),
    } satisfies SqlMigrationAwareDriverAdapterFactory,
  };
}

/** An empty database of the target, and how to get rid of it. */
async function emptyDatabase(target: 'pglite' | 'postgres'): Promise<{ db: Database; drop(): Promise<void> }> {
  if (target === 'pglite') {
    const db = await openDatabase({ memory: true });
    return { db, drop: () => db.close() };
  }
  const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'migrate_test');
  const db = await openDatabase({ databaseUrl: scratch.url });
  return {
    db,
    async drop() {
      await db.close();
      await scratch.drop();
    },
  };
}

describe.each(targets())('applyMigrations on %s', (target) => {
  let empty: Awaited<ReturnType<typeof emptyDatabase>>;
  let allButLast: string;
  beforeAll(async () => {
    empty = await emptyDatabase(target);
    allButLast = mkdtempSync(join(tmpdir(), 'regnskap-migrations-'));
    cpSync(join(migrationsDir, 'migration_lock.toml'), join(allButLast, 'migration_lock.toml'));
    for (const name of all.slice(0, -1)) cpSync(join(migrationsDir, name), join(allButLast, name), { recursive: true });
  });
  afterAll(async () => {
    await empty?.drop();
    rmSync(allButLast, { recursive: true, force: true });
  });

  // the cases build on each other, in order
  it('a database without _prisma_migrations: the engine applies every migration', async () => {
    expect(await applyMigrations(empty.db.adapterFactory, { migrationsDir: allButLast })).toEqual(all.slice(0, -1));
    if (target === 'postgres') {
      // the engine's connection is closed, and with it the advisory lock the next run would wait 10 s for
      const [{ held }] = await empty.db.prisma.$queryRawUnsafe<{ held: number }[]>(
        `SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND objid = 72707369 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      expect(held).toBe(0);
    }
  });

  it('one migration not recorded in _prisma_migrations: the engine applies it', async () => {
    expect(await applyMigrations(empty.db.adapterFactory)).toEqual(all.slice(-1));
  });

  it('every migration recorded as applied: one query, the schema engine is not started', async () => {
    const { sql, factory } = recording(empty.db.adapterFactory);
    expect(await applyMigrations(factory)).toEqual([]);
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatch(/FROM _prisma_migrations/);
  });

  it('a recorded checksum that differs from migration.sql: the engine decides, as without the check', async () => {
    await empty.db.prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET checksum = 'edited' WHERE migration_name = $1`, all[0]);
    const { sql, factory } = recording(empty.db.adapterFactory);
    expect(await applyMigrations(factory)).toEqual([]);
    expect(sql.length).toBeGreaterThan(1);
  });
});
