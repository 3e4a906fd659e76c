import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parseInvocation } from '../../src/admin/commands.ts';
import { defineJob, enqueue } from '../../src/jobs/jobs.ts';
import { migrateJobs } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { baseEnv, cli, json, SLOW } from '../support/cli.ts';
import { openTestDatabase, targets } from '../support/harness.ts';

/** `npm run --silent admin -- jobs`: what is queued, running, done or failed, as one JSON object. */
const listed = defineJob<{ marker: string }>('test.cli-listed', async () => undefined);

const tmpDirs: string[] = [];
afterAll(() => {
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
});

// Usage errors exit 2 before any database is opened (test/admin covers that path): checked in-process.
it.each([
  [['jobs', '--state', 'done'], /--state must be one of created, retry, active, completed, cancelled, failed, not 'done'/],
  [['jobs', '--limit', '0'], /--limit must be a positive integer, not '0'/],
  [['jobs', '--limit', 'all'], /--limit must be a positive integer, not 'all'/],
])('jobs %j is a usage error', (argv, message) => {
  expect(() => parseInvocation(argv)).toThrow(message);
});

describe.each(targets())('admin CLI jobs (%s)', (target) => {
  it('lists jobs newest first with their state; --name, --state and --limit filter', async () => {
    // PGlite: a data dir the CLI opens after this process has closed it
    const dataDir = target === 'pglite' ? mkdtempSync(join(tmpdir(), 'regnskap-jobs-cli-')) : undefined;
    if (dataDir) tmpDirs.push(dataDir);
    const env = dataDir ? { ...baseEnv(), DATA_DIR: dataDir } : { ...baseEnv(), DATABASE_URL: inject('postgresUrl')! };

    const db = await openTestDatabase(target, { dataDir });
    const ids: string[] = [];
    try {
      await migrateJobs(db, createLogger('silent'));
      for (let i = 0; i < 3; i++) ids.push((await enqueue(db.prisma, listed, { marker: `m-${i}` }))!);
      // the middle one has failed for good (as a worker would leave it)
      await db.prisma.$executeRaw`UPDATE pgboss.job SET state = 'failed', completed_on = now(), output = '{"message":"SMTP said no"}' WHERE name = ${listed.name} AND id = ${ids[1]}::uuid`;
      // creation times one apart so "newest first" is well defined
      for (const [i, id] of ids.entries()) await db.prisma.$executeRaw`UPDATE pgboss.job SET created_on = now() - ${`${3 - i} seconds`}::interval WHERE name = ${listed.name} AND id = ${id}::uuid`;
    } finally {
      await db.close();
    }

    const newest = json(await cli(['jobs', '--name', listed.name, '--limit', '2'], env));
    expect(newest.count).toBe(2);
    expect(newest.jobs.map((j: any) => j.id)).toEqual([ids[2], ids[1]]);
    expect(newest.jobs[0]).toEqual({
      id: ids[2],
      name: listed.name,
      state: 'created',
      archived: false,
      retry_count: 0,
      retry_limit: 2,
      priority: 0,
      created_at: expect.any(String),
      start_after: expect.any(String),
      started_at: null,
      completed_at: null,
      data: { marker: 'm-2' },
      output: null,
    });
    expect(newest.jobs[1]).toMatchObject({ state: 'failed', completed_at: expect.any(String), output: { message: 'SMTP said no' } });

    const failed = json(await cli(['jobs', '--state', 'failed', '--name', listed.name], env));
    expect(failed.jobs.map((j: any) => j.id)).toEqual([ids[1]]);
  }, SLOW);
});
