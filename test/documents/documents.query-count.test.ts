import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { DOCUMENT_RELATIONS } from '../../rest-adapter/routes/documents.ts';

// STYLE.md "plugin tests record every Prisma call so an N+1 regression fails a test": the document
// list with every relation (and the derived payment fields, reconciliation lines, currency ids)
// issues as many SQL statements for 30 documents as for 2 (give or take a loader batch split by timing).
describe.each(targets())('document list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    await app.db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    const partner = (await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde' } })).id;
    const vat = (await app.db.prisma.taxCode.findFirstOrThrow({ where: { clientAccountId: t.account.id, code: '3' } })).id;
    for (let i = 0; i < 30; i++) {
      const res = await app.http('POST', '/api/v2/documents', {
        token: t.user.token,
        body: {
          client_account_id: t.account.id,
          document_type: 'ARINV',
          business_partner_id: partner,
          document_date: '2026-05-02',
          item_lines: [{ item_name: 'Kurs', price: String(100 + i), tax_code_id: vat }, { item_name: 'Reise', price: '10' }],
          payment_lines: [{ line_type: 'SUPPLIER_PAYMENT', amount: '1' }],
          document_references: [{ reference_type: 'ORDER', reference_number: `PO-${i}` }],
        },
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => app?.close());

  const count = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.http('GET', `/api/v2/documents?client_account_id=${t.account.id}&per_page=${perPage}&with_relations=${DOCUMENT_RELATIONS.join(',')}`, { token: t.user.token });
    expect(res.body.data).toHaveLength(perPage);
    expect(res.body.data[0].item_lines).toHaveLength(2);
    return app.statements.length;
  };

  it('GET /documents with every relation issues as many statements for 30 documents as for 2 (an N+1 would add one per document)', async () => {
    await count(2);
    const small = await count(2);
    const large = await count(30);
    console.log(`[${target}] widest document list: ${large} SQL statements for 30 documents (${small} for 2)`);
    // loaders batch per tick of the event loop, so one batch may split in two on either page size
    expect(Math.abs(large - small)).toBeLessThanOrEqual(1);
    expect(large).toBeLessThan(25);
  });
});
