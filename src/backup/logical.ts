import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * The logical format of a backup (src/backup/README.md, "Logical export"): our tables as JSON lines
 * that the database itself writes (`row_to_json`) and reads back (`json_populate_recordset`), one ZIP
 * entry per table, read through a cursor in batches, so no table is ever held whole in memory. It
 * needs nothing installed, and it restores into PostgreSQL and into the embedded database alike,
 * whichever of the two it was taken from.
 */

/** One connection inside a transaction its caller opened: a query and its rows. */
export interface Sql {
  query(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

export const pgSql = (client: pg.Client): Sql => ({ query: async (text, params) => (await client.query(text, params)).rows });
export const pgliteSql = (tx: Transaction | PGlite): Sql => ({ query: async (text, params) => (await tx.query<Record<string, unknown>>(text, params)).rows });

export interface LogicalTable {
  schema: 'public' | 'pgboss';
  table: string;
  /** its entry in the ZIP: database/<schema>.<table>.jsonl, one row a line */
  entry: string;
  rows: number;
}

/** The manifest's part of a logical backup: what to load, and the sequences' values. */
export interface LogicalPart {
  tables: LogicalTable[];
  /** every sequence of the public schema: its last value (null: never drawn) */
  sequences: Record<string, string | null>;
  /** pg-boss's schema version of the job rows carried (pgboss.version), null when there was no job queue */
  jobs_schema_version: number | null;
}

export const LOGICAL_ENTRY = /^database\/(public|pgboss)\.[a-z0-9_]+\.jsonl$/;
export const entryOf = (schema: string, table: string): string => `database/${schema}.${table}.jsonl`;

export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Rows fetched from the cursor at a time, on export. */
const FETCH_ROWS = 2000;
/** Rows (and at most bytes) sent in one INSERT, on restore. */
const LOAD_ROWS = 2000;
const LOAD_BYTES = 8 << 20;

/**
 * The job queue's rows that are carried: jobs that have yet to run or to finish (waiting, to be
 * retried, running: a running one is retried after its expiry, as after a crash). Its history
 * (completed, failed, cancelled, the archive) and its schedules and queues are not: the restoring
 * version creates those.
 */
const CARRIED_JOBS = `state IN ('created', 'retry', 'active')`;

/**
 * A query's rows as JSON lines the database writes, in batches through a cursor; counts them into
 * `counted`. row_to_json writes no line break (strings escape theirs, jsonb is written on one line),
 * except inside a `json` column, whose text it copies: a table with one is written by to_jsonb.
 */
async function* jsonLines(sql: Sql, select: string, counted: { rows: number }, hasJsonColumn: boolean): AsyncGenerator<Uint8Array> {
  await sql.query(`DECLARE backup_rows NO SCROLL CURSOR FOR SELECT ${hasJsonColumn ? 'to_jsonb' : 'row_to_json'}(t)::text AS line FROM (${select}) t`);
  for (;;) {
    const rows = await sql.query(`FETCH ${FETCH_ROWS} FROM backup_rows`);
    if (rows.length === 0) break;
    counted.rows += rows.length;
    yield Buffer.from(rows.map((r) => `${r.line as string}\n`).join(''));
  }
  await sql.query('CLOSE backup_rows');
}

/**
 * Exports every table of the public schema, and the job queue's carried jobs, through `sql` (inside
 * the caller's REPEATABLE READ transaction: one snapshot, the one the manifest is read in), each as
 * an entry given to `add`. Tables are written in name order; their rows in no particular order.
 */
export async function exportTables(sql: Sql, add: (entry: string, chunks: AsyncIterable<Uint8Array>) => Promise<void>): Promise<LogicalPart> {
  await sql.query(`SET LOCAL bytea_output = 'hex'`); // bytea as '\x…' text, which bytea's input reads back
  const names = (await sql.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)).map((r) => String(r.tablename));
  const withJson = new Set(
    (await sql.query(`SELECT DISTINCT table_schema || '.' || table_name AS t FROM information_schema.columns WHERE table_schema IN ('public', 'pgboss') AND data_type = 'json'`)).map((r) => String(r.t)),
  );
  const tables: LogicalTable[] = [];
  const dump = async (schema: LogicalTable['schema'], table: string, where = '') => {
    const counted = { rows: 0 };
    const entry = entryOf(schema, table);
    await add(entry, jsonLines(sql, `SELECT * FROM ${ident(schema)}.${ident(table)}${where}`, counted, withJson.has(`${schema}.${table}`)));
    tables.push({ schema, table, entry, rows: counted.rows });
  };
  for (const table of names) await dump('public', table);
  const sequences: Record<string, string | null> = {};
  for (const r of await sql.query(`SELECT sequencename, last_value::text AS value FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`)) {
    sequences[String(r.sequencename)] = (r.value as string | null) ?? null;
  }
  const queue = await sql.query(`SELECT to_regclass('pgboss.job') IS NOT NULL AND to_regclass('pgboss.version') IS NOT NULL AS present`);
  let jobsVersion: number | null = null;
  if (queue[0]?.present) {
    jobsVersion = Number((await sql.query('SELECT version FROM pgboss.version'))[0]?.version ?? null) || null;
    await dump('pgboss', 'job', ` WHERE ${CARRIED_JOBS}`);
  }
  return { tables, sequences, jobs_schema_version: jobsVersion };
}

/** The lines of a JSON-lines file, in batches of at most LOAD_ROWS lines and LOAD_BYTES characters. */
async function* batches(path: string): AsyncGenerator<string[]> {
  let batch: string[] = [];
  let size = 0;
  for await (const line of createInterface({ input: createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }), crlfDelay: Infinity })) {
    if (line === '') continue;
    batch.push(line);
    size += line.length;
    if (batch.length >= LOAD_ROWS || size >= LOAD_BYTES) {
      yield batch;
      batch = [];
      size = 0;
    }
  }
  if (batch.length) yield batch;
}

