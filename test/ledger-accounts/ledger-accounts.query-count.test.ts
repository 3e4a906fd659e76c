import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md: relations below a page load in one batched query per level, whatever the page size.
describe.each(targets())('ledger accounts list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    const [v1, v11] = [await t.taxCode('1'), await t.taxCode('11')];
    const accounts = await app.db.prisma.account.findMany({ where: { clientAccountId: t.account.id, accountType: 'EXPENSE' }, select: { id: true } });
    await app.db.prisma.accountAllowedTaxCode.createMany({ data: accounts.flatMap((a) => [{ accountId: a.id, taxCodeId: v1 }, { accountId: a.id, taxCodeId: v11 }]) });
    await app.db.prisma.accountMandatoryDimension.createMany({ data: accounts.map((a) => ({ accountId: a.id, dimensionType: 'PROJECT' as const })) });
  });
  afterAll(() => app?.close());

  const count = async (perPage: number) => {
    const res = await app.gql(
      t.user.token,
      `{ accounts(clientAccountId: ${t.account.id}, accountType: EXPENSE, perPage: ${perPage}) {
          nodes { code mandatoryDimensions defaultTaxCode { code rate rates { ratePercent } } allowedTaxCodes { code rate rates { ratePercent } } } } }`,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.accounts.nodes).toHaveLength(perPage);
    app.statements.length = 0;
    await app.gql(
      t.user.token,
      `{ accounts(clientAccountId: ${t.account.id}, accountType: EXPENSE, perPage: ${perPage}) {
          nodes { code mandatoryDimensions defaultTaxCode { code rate rates { ratePercent } } allowedTaxCodes { code rate rates { ratePercent } } } } }`,
    );
    return app.statements.length;
  };

  it('"relations batch": accounts with dimensions, default tax code and whitelist issue the same number of statements for 2 and 40 rows', async () => {
    const small = await count(2);
    const large = await count(40);
    expect(large).toBe(small);
  });
});
