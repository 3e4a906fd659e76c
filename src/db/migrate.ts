import { PROJECT_ROOT } from '../project-root.ts';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { MigrationList, SchemaContainer } from '@prisma/schema-engine-wasm/schema_engine_bg';
import { PrismaPGlite } from 'pglite-prisma-adapter';

/**
 * Migrations through Prisma's WebAssembly schema engine (the native engine cannot be downloaded
 * offline). `createMigration` diffs the migration history against the schema on an in-memory
 * PGlite and writes prisma/migrations/<stamp>_<name>/migration.sql; `applyMigrations` applies
 * pending ones and records them in _prisma_migrations exactly like the Prisma CLI.
 */
const prismaDir = join(PROJECT_ROOT, 'prisma');
const migrationsDir = join(prismaDir, 'migrations');
const filters = { externalTables: [], externalEnums: [] };

let wasmReady: Promise<void> | undefined;
function initWasm(): Promise<void> {
  wasmReady ??= (async () => {
    // The .wasm is not in the package's exports: find it next to the JS glue (createRequire rather
    // than import.meta.resolve, which vitest's module runner lacks).
    const glueFile = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const url = join(dirname(glueFile), 'schema_engine_bg.wasm');
    // Node 20 cannot import .wasm as a module without a flag: instantiate it by hand.
    const wasm = (globalThis as unknown as { WebAssembly: { instantiate(b: Buffer, i: object): Promise<{ instance: { exports: unknown } }> } }).WebAssembly;
    const { instance } = await wasm.instantiate(await readFile(url), { './schema_engine_bg.js': glue });
    const exports = instance.exports as unknown as { __wbindgen_start(): void };
    (glue as unknown as { __wbg_set_wasm(e: unknown): void }).__wbg_set_wasm(exports);
    exports.__wbindgen_start();
  })();
  return wasmReady;
}

