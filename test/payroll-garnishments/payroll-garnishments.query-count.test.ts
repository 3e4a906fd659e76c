import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": the garnishment
// list with its employee and creditor (GraphQL) issues as many statements for 40 rows as for 2.
describe.each(targets())('payroll garnishments list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    const creditor = await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kreditor', isSupplier: true } });
    const employees = await Promise.all(Array.from({ length: 40 }, (_, i) => app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: `Ansatt ${i}`, isEmployee: true } })));
    await app.db.prisma.payrollGarnishment.createMany({
      data: employees.map((e, i) => ({
        clientAccountId: t.account.id, businessPartnerId: e.id, externalId: `Q-${i}`, garnishmentType: 'UTLEGGSTREKK', deductionType: 'FIXED' as const, amount: '100',
        priority: i % 3, creditorId: creditor.id, validFrom: new Date('2026-01-01'), status: 'ACTIVE' as const, externalVersion: 1, sequenceNumber: 1, rawResponse: {},
      })),
    });
  });
  afterAll(() => app?.close());

  const count = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.gql(t.user.token, 'query($c: Int!, $n: Int) { payrollGarnishments(clientAccountId: $c, perPage: $n) { nodes { id businessPartner { id name } creditor { id name } } } }', { c: t.account.id, n: perPage });
    expect(res.data.payrollGarnishments.nodes).toHaveLength(perPage);
    expect(res.data.payrollGarnishments.nodes[perPage - 1].creditor).toMatchObject({ name: 'Kreditor' });
    return app.statements.length;
  };

  it('payrollGarnishments with businessPartner and creditor issues the same number of statements for 2 and 40 rows', async () => {
    await count(2); // a token's first request also looks its session up
    const small = await count(2);
    const large = await count(40);
    expect(large).toBe(small);
  });
});
