import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { PROJECT_ROOT } from '../../src/project-root.ts';
import { targets } from '../support/harness.ts';
import { createScratchDatabase } from '../support/scratch-database.ts';

/**
 * The chat migration gives every task that existed before it (the voucher pipeline's review tasks)
 * its chat thread: "Each task gets a chat thread automatically" (spec 002 "Tasks").
 */
const migrationsDir = join(PROJECT_ROOT, 'prisma', 'migrations');
const all = readdirSync(migrationsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const chat = all.findIndex((name) => /^\d+_chat$/.test(name));

describe.each(targets())('the chat migration on %s', (target) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it('a task created before chat existed gets a thread about it (relation_type task), its provider only when that account exists', async () => {
    let db: Database;
    if (target === 'pglite') db = await openDatabase({ memory: true });
    else {
      const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'chat_backfill');
      db = await openDatabase({ databaseUrl: scratch.url });
      cleanup.push(() => scratch.drop());
    }
    cleanup.push(() => db.close());
    const before = mkdtempSync(join(tmpdir(), 'regnskap-migrations-'));
    cleanup.push(async () => rmSync(before, { recursive: true, force: true }));
    cpSync(join(migrationsDir, 'migration_lock.toml'), join(before, 'migration_lock.toml'));
    for (const name of all.slice(0, chat)) cpSync(join(migrationsDir, name), join(before, name), { recursive: true });
    await applyMigrations(db.adapterFactory, { migrationsDir: before });

    const sql = <T>(q: string, ...values: unknown[]) => db.prisma.$queryRawUnsafe<T[]>(q, ...values);
    const [{ id: account }] = await sql<{ id: number }>(
      `INSERT INTO client_accounts (display_name, unique_name, updated_at) VALUES ('Backfill AS', 'backfill-as', now()) RETURNING id`,
    );
    const tasks = await sql<{ id: number }>(
      `INSERT INTO tasks (client_account_id, provider_client_account_id, title, task_type, relation_type, relation_id, created_by_id, created_at, updated_at)
       VALUES ($1, NULL, 'Review voucher 7', 'VOUCHER_REVIEW', 'voucher', 7, NULL, '2026-01-02T03:04:05Z', now()),
              ($1, $1 + 1000000, 'With a gone provider', 'GENERAL', NULL, NULL, 42, now(), now())
       RETURNING id`,
      account,
    );

    expect(await applyMigrations(db.adapterFactory)).toEqual(all.slice(chat));
    const rows = await sql<Record<string, unknown>>(
      `SELECT t.id AS task_id, c.client_account_id, c.provider_client_account_id, c.subject, c.relation_type, c.relation_id, c.created_at, c.created_by_id
       FROM tasks t JOIN chat_threads c ON c.id = t.thread_id ORDER BY t.id`,
    );
    expect(rows).toEqual([
      {
        task_id: tasks[0].id, client_account_id: account, provider_client_account_id: null, subject: 'Review voucher 7',
        relation_type: 'task', relation_id: tasks[0].id, created_at: new Date('2026-01-02T03:04:05Z'), created_by_id: null,
      },
      expect.objectContaining({ task_id: tasks[1].id, provider_client_account_id: null, subject: 'With a gone provider', relation_id: tasks[1].id, created_by_id: 42 }),
    ]);
  }, 180_000); // every migration from scratch, through the WebAssembly schema engine: 30 s was too short on a loaded machine
});
