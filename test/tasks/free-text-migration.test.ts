import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { targets } from '../support/harness.ts';
import { databaseBefore } from '../support/migrations.ts';

/**
 * The migration that makes a task's status and task_type text (spec 002 "Task": "Allowed values of
 * task status and task_type: not shown") keeps every stored value and the defaults.
 */
describe.each(targets())('the task status and type migration on %s', (target) => {
  let old: Awaited<ReturnType<typeof databaseBefore>> | undefined;
  afterAll(() => old?.drop());

  it('spec 002 "Task": "Allowed values of task status and task_type: not shown": the enum columns become text, every stored value and the defaults OPEN and GENERAL kept', async () => {
    old = await databaseBefore(target, /^\d+_task_status_type_free_text$/, 'task_free_text');
    const { db, sql, rest } = old;
    const [{ id: account }] = await sql<{ id: number }>(
      `INSERT INTO client_accounts (display_name, unique_name, updated_at) VALUES ('Fritekst AS', 'fritekst-as', now()) RETURNING id`,
    );
    await sql(
      `INSERT INTO tasks (client_account_id, title, status, task_type, updated_at)
       VALUES ($1, 'a', 'IN_PROGRESS', 'VOUCHER_REVIEW', now()), ($1, 'b', 'COMPLETED', 'YEAR_END', now()), ($1, 'c', DEFAULT, DEFAULT, now())`,
      account,
    );

    expect(await applyMigrations(db.adapterFactory)).toEqual(rest);
    await sql(`INSERT INTO tasks (client_account_id, title, updated_at) VALUES ($1, 'd', now()), ($1, 'e', now())`, account);
    await sql(`UPDATE tasks SET status = 'Venter på kunde', task_type = 'Purring' WHERE title = 'e'`);
    expect(await sql(`SELECT title, status, task_type FROM tasks WHERE client_account_id = $1 ORDER BY title`, account)).toEqual([
      { title: 'a', status: 'IN_PROGRESS', task_type: 'VOUCHER_REVIEW' },
      { title: 'b', status: 'COMPLETED', task_type: 'YEAR_END' },
      { title: 'c', status: 'OPEN', task_type: 'GENERAL' },
      { title: 'd', status: 'OPEN', task_type: 'GENERAL' },
      { title: 'e', status: 'Venter på kunde', task_type: 'Purring' },
    ]);
    expect(await sql(`SELECT count(*)::int AS n FROM pg_type WHERE typname IN ('TaskStatus', 'TaskType')`)).toEqual([{ n: 0 }]);
  }, 180_000); // every migration from scratch, through the WebAssembly schema engine
});
