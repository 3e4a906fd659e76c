import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": the number of
// SQL statements of the widest item list must not grow with the page size.
describe.each(targets())('items list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    const [piece, kg] = [await app.seed.unitId('H87'), await app.seed.unitId('KGM')];
    const taxes = [await t.taxCode('3'), await t.taxCode('31'), await t.taxCode('33')];
    await app.db.prisma.item.createMany({
      data: Array.from({ length: 40 }, (_, i) => ({
        clientAccountId: t.account.id, itemNo: `Q-${String(i).padStart(3, '0')}`, salesUnitId: i % 2 ? piece : kg,
        stockUnitId: i % 2 ? kg : piece, taxCodeId: taxes[i % 3], createdById: t.user.id,
      })),
    });
  });
  afterAll(() => app?.close());

  const count = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}&per_page=${perPage}&with=sales_unit,stock_unit,tax_code`, { token: t.user.token });
    expect(res.body.data).toHaveLength(perPage);
    return app.statements.length;
  };

  it('GET /items?with=sales_unit,stock_unit,tax_code issues the same number of statements for 2 and 40 rows', async () => {
    await count(2); // the app's first request loads the units (reference data, read once per app)
    const small = await count(2);
    const large = await count(40);
    console.log(`[${target}] widest item list: ${large} SQL statements for 40 rows (${small} for 2)`);
    expect(large).toBe(small);
  });

  it('units are reference data read once per app: sales and stock units cost no statement per request (they were two)', async () => {
    const readsUnits = () => fresh.statements.filter((q) => /FROM "public"\."units"/.test(q)).length;
    const fresh = await startTestApp(target, { database: app.db, log: ['query'] });
    try {
      const path = `/api/v2/items?client_account_id=${t.account.id}&per_page=40&with=sales_unit,stock_unit`;
      const first = await fresh.http('GET', path, { token: t.user.token });
      expect(first.status).toBe(200);
      expect(first.body.data[1]).toMatchObject({ sales_unit: { id: first.body.data[1].sales_unit_id }, stock_unit: { id: first.body.data[1].stock_unit_id } });
      expect(readsUnits()).toBe(1);
      fresh.statements.length = 0;
      const again = await fresh.http('GET', path, { token: t.user.token });
      expect(again.body).toEqual(first.body);
      expect(readsUnits()).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
