import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": the widest
// journal entry list (lines, dimensions with names, accounts with mandatory dimensions, users) issues
// the same number of SQL statements for 2 and 40 entries.
describe.each(targets())('journal entry list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    const partner = (await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde' } })).id;
    const tag = (await app.db.prisma.tag.create({ data: { clientAccountId: t.account.id, name: 'Messe' } })).id;
    for (let i = 0; i < 40; i++) {
      const res = await app.http('POST', '/api/v2/journal-entries/', {
        token: t.user.token,
        body: {
          client_account_id: t.account.id,
          lines: [
            { posting_date: '2026-05-02', account_code: '1500', debit: 100 + i, credit: 0, dimensions: [{ type: 'businesspartner', id: partner }, { type: 'tag', id: tag }] },
            { posting_date: '2026-05-02', account_code: '3000', debit: 0, credit: 100 + i },
          ],
        },
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => app?.close());

  const count = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.http('GET', `/api/v2/journal-entries?client_account_id=${t.account.id}&per_page=${perPage}&with=lines.dimensions,lines.account.mandatory_dimensions,created_by,posted_by`, { token: t.user.token });
    expect(res.body.data).toHaveLength(perPage);
    expect(res.body.data[0].lines[0].dimensions.map((d: { name: string }) => d.name)).toEqual(['Kunde', 'Messe']);
    return app.statements.length;
  };

  it('GET /journal-entries with every relation issues the same number of statements for 2 and 40 entries', async () => {
    await count(2);
    // the fewer of two counts: a lookup that only happens now and then (a cache lapsing while the
    // machine is loaded) is no statement per entry
    const small = Math.min(await count(2), await count(2));
    const large = Math.min(await count(40), await count(40));
    console.log(`[${target}] widest journal entry list: ${large} SQL statements for 40 entries (${small} for 2)`);
    expect(large).toBe(small);
  });
});
