import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openAsBlob, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Unzip, UnzipInflate, Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import pg from 'pg';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { fileStoreDir } from '../modules/files/file-services.ts';
import { verifyLedger } from '../modules/journal-entries/ledger-chain.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { applyMigrations } from '../db/migrate.ts';
import { entryOf, exportTables, LOGICAL_ENTRY, loadTables, pgliteSql, pgSql, type LogicalPart, type Sql } from './logical.ts';

/**
 * Backups of everything the service stores (src/backup/README.md): the database and the file store,
 * in one ZIP with a manifest of row counts and ledger chain heads. One file, restorable into an
 * empty database, checkable without restoring.
 */

const FORMAT = 'regnskap-backup';
/** The newest format version this code reads; a file's `version` is the oldest that can read it (2: a logical dump). */
const VERSION = 2;
/**
 * How the database is in the file: pg_dump's custom format (PostgreSQL), PGlite's data directory as a
 * gzipped tar (the embedded database), or our tables as JSON lines (either: src/backup/logical.ts).
 */
export const DUMP_FORMATS = ['pg_dump', 'datadir', 'logical'] as const;
export type DumpFormat = (typeof DUMP_FORMATS)[number];
/** The database's one entry in the ZIP, for the two formats that have one. */
const DB_ENTRY = { pg_dump: 'database.pgdump', datadir: 'database.tar.gz' } as const;
const MANIFEST = 'manifest.json';

export interface ChainHead {
  client_account_id: number;
  sequence_number: number;
  entry_hash: string;
}

export interface BackupManifest {
  format: typeof FORMAT;
  version: number;
  created_at: string;
  app_version: string;
  database: 'postgres' | 'pglite';
  /** how the database is in the file (absent in files of version 1: pg_dump for postgres, datadir for pglite) */
  dump?: DumpFormat;
  /** a logical dump's tables (entries, rows) and sequences */
  logical?: LogicalPart;
  /** the newest migration applied to the database backed up */
  migration: string | null;
  /** rows per table of the public schema, in the snapshot */
  tables: Record<string, number>;
  /** per client account, the newest posted entry of its hash chain */
  chain_heads: ChainHead[];
  /** every other entry of the ZIP: its size and SHA-256 */
  entries: Record<string, { size: number; sha256: string }>;
}

/** A problem with a backup file or a restore target: the CLI prints its message and exits 1. */
export class BackupError extends Error {}

export const dumpOf = (m: BackupManifest): DumpFormat => m.dump ?? (m.database === 'postgres' ? 'pg_dump' : 'datadir');

