import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": the number of
// SQL statements of the widest department list must not grow with the page size.
describe.each(targets())('departments list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    await app.db.prisma.department.createMany({
      data: Array.from({ length: 40 }, (_, i) => ({ clientAccountId: t.account.id, sequenceNumber: i + 1, name: `Q-${i}`, autonomyLevel: i % 2 ? 'FULL' : null })),
    });
  });
  afterAll(() => app?.close());

  const count = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.http('GET', `/api/v2/departments?client_account_id=${t.account.id}&per_page=${perPage}&with=client_account`, { token: t.user.token });
    expect(res.body.data).toHaveLength(perPage);
    expect(res.body.data[perPage - 1].client_account).toMatchObject({ id: t.account.id });
    return app.statements.length;
  };

  it('GET /departments?with=client_account issues the same number of statements for 2 and 40 rows', async () => {
    await count(2); // a token's first request also looks its session up
    const small = await count(2);
    const large = await count(40);
    console.log(`[${target}] widest department list: ${large} SQL statements for 40 rows (${small} for 2)`);
    expect(large).toBe(small);
  });
});
