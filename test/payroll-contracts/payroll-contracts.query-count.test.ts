import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { partner, payrollTenant } from './fixtures.ts';

// STYLE.md "an N+1 regression fails a test": the widest contract list (REST with=business_partner,
// and GraphQL with each contract's employee, pension provider and tax card) issues as many SQL
// statements for 40 rows as for 2.
describe.each(targets())('payroll contract list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await payrollTenant(app.seed);
    const employees = await Promise.all(Array.from({ length: 40 }, () => partner(app.seed, t)));
    const provider = await partner(app.seed, t, { isEmployee: false, nationalIdNumber: null, name: 'Pensjon AS' });
    await app.db.prisma.payrollContract.createMany({
      data: employees.map((e) => ({ clientAccountId: t.account.id, businessPartnerId: e.id, employmentType: 'ordinaertArbeidsforhold', startDate: new Date('2026-01-01'), salaryType: 'HOURLY' as const, hourlyRate: '300', pensionProviderId: provider.id })),
    });
    await app.db.prisma.payrollTaxCard.createMany({
      data: employees.map((e) => ({ clientAccountId: t.account.id, businessPartnerId: e.id, year: 2026, status: 'NOT_FOUND' as const, lastAttemptAt: new Date() })),
    });
  });
  afterAll(() => app?.close());

  const rest = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.http('GET', `/api/v2/payroll/contracts?client_account_id=${t.account.id}&per_page=${perPage}&with=business_partner`, { token: t.user.token });
    expect(res.body.data).toHaveLength(perPage);
    expect(res.body.data[perPage - 1].business_partner.is_employee).toBe(true);
    return app.statements.length;
  };

  const graphql = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.gql(t.user.token, `{ payrollContracts(clientAccountId: ${t.account.id}, perPage: ${perPage}) { nodes { id businessPartner { name } pensionProvider { name } taxCard(year: 2026) { status } } } }`);
    expect(res.data.payrollContracts.nodes).toHaveLength(perPage);
    expect(res.data.payrollContracts.nodes[perPage - 1]).toMatchObject({ pensionProvider: { name: 'Pensjon AS' }, taxCard: { status: 'NOT_FOUND' } });
    return app.statements.length;
  };

  it('GET /payroll/contracts?with=business_partner: the same number of statements for 2 and 40 rows', async () => {
    await rest(2);
    const small = await rest(2);
    expect(await rest(40)).toBe(small);
  });

  it('payrollContracts with businessPartner, pensionProvider and taxCard: the same number of statements for 2 and 40 rows', async () => {
    await graphql(2);
    const small = await graphql(2);
    expect(await graphql(40)).toBe(small);
  });
});