type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/** The manifest's database part, read through `query` (one snapshot: a repeatable-read transaction, or a database nobody else writes). */
async function snapshotFacts(query: Query): Promise<Pick<BackupManifest, 'migration' | 'tables' | 'chain_heads'>> {
  const names = (await query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)).map((r) => String(r.tablename));
  const tables: Record<string, number> = {};
  if (names.length) {
    const counts = await query(names.map((t) => `SELECT '${t}' AS t, count(*)::bigint AS n FROM "${t}"`).join(' UNION ALL '));
    for (const r of counts) tables[String(r.t)] = Number(r.n);
  }
  const migration = names.includes('_prisma_migrations')
    ? ((await query(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name DESC LIMIT 1`))[0]?.migration_name as string | undefined) ?? null
    : null;
  const heads = names.includes('journal_entries')
    ? await query(
        `SELECT DISTINCT ON (client_account_id) client_account_id, sequence_number, entry_hash FROM journal_entries
         WHERE NOT is_draft AND sequence_number IS NOT NULL ORDER BY client_account_id, sequence_number DESC`,
      )
    : [];
  return {
    migration,
    tables,
    chain_heads: heads.map((r) => ({ client_account_id: Number(r.client_account_id), sequence_number: Number(r.sequence_number), entry_hash: String(r.entry_hash) })),
  };
}

const prismaQuery =
  (db: Database): Query =>
  (sql) =>
    db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(sql);

/** Every file under `dir`, as paths relative to it ('/'-separated). */
function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Writes a ZIP entry by entry, streaming, with each entry's size and SHA-256 recorded. */
class ZipWriter {
  private readonly out;
  private readonly zip: Zip;
  private failed?: Error;
  private readonly done: Promise<void>;
  readonly entries: BackupManifest['entries'] = {};

  constructor(path: string) {
    this.out = createWriteStream(path);
    let finish!: () => void;
    let fail!: (e: Error) => void;
    this.done = new Promise<void>((res, rej) => ((finish = res), (fail = rej)));
    this.out.on('error', (e) => ((this.failed = e), fail(e)));
    this.zip = new Zip((err, data, final) => {
      if (err) return ((this.failed = err), fail(err));
      this.out.write(data);
      if (final) this.out.end(() => finish());
    });
  }

  private async drain(): Promise<void> {
    if (this.failed) throw this.failed;
    if (this.out.writableNeedDrain) await new Promise<void>((r) => this.out.once('drain', () => r()));
  }

  /** An entry from a file, from bytes or from chunks as they come; stored as it is (`compress`: deflated, for text). */
  async add(name: string, source: { path: string } | { bytes: Uint8Array } | { chunks: AsyncIterable<Uint8Array> }, compress = false): Promise<void> {
    const entry = compress ? new ZipDeflate(name, { level: 6 }) : new ZipPassThrough(name);
    this.zip.add(entry);
    const hash = createHash('sha256');
    let size = 0;
    if ('bytes' in source) {
      hash.update(source.bytes);
      size = source.bytes.length;
      entry.push(source.bytes, true);
    } else {
      const chunks = 'path' in source ? (createReadStream(source.path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) : source.chunks;
      for await (const chunk of chunks) {
        hash.update(chunk);
        size += chunk.length;
        entry.push(chunk);
        await this.drain();
      }
      entry.push(new Uint8Array(0), true);
    }
    if (name !== MANIFEST) this.entries[name] = { size, sha256: hash.digest('hex') };
    await this.drain();
  }

  async end(): Promise<void> {
    this.zip.end();
    await this.done;
  }
}

const installed = (name: string): boolean => {
  const found = spawnSync(name, ['--version'], { encoding: 'utf8' });
  return !found.error && found.status === 0;
};

/** pg_dump / pg_restore, or a clear error saying what to install. */
function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  if (!installed(name)) {
    throw new BackupError(`${name} was not found: a backup in pg_dump's format is written and restored by ${name} (Debian: apt-get install postgresql-client)`);
  }
  return name;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-4000)));
    child.on('error', rej);
    child.on('close', (code) => (code === 0 ? res() : rej(new BackupError(`${command} failed (exit code ${code}): ${stderr.trim()}`))));
  });
}

export interface BackupResult {
  file: string;
  bytes: number;
  ms: number;
  manifest: BackupManifest;
  /** why the format is not the one asked for or usual (pg_dump missing) */
  note?: string;
}

/** What the CLI prints of a backup written, by itself or by the server it asked (src/backup/admin-socket.ts). */
export function backupSummary(r: BackupResult): Record<string, unknown> {
  const m = r.manifest;
  return {
    file: r.file,
    bytes: r.bytes,
    ms: r.ms,
    database: m.database,
    format: dumpOf(m),
    ...(r.note ? { note: r.note } : {}),
    migration: m.migration,
    tables: Object.keys(m.tables).length,
    rows: Object.values(m.tables).reduce((a, b) => a + b, 0),
    ledgers: m.chain_heads.length,
    files: Object.keys(m.entries).filter((e) => e.startsWith('files/')).length,
  };
}

/** The backup this process is writing, if any: one at a time (the scheduled job waits for it, the admin socket refuses). */
let underWay: { out: string; since: Date; done: Promise<unknown> } | undefined;
export const backupUnderWay = (): { out: string; since: Date } | undefined => underWay && { out: underWay.out, since: underWay.since };

/**
 * Writes a backup of `config`'s database and file store to `out` (through a temporary file beside
 * it, renamed into place: an interrupted backup never looks like one); one at a time in a process.
 * PostgreSQL: one repeatable-read transaction, in which the manifest is read, and pg_dump of its
 * snapshot, or, when pg_dump is not installed or `format` is 'logical', a logical export of our
 * tables in that same transaction (src/backup/logical.ts), while the servers go on serving. PGlite:
 * `db` (the open embedded database: the server's own in the scheduled job and for the admin socket,
 * or the CLI's) dumps its data directory, and the manifest is read from that dump opened in memory;
 * or, with `format` 'logical', exports its tables in one transaction.
 */
