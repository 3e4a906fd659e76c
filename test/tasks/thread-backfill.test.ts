import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { targets } from '../support/harness.ts';
import { databaseBefore } from '../support/migrations.ts';

/**
 * The chat migration gives every task that existed before it (the voucher pipeline's review tasks)
 * its chat thread: "Each task gets a chat thread automatically" (spec 002 "Tasks").
 */
describe.each(targets())('the chat migration on %s', (target) => {
  let old: Awaited<ReturnType<typeof databaseBefore>> | undefined;
  afterAll(() => old?.drop());

  it('a task created before chat existed gets a thread about it (relation_type task), its provider only when that account exists', async () => {
    old = await databaseBefore(target, /^\d+_chat$/, 'chat_backfill');
    const { db, sql, rest } = old;
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

    expect(await applyMigrations(db.adapterFactory)).toEqual(rest);
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
