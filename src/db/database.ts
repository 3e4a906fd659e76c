import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient, type Prisma as PrismaNS } from '../generated/prisma/client.ts';
import { lockDataDir, type DataDirLock } from './lock.ts';
import { fairQueries } from './fair-queries.ts';
import { copyTemplate, type TemplateKind } from './template.mjs';

export type Prisma = PrismaClient;
/** A transaction client (inside `$transaction(async (tx) => …)`). */
export type Tx = PrismaNS.TransactionClient;
/** Either: for functions that work alone or inside the caller's transaction. */
export type Db = Prisma | Tx;

export interface Database {
  kind: 'pglite' | 'postgres';
  /** feeds both the migration engine and PrismaClient */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  prisma: PrismaClient;
  /** Human-readable target, without credentials */
  describe: string;
  /** the embedded engine, when kind is pglite (tests dump and clone it; the job queue runs on it) */
  pglite?: PGlite;
  /** the connection string, when kind is postgres (the job queue opens its own pool with it) */
  connectionString?: string;
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { databaseUrl: string }
  /** the embedded database in dataDir; a new data dir can start from a dump (tests) */
  | { dataDir: string; purpose: string; loadDataDir?: Blob | File; template?: TemplateKind }
  /** in-memory PGlite, optionally loaded from a dump (tests) */
  | { memory: true; loadDataDir?: Blob | File };

export interface PrismaOptions {
  log?: ConstructorParameters<typeof PrismaClient>[0]['log'];
}

/**
 * pglite-prisma-adapter 0.7.2 does not await `exec` in executeScript: a failing migration would be
 * recorded as applied. Wrap it so the error reaches the engine, as with PostgreSQL.
 */
function awaitingScripts(factory: PrismaPGlite): SqlMigrationAwareDriverAdapterFactory {
  const fix = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    const a = adapter as SqlDriverAdapter & { client: PGlite; onError(e: unknown): never };
    a.executeScript = async (script: string) => {
      try {
        await a.client.exec(script);
      } catch (e) {
        a.onError(e);
      }
    };
    return a;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    // PGlite runs one query at a time: one turn, handed on after the finished query's request asked for its next
    connect: async () => fairQueries(yieldingQueries(fix(await factory.connect())), 1, { deferHandOff: true }),
    connectToShadowDb: async () => fix(await factory.connectToShadowDb()),
  };
}

/**
 * PGlite runs each query on this thread, and its promise chain never waits on I/O, so a busy server
 * would stay in microtasks from one query to the next and the event loop would not get to read new
 * requests or fire timers: requests pile up unseen in the kernel and admission control
 * (src/http/admission.ts) cannot answer them. Every query first yields one turn of the event loop
 * (setImmediate), so between two queries the server reads its sockets and runs its timers.
 * Patched once on the adapter's query class, which its transactions share.
 */
const patched = new WeakSet<object>();
function yieldingQueries(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const queryable = Object.getPrototypeOf(Object.getPrototypeOf(adapter)) as { performIO?: (query: unknown) => Promise<unknown> };
  if (typeof queryable.performIO !== 'function') throw new Error('pglite-prisma-adapter changed: no performIO to yield in (src/db/database.ts)');
  if (!patched.has(queryable)) {
    patched.add(queryable);
    const performIO = queryable.performIO;
    queryable.performIO = async function (this: unknown, query: unknown) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      return performIO.call(this, query);
    };
  }
  return adapter;
}

/** connections of the pg pool (pg's default); the fair turns of its queries (src/db/fair-queries.ts) are as many */
const POOL_SIZE = 10;

/**
 * PGlite's start parameters: its defaults with 32 MB of shared buffers instead of PostgreSQL's
 * 128 MB. PGlite zeroes the whole shared memory at every start (an mmap'ed area memset in
 * WebAssembly), which cost 0.5 s of each start and put 128 MB into the process's resident memory;
 * 32 MB takes a quarter of both. Pages not in the buffers are read from the data directory through
 * the operating system's cache, so the embedded database's queries measured the same on the demo
 * books (issue 31); books large enough to feel it belong on PostgreSQL (DATABASE_URL).
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

/**
 * @prisma/adapter-pg 7.10 runs a script as its pieces between semicolons, which cuts a function
 * body (the change outbox's trigger function, PL/pgSQL) apart. Run it whole, as PostgreSQL's simple
 * query protocol takes several statements, on one connection of the pool; a failed script leaves no
 * open transaction on that connection.
 */