export async function writeBackup(config: Config, out: string, db?: Database, { format }: { format?: DumpFormat } = {}): Promise<BackupResult> {
  while (underWay) await underWay.done.catch(() => undefined);
  const work = writeOne(config, out, db, format);
  underWay = { out: resolve(out), since: new Date(), done: work };
  try {
    return await work;
  } finally {
    underWay = undefined;
  }
}

async function writeOne(config: Config, out: string, db: Database | undefined, asked: DumpFormat | undefined): Promise<BackupResult> {
  const started = performance.now();
  const target = resolve(out);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.partial`;
  const work = `${tmp}.d`;
  mkdirSync(work, { recursive: true });
  try {
    const zip = new ZipWriter(tmp);
    const kind: BackupManifest['database'] = config.databaseUrl ? 'postgres' : 'pglite';
    let format: DumpFormat = asked ?? (kind === 'postgres' ? 'pg_dump' : 'datadir');
    let note: string | undefined;
    if (kind === 'postgres' && !asked && !installed('pg_dump')) {
      format = 'logical';
      note = 'pg_dump was not found: a logical export of the tables in one repeatable-read transaction (install postgresql-client for pg_dump\'s format)';
    }
    if ((format === 'pg_dump' && kind !== 'postgres') || (format === 'datadir' && kind !== 'pglite')) {
      throw new BackupError(`the ${format} format is for ${format === 'pg_dump' ? 'PostgreSQL' : 'the embedded database'}; this one is ${kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : 'embedded'}: use ${kind === 'postgres' ? 'pg_dump' : 'datadir'} or logical`);
    }
    let facts!: Awaited<ReturnType<typeof snapshotFacts>>;
    let logical: LogicalPart | undefined;
    /** the manifest's facts and the logical export, in one snapshot */
    const exportIn = async (sql: Sql) => {
      facts = await snapshotFacts((q) => sql.query(q));
      logical = await exportTables(sql, (name, chunks) => zip.add(name, { chunks }, true));
    };
    if (kind === 'postgres') {
      const client = new pg.Client({ connectionString: config.databaseUrl });
      await client.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        if (format === 'logical') await exportIn(pgSql(client));
        else {
          const dumpFile = join(work, DB_ENTRY.pg_dump);
          const tool = pgTool('pg_dump');
          const snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0]!.id;
          facts = await snapshotFacts(async (sql) => (await client.query(sql)).rows);
          // the same snapshot: pg_dump sees exactly what the manifest counted, whatever commits meanwhile
          await run(tool, ['--format=custom', '--no-owner', '--no-privileges', `--snapshot=${snapshot}`, `--file=${dumpFile}`, '--dbname', config.databaseUrl!]);
          await zip.add(DB_ENTRY.pg_dump, { path: dumpFile });
        }
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
    } else {
      if (!db?.pglite) throw new BackupError('the embedded database must be open to back it up');
      if (format === 'logical') {
        // PGlite is one connection: its transaction is a snapshot, and the server's queries wait for it
        await db.pglite.transaction(async (tx) => {
          await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
          await exportIn(pgliteSql(tx));
        });
      } else {
        await db.pglite.exec('CHECKPOINT'); // the data files current: a restore replays little WAL
        const dump = await db.pglite.dumpDataDir('gzip');
        const bytes = new Uint8Array(await dump.arrayBuffer());
        const copy = await openDatabase({ memory: true, loadDataDir: new Blob([bytes]) });
        try {
          facts = await snapshotFacts(prismaQuery(copy));
        } finally {
          await copy.close();
        }
        await zip.add(DB_ENTRY.datadir, { bytes });
      }
    }
    // the file store after the snapshot: a file a row of the snapshot names was written before the row committed
    const store = fileStoreDir(config);
    for (const file of listFiles(store)) await zip.add(`files/${file}`, { path: join(store, file) });
    const manifest: BackupManifest = {
      format: FORMAT,
      version: format === 'logical' ? 2 : 1,
      created_at: new Date().toISOString(),
      app_version: PACKAGE_VERSION,
      database: kind,
      dump: format,
      ...(logical ? { logical } : {}),
      ...facts,
      entries: zip.entries,
    };
    await zip.add(MANIFEST, { bytes: Buffer.from(JSON.stringify(manifest, null, 2)) }, true);
    await zip.end();
    renameSync(tmp, target);
    return { file: target, bytes: statSync(target).size, ms: Math.round(performance.now() - started), manifest, ...(note ? { note } : {}) };
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Entry names a backup may hold: the manifest, a database dump, files of the store (no `..`, no absolute path). */
function safeEntry(name: string): boolean {
  if (name === MANIFEST || name === DB_ENTRY.pg_dump || name === DB_ENTRY.datadir || LOGICAL_ENTRY.test(name)) return true;
  return /^files\/[A-Za-z0-9._/-]+$/.test(name) && !name.split('/').some((p) => p === '' || p === '.' || p === '..');
}

interface Unpacked {
  manifest: BackupManifest;
  /** the directory the entries were written to */
  dir: string;
  problems: string[];
}

/**
 * Unpacks a backup into `dir` (entry by entry, streaming) and checks it against its manifest: every
 * entry listed, none more, each with its size and SHA-256. Answers the problems found (empty: the
 * file is what was written).
 */
async function unpack(file: string, dir: string): Promise<Unpacked> {
  if (!existsSync(file)) throw new BackupError(`${file}: no such file`);
  mkdirSync(dir, { recursive: true });
  const seen = new Map<string, { size: number; sha256: string }>();
  const problems: string[] = [];
  const unreadable = new Set<string>();
  const unzip = new Unzip((entry) => {
    if (!safeEntry(entry.name)) {
      problems.push(`entry ${JSON.stringify(entry.name)} is not one a backup holds`);
      return;
    }
    if (seen.has(entry.name)) {
      problems.push(`entry ${entry.name} appears twice`);
      return;
    }
    const path = join(dir, entry.name);
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'w');
    const hash = createHash('sha256');
    let size = 0;
    let broken = false;
    entry.ondata = (err, data, final) => {
      if (broken) return;
      if (err) {
        // a damaged entry is a problem found, like a wrong checksum: the rest is still checked
        broken = true;
        closeSync(fd);
        unreadable.add(entry.name);
        problems.push(`${entry.name} cannot be read (damaged): ${err.message}`);
        return;
      }
      hash.update(data);
      size += data.length;
      writeSync(fd, data);
      if (final) {
        closeSync(fd);
        seen.set(entry.name, { size, sha256: hash.digest('hex') });
      }
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) unzip.push(chunk as Buffer);
    unzip.push(new Uint8Array(0), true);
  } catch (e) {
    throw new BackupError(`${file} is not a readable ZIP file: ${(e as Error).message}`);
  }
  if (!seen.has(MANIFEST)) throw new BackupError(`${file} has no ${MANIFEST}: it is not a backup of this service`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as BackupManifest;
  } catch {
    throw new BackupError(`${file}: ${MANIFEST} is not JSON`);
  }
  if (manifest.format !== FORMAT || typeof manifest.entries !== 'object' || !manifest.tables || !Array.isArray(manifest.chain_heads)) {
    throw new BackupError(`${file}: ${MANIFEST} is not a manifest of this service's backups`);
  }
  if (manifest.version > VERSION) throw new BackupError(`${file} is a backup of format version ${manifest.version}; this version reads ${VERSION}`);
  for (const [name, expected] of Object.entries(manifest.entries)) {
    const got = seen.get(name);
    if (!got) {
      if (!unreadable.has(name)) problems.push(`${name} is missing`);
    }
    else if (got.size !== expected.size || got.sha256 !== expected.sha256) problems.push(`${name} differs from what was written (SHA-256 ${got.sha256}, the manifest says ${expected.sha256})`);
  }
  for (const name of seen.keys()) if (name !== MANIFEST && !Object.hasOwn(manifest.entries, name)) problems.push(`${name} is not listed in the manifest`);
  const dump = dumpOf(manifest);
  if (!DUMP_FORMATS.includes(dump) || (dump === 'logical' && !Array.isArray(manifest.logical?.tables))) throw new BackupError(`${file}: ${MANIFEST} names no database dump this version reads`);
  if (dump === 'logical') {
    for (const t of manifest.logical!.tables) {
      if (!LOGICAL_ENTRY.test(t.entry) || t.entry !== entryOf(t.schema, t.table)) throw new BackupError(`${file}: ${MANIFEST} names ${JSON.stringify(t.entry)}, which is no table's entry`);
    }
  }
  const dumpEntries = dump === 'logical' ? manifest.logical!.tables.map((t) => t.entry) : [DB_ENTRY[dump]];
  for (const entry of dumpEntries) if (!Object.hasOwn(manifest.entries, entry)) problems.push(`the database dump ${entry} is not listed`);
  return { manifest, dir, problems };
}

