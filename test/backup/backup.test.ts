import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { scheduledBackup, scheduledBackups } from '../../src/backup/backup.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { keepWriting, tempDirs } from './backup-support.ts';
import { baseEnv, cli, json, SLOW } from '../support/cli.ts';
import { targets } from '../support/harness.ts';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';

// Issue 34, "Backup and restore": "npm run admin -- backup --out FILE writes a consistent snapshot of
// everything the service stores — the database … and the file store — while the server keeps
// serving; npm run admin -- restore --from FILE restores it into an empty database (and DATA_DIR),
// refusing a non-empty one; after a restore verify-ledger passes for every account and the hash-chain
// heads match the backup's manifest. A backup manifest lists its counts and chain heads;
// npm run admin -- verify-backup --from FILE checks a file without restoring." and "A scheduled backup
// job (BACKUP_SCHEDULE cron, BACKUP_DIR, keep the last N) for the embedded database".

const tmp = tempDirs();

/** A file in the store as the files module keeps them (DATA_DIR/files/<account>/<key>). */
const STORED = { key: '1/2f1e8c1e-9d7c-4f33-8a59-1b0d3f1a2b3c', bytes: Buffer.from('%PDF-1.4 a stored receipt\n') };

describe.each(targets())('backup and restore (%s)', (target) => {
  const sourceDir = tmp('regnskap-backup-src-');
  const out = join(tmp('regnskap-backup-out-'), 'backup.zip');
  const scratches: ScratchDatabase[] = [];
  let env: NodeJS.ProcessEnv;
  const newDatabase = async () => {
    const s = await createScratchDatabase(inject('postgresUrl')!, 'backup');
    scratches.push(s);
    return s.url;
  };

  beforeAll(async () => {
    env = { ...baseEnv(), DATA_DIR: sourceDir, DATABASE_URL: target === 'postgres' ? await newDatabase() : '' };
    json(await cli(['seed-demo'], env)); // a company with a posted year: ledgers with chain heads
    mkdirSync(join(sourceDir, 'files', '1'), { recursive: true });
    writeFileSync(join(sourceDir, 'files', STORED.key), STORED.bytes);
  }, SLOW);
  afterAll(async () => {
    for (const s of scratches) await s.drop();
  });

  it('"writes a consistent snapshot … while the server keeps serving": the manifest counts what the dump holds, though writes went on', async () => {
    if (target === 'postgres') {
      // another process writes throughout; the CLI's pg_dump and its manifest read one snapshot
      const db = await openDatabase({ databaseUrl: env.DATABASE_URL! });
      const writer = keepWriting(db, 'Written during the backup');
      try {
        await writer.started();
        const result = json(await cli(['backup', '--out', out], env));
        expect(result).toMatchObject({ file: out, database: 'postgres', ledgers: 1, files: 1 });
        expect(result.rows).toBeGreaterThan(1000);
      } finally {
        expect(await writer.stop()).toBeGreaterThan(0);
        await db.close();
      }
    } else {
      // the embedded database belongs to the process that opened it: the server's scheduled job dumps it between its queries
      const db = await openDatabase({ dataDir: sourceDir, purpose: 'test server' });
      const writer = keepWriting(db, 'Written during the backup');
      try {
        await writer.started();
        const config = loadConfig({ ...env, BACKUP_DIR: join(sourceDir, 'backups') });
        const { file } = await scheduledBackup(config, db);
        rmSync(out, { force: true });
        writeFileSync(out, readFileSync(file));
        // and the CLI, while it holds the database, says how the embedded database is backed up instead
        const refused = await cli(['backup', '--out', join(sourceDir, 'refused.zip')], env);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/in use by another process/);
        expect(refused.stderr).toMatch(/BACKUP_SCHEDULE/);
      } finally {
        expect(await writer.stop()).toBeGreaterThan(0);
        await db.close();
      }
    }
  }, SLOW);

  it('"verify-backup --from FILE checks a file without restoring": the checksums (and an embedded dump opened in memory: counts, chain heads, every ledger)', async () => {
    const v = json(await cli(['verify-backup', '--from', out], env));
    expect(v.ok).toBe(true);
    expect(v.problems).toEqual([]);
    expect(v.checked).toContain('checksums of every entry');
    if (target === 'pglite') expect(v.checked).toEqual(expect.arrayContaining(['row counts', 'chain heads', 'verify-ledger of every account']));
    else expect(v.checked).toContain("the dump's table of contents (pg_restore --list)");
    expect(v.ledgers).toBe(1);
  }, SLOW);

  it('"restores it into an empty database (and DATA_DIR)": verify-ledger passes for every account and the chain heads and counts match the manifest; the stored file is back', async () => {
    const dataDir = tmp('regnskap-backup-dst-');
    const restoreEnv = { ...env, DATA_DIR: dataDir, DATABASE_URL: target === 'postgres' ? await newDatabase() : '' };
    const r = json(await cli(['restore', '--from', out], restoreEnv));
    expect(r).toMatchObject({ ok: true, problems: [], accounts_verified: 1, files: 1 });
    expect(readFileSync(join(dataDir, 'files', STORED.key))).toEqual(STORED.bytes);
    // and the restored database is one the service runs on: verify-ledger through the CLI, as an operator would
    const db = await openDatabase(target === 'postgres' ? { databaseUrl: restoreEnv.DATABASE_URL! } : { dataDir, purpose: 'test' });
    const account = await db.prisma.clientAccount.findFirstOrThrow({ where: { uniqueName: 'demo-nordlys-kaffe-as' } });
    const partners = await db.prisma.businessPartner.count({ where: { name: { startsWith: 'Written during the backup' } } });
    await db.close();
    expect(partners).toBeGreaterThan(0); // writes of before the snapshot are in it
    const verified = json(await cli(['verify-ledger', '--client-account-id', String(account.id)], restoreEnv));
    expect(verified.ok).toBe(true);
    expect(verified.entries).toBeGreaterThan(10);

    // "refusing a non-empty one": the same target again
    const again = await cli(['restore', '--from', out], restoreEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(target === 'postgres' ? /file store .* is not empty|DATABASE_URL is not empty/ : /file store .* is not empty|exists: restore into an empty DATA_DIR/);
  }, SLOW);

  it('a tampered backup fails verify-backup (exit 1, naming the entry) and restores nothing', async () => {
    const bad = join(tmp('regnskap-backup-bad-'), 'tampered.zip');
    const bytes = readFileSync(out);
    bytes[Math.floor(bytes.length / 3)] ^= 0xff; // inside the database dump, the largest entry
    writeFileSync(bad, bytes);
    const v = await cli(['verify-backup', '--from', bad], env);
    expect(v.code).toBe(1);
    const body = JSON.parse(v.stdout) as { ok: boolean; problems: string[] };
    expect(body.ok).toBe(false);
    expect(body.problems.join('\n')).toMatch(/database\.(pgdump|tar\.gz) differs from what was written|cannot be read/);

    const dataDir = tmp('regnskap-backup-bad-dst-');
    const restored = await cli(['restore', '--from', bad], { ...env, DATA_DIR: dataDir, DATABASE_URL: target === 'postgres' ? await newDatabase() : '' });
    expect(restored.code).toBe(1);
    expect(restored.stderr).toMatch(/damaged, nothing was restored|cannot be read/);
    expect(readdirSync(dataDir).filter((f) => f !== 'embedded-db.lock')).toEqual([]);
  }, SLOW);

  // the scheduled job is the embedded database's (on PostgreSQL only when BACKUP_SCHEDULE is set): skipped there, not passed empty
  it.skipIf(target !== 'pglite')('"keep the last N": the scheduled job leaves the newest BACKUP_KEEP backups in BACKUP_DIR', async () => {
    const backupDir = tmp('regnskap-backup-keep-');
    const config = loadConfig({ ...env, BACKUP_DIR: backupDir, BACKUP_KEEP: '2' });
    expect(config.backup.schedule).toBe('0 2 * * *');
    const db = await openDatabase({ dataDir: sourceDir, purpose: 'test server' });
    try {
      for (const day of ['2026-11-01', '2026-11-02', '2026-11-03']) await scheduledBackup(config, db, new Date(`${day}T02:00:00Z`));
    } finally {
      await db.close();
    }
    expect(scheduledBackups(backupDir)).toEqual(['backup-20261102T020000Z.zip', 'backup-20261103T020000Z.zip']);
    expect(loadConfig({ ...env, BACKUP_SCHEDULE: 'off' }).backup.schedule).toBeUndefined();
    expect(loadConfig({ ...env, DATABASE_URL: 'postgres://x@127.0.0.1/y' }).backup.schedule).toBeUndefined();
    expect(() => loadConfig({ ...env, BACKUP_SCHEDULE: 'nightly' })).toThrow(/BACKUP_SCHEDULE/);
  }, SLOW);
});
