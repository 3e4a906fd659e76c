import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const DOCUMENT = `id documentType documentStatus documentNumber isDraft netAmount grossAmount openAmount paymentStatus isUnpaid journalEntryId
  itemLines { lineId taxRate taxAmountLc totalLc } businessPartner { id name } reconciliationLines { reconciliationType amount }`;

// The same rules as REST (spec 001 "Documents"), through /graphql.
describe.each(targets())('documents GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let customer: number;
  let vat25: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    await app.seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    customer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS' } })).id;
    vat25 = await t.taxCode('3');
  });
  afterAll(() => app?.close());

  const input = (extra: Record<string, unknown> = {}) => ({
    clientAccountId: t.account.id,
    documentType: 'ARINV',
    businessPartnerId: customer,
    documentDate: '2026-04-01',
    itemLines: [{ itemName: 'Kurs', price: '1200.00', quantity: '1', taxCodeId: vat25 }],
    ...extra,
  });

  it('createDocument, document, documents, updateDocument, deleteDocument and previewDocument', async () => {
    const draft = await app.gql(t.user.token, `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { ${DOCUMENT} } }`, { input: input({ isDraft: true }) });
    expect(draft.errors).toBeUndefined();
    const d = draft.data.createDocument;
    expect(d).toMatchObject({ documentStatus: 'DRAFT', documentNumber: null, grossAmount: '1500.00', paymentStatus: 'NOT_APPLICABLE', journalEntryId: null, businessPartner: { id: customer } });
    const final = await app.gql(t.user.token, `mutation { updateDocument(id: ${d.id}, input: { isDraft: false }) { ${DOCUMENT} } }`);
    expect(final.errors).toBeUndefined();
    expect(final.data.updateDocument).toMatchObject({ documentStatus: 'FINALIZED', documentNumber: '1', openAmount: '1500.00', paymentStatus: 'UNPAID', isUnpaid: true, journalEntryId: expect.any(Number) });
    const page = await app.gql(t.user.token, `{ documents(clientAccountId: ${t.account.id}, paymentStatus: [UNPAID], openAmount: "1500.00") { nodes { id } meta { page pages perPage records } } }`);
    expect(page.data.documents).toEqual({ nodes: [{ id: d.id }], meta: { page: 1, pages: 1, perPage: 100, records: 1 } });
    const refused = await app.gql(t.user.token, `mutation { deleteDocument(id: ${d.id}) }`);
    expect(refused.errors?.[0]).toMatchObject({ message: expect.stringContaining('credit it instead'), extensions: { code: 'common.validation_error' } });
    const preview = await app.gql(t.user.token, `mutation($input: CreateDocumentInput!) { previewDocument(input: $input) { fileName contentType contentBase64 } }`, { input: input() });
    expect(preview.data.previewDocument).toMatchObject({ contentType: 'application/pdf', fileName: 'faktura-utkast.pdf' });
    expect(Buffer.from(preview.data.previewDocument.contentBase64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    const other2 = await app.gql(t.user.token, `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { id } }`, { input: input({ isDraft: true }) });
    expect((await app.gql(t.user.token, `mutation { deleteDocument(id: ${other2.data.createDocument.id}) }`)).data.deleteDocument).toBe(true);
  });

  it('spec 001: "gross_amount, net_amount | decimal": grossAmount and netAmount in CreateDocumentInput and UpdateDocumentInput, the same rules as REST', async () => {
    const { itemLines: _l, ...bare } = input();
    const created = await app.gql(t.user.token, `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { ${DOCUMENT} } }`, { input: { ...bare, isDraft: true, grossAmount: '625.00', netAmount: '500.00' } });
    expect(created.errors).toBeUndefined();
    expect(created.data.createDocument).toMatchObject({ grossAmount: '625.00', netAmount: '500.00', itemLines: [] });
    const id = created.data.createDocument.id;
    const updated = await app.gql(t.user.token, `mutation { updateDocument(id: ${id}, input: { netAmount: "600.00" }) { ${DOCUMENT} } }`);
    expect(updated.data.updateDocument).toMatchObject({ grossAmount: '625.00', netAmount: '600.00' });
    const mismatch = await app.gql(t.user.token, `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { id } }`, { input: input({ grossAmount: '1200.00' }) });
    expect(mismatch.errors?.[0]).toMatchObject({ message: expect.stringContaining("grossAmount: is 1200.00 NOK, but the item lines' gross total (net plus VAT) is 1500.00 NOK"), extensions: { code: 'common.validation_error' } });
  });

  it("another account's document is forbidden (common.forbidden); a missing one common.not_found; a read-only token cannot create", async () => {
    const d = (await app.gql(t.user.token, `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { id } }`, { input: input({ isDraft: true }) })).data.createDocument;
    expect((await app.gql(other.user.token, `{ document(id: ${d.id}) { id } }`)).errors?.[0].extensions?.code).toBe('common.forbidden');
    expect((await app.gql(t.user.token, '{ document(id: 999999) { id } }')).errors?.[0].extensions?.code).toBe('common.not_found');
    const ro = await app.gql(t.user.readToken, `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { id } }`, { input: input() });
    expect(ro.errors?.[0]).toBeDefined();
  });
});