export interface Verification {
  ok: boolean;
  problems: string[];
  /** what was checked beyond the checksums */
  checked: string[];
  accounts_verified: number;
}

/** Compares a restored (or loaded) database with the manifest: counts, chain heads, every account's chain. */
async function compareWithManifest(db: Database, manifest: BackupManifest): Promise<Verification> {
  const problems: string[] = [];
  const now = await snapshotFacts(prismaQuery(db));
  for (const [table, n] of Object.entries(manifest.tables)) {
    if (now.tables[table] !== n) problems.push(`table ${table}: ${now.tables[table] ?? 'missing'} rows, the manifest says ${n}`);
  }
  const heads = new Map(now.chain_heads.map((h) => [h.client_account_id, h]));
  for (const h of manifest.chain_heads) {
    const got = heads.get(h.client_account_id);
    if (!got || got.sequence_number !== h.sequence_number || got.entry_hash !== h.entry_hash) {
      problems.push(`client account ${h.client_account_id}: chain head ${got ? `${got.sequence_number} ${got.entry_hash}` : 'missing'}, the manifest says ${h.sequence_number} ${h.entry_hash}`);
    }
  }
  if (now.chain_heads.length !== manifest.chain_heads.length) problems.push(`${now.chain_heads.length} ledgers, the manifest lists ${manifest.chain_heads.length}`);
  let verified = 0;
  for (const h of manifest.chain_heads) {
    const v = await verifyLedger(db.prisma, h.client_account_id);
    verified++;
    if (!v.ok) problems.push(`client account ${h.client_account_id}: verify-ledger fails: ${v.broken[0]?.reason ?? 'broken'}`);
  }
  return { ok: problems.length === 0, problems, checked: ['row counts', 'chain heads', 'verify-ledger of every account'], accounts_verified: verified };
}

