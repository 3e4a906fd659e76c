import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeBackup, type BackupManifest } from '../../src/backup/backup.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { keepWriting, tempDirs } from './backup-support.ts';
import { baseEnv, cli, json, SLOW } from '../support/cli.ts';
import { targets, type Target } from '../support/harness.ts';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';

// Issue 34, "Backup and restore": the PostgreSQL backup is "one transaction-consistent dump by a
// maintained tool or pg_dump when installed, else a logical export of our own tables in one
// repeatable-read transaction"; "restore --from FILE restores it into an empty database (and
// DATA_DIR), refusing a non-empty one; after a restore verify-ledger passes for every account and the
// hash-chain heads match the backup's manifest"; "verify-backup --from FILE checks a file without
// restoring". The logical format (src/backup/logical.ts) restores into either kind of database.

const tmp = tempDirs();

const STORED = { key: '1/7c1d2b8e-3f4a-4b5c-9d6e-0f1a2b3c4d5e', bytes: Buffer.from('%PDF-1.4 a receipt kept in the file store\n') };
const DEMO = 'demo-nordlys-kaffe-as';

/** The manifest inside a backup file. */
function manifestOf(file: string): BackupManifest {
  const { 'manifest.json': bytes } = unzipSync(readFileSync(file), { filter: (f) => f.name === 'manifest.json' });
  return JSON.parse(Buffer.from(bytes!).toString('utf8')) as BackupManifest;
}

/** A PATH without pg_dump (an empty directory): the backup must do without it. */
const withoutPgDump = () => tmp('regnskap-no-pg-dump-');


