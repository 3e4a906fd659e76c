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

/**
 * Backups of everything the service stores (src/backup/README.md): the database and the file store,
 * in one ZIP with a manifest of row counts and ledger chain heads. One file, restorable into an
 * empty database, checkable without restoring.
 */

const FORMAT = 'regnskap-backup';
const VERSION = 1;
/** The database's entry in the ZIP: pg_dump's custom format, or PGlite's data directory as a gzipped tar. */
const DB_ENTRY = { postgres: 'database.pgdump', pglite: 'database.tar.gz' } as const;
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

  /** An entry from a file, or from bytes; stored as it is (`compress`: deflated, for text). */
  async add(name: string, source: { path: string } | { bytes: Uint8Array }, compress = false): Promise<void> {
    const entry = compress ? new ZipDeflate(name, { level: 6 }) : new ZipPassThrough(name);
    this.zip.add(entry);
    const hash = createHash('sha256');
    let size = 0;
    if ('bytes' in source) {
      hash.update(source.bytes);
      size = source.bytes.length;
      entry.push(source.bytes, true);
    } else {
      for await (const chunk of createReadStream(source.path, { highWaterMark: 1 << 20 })) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
        entry.push(chunk as Buffer);
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

/** pg_dump / pg_restore, or a clear error saying what to install. */
function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  const found = spawnSync(name, ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) {
    throw new BackupError(`${name} was not found: a PostgreSQL backup is written and restored by ${name} (Debian: apt-get install postgresql-client)`);
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
}

/**
 * Writes a backup of `config`'s database and file store to `out` (through a temporary file beside
 * it, renamed into place: an interrupted backup never looks like one). PostgreSQL: pg_dump of the
 * snapshot of one repeatable-read transaction, in which the manifest is read too, while the server
 * goes on serving. PGlite: `db` (the open embedded database: the server's own in the scheduled job,
 * or the CLI's) dumps its data directory; the manifest is read from that dump, opened in memory.
 */
export async function writeBackup(config: Config, out: string, db?: Database): Promise<BackupResult> {
  const started = performance.now();
  const target = resolve(out);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.partial`;
  const work = `${tmp}.d`;
  mkdirSync(work, { recursive: true });
  try {
    const zip = new ZipWriter(tmp);
    let facts: Awaited<ReturnType<typeof snapshotFacts>>;
    let kind: BackupManifest['database'];
    if (config.databaseUrl) {
      kind = 'postgres';
      const dumpFile = join(work, DB_ENTRY.postgres);
      const tool = pgTool('pg_dump');
      const client = new pg.Client({ connectionString: config.databaseUrl });
      await client.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0]!.id;
        facts = await snapshotFacts(async (sql) => (await client.query(sql)).rows);
        // the same snapshot: pg_dump sees exactly what the manifest counted, whatever commits meanwhile
        await run(tool, ['--format=custom', '--no-owner', '--no-privileges', `--snapshot=${snapshot}`, `--file=${dumpFile}`, '--dbname', config.databaseUrl]);
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
      await zip.add(DB_ENTRY.postgres, { path: dumpFile });
    } else {
      kind = 'pglite';
      if (!db?.pglite) throw new BackupError('the embedded database must be open to back it up');
      await db.pglite.exec('CHECKPOINT'); // the data files current: a restore replays little WAL
      const dump = await db.pglite.dumpDataDir('gzip');
      const bytes = new Uint8Array(await dump.arrayBuffer());
      const copy = await openDatabase({ memory: true, loadDataDir: new Blob([bytes]) });
      try {
        facts = await snapshotFacts(prismaQuery(copy));
      } finally {
        await copy.close();
      }
      await zip.add(DB_ENTRY.pglite, { bytes });
    }
    // the file store after the snapshot: a file a row of the snapshot names was written before the row committed
    const store = fileStoreDir(config);
    for (const file of listFiles(store)) await zip.add(`files/${file}`, { path: join(store, file) });
    const manifest: BackupManifest = { format: FORMAT, version: VERSION, created_at: new Date().toISOString(), app_version: PACKAGE_VERSION, database: kind, ...facts, entries: zip.entries };
    await zip.add(MANIFEST, { bytes: Buffer.from(JSON.stringify(manifest, null, 2)) }, true);
    await zip.end();
    renameSync(tmp, target);
    return { file: target, bytes: statSync(target).size, ms: Math.round(performance.now() - started), manifest };
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Entry names a backup may hold: the manifest, a database dump, files of the store (no `..`, no absolute path). */
function safeEntry(name: string): boolean {
  if (name === MANIFEST || name === DB_ENTRY.postgres || name === DB_ENTRY.pglite) return true;
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
  let failure: Error | undefined;
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
    entry.ondata = (err, data, final) => {
      if (err) {
        failure ??= new BackupError(`entry ${entry.name} cannot be read: ${err.message}`);
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
  if (failure) throw failure;
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
    if (!got) problems.push(`${name} is missing`);
    else if (got.size !== expected.size || got.sha256 !== expected.sha256) problems.push(`${name} differs from what was written (SHA-256 ${got.sha256}, the manifest says ${expected.sha256})`);
  }
  for (const name of seen.keys()) if (name !== MANIFEST && !Object.hasOwn(manifest.entries, name)) problems.push(`${name} is not listed in the manifest`);
  if (!Object.hasOwn(manifest.entries, DB_ENTRY[manifest.database])) problems.push(`the database dump ${DB_ENTRY[manifest.database]} is not listed`);
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
 * Checks a backup without restoring it: the entries against the manifest's checksums; a PGlite dump
 * is opened in memory and its counts, chain heads and every ledger's chain are checked too; a
 * PostgreSQL dump's table of contents is read by pg_restore --list (its rows need a server).
 */
export async function verifyBackup(file: string, scratch: string): Promise<Verification & { manifest: BackupManifest }> {
  const { manifest, problems } = await unpack(file, scratch);
  const checked = ['checksums of every entry'];
  let accounts = 0;
  if (problems.length === 0 && manifest.database === 'pglite') {
    const db = await openDatabase({ memory: true, loadDataDir: await openAsBlob(join(scratch, DB_ENTRY.pglite)) }).catch((e: Error) => {
      throw new BackupError(`the database dump does not open: ${e.message}`);
    });
    try {
      const v = await compareWithManifest(db, manifest);
      problems.push(...v.problems);
      checked.push(...v.checked);
      accounts = v.accounts_verified;
    } finally {
      await db.close();
    }
  } else if (problems.length === 0) {
    const list = spawnSync(pgTool('pg_restore'), ['--list', join(scratch, DB_ENTRY.postgres)], { encoding: 'utf8', maxBuffer: 64 << 20 });
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
 * Restores a backup into an empty database (DATABASE_URL, or DATA_DIR's embedded one) and an empty
 * file store, then checks the result against the manifest (counts, chain heads, verify-ledger of every
 * account). Refuses a target that holds anything. The file store is moved into place only after the
 * database was restored.
 */
export async function restoreBackup(config: Config, file: string): Promise<Verification & { manifest: BackupManifest; files: number }> {
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
    if (manifest.database !== kind) throw new BackupError(`this is a backup of a ${manifest.database} database; the target is ${kind} (${kind === 'postgres' ? 'DATABASE_URL is set' : 'DATABASE_URL is not set'})`);
    let db: Database;
    if (kind === 'postgres') {
      // one transaction: a failing restore leaves the database empty
      await run(pgTool('pg_restore'), ['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', '--dbname', config.databaseUrl!, join(staging, DB_ENTRY.postgres)]);
      db = await openDatabase({ databaseUrl: config.databaseUrl! });
    } else {
      db = await openDatabase({ dataDir: config.dataDir, purpose: 'admin restore', loadDataDir: await openAsBlob(join(staging, DB_ENTRY.pglite)) });
    }
    let verification: Verification;
    try {
      verification = await compareWithManifest(db, manifest);
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
    return { ...verification, manifest, files };
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