/**
 * The job queue's schema, brought by the caller (src/jobs/runner.ts imports every job, this module's
 * own among them): its version, and how to create it in a restored database.
 */
export interface JobQueueSchema {
  version: number;
  migrate(db: Database): Promise<void>;
}

/** Runs `fn` in one transaction on one connection of `db`: PGlite's own, or a connection of its own on PostgreSQL. */
async function inOneTransaction<T>(db: Database, fn: (sql: Sql) => Promise<T>): Promise<T> {
  if (db.pglite) return db.pglite.transaction((tx) => fn(pgliteSql(tx)));
  const client = new pg.Client({ connectionString: db.connectionString });
  await client.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(pgSql(client));
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    await client.end();
  }
}

/**
 * Loads a logical backup unpacked in `dir` into the empty database `db`: the schema by the migration
 * history up to the backup's migration (the server's own code path, applyMigrations), the job
 * queue's by `jobs`, then every row in one transaction (src/backup/logical.ts). Answers notes on
 * what was left out (jobs).
 */
async function loadLogical(db: Database, manifest: BackupManifest, dir: string, jobs?: JobQueueSchema): Promise<string[]> {
  const part = manifest.logical!;
  if (!manifest.migration) throw new BackupError('the backup names no migration: there is no schema to load its rows into');
  await applyMigrations(db.adapterFactory, { upTo: manifest.migration }).catch((e: Error) => {
    throw new BackupError(`the backup's schema cannot be created: ${e.message}; restore it with the version that wrote it (${manifest.app_version})`);
  });
  const carriesJobs = part.jobs_schema_version !== null;
  if (carriesJobs && jobs) await jobs.migrate(db);
  return inOneTransaction(db, (sql) => loadTables(sql, part, dir, carriesJobs && jobs ? jobs.version : null));
}

