import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Database, Db } from '../db/database.ts';
import type { Logger } from '../shared/logger.ts';

/**
 * How pg-boss reaches the database: its `db: { executeSql }` option, one implementation per
 * database plus one over a Prisma client (for inserting a job inside the caller's transaction).
 *
 * pg-boss sends three kinds of SQL: statements with parameters, single statements without, and
 * "locked" scripts (schema creation, migrations, maintenance) of the form
 * `BEGIN; SET LOCAL …; SELECT pg_advisory_xact_lock(…); …; COMMIT;`. A script that fails half-way
 * leaves its connection inside an aborted transaction (on PostgreSQL as on PGlite), so scripts run
 * with a rollback on failure, on the same connection and before anything else can use it.
 */
export type SqlExecutor = PgBoss.Db & {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
};

/** The body of a pg-boss `locked()` script without its BEGIN and COMMIT, or null for other SQL. */
export function lockedScriptBody(text: string): string | null {
  return /^\s*BEGIN;([\s\S]*)COMMIT;\s*$/.exec(text)?.[1] ?? null;
}

/**
 * On PGlite, through the app's own instance (one connection). PGlite's `query` and `exec` wait for
 * its transaction mutex, which `transaction()` holds from BEGIN to COMMIT; pglite-prisma-adapter runs
 * every Prisma interactive transaction through `transaction()`, so pg-boss's statements can never
 * land inside an open Prisma transaction: they wait for it to end. `query` speaks the extended
 * protocol (one statement, parameters); a locked script runs as `exec` inside `transaction()`, which
 * rolls back under the same mutex when it fails.
 */
export function pgliteExecutor(pglite: PGlite): SqlExecutor {
  return {
    async executeSql(text, values) {
      if (values?.length) return pglite.query(text, values);
      const body = lockedScriptBody(text);
      if (body !== null) {
        await pglite.transaction((tx) => tx.exec(body));
        return { rows: [] };
      }
      const results = await pglite.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
  };
}

/** On PostgreSQL, a small pool of its own from the connection string (pg-boss's own way). */
export function postgresExecutor(connectionString: string, logger: Logger): SqlExecutor & { close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString, max: 4, application_name: 'regnskap-jobs' });
  pool.on('error', (err) => logger.warn({ err }, 'job queue: idle database connection failed'));
  return {
    async executeSql(text, values) {
      if (values?.length || lockedScriptBody(text) === null) return pool.query(text, values as unknown[]);
      const client = await pool.connect();
      try {
        return await client.query(text);
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** The job queue's connection to a Database (its own pool on PostgreSQL, the app's PGlite otherwise). */
export function openExecutor(db: Database, logger: Logger): SqlExecutor & { close(): Promise<void> } {
  if (db.pglite) return { ...pgliteExecutor(db.pglite), close: async () => undefined };
  if (!db.connectionString) throw new Error('The job queue needs the PostgreSQL connection string of the database');
  return postgresExecutor(db.connectionString, logger);
}

/**
 * Through a Prisma client or transaction client: pg-boss's `send(…, { db })` then inserts the job
 * with the caller's other writes, so a rolled-back operation enqueues nothing. Objects (the job's
 * data) are passed as JSON text; both adapters then let PostgreSQL cast them (`$3::jsonb`).
 */
export function prismaExecutor(db: Db): SqlExecutor {
  return {
    async executeSql(text, values = []) {
      const params = values.map((v) => (v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v));
      return { rows: await db.$queryRawUnsafe<any[]>(text, ...params) };
    },
  };
}
