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
 * The migration that makes a task's status and task_type text (spec 002 "Task": "Allowed values of
 * task status and task_type: not shown") keeps every stored value and the defaults.
 */
const migrationsDir = join(PROJECT_ROOT, 'prisma', 'migrations');
const all = readdirSync(migrationsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const freeText = all.findIndex((name) => /^\d+_task_status_type_free_text$/.test(name));

describe.each(targets())('the task status and type migration on %s', (target) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it('spec 002 "Task": "Allowed values of task status and task_type: not shown": the enum columns become text, every stored value and the defaults OPEN and GENERAL kept', async () => {
    let db: Database;
    if (target === 'pglite') db = await openDatabase({ memory: true });
    else {
      const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'task_free_text');
      db = await openDatabase({ databaseUrl: scratch.url });
      cleanup.push(() => scratch.drop());
    }
    cleanup.push(() => db.close());
    const before = mkdtempSync(join(tmpdir(), 'regnskap-migrations-'));
    cleanup.push(async () => rmSync(before, { recursive: true, force: true }));
    cpSync(join(migrationsDir, 'migration_lock.toml'), join(before, 'migration_lock.toml'));
    for (const name of all.slice(0, freeText)) cpSync(join(migrationsDir, name), join(before, name), { recursive: true });
    await applyMigrations(db.adapterFactory, { migrationsDir: before });

    const sql = <T>(q: string, ...values: unknown[]) => db.prisma.$queryRawUnsafe<T[]>(q, ...values);
    const [{ id: account }] = await sql<{ id: number }>(
      `INSERT INTO client_accounts (display_name, unique_name, updated_at) VALUES ('Fritekst AS', 'fritekst-as', now()) RETURNING id`,
    );
    await sql(
      `INSERT INTO tasks (client_account_id, title, status, task_type, updated_at)
       VALUES ($1, 'a', 'IN_PROGRESS', 'VOUCHER_REVIEW', now()), ($1, 'b', 'COMPLETED', 'YEAR_END', now()), ($1, 'c', DEFAULT, DEFAULT, now())`,
      account,
    );

    expect(await applyMigrations(db.adapterFactory)).toEqual(all.slice(freeText));
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
