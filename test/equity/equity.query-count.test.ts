import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": the number of
// SQL statements of the widest equity transaction list must not grow with the page size.
describe.each(targets())('equity transaction list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    const partners = await Promise.all(Array.from({ length: 4 }, (_, i) => app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: `Q-${i}` } })));
    await app.db.prisma.equityTransaction.createMany({
      data: Array.from({ length: 40 }, (_, i) => ({
        clientAccountId: t.account.id,
        transactionDate: new Date('2026-01-01'),
        transactionType: 'ISSUANCE' as const,
        transactionGroupId: randomUUID(),
        businessPartnerId: partners[i % 4].id,
        shareClass: 'COMMON' as const,
        quantity: 10,
        createdById: t.user.id,
        updatedById: t.user.id,
      })),
    });
  });
  afterAll(() => app?.close());

  const count = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.http('GET', `/api/v2/equity/transactions?client_account_id=${t.account.id}&per_page=${perPage}&with=business_partner,created_by,updated_by`, { token: t.user.token });
    expect(res.body.data).toHaveLength(perPage);
    expect(res.body.data[perPage - 1]).toMatchObject({ business_partner: { name: expect.stringMatching(/^Q-/) }, created_by: { id: t.user.id }, updated_by: { id: t.user.id } });
    return app.statements.length;
  };

  it('GET /equity/transactions?with=business_partner,created_by,updated_by issues the same number of statements for 2 and 40 rows', async () => {
    await count(2); // a token's first request also looks its session up
    const small = await count(2);
    const large = await count(40);
    expect(large).toBe(small);
  });
});