function wholeScripts(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const a = adapter as SqlDriverAdapter & { client: { connect(): Promise<{ query(sql: string): Promise<unknown>; release(): void }> }; onError(e: unknown): never };
  if (typeof a.client?.connect !== 'function') throw new Error('@prisma/adapter-pg changed: no pool to run scripts on (src/db/database.ts)');
  a.executeScript = async (script: string) => {
    const conn = await a.client.connect();
    try {
      await conn.query(script);
    } catch (e) {
      await conn.query('ROLLBACK').catch(() => undefined);
      a.onError(e);
    } finally {
      conn.release();
    }
  };
  return a;
}

function fairPostgres(factory: PrismaPg): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => fairQueries(wholeScripts(await factory.connect()), POOL_SIZE),
    connectToShadowDb: async () => wholeScripts(await factory.connectToShadowDb()),
  };
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'PostgreSQL';
  }
}

/**
 * How long an interactive transaction may wait to start, and run. Prisma's defaults (2 s, 5 s) made
 * a request a 500 when it merely queued: PGlite runs one transaction at a time, so with a few
 * requests at once on a loaded machine a transaction waited past 2 s for the one before it (a pool's
 * connections are the same on PostgreSQL). Requests are already bounded at the door (admission,
 * REQUEST_QUEUE_TIMEOUT_MS); past these, the answer is a 503 (P2028 in fromPrismaError), nothing written.
 */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

/** Whether PGlite's directory (DATA_DIR/pglite) holds no database yet: missing, or left empty by a start that failed. */
export function isNewDataDir(pgliteDir: string): boolean {
  return !existsSync(pgliteDir) || readdirSync(pgliteDir).length === 0;
}

export async function openDatabase(target: DatabaseTarget, options: PrismaOptions = {}): Promise<Database> {
  if ('databaseUrl' in target) {
    const adapterFactory = fairPostgres(new PrismaPg({ connectionString: target.databaseUrl, max: POOL_SIZE }));
    const prisma = new PrismaClient({ adapter: adapterFactory, log: options.log, transactionOptions: TRANSACTION_OPTIONS });
    return {
      kind: 'postgres',
      adapterFactory,
      prisma,
      describe: redact(target.databaseUrl),
      connectionString: target.databaseUrl,
      close: () => prisma.$disconnect(),
    };
  }
  let lock: DataDirLock | undefined;
  let pg: PGlite;
  let describe: string;
  if ('memory' in target) {
    pg = await PGlite.create({ loadDataDir: target.loadDataDir, startParams: PGLITE_START_PARAMS });
    describe = 'in-memory PGlite';
  } else {
    lock = lockDataDir(target.dataDir, target.purpose);
    try {
      const dir = join(target.dataDir, 'pglite');
      // a new data directory starts as a copy of the install's template (under the lock: one copy)
      if (target.template && isNewDataDir(dir)) {
        rmSync(dir, { recursive: true, force: true });
        await copyTemplate(target.template, dir);
      }
      mkdirSync(dir, { recursive: true });
      pg = await PGlite.create(dir, { loadDataDir: target.loadDataDir, startParams: PGLITE_START_PARAMS });
    } catch (e) {
      lock.release();
      throw e;
    }
    describe = `embedded PGlite in ${join(target.dataDir, 'pglite')}`;
  }
  const adapterFactory = awaitingScripts(new PrismaPGlite(pg));
  const prisma = new PrismaClient({ adapter: adapterFactory, log: options.log, transactionOptions: TRANSACTION_OPTIONS });
  return {
    kind: 'pglite',
    adapterFactory,
    prisma,
    describe,
    pglite: pg,
    async close() {
      await prisma.$disconnect();
      await pg.close();
      lock?.release();
    },
  };
}
