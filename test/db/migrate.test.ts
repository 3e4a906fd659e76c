import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { targets } from '../support/harness.ts';
import { emptyDatabase, migrationNames, migrationsFolder } from '../support/migrations.ts';

/**
 * applyMigrations on an empty database of each target: a new database gets the history as plain SQL
 * in one transaction (src/db/migrate.ts), any other the schema engine applies what is missing,
 * and a database whose _prisma_migrations records every migration is checked with one query,
 * without starting the engine (what every server start does).
 */
const all = migrationNames();

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

describe.each(targets())('applyMigrations on %s', (target) => {
  let empty: Awaited<ReturnType<typeof emptyDatabase>>;
  let allButLast: ReturnType<typeof migrationsFolder>;
  beforeAll(async () => {
    empty = await emptyDatabase(target, 'migrate_test');
    allButLast = migrationsFolder(all.slice(0, -1));
  });
  afterAll(async () => {
    await empty?.drop();
    allButLast?.remove();
  });

  // the cases build on each other, in order
  it('a new database (no table): the history in one transaction, without the engine; no advisory lock left', async () => {
    const { sql, factory } = recording(empty.db.adapterFactory);
    expect(await applyMigrations(factory, { migrationsDir: allButLast.dir })).toEqual(all.slice(0, -1));
    expect(sql.filter((s) => s.includes('CREATE TABLE')).length).toBe(1);
    if (target === 'postgres') {
      // the engine's connection is closed, and with it the advisory lock the next run would wait 10 s for
      const [{ held }] = await empty.db.prisma.$queryRawUnsafe<{ held: number }[]>(
        `SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND objid = 72707369 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      expect(held).toBe(0);
    }
  });

  it('one migration not recorded in _prisma_migrations: the engine applies it (it accepts what the new-database path recorded)', async () => {
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

  it('a new database gets the same schema and _prisma_migrations rows as the engine makes', async () => {
    const other = await emptyDatabase(target, 'migrate_test');
    try {
      // an empty _prisma_migrations (as the Prisma CLI's first step leaves it) makes the database not new: the engine applies the history
      await other.db.prisma.$executeRawUnsafe(
        `CREATE TABLE "_prisma_migrations" ("id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ, "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
      );
      expect(await applyMigrations(other.db.adapterFactory)).toEqual(all);
      const describe = async (db: Database) => ({
        columns: await db.prisma.$queryRawUnsafe(
          `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2`,
        ),
        indexes: await db.prisma.$queryRawUnsafe(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1, 2`),
        constraints: await db.prisma.$queryRawUnsafe(
          `SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = current_schema()::regnamespace ORDER BY 1, 2`,
        ),
        functions: await db.prisma.$queryRawUnsafe(`SELECT proname, prosrc FROM pg_proc WHERE pronamespace = current_schema()::regnamespace ORDER BY 1`),
        triggers: await db.prisma.$queryRawUnsafe(`SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`),
        migrations: await db.prisma.$queryRawUnsafe(
          `SELECT migration_name, checksum, logs, rolled_back_at, applied_steps_count, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY 1`,
        ),
      });
      const fresh = await emptyDatabase(target, 'migrate_test');
      try {
        expect(await applyMigrations(fresh.db.adapterFactory)).toEqual(all);
        expect(await describe(fresh.db)).toEqual(await describe(other.db));
      } finally {
        await fresh.drop();
      }
    } finally {
      await other.drop();
    }
  });
});
