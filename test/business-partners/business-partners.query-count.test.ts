import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": the widest
// partner list (addresses, bank accounts with their ledger accounts, audit users) must issue the
// same number of SQL statements whatever the page size.
describe.each(targets())('business partner list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    const bank = await t.ledgerAccount('1920');
    // rows written directly (account numbers need not pass mod-11 here): only the reads are measured
    for (let i = 0; i < 30; i++) {
      await app.db.prisma.businessPartner.create({
        data: {
          clientAccountId: t.account.id, name: `Batch ${String(i).padStart(2, '0')} AS`, isCustomer: true, createdById: t.user.id,
          addresses: { create: [{ addressType: 'POSTAL', city: 'Oslo' }, { addressType: 'VISITING', city: 'Oslo' }] },
          bankAccounts: { create: [{ clientAccountId: t.account.id, accountNumber: String(12030000000 + i * 100) }] },
        },
      });
    }
    await app.db.prisma.bankAccount.createMany({
      data: Array.from({ length: 30 }, (_, i) => ({ clientAccountId: t.account.id, accountNumber: String(15030000000 + i * 100), ledgerAccountId: bank })),
    });
  });
  afterAll(() => app?.close());

  const count = async (query: string, perPage: number, rows: (data: any) => unknown[]) => {
    app.statements.length = 0;
    const res = await app.gql(t.user.token, query, { id: t.account.id, perPage });
    expect(res.errors).toBeUndefined();
    expect(rows(res.data)).toHaveLength(perPage);
    return app.statements.length;
  };

  it('businessPartners { addresses bankAccounts { businessPartner ledgerAccount } createdBy } issues the same number of statements for 2 and 30 rows', async () => {
    const query = `query($id: Int!, $perPage: Int) { businessPartners(clientAccountId: $id, isCustomer: true, perPage: $perPage) {
      nodes { id addresses { city } bankAccounts { accountNumber businessPartner { name } ledgerAccount { code } } createdBy { email } }
      meta { records } } }`;
    // the token's first request also looks its session up and opens the user's rate-limit window (both kept in memory after)
    await count(query, 2, (d) => d.businessPartners.nodes);
    const small = await count(query, 2, (d) => d.businessPartners.nodes);
    const large = await count(query, 30, (d) => d.businessPartners.nodes);
    expect(large).toBe(small);
  });

  it('bankAccounts { businessPartner { addresses } ledgerAccount } loads 30 rows in one statement per level', async () => {
    for (const own of [false, true]) {
      app.statements.length = 0;
      const res = await app.gql(t.user.token, `query($id: Int!) { bankAccounts(clientAccountId: $id, own: ${own}) {
        nodes { id businessPartner { name addresses { city } } ledgerAccount { code } } } }`, { id: t.account.id });
      expect(res.data.bankAccounts.nodes).toHaveLength(30);
      // tenancy (memberships) + bank accounts + partners + addresses + ledger accounts
      expect(app.statements.length, `own: ${own}`).toBeLessThan(10);
    }
  });
});
