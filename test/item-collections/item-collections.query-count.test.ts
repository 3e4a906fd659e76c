import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": the widest item
// collection list (every documented `with` relation) must issue as many SQL statements for 20
// collections as for 2.
const COLLECTIONS = 20;
const ENTRIES_PER_COLLECTION = 3;
const WIDEST = 'entries,entries.item,entries.unit,entries.tax_code_details,entries.business_partner,entries.document_lines';

describe.each(targets())('item collections list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    const prisma = app.db.prisma;
    const units = [await app.seed.unitId('H87'), await app.seed.unitId('HUR'), await app.seed.unitId('KGM')];
    const taxes = [await t.taxCode('3'), await t.taxCode('31'), await t.taxCode('33')];
    const items = await Promise.all(
      [0, 1, 2].map(async (i) => (await prisma.item.create({ data: { clientAccountId: t.account.id, itemNo: `QC-${i}`, salesUnitId: units[i]!, taxCodeId: taxes[i]! } })).id),
    );
    const partners = await Promise.all(
      [0, 1].map(async (i) => (await prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: `Kunde ${i}`, isCustomer: true } })).id),
    );
    const doc = await prisma.document.create({ data: { clientAccountId: t.account.id, documentType: 'ARINV', documentDate: new Date('2026-05-01') } });
    let lineId = 0;
    for (let c = 0; c < COLLECTIONS; c++) {
      const collection = await prisma.itemCollection.create({ data: { clientAccountId: t.account.id, collectionType: 'TEMPLATE', name: `QC ${c}` } });
      for (let e = 0; e < ENTRIES_PER_COLLECTION; e++) {
        const k = (c + e) % 3;
        const entry = await prisma.itemCollectionEntry.create({
          data: {
            itemCollectionId: collection.id, clientAccountId: t.account.id, itemId: items[k], unitId: units[k]!, taxCodeId: taxes[k]!,
            businessPartnerId: partners[k % 2], quantity: '1', price: '10',
          },
        });
        await prisma.documentLine.create({
          data: { documentId: doc.id, lineId: ++lineId, price: '10', currencyCode: 'NOK', quantity: '1', itemCollectionEntryId: entry.id },
        });
      }
    }
  });
  afterAll(() => app?.close());

  const count = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.http('GET', `/api/v2/item-collections?client_account_id=${t.account.id}&with=${WIDEST}&per_page=${perPage}`, { token: t.user.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(perPage);
    for (const c of res.body.data) {
      expect(c.entries).toHaveLength(ENTRIES_PER_COLLECTION);
      for (const e of c.entries) {
        expect(e.item).toMatchObject({ id: e.item_id });
        expect(e.unit).toMatchObject({ id: e.unit_id });
        expect(e.tax_code_details).toMatchObject({ id: e.tax_code_id, rate: expect.any(String) });
        expect(e.business_partner).toMatchObject({ id: e.business_partner_id });
        expect(e.document_lines).toEqual([expect.objectContaining({ item_collection_entry_id: e.id })]);
      }
    }
    return app.statements.length;
  };
  const readsUnits = () => app.statements.filter((q) => /FROM "public"\."units"/.test(q)).length;

  it('entry units come from the reference cache: after the first request no statement reads units', async () => {
    await count(2);
    await count(COLLECTIONS);
    expect(readsUnits()).toBe(0);
  });

  it(`GET /item-collections?with=${WIDEST} issues the same number of SQL statements for 2 and ${COLLECTIONS} collections`, async () => {
    await count(2); // the app's first request loads the units (reference data, read once per app)
    const small = await count(2);
    const large = await count(COLLECTIONS);
    console.log(`[${target}] widest item collection list: ${large} SQL statements for ${COLLECTIONS} collections x ${ENTRIES_PER_COLLECTION} entries (${small} for 2)`);
    expect(large).toBe(small);
  });
});