async function schemaFiles(dir = prismaDir): Promise<SchemaContainer[]> {
  const out: SchemaContainer[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'migrations') out.push(...(await schemaFiles(p)));
    else if (entry.isFile() && entry.name.endsWith('.prisma')) out.push({ path: p, content: await readFile(p, 'utf8') });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

async function migrationList(dir = migrationsDir): Promise<MigrationList> {
  const lockPath = join(dir, 'migration_lock.toml');
  const dirs = existsSync(dir)
    ? (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort()
    : [];
  return {
    baseDir: dir,
    lockfile: { path: lockPath, content: existsSync(lockPath) ? await readFile(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      dirs.map(async (d) => ({
        path: d,
        migrationFile: {
          path: 'migration.sql',
          content: { tag: 'ok' as const, value: await readFile(join(dir, d, 'migration.sql'), 'utf8') },
        },
      })),
    ),
  };
}

async function withEngine<T>(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  datamodels: SchemaContainer[],
  fn: (engine: glue.SchemaEngine) => Promise<T>,
): Promise<T> {
  await initWasm();
  const log = () => {};
  // engine.free() leaves the connections the engine opened open: on PostgreSQL one would keep its
  // session's advisory lock (pg_advisory_lock(72707369)) for the life of the process, and the next
  // migration run of any process would wait 10 s for it. They are closed here.
  const opened: SqlDriverAdapter[] = [];
  const tracked: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapterFactory.provider,
    adapterName: adapterFactory.adapterName,
    connect: async () => {
      const adapter = await adapterFactory.connect();
      opened.push(adapter);
      return adapter;
    },
    connectToShadowDb: () => adapterFactory.connectToShadowDb(),
  };
  const engine = await glue.SchemaEngine.new(
    { datamodels: datamodels.map((f) => [f.path, f.content]) },
    log,
    bindMigrationAwareSqlAdapterFactory(tracked),
  );
  try {
    return await fn(engine);
  } finally {
    engine.free();
    await Promise.all(opened.map((a) => a.dispose().catch(() => undefined)));
  }
}

/**
 * Whether _prisma_migrations records exactly the migrations of the list as applied: one row per
 * directory, finished, not rolled back, with the checksum the engine records (the SHA-256 of
 * migration.sql, hex), and no other row that is not rolled back (a failed run, or a migration this
 * code does not know). One statement; false when the table is missing or the query fails.
 */
async function recordedAsApplied(adapterFactory: SqlMigrationAwareDriverAdapterFactory, list: MigrationList): Promise<boolean> {
  const adapter = await adapterFactory.connect();
  try {
    return matchesList((await adapter.queryRaw({ sql: APPLIED_MIGRATIONS, args: [], argTypes: [] })).rows, list);
  } catch {
    return false;
  } finally {
    await adapter.dispose();
  }
}

const APPLIED_MIGRATIONS = 'SELECT migration_name, checksum, finished_at IS NOT NULL FROM _prisma_migrations WHERE rolled_back_at IS NULL';

function matchesList(rows: unknown[][], list: MigrationList): boolean {
  const expected = new Map<string, string>();
  for (const m of list.migrationDirectories) {
    if (m.migrationFile.content.tag !== 'ok') return false;
    expected.set(m.path, createHash('sha256').update(m.migrationFile.content.value).digest('hex'));
  }
  if (rows.length !== expected.size) return false;
  return rows.every(([name, checksum, finished]) => finished === true && expected.get(name as string) === checksum);
}

/** Whether the database records every migration of this code as applied, and nothing else (GET /health/ready). */
export async function migrationsCurrent(prisma: { $queryRawUnsafe(sql: string): Promise<unknown> }): Promise<boolean> {
  codeMigrations ??= migrationList(migrationsDir);
  const rows = (await prisma.$queryRawUnsafe(APPLIED_MIGRATIONS)) as Record<string, unknown>[];
  return matchesList(rows.map((r) => Object.values(r)), await codeMigrations);
}
/** this code's migrations, read once */
let codeMigrations: Promise<MigrationList> | undefined;

/**
 * Applies pending migrations; returns the names applied (empty when up to date). When
 * _prisma_migrations already records every migration as applied (the usual start), one query says
 * so and the schema engine is not started; otherwise the engine checks and applies, as the Prisma CLI.
 * `migrationsDir` (tests): another directory of migrations than prisma/migrations. `upTo`: the history
 * up to and including that migration only (a logical backup's rows are loaded into the schema they
 * were written from, src/backup/README.md); one this code does not have is an error.
 */
export async function applyMigrations(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  { migrationsDir: dir = migrationsDir, onApply, upTo }: { migrationsDir?: string; onApply?: () => void; upTo?: string } = {},
): Promise<string[]> {
  const migrationsList = await migrationList(dir);
  if (upTo !== undefined) {
    const last = migrationsList.migrationDirectories.findIndex((m) => m.path === upTo);
    if (last === -1) throw new Error(`migration ${upTo} is not in this version's history (prisma/migrations)`);
    migrationsList.migrationDirectories = migrationsList.migrationDirectories.slice(0, last + 1);
  }
  if (await recordedAsApplied(adapterFactory, migrationsList)) return [];
  onApply?.();
  const fresh = await applyToEmptyDatabase(adapterFactory, migrationsList);
  if (fresh) return fresh;
  const out = await withEngine(adapterFactory, await schemaFiles(), (engine) => engine.applyMigrations({ migrationsList, filters }));
  return out.appliedMigrationNames;
}

/** The lock Prisma's schema engine takes while it migrates (its advisory lock key), taken here too. */
const MIGRATION_LOCK = 72707369;

/** _prisma_migrations as Prisma's schema engine creates it. */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/**
 * A database with no table at all in its schema (a new one) gets the whole history as plain SQL,
 * recorded in _prisma_migrations exactly as the schema engine records it (checksum = SHA-256 of
 * migration.sql, one step each), under the engine's advisory lock. The history goes in one
 * transaction and one round trip when every migration.sql is one transaction (BEGIN … COMMIT, or no
 * transaction statement at all): all or nothing, one commit (0.5 s instead of 1.4 s through the
 * WebAssembly engine on PostgreSQL). Should that fail (a statement that may not share a transaction
 * with an earlier one), nothing was written and the migrations run one transaction each. Returns
 * the names applied, or undefined when the database is not empty (the engine then does its work).
 */
async function applyToEmptyDatabase(adapterFactory: SqlMigrationAwareDriverAdapterFactory, list: MigrationList): Promise<string[] | undefined> {
  const migrations = list.migrationDirectories.map((m) => {
    if (m.migrationFile.content.tag !== 'ok') throw new Error(`migration ${m.path}: migration.sql is missing`);
    if (!/^[A-Za-z0-9_]+$/.test(m.path)) throw new Error(`migration ${m.path}: unexpected directory name`);
    const script = m.migrationFile.content.value;
    return { name: m.path, script, checksum: createHash('sha256').update(script).digest('hex') };
  });
  const record = (m: (typeof migrations)[number]) =>
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ('${randomUUID()}', '${m.checksum}', '${m.name}', now(), now(), 1);`;
  const adapter = await adapterFactory.connect();
  const query = (sql: string) => adapter.queryRaw({ sql, args: [], argTypes: [] });
  try {
    await query(`SELECT pg_advisory_lock(${MIGRATION_LOCK}) IS NULL`);
    try {
      const { rows } = await query('SELECT count(*)::int FROM pg_tables WHERE schemaname = current_schema()');
      if (Number(rows[0][0]) !== 0) return undefined;
      const bodies = migrations.map((m) => unwrapTransaction(m.script));
      if (bodies.every((b) => b !== undefined)) {
        try {
          await adapter.executeScript(['BEGIN;', `${MIGRATIONS_TABLE};`, ...migrations.flatMap((m, i) => [bodies[i], record(m)]), 'COMMIT;'].join('\n'));
          return migrations.map((m) => m.name);
        } catch {
          await adapter.executeScript('ROLLBACK;').catch(() => undefined);
        }
      }
      await adapter.executeScript(`${MIGRATIONS_TABLE};`);
      for (const m of migrations) {
        await adapter.executeScript(m.script);
        await adapter.executeScript(record(m));
      }
      return migrations.map((m) => m.name);
    } finally {
      await query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => undefined);
    }
  } finally {
    await adapter.dispose();
  }
}

/** A migration's statements without its BEGIN; … COMMIT; wrapper; undefined when it controls transactions otherwise. */
function unwrapTransaction(script: string): string | undefined {
  let body = script.trim();
  if (body.startsWith('BEGIN;') && body.endsWith('COMMIT;')) body = body.slice('BEGIN;'.length, -'COMMIT;'.length);
  return /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|ROLLBACK)\s*;/im.test(body) ? undefined : body;
}

/** Writes a new migration for the schema changes since the last one; null when there are none. */
export async function createMigration(name: string): Promise<string | null> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error('Migration name: use lower-case letters, digits and _');
  const files = await schemaFiles();
  const migrations = await migrationList();
  const pg = await PGlite.create();
  try {
    const diff = await withEngine(new PrismaPGlite(pg), files, (engine) =>
      engine.diff({
        from: migrations.migrationDirectories.length ? { tag: 'migrations', ...migrations } : { tag: 'empty' },
        to: { tag: 'schemaDatamodel', files },
        script: true,
        exitCode: null,
        filters,
      }),
    );
    const sql = (diff.stdout ?? '').trim();
    if (!sql || sql === '-- This is an empty migration.') return null;
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = join(migrationsDir, `${stamp}_${name}`);
    await mkdir(dir, { recursive: true });
    // One transaction per migration: a failing script leaves nothing half-applied.
    await writeFile(join(dir, 'migration.sql'), `BEGIN;\n\n${sql}\n\nCOMMIT;\n`);
    const lock = join(migrationsDir, 'migration_lock.toml');
    if (!existsSync(lock)) {
      await writeFile(lock, '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n');
    }
    return relative(PROJECT_ROOT, dir);
  } finally {
    await pg.close();
  }
}
