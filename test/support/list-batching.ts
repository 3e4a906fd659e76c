import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from './harness.ts';
import type { Tenant } from './seed.ts';

/**
 * STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": a REST list
 * read with its relations embedded (`with=`) must issue the same number of SQL statements for 2 rows
 * as for `rows`. `seed` writes the rows into the tenant's client account (directly: only the reads
 * are measured); every embedded relation must be the record its `…_id` names.
 */
export function describeListBatching(spec: {
  /** the record, singular, as the test names say it: 'project' */
  what: string;
  /** the list's REST path: '/projects' */
  path: string;
  /** the relations to embed: 'client_account' */
  with: string;
  rows: number;
  seed: (app: TestApp, t: Tenant, rows: number) => Promise<unknown>;
}) {
  describe.each(targets())(`${spec.path.slice(1)} list batching (%s)`, (target) => {
    let app: TestApp;
    let t: Tenant;

    beforeAll(async () => {
      app = await startTestApp(target, { log: ['query'] });
      t = await app.seed.tenant();
      await spec.seed(app, t, spec.rows);
    });
    afterAll(() => app?.close());

    const count = async (perPage: number) => {
      app.statements.length = 0;
      const res = await app.http('GET', `/api/v2${spec.path}?client_account_id=${t.account.id}&per_page=${perPage}&with=${spec.with}`, { token: t.user.token });
      expect(res.body.data).toHaveLength(perPage);
      const last = res.body.data[perPage - 1];
      for (const relation of spec.with.split(',')) expect(last[relation], relation).toMatchObject({ id: last[`${relation}_id`] });
      return app.statements.length;
    };

    it(`GET ${spec.path}?with=${spec.with} issues the same number of statements for 2 and ${spec.rows} rows`, async () => {
      await count(2); // a token's first request also looks its session up
      const small = await count(2);
      const large = await count(spec.rows);
      console.log(`[${target}] widest ${spec.what} list: ${large} SQL statements for ${spec.rows} rows (${small} for 2)`);
      expect(large).toBe(small);
    });
  });
}