describe.each(targets())('logical backup and restore (%s)', (target) => {
  const sourceDir = tmp('regnskap-logical-src-');
  const out = join(tmp('regnskap-logical-out-'), 'logical.zip');
  const scratches: ScratchDatabase[] = [];
  let env: NodeJS.ProcessEnv;
  const newDatabase = async () => {
    const s = await createScratchDatabase(inject('postgresUrl')!, 'logical');
    scratches.push(s);
    return s.url;
  };
  /** An empty target of `kind`: a new DATA_DIR, with a new scratch database for PostgreSQL. */
  const emptyTarget = async (kind: Target) => {
    const dataDir = tmp('regnskap-logical-dst-');
    return { ...env, DATA_DIR: dataDir, DATABASE_URL: kind === 'postgres' ? await newDatabase() : '' };
  };
  const open = (e: NodeJS.ProcessEnv) => openDatabase(e.DATABASE_URL ? { databaseUrl: e.DATABASE_URL } : { dataDir: e.DATA_DIR!, purpose: 'test' });

  beforeAll(async () => {
    env = { ...baseEnv(), DATA_DIR: sourceDir, DATABASE_URL: target === 'postgres' ? await newDatabase() : '' };
    json(await cli(['seed-demo'], env));
    mkdirSync(join(sourceDir, 'files', '1'), { recursive: true });
    writeFileSync(join(sourceDir, 'files', STORED.key), STORED.bytes);
  }, SLOW);
  afterAll(async () => {
    for (const s of scratches) await s.drop();
  });

  it(
    target === 'postgres'
      ? '"else a logical export of our own tables in one repeatable-read transaction": without pg_dump the CLI exports the tables while another connection writes, and the manifest counts what the file holds'
      : 'a logical export of the embedded database (--format logical) in one transaction, while its own process writes',
    async () => {
      const db = await open(env);
      const writer = keepWriting(db, 'Written during the logical backup');
      try {
        await writer.started();
        if (target === 'postgres') {
          const result = json(await cli(['backup', '--out', out], { ...env, PATH: withoutPgDump() }));
          expect(result).toMatchObject({ file: out, database: 'postgres', format: 'logical', ledgers: 1, files: 1 });
          expect(result.note).toMatch(/pg_dump was not found/);
        } else {
          // the embedded database belongs to the process that opened it: that process exports it (as the server does when asked)
          const r = await writeBackup(loadConfig(env), out, db, { format: 'logical' });
          expect(r.manifest.dump).toBe('logical');
        }
      } finally {
        expect(await writer.stop()).toBeGreaterThan(0);
        await db.close();
      }
      const manifest = manifestOf(out);
      expect(manifest.version).toBe(2);
      // one entry per table, rows as the database wrote them; the counts are those of the same snapshot
      const publicTables = manifest.logical!.tables.filter((t) => t.schema === 'public');
      expect(publicTables.map((t) => t.table).sort()).toEqual(Object.keys(manifest.tables).sort());
      for (const t of publicTables) expect(t.rows, t.table).toBe(manifest.tables[t.table]);
      expect(manifest.tables.business_partners).toBeGreaterThan(3);
      expect(manifest.chain_heads).toHaveLength(1);
    },
    SLOW,
  );

  it('"verify-backup --from FILE checks a file without restoring": a logical file is loaded into an in-memory database and checked (counts, chain heads, every ledger)', async () => {
    const v = json(await cli(['verify-backup', '--from', out], env));
    expect(v).toMatchObject({ ok: true, problems: [], format: 'logical', ledgers: 1, accounts_verified: 1 });
    expect(v.checked).toEqual(expect.arrayContaining(['checksums of every entry', 'every table loaded into an in-memory database', 'row counts', 'chain heads', 'verify-ledger of every account']));
  }, SLOW);

  it('"restores it into an empty database (and DATA_DIR)": the schema by our migration history, every row, the chain heads and counts of the manifest, verify-ledger for every account; the change outbox records nothing for restored rows; sequences go on after the largest id', async () => {
    const restoreEnv = await emptyTarget(target);
    const manifest = manifestOf(out);
    const r = json(await cli(['restore', '--from', out], restoreEnv));
    expect(r).toMatchObject({ ok: true, problems: [], format: 'logical', accounts_verified: 1, files: 1, notes: [], migrations_applied: [] });
    expect(readFileSync(join(restoreEnv.DATA_DIR, 'files', STORED.key))).toEqual(STORED.bytes);

    const db = await open(restoreEnv);
    let accountId: number;
    try {
      // "changes" holds the backup's rows and no more: the outbox's triggers were off while rows were loaded
      expect(await db.prisma.change.count()).toBe(manifest.tables.changes);
      const account = await db.prisma.clientAccount.findFirstOrThrow({ where: { uniqueName: DEMO } });
      const written = await db.prisma.businessPartner.count({ where: { name: { startsWith: 'Written during the logical backup' } } });
      expect(written).toBeGreaterThan(0);
      // a new row after the restore: the next id, and the outbox records it again
      const last = await db.prisma.businessPartner.findFirstOrThrow({ orderBy: { id: 'desc' } });
      const created = await db.prisma.businessPartner.create({ data: { clientAccountId: account.id, name: 'After the restore' } });
      expect(created.id).toBeGreaterThan(last.id);
      expect(await db.prisma.change.count()).toBe(manifest.tables.changes + 1);
      // the job queue's waiting jobs came along
      const carried = manifest.logical!.tables.find((t) => t.schema === 'pgboss');
      const waiting = await db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry', 'active')`);
      expect(waiting[0]!.n).toBe(carried?.rows ?? 0);
      accountId = account.id;
    } finally {
      await db.close();
    }
    const verified = json(await cli(['verify-ledger', '--client-account-id', String(accountId)], restoreEnv));
    expect(verified.ok).toBe(true);
    expect(verified.entries).toBeGreaterThan(10);

    // "refusing a non-empty one"
    const again = await cli(['restore', '--from', out], restoreEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/file store .* is not empty|DATABASE_URL is not empty|exists: restore into an empty DATA_DIR/);
    if (target === 'postgres') {
      // an empty DATA_DIR, the same (now non-empty) database
      const refused = await cli(['restore', '--from', out], { ...restoreEnv, DATA_DIR: tmp('regnskap-logical-dst2-') });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/DATABASE_URL is not empty/);
    }
  }, SLOW);

  // the other kind of database: only in a run with both
  it.skipIf(targets().length < 2)('a logical backup restores into the other kind of database (PostgreSQL ⇄ embedded), with the same checks', async () => {
    const other: Target = target === 'postgres' ? 'pglite' : 'postgres';
    const r = json(await cli(['restore', '--from', out], await emptyTarget(other)));
    expect(r).toMatchObject({ ok: true, problems: [], database: target, format: 'logical', accounts_verified: 1, files: 1 });
  }, SLOW);

  it('a tampered logical backup fails verify-backup (exit 1, naming the table\'s entry) and restores nothing', async () => {
    const bytes = readFileSync(out);
    const name = Buffer.from('database/public.journal_entry_lines.jsonl');
    const header = bytes.indexOf(name); // the entry's local header; its compressed rows follow
    expect(header).toBeGreaterThan(0);
    bytes[header + name.length + 200] ^= 0xff;
    const bad = join(tmp('regnskap-logical-bad-'), 'tampered.zip');
    writeFileSync(bad, bytes);

    const v = await cli(['verify-backup', '--from', bad], env);
    expect(v.code).toBe(1);
    const body = JSON.parse(v.stdout) as { ok: boolean; problems: string[] };
    expect(body.ok).toBe(false);
    expect(body.problems.join('\n')).toMatch(/database\/public\.journal_entry_lines\.jsonl (differs from what was written|cannot be read)/);

    const restoreEnv = await emptyTarget(target);
    const restored = await cli(['restore', '--from', bad], restoreEnv);
    expect(restored.code).toBe(1);
    expect(restored.stderr).toMatch(/damaged, nothing was restored/);
    expect(readdirSync(restoreEnv.DATA_DIR).filter((f) => f !== 'embedded-db.lock')).toEqual([]);
    if (target === 'postgres') {
      const db = await open(restoreEnv);
      expect(await db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)).toEqual([{ n: 0 }]);
      await db.close();
    }
  }, SLOW);
});