/**
 * Loads a logical backup unpacked in `dir` into a database whose schema is the backup's (created by
 * the migration history up to the backup's migration; the job queue's by pg-boss), through `sql`,
 * inside the caller's one transaction:
 *
 * - the foreign keys of the public schema are dropped first and added again at the end (as
 *   pg_restore does), which checks every row against them at once; so no load order is needed and
 *   rows that refer to each other (a table's own parent rows, two tables that point at each other)
 *   load in any order;
 * - the tables' own triggers are disabled while their rows are loaded (ALTER TABLE … DISABLE TRIGGER
 *   USER, transactional like the rest): the change outbox must not record the restored rows as new
 *   changes, since the `changes` table is itself restored from the backup;
 * - `_prisma_migrations` gets the backup's rows instead of those the migration just wrote (the
 *   history as it was);
 * - every sequence is set to the greater of its value in the backup and the largest value in the
 *   column it numbers, so no id is drawn twice.
 *
 * Jobs of a queue this version does not define are left out (there is no partition to hold them);
 * the job rows are loaded only when `jobsSchemaVersion` (this version's pg-boss schema) is the
 * backup's. Answers what was left out, as notes.
 */
export async function loadTables(sql: Sql, part: LogicalPart, dir: string, jobsSchemaVersion: number | null): Promise<string[]> {
  const notes: string[] = [];
  const publicTables = part.tables.filter((t) => t.schema === 'public');
  for (const t of publicTables) {
    if (!(await sql.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [`public.${ident(t.table)}`]))[0]?.present) {
      throw new Error(`table ${t.table} of the backup is not in the schema its migration history creates`);
    }
  }
  const foreignKeys = await sql.query(
    `SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE contype = 'f' AND connamespace = 'public'::regnamespace ORDER BY conrelid::regclass::text, conname`,
  );
  for (const fk of foreignKeys) await sql.query(`ALTER TABLE ${fk.tbl as string} DROP CONSTRAINT ${ident(String(fk.conname))}`);
  for (const t of publicTables) await sql.query(`ALTER TABLE public.${ident(t.table)} DISABLE TRIGGER USER`);
  if (publicTables.some((t) => t.table === '_prisma_migrations')) await sql.query('DELETE FROM public._prisma_migrations');

  for (const t of part.tables) {
    const target = `${ident(t.schema)}.${ident(t.table)}`;
    let where = '';
    if (t.schema === 'pgboss') {
      if (jobsSchemaVersion === null || part.jobs_schema_version !== jobsSchemaVersion) {
        if (t.rows) notes.push(`${t.rows} waiting jobs were not restored: the job queue's schema is version ${jobsSchemaVersion ?? 'none'} here, ${part.jobs_schema_version} in the backup`);
        continue;
      }
      where = ' WHERE r.name IN (SELECT name FROM pgboss.queue)';
    }
    const columns = (
      await sql.query(`SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`, [target])
    ).map((r) => ident(String(r.attname)));
    const list = columns.join(', ');
    const insert = `INSERT INTO ${target} (${list}) SELECT ${columns.map((c) => `r.${c}`).join(', ')} FROM json_populate_recordset(NULL::${target}, $1::json) r${where}`;
    for await (const lines of batches(join(dir, t.entry))) await sql.query(insert, [`[${lines.join(',')}]`]);
    if (t.schema === 'pgboss') {
      const loaded = Number((await sql.query(`SELECT count(*)::int AS n FROM ${target} WHERE ${CARRIED_JOBS}`))[0]?.n);
      if (loaded < t.rows) notes.push(`${t.rows - loaded} waiting jobs of queues this version does not define were not restored`);
    }
  }

  for (const fk of foreignKeys) await sql.query(`ALTER TABLE ${fk.tbl as string} ADD CONSTRAINT ${ident(String(fk.conname))} ${fk.def as string}`);
  for (const t of publicTables) await sql.query(`ALTER TABLE public.${ident(t.table)} ENABLE TRIGGER USER`);

  // each sequence of the public schema, and the column it numbers (when it is a column's default)
  const sequences = await sql.query(
    `SELECT s.relname AS seq, t.relname AS tbl, a.attname AS col FROM pg_class s
     LEFT JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = s.oid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
     LEFT JOIN pg_class t ON t.oid = d.refobjid
     LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
     WHERE s.relkind = 'S' AND s.relnamespace = 'public'::regnamespace`,
  );
  for (const s of sequences) {
    const seq = `public.${ident(String(s.seq))}`;
    const inBackup = part.sequences[String(s.seq)] ?? null;
    const inColumn = s.col ? `(SELECT max(${ident(String(s.col))})::bigint FROM public.${ident(String(s.tbl))})` : 'NULL';
    await sql.query(`SELECT setval($1::regclass, v) FROM (SELECT GREATEST($2::bigint, ${inColumn}) AS v) x WHERE v IS NOT NULL AND v >= 1`, [seq, inBackup]);
  }
  return notes;
}