/**
 * Checks a backup without restoring it: the entries against the manifest's checksums; a PGlite dump
 * is opened in memory, a logical dump loaded into an in-memory embedded database, and the counts,
 * chain heads and every ledger's chain are checked too; a PostgreSQL dump's table of contents is read
 * by pg_restore --list (its rows need a server).
 */
export async function verifyBackup(file: string, scratch: string): Promise<Verification & { manifest: BackupManifest }> {
  const { manifest, problems } = await unpack(file, scratch);
  const checked = ['checksums of every entry'];
  let accounts = 0;
  const dump = dumpOf(manifest);
  if (problems.length === 0 && dump !== 'pg_dump') {
    const db = await openDatabase({ memory: true, loadDataDir: dump === 'datadir' ? await openAsBlob(join(scratch, DB_ENTRY.datadir)) : undefined }).catch((e: Error) => {
      throw new BackupError(`the database dump does not open: ${e.message}`);
    });
    try {
      if (dump === 'logical') {
        await loadLogical(db, manifest, scratch);
        checked.push('every table loaded into an in-memory database');
      }
      const v = await compareWithManifest(db, manifest);
      problems.push(...v.problems);
      checked.push(...v.checked);
      accounts = v.accounts_verified;
    } catch (e) {
      if (e instanceof BackupError) throw e;
      problems.push(`the database dump does not load: ${(e as Error).message}`);
    } finally {
      await db.close();
    }
  } else if (problems.length === 0) {
    const list = spawnSync(pgTool('pg_restore'), ['--list', join(scratch, DB_ENTRY.pg_dump)], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (list.status !== 0) problems.push(`pg_restore cannot read the database dump: ${list.stderr.trim()}`);
    else {
      checked.push('the dump\'s table of contents (pg_restore --list)');
      for (const table of Object.keys(manifest.tables)) if (!new RegExp(`TABLE DATA public ${table} `).test(list.stdout)) problems.push(`the dump holds no data of table ${table}`);
    }
  }
  return { ok: problems.length === 0, problems, checked, accounts_verified: accounts, manifest };
}

/** Is the target database empty (no table outside the system schemas)? */
async function postgresIsEmpty(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`);
    return Number(r.rows[0]!.n) === 0;
  } finally {
    await client.end();
  }
}

/**
 * Empties again a PostgreSQL database a failed logical restore created the schema in (it was empty
 * before: postgresIsEmpty): the job queue's schema, and the tables, sequences, types and functions of
 * the public schema.
 */
async function emptyPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DO $$ DECLARE r record; BEGIN
      DROP SCHEMA IF EXISTS pgboss CASCADE;
      FOR r IN SELECT tablename AS n FROM pg_tables WHERE schemaname = 'public' LOOP EXECUTE format('DROP TABLE IF EXISTS public.%I CASCADE', r.n); END LOOP;
      FOR r IN SELECT sequencename AS n FROM pg_sequences WHERE schemaname = 'public' LOOP EXECUTE format('DROP SEQUENCE IF EXISTS public.%I CASCADE', r.n); END LOOP;
      FOR r IN SELECT p.oid::regprocedure AS n FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace LOOP EXECUTE format('DROP FUNCTION IF EXISTS %s CASCADE', r.n); END LOOP;
      FOR r IN SELECT t.typname AS n FROM pg_type t WHERE t.typnamespace = 'public'::regnamespace AND t.typtype = 'e' LOOP EXECUTE format('DROP TYPE IF EXISTS public.%I CASCADE', r.n); END LOOP;
    END $$`);
  } finally {
    await client.end();
  }
}

export interface RestoreResult extends Verification {
  manifest: BackupManifest;
  files: number;
  /** what was left out (a logical dump's jobs of queues this version lacks) */
  notes: string[];
  /** migrations of this version newer than the backup's, applied after the checks */
  migrations_applied: string[];
}

/**
 * Restores a backup into an empty database (DATABASE_URL, or DATA_DIR's embedded one) and an empty
 * file store, then checks the result against the manifest (counts, chain heads, verify-ledger of every
 * account). Refuses a target that holds anything. The file store is moved into place only after the
 * database was restored. A logical dump restores into either kind of database, and is brought up to
 * this version's migrations after the checks; pg_dump's and PGlite's own formats into their own kind.
 * `jobs`: the job queue's schema, for a logical dump's waiting jobs.
 */
export async function restoreBackup(config: Config, file: string, jobs?: JobQueueSchema): Promise<RestoreResult> {
  const store = fileStoreDir(config);
  if (listFiles(store).length) throw new BackupError(`the file store ${store} is not empty: restore into an empty DATA_DIR`);
  const pgliteDir = join(config.dataDir, 'pglite');
  if (!config.databaseUrl && existsSync(join(pgliteDir, 'PG_VERSION'))) {
    throw new BackupError(`the embedded database in ${pgliteDir} exists: restore into an empty DATA_DIR (or set DATABASE_URL to an empty PostgreSQL database)`);
  }
  if (config.databaseUrl && !(await postgresIsEmpty(config.databaseUrl))) {
    throw new BackupError('the database of DATABASE_URL is not empty: restore into a new, empty database');
  }
  mkdirSync(config.dataDir, { recursive: true });
  const staging = join(config.dataDir, `.restore-${process.pid}`);
  try {
    const { manifest, problems } = await unpack(file, staging);
    if (problems.length) throw new BackupError(`the backup is damaged, nothing was restored: ${problems.join('; ')}`);
    const kind = config.databaseUrl ? 'postgres' : 'pglite';
    const dump = dumpOf(manifest);
    if (dump !== 'logical' && manifest.database !== kind) {
      throw new BackupError(`this is a backup of a ${manifest.database} database in ${dump}'s format; the target is ${kind} (${kind === 'postgres' ? 'DATABASE_URL is set' : 'DATABASE_URL is not set'}). A logical backup (backup --format logical) restores into either`);
    }
    let db: Database;
    let notes: string[] = [];
    if (dump === 'pg_dump') {
      // one transaction: a failing restore leaves the database empty
      await run(pgTool('pg_restore'), ['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', '--dbname', config.databaseUrl!, join(staging, DB_ENTRY.pg_dump)]);
      db = await openDatabase({ databaseUrl: config.databaseUrl! });
    } else if (dump === 'datadir') {
      db = await openDatabase({ dataDir: config.dataDir, purpose: 'admin restore', loadDataDir: await openAsBlob(join(staging, DB_ENTRY.datadir)) });
    } else {
      db = await openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir, purpose: 'admin restore' });
      try {
        notes = await loadLogical(db, manifest, staging, jobs);
      } catch (e) {
        // the rows went in one transaction, but the schema before it: leave the target as empty as it was
        await db.close();
        if (config.databaseUrl) await emptyPostgres(config.databaseUrl);
        else rmSync(pgliteDir, { recursive: true, force: true });
        throw e;
      }
    }
    let verification: Verification;
    let applied: string[] = [];
    try {
      verification = await compareWithManifest(db, manifest);
      if (dump === 'logical') applied = await applyMigrations(db.adapterFactory);
    } finally {
      await db.close();
    }
    const restoredFiles = join(staging, 'files');
    let files = 0;
    if (existsSync(restoredFiles)) {
      files = listFiles(restoredFiles).length;
      rmSync(store, { recursive: true, force: true });
      renameSync(restoredFiles, store);
    }
    return { ...verification, manifest, files, notes, migrations_applied: applied };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The backups in `dir` written by the scheduled job, oldest first. */
export function scheduledBackups(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^backup-\d{8}T\d{6}Z\.zip$/.test(f))
    .sort();
}

/** A scheduled backup into BACKUP_DIR, keeping the newest BACKUP_KEEP. */
export async function scheduledBackup(config: Config, db: Database, now = new Date()): Promise<{ file: string; removed: string[] }> {
  const dir = config.backup.dir;
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const { file } = await writeBackup(config, join(dir, `backup-${stamp}.zip`), db);
  const all = scheduledBackups(dir);
  const removed = all.slice(0, Math.max(0, all.length - config.backup.keep));
  for (const f of removed) rmSync(join(dir, f), { force: true });
  return { file, removed };
}
