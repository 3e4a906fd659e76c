import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import type { Mailer, MailMessage } from '../../src/mail/mailer.ts';
import { sendDocumentJob } from '../../src/modules/documents/documents.job.ts';

// spec 001 "Commercial document" and "Documents": GET/POST /documents, GET/PUT/PATCH/DELETE
// /documents/{id}, POST /documents/preview; posting through the journal entries, payment fields
// derived from reconciliations (README "Commercial documents" for the values defined here).
describe.each(targets())('documents REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let customer: number;
  let silent: number;
  let supplier: number;
  let bank: number;
  let piece: number;
  let vat25: number;
  let vat15: number;
  let input25: number;
  const mails: MailMessage[] = [];
  const mailer: Mailer = {
    describe: 'captured by the test',
    async send(message) {
      mails.push(message);
      return { messageId: `<${mails.length}@test>` };
    },
    close() {},
  };

  beforeAll(async () => {
    app = await startTestApp(target, { jobs: { queues: [sendDocumentJob.name], mailer } });
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    const p = app.seed.prisma;
    await p.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    customer = (await p.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', email: 'faktura@kunde.example', isCustomer: true } })).id;
    await p.businessPartnerAddress.create({ data: { businessPartnerId: customer, addressType: 'POSTAL', line1: 'Storgata 1', postalCode: '0155', city: 'Oslo' } });
    silent = (await p.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Uten Epost AS', isCustomer: true } })).id;
    supplier = (await p.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Leverandør AS', isSupplier: true } })).id;
    bank = (await p.bankAccount.create({ data: { clientAccountId: t.account.id, accountNumber: '15032012342', ledgerAccountId: await t.ledgerAccount('1920') } })).id;
    piece = await app.seed.unitId('H87');
    [vat25, vat15, input25] = [await t.taxCode('3'), await t.taxCode('31'), await t.taxCode('1')];
  });
  afterAll(() => app?.close());

  const api = (method: string, path: string, body?: unknown, token = t.user.token) => app.http(method, `/api/v2${path}`, { token, body });
  const line = (price: string, quantity = '1', taxCodeId = vat25, extra: Record<string, unknown> = {}) => ({ item_name: 'Konsulenttime', price, quantity, unit_id: piece, tax_code_id: taxCodeId, ...extra });
  const invoice = (extra: Record<string, unknown> = {}) => ({
    client_account_id: t.account.id,
    document_type: 'ARINV',
    business_partner_id: customer,
    document_date: '2026-03-02',
    due_date: '2026-03-16',
    item_lines: [line('1000.00')],
    ...extra,
  });
  async function create(body: Record<string, unknown>, token = t.user.token) {
    const res = await api('POST', '/documents', body, token);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }
  const get = async (id: number, relations = '') => (await api('GET', `/documents/${id}${relations ? `?with_relations=${relations}` : ''}`)).body;
  const entryLines = async (entryId: number) => {
    const res = await api('GET', `/journal-entries/${entryId}`);
    expect(res.status).toBe(200);
    return res.body.lines.map((l: any) => [l.account_code, l.debit, l.credit, l.tax_code ?? null, l.dimensions.map((d: any) => `${d.type}:${d.id}`).join(',')]);
  };

  describe('POST /documents', () => {
    it('201 with every spec field: a finalized invoice is numbered, given a KID, and its amounts are the lines\' sums', async () => {
      const doc = await create(invoice({ item_lines: [line('1000.00', '2'), line('200.00', '1', vat15)] }));
      expect(doc).toMatchObject({
        client_account_id: t.account.id,
        document_type: 'ARINV',
        document_status: 'FINALIZED',
        is_draft: false,
        document_number: expect.stringMatching(/^\d+$/),
        payment_ref: expect.stringMatching(/^\d+$/),
        net_amount: '2200.00',
        gross_amount: '2730.00',
        open_amount: '2730.00',
        payment_status: 'UNPAID',
        is_unpaid: true,
        is_payable: false,
        is_reconcilable: true,
        is_unreconciled: true,
        currency_code: 'NOK',
        exchange_rate: '1.000000',
        created_by_id: t.user.id,
        updated_by_id: t.user.id,
        journal_entry_id: expect.any(Number),
      });
      for (const key of ['id', 'created_at', 'updated_at', 'business_partner_id', 'payor_id', 'collector_id', 'document_date', 'due_date', 'period_start', 'period_end', 'period_description',
        'document_uuid', 'document_description', 'buyer_reference', 'order_reference', 'note', 'collection_case_number', 'collection_severity', 'stated_payment_status', 'payment_means',
        'payment_card_number', 'pending_payment_amount', 'late_fee_amount', 'interest_amount', 'bank_account_id', 'voucher_id', 'currency_id', 'is_imported', 'is_active', 'is_archived',
        'is_available_for_payment', 'is_being_paid', 'archive_category', 'send_document']) {
        expect(doc, key).toHaveProperty(key);
      }
      expect(doc.item_lines.map((l: any) => [l.line_id, l.tax_rate, l.tax_amount_lc, l.total_lc])).toEqual([
        [1, '25.00', '500.00', '2500.00'],
        [2, '15.00', '30.00', '230.00'],
      ]);
    });

    it('"posts its journal entry in the same transaction": 1500 debit with the partner, revenue by tax code (3000, 3030), VAT on 2700/2701', async () => {
      const doc = await create(invoice({ item_lines: [line('1000.00', '2'), line('200.00', '1', vat15)] }));
      expect(await entryLines(doc.journal_entry_id)).toEqual([
        ['1500', '2730.00', '0.00', null, `businesspartner:${customer}`],
        ['3000', '0.00', '2000.00', '3', ''],
        ['2700', '0.00', '500.00', null, ''],
        ['3030', '0.00', '200.00', '31', ''],
        ['2701', '0.00', '30.00', null, ''],
      ]);
      const entry = (await api('GET', `/journal-entries/${doc.journal_entry_id}`)).body;
      expect(entry).toMatchObject({ relation_type: 'document', relation_id: doc.id, is_draft: false, relation_number: doc.document_number });
    });

    it.each([
      // price, quantity, rate code, VAT, total: rounded half up to the øre on each line
      ['99.99', '3', '3', '74.99', '374.96'],
      ['10.05', '1', '31', '1.51', '11.56'],
      ['0.02', '1', '3', '0.01', '0.03'],
      ['33.333333', '3', '3', '25.00', '125.00'],
      ['19.90', '0.5', '31', '1.49', '11.44'],
    ])('VAT per line to the øre: %s × %s at code %s → VAT %s, total %s', async (price, quantity, code, vat, total) => {
      const doc = await create(invoice({ is_draft: true, item_lines: [line(price, quantity, await t.taxCode(code))] }));
      expect(doc.item_lines[0]).toMatchObject({ tax_amount_lc: vat, tax_amount_fc: vat, total_lc: total, total_fc: total });
      expect(doc.gross_amount).toBe(total);
    });

    it('"rounding to the øre per line": two lines of 0.02 at 25 % carry 0.01 VAT each (0.02), not 0.01 on their sum', async () => {
      const doc = await create(invoice({ is_draft: true, item_lines: [line('0.02'), line('0.02')] }));
      expect(doc).toMatchObject({ net_amount: '0.04', gross_amount: '0.06' });
    });

    it('the tax code\'s rate on the document date: 400 naming the line when the code has no rate then', async () => {
      const custom = (await app.seed.prisma.taxCode.create({ data: { clientAccountId: t.account.id, code: 'X1', standardTaxCode: '3', name: 'Ny sats', direction: 'OUTPUT', rates: { create: [{ ratePercent: '20.00', validFrom: new Date('2026-06-01') }] } } })).id;
      const before = await api('POST', '/documents', invoice({ item_lines: [line('100.00', '1', custom)] }));
      expect(before).toMatchObject({ status: 400, body: { error: expect.stringMatching(/item_lines\.0\.tax_code_id: tax code 'X1' has no rate on 2026-03-02/) } });
      const after = await create(invoice({ is_draft: true, document_date: '2026-06-02', due_date: null, item_lines: [line('100.00', '1', custom)] }));
      expect(after.item_lines[0]).toMatchObject({ tax_rate: '20.00', tax_amount_lc: '20.00' });
    });

    it('an item fills what the line leaves out (number, name, price, unit, tax code)', async () => {
      const item = (await app.seed.prisma.item.create({ data: { clientAccountId: t.account.id, itemNo: 'KAFFE-1', name: 'Kaffe 1 kg', price: '180.00', salesUnitId: piece, taxCodeId: vat15 } })).id;
      const doc = await create(invoice({ is_draft: true, item_lines: [{ item_id: item, quantity: '2' }] }));
      expect(doc.item_lines[0]).toMatchObject({ item_id: item, item_no: 'KAFFE-1', item_name: 'Kaffe 1 kg', price: '180.000000', unit_id: piece, tax_code_id: vat15, tax_amount_lc: '54.00', total_lc: '414.00' });
    });

    it('lines consume item collection entries: an ORDER entry once (400 the second time), a TEMPLATE entry again and again', async () => {
      const make = async (type: 'ORDER' | 'TEMPLATE') => {
        const c = await app.seed.prisma.itemCollection.create({ data: { clientAccountId: t.account.id, name: `Samling ${type}`, collectionType: type } });
        return (await app.seed.prisma.itemCollectionEntry.create({ data: { itemCollectionId: c.id, clientAccountId: t.account.id, description: 'Abonnement', quantity: '1', price: '499.00', unitId: piece, taxCodeId: vat25 } })).id;
      };
      const order = await make('ORDER');
      const first = await create(invoice({ item_lines: [{ item_collection_entry_id: order }] }));
      expect(first.item_lines[0]).toMatchObject({ item_collection_entry_id: order, description: 'Abonnement', price: '499.000000', total_lc: '623.75' });
      const used = await app.http('GET', `/api/v2/item-collections/entries?client_account_id=${t.account.id}`, { token: t.user.token });
      void used;
      const again = await api('POST', '/documents', invoice({ item_lines: [{ item_collection_entry_id: order }] }));
      expect(again).toMatchObject({ status: 400, body: { error: expect.stringContaining(`item collection entry ${order} was consumed by document ${first.id}`) } });
      const template = await make('TEMPLATE');
      await create(invoice({ item_lines: [{ item_collection_entry_id: template }] }));
      await create(invoice({ item_lines: [{ item_collection_entry_id: template }] }));
    });

    it.each([
      [{ document_type: 'XXINV' }, 'document_type'],
      [{ document_type: undefined }, 'document_type'],
      [{ item_lines: [line('1.0000001')] }, 'item_lines.0.price'],
      [{ item_lines: [line('10.00', '1', 999999)] }, 'item_lines.0.tax_code_id'],
      [{ business_partner_id: 999999 }, 'business_partner_id'],
      [{ period_start: '2026-03-01', period_end: '2026-02-01' }, 'period_end'],
      [{ document_number: '77' }, 'document_number'],
      [{ business_partner_id: null }, 'business_partner_id'],
      [{ item_lines: [] }, 'item_lines'],
      [{ archive_category: 'SHOEBOX' }, 'archive_category'],
      [{ colour: 'red' }, 'colour'],
    ])('400 {error, status} for %j naming %s', async (change, field) => {
      const body: Record<string, unknown> = { ...invoice(), ...change };
      for (const [k, v] of Object.entries(change)) if (v === undefined) delete body[k];
      const res = await api('POST', '/documents', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it('spec 001: "document_date, due_date, period_start, period_end | date": document_date may be left out (today in Norway); a due date before the document date is accepted', async () => {
      const body: Record<string, unknown> = invoice({ is_draft: true });
      delete body.document_date;
      const undated = await create(body);
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
      expect(undated.document_date).toBe(today);
      const early = await create(invoice({ document_date: '2026-03-02', due_date: '2026-02-20' }));
      expect(early).toMatchObject({ document_date: '2026-03-02', due_date: '2026-02-20', is_draft: false });
    });

    it('spec 001 document line "item_id, item_no, item_name, description, price": a line with no price, item or entry is a text line (price 0); an inactive item may be named', async () => {
      const doc = await create(invoice({ item_lines: [line('100.00'), { description: 'Takk for handelen!' }] }));
      expect(doc.item_lines.map((l: any) => [l.description, l.price, l.total_lc])).toEqual([[null, '100.000000', '125.00'], ['Takk for handelen!', '0.000000', '0.00']]);
      expect(doc.gross_amount).toBe('125.00');
      const old = (await app.seed.prisma.item.create({ data: { clientAccountId: t.account.id, itemNo: 'UTGATT-1', name: 'Utgått vare', price: '80.00', salesUnitId: piece, taxCodeId: vat25, isActive: false } })).id;
      const credited = await create(invoice({ document_type: 'ARCRN', item_lines: [{ item_id: old }] }));
      expect(credited.item_lines[0]).toMatchObject({ item_id: old, item_no: 'UTGATT-1', total_lc: '100.00' });
      // a draft naming an item deactivated later still takes updates
      const other = (await app.seed.prisma.item.create({ data: { clientAccountId: t.account.id, itemNo: 'SNART-UTGATT', price: '10.00', salesUnitId: piece, taxCodeId: vat25 } })).id;
      const draft = await create(invoice({ is_draft: true, item_lines: [{ item_id: other }] }));
      await api('DELETE', `/items/${other}`);
      expect((await api('PATCH', `/documents/${draft.id}`, { note: 'fortsatt utkast' })).status).toBe(200);
    });

    it('spec 001 "document_number … | string": a number from outside is unique per business partner — two suppliers may both send 1001, the same supplier twice is 400', async () => {
      const other = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Annen Leverandør AS', isSupplier: true } })).id;
      const bill = (partner: number) => ({ ...invoice(), document_type: 'APINV', business_partner_id: partner, document_number: '1001', item_lines: [line('100.00', '1', input25)] });
      await create(bill(supplier));
      await create(bill(other));
      const twice = await api('POST', '/documents', bill(supplier));
      expect(twice).toMatchObject({ status: 400, body: { error: expect.stringContaining("document_number: '1001' is already used by APINV document") } });
      // moving a draft with the number to the partner that has it is the same double registration
      const draft = await create({ ...bill(silent), is_draft: true });
      expect((await api('PATCH', `/documents/${draft.id}`, { business_partner_id: other })).status).toBe(400);
      // sales numbers stay unique per type across partners
      const imported = await create(invoice({ is_imported: true, document_number: 'IMP-7' }));
      const clash = await api('POST', '/documents', invoice({ is_imported: true, document_number: 'IMP-7', business_partner_id: silent }));
      expect(clash).toMatchObject({ status: 400, body: { error: expect.stringContaining(`'IMP-7' is already used by ARINV document ${imported.id}`) } });
    });

    it('"client_account_id must be one of the caller\'s eligible client accounts; otherwise 403"; a read-only token 403', async () => {
      expect((await api('POST', '/documents', invoice({ client_account_id: other.account.id }))).status).toBe(403);
      expect((await api('POST', '/documents', invoice(), t.user.readToken)).status).toBe(403);
    });
  });

  describe('numbering', () => {
    it('"sequential per client account and document type, gapless for finalized ones; drafts get theirs when finalized"', async () => {
      const tenant = await app.seed.tenant();
      await app.seed.prisma.clientAccount.update({ where: { id: tenant.account.id }, data: { vatLiable: true } });
      const partner = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: tenant.account.id, name: 'K AS' } })).id;
      const body = (extra: Record<string, unknown> = {}) => ({ ...invoice({ client_account_id: tenant.account.id, business_partner_id: partner, item_lines: [line('100.00', '1', null as never)] }), ...extra });
      const mk = (extra: Record<string, unknown> = {}) => create(body(extra), tenant.user.token);
      const a = await mk();
      const draft = await mk({ is_draft: true });
      const b = await mk();
      const credit = await mk({ document_type: 'ARCRN' });
      expect([a.document_number, draft.document_number, b.document_number, credit.document_number]).toEqual(['1', null, '2', '1']);
      const finalized = await api('PATCH', `/documents/${draft.id}`, { is_draft: false }, tenant.user.token);
      expect(finalized.body).toMatchObject({ document_number: '3', is_draft: false, document_status: 'FINALIZED' });
      // a failing finalize gives its number back
      const bad = await api('POST', '/documents', body({ business_partner_id: null }), tenant.user.token);
      expect(bad.status).toBe(400);
      const concurrent = await Promise.all(Array.from({ length: 4 }, () => api('POST', '/documents', body(), tenant.user.token)));
      expect(concurrent.map((r) => r.status)).toEqual([201, 201, 201, 201]);
      expect(concurrent.map((r) => Number(r.body.document_number)).sort()).toEqual([4, 5, 6, 7]);
    });
  });

  describe('drafts, updates and deletes', () => {
    it('a draft posts nothing, may change (item_lines replaced, totals follow) and is finalized by is_draft false, which posts', async () => {
      const draft = await create(invoice({ is_draft: true }));
      expect(draft).toMatchObject({ is_draft: true, document_status: 'DRAFT', journal_entry_id: null, payment_status: 'NOT_APPLICABLE', open_amount: '0.00', is_unpaid: false, document_number: null });
      const changed = await api('PUT', `/documents/${draft.id}`, { item_lines: [line('80.00', '2'), line('20.00')], note: 'Takk for handelen' });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(changed.body).toMatchObject({ net_amount: '180.00', gross_amount: '225.00', note: 'Takk for handelen' });
      expect(changed.body.item_lines).toHaveLength(2);
      const dated = await api('PATCH', `/documents/${draft.id}`, { document_date: '2026-03-03' });
      expect(dated.body).toMatchObject({ document_date: '2026-03-03', gross_amount: '225.00' });
      const done = await api('PATCH', `/documents/${draft.id}`, { is_draft: false });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body).toMatchObject({ is_draft: false, document_status: 'FINALIZED', open_amount: '225.00', payment_status: 'UNPAID' });
      expect(await entryLines(done.body.journal_entry_id)).toEqual([
        ['1500', '225.00', '0.00', null, `businesspartner:${customer}`],
        ['3000', '0.00', '160.00', '3', ''],
        ['2700', '0.00', '40.00', null, ''],
        ['3000', '0.00', '20.00', '3', ''],
        ['2700', '0.00', '5.00', null, ''],
      ]);
    });

    it.each([
      ['item_lines', [line('1.00')]],
      ['business_partner_id', 0],
      ['document_date', '2026-03-05'],
      ['due_date', '2026-04-30'],
      ['document_type', 'ARCIN'],
      ['currency_code', 'EUR'],
      ['payment_ref', '12345678903'],
      ['is_draft', true],
    ])('"a finalized document may not change its amounts/lines/partner/date": %s → 400 "credit it instead"', async (field, value) => {
      const doc = await create(invoice());
      const res = await api('PATCH', `/documents/${doc.id}`, { [field]: field === 'business_partner_id' ? silent : value });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`${field}: .*credit it instead`));
    });

    it('a finalized document may change its note, description, archive flags and references; the same values sent back are accepted', async () => {
      const doc = await create(invoice());
      const res = await api('PUT', `/documents/${doc.id}`, { note: 'Purret 1', is_archived: true, archive_category: 'ACCOUNTING', document_date: doc.document_date, business_partner_id: customer, id: doc.id, open_amount: '1.00' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ note: 'Purret 1', is_archived: true, archive_category: 'ACCOUNTING', gross_amount: doc.gross_amount, updated_by_id: t.user.id });
    });

    it('DELETE: a draft is removed (204, then 404); a finalized document is 400 "credit it instead"', async () => {
      const draft = await create(invoice({ is_draft: true }));
      const res = await api('DELETE', `/documents/${draft.id}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await api('GET', `/documents/${draft.id}`)).status).toBe(404);
      const doc = await create(invoice());
      const refused = await api('DELETE', `/documents/${doc.id}`);
      expect(refused).toMatchObject({ status: 400, body: { error: expect.stringContaining('credit it instead') } });
      expect((await api('DELETE', `/documents/${doc.id}`, undefined, other.user.token)).status).toBe(403);
    });

    it('GET /documents/{id}: 404 for none, 403 for another account\'s', async () => {
      const doc = await create(invoice({ is_draft: true }));
      expect((await api('GET', '/documents/999999')).status).toBe(404);
      expect((await api('GET', `/documents/${doc.id}`, undefined, other.user.token)).status).toBe(403);
    });
  });

  describe('posting by type', () => {
    it('a purchase invoice posts cost (the line\'s account), input VAT on 2710 and the payable on 2400 with the partner', async () => {
      const office = await t.ledgerAccount('6800');
      const doc = await create({ ...invoice(), document_type: 'APINV', business_partner_id: supplier, document_number: 'L-2026-17', item_lines: [line('400.00', '1', input25, { account_id: office })] });
      expect(doc).toMatchObject({ document_number: 'L-2026-17', is_payable: true, is_available_for_payment: true, open_amount: '500.00' });
      expect(await entryLines(doc.journal_entry_id)).toEqual([
        ['2400', '0.00', '500.00', null, `businesspartner:${supplier}`],
        ['6800', '400.00', '0.00', '1', ''],
        ['2710', '100.00', '0.00', null, ''],
      ]);
    });

    it('"credit notes post the reverse and may reference the credited document": the invoice is settled (PAID, CREDITED) against it', async () => {
      const inv = await create(invoice({ item_lines: [line('400.00')] }));
      const crn = await create({ ...invoice(), document_type: 'ARCRN', item_lines: [line('400.00')], document_references: [{ reference_type: 'CREDITS', referenced_document_id: inv.id }] });
      expect(await entryLines(crn.journal_entry_id)).toEqual([
        ['1500', '0.00', '500.00', null, `businesspartner:${customer}`],
        ['3000', '400.00', '0.00', '3', ''],
        ['2700', '100.00', '0.00', null, ''],
      ]);
      expect(crn.document_references).toEqual([{ id: expect.any(Number), reference_type: 'CREDITS', referenced_document_id: inv.id, reference_number: null }]);
      const after = await get(inv.id, 'reconciliation_lines');
      expect(after).toMatchObject({ document_status: 'CREDITED', open_amount: '0.00', payment_status: 'PAID', is_unpaid: false });
      expect(after.reconciliation_lines).toEqual([expect.objectContaining({ reconciliation_type: 'CREDIT_NOTE', amount: '500.00', currency_code: 'NOK', transaction_date: '2026-03-02' })]);
      expect((await get(crn.id)).payment_status).toBe('PAID');
    });

    it('a foreign-currency invoice: lines in EUR (fc) and NOK at the exchange rate (lc), each rounded; the entry in NOK with the EUR amounts', async () => {
      const doc = await create(invoice({ currency_code: 'EUR', exchange_rate: '11.5', item_lines: [line('100.00', '1'), line('0.99', '3', vat15)] }));
      expect(doc.item_lines.map((l: any) => [l.currency_code, l.tax_amount_fc, l.total_fc, l.tax_amount_lc, l.total_lc])).toEqual([
        ['EUR', '25.00', '125.00', '287.50', '1437.50'],
        ['EUR', '0.45', '3.42', '5.18', '39.34'],
      ]);
      expect(doc).toMatchObject({ currency_code: 'EUR', exchange_rate: '11.500000', net_amount: '102.97', gross_amount: '128.42' });
      const entry = (await api('GET', `/journal-entries/${doc.journal_entry_id}`)).body;
      expect(entry.lines.map((l: any) => [l.account_code, l.debit, l.credit, l.currency_code, l.debit_fc, l.credit_fc])).toEqual([
        ['1500', '1476.84', '0.00', 'EUR', '128.42', '0.00'],
        ['3000', '0.00', '1150.00', 'EUR', '0.00', '100.00'],
        ['2700', '0.00', '287.50', 'EUR', '0.00', '25.00'],
        ['3030', '0.00', '34.16', 'EUR', '0.00', '2.97'],
        ['2701', '0.00', '5.18', 'EUR', '0.00', '0.45'],
      ]);
      expect((await api('POST', '/documents', invoice({ currency_code: 'EUR' }))).body.error).toContain('exchange_rate: is required');
    });

    it('"voucher_id on the entry when the document has one"; attached files are listed by with_relations=files', async () => {
      const p = app.seed.prisma;
      const file = async (name: string, documentId?: number) =>
        p.storedFile.create({ data: { clientAccountId: t.account.id, type: 'VOUCHER', fileName: name, contentType: 'application/pdf', size: 10, sha256: '0'.repeat(64), storageKey: `test/${Math.random()}`, documentId } as never });
      const voucher = await p.voucher.create({ data: { clientAccountId: t.account.id, fileId: (await file('bilag.pdf')).id } });
      const doc = await create(invoice({ voucher_id: voucher.id }));
      expect(doc.voucher_id).toBe(voucher.id);
      expect((await api('GET', `/journal-entries/${doc.journal_entry_id}`)).body.voucher_id).toBe(voucher.id);
      await file('vedlegg.pdf', doc.id);
      const withFiles = await get(doc.id, 'files');
      expect(withFiles.files).toEqual([expect.objectContaining({ file_name: 'vedlegg.pdf', download_url: expect.stringMatching(/^http/) })]);
      const theirs = await p.voucher.create({ data: { clientAccountId: other.account.id, fileId: (await p.storedFile.create({ data: { clientAccountId: other.account.id, type: 'VOUCHER', fileName: 'x.pdf', contentType: 'application/pdf', size: 1, sha256: '0'.repeat(64), storageKey: `test/${Math.random()}` } })).id } });
      expect((await api('POST', '/documents', invoice({ voucher_id: theirs.id }))).status).toBe(400);
    });

    it('a CREDITS reference must name a finalized invoice of the same kind (400)', async () => {
      const bill = await create({ ...invoice(), document_type: 'APINV', business_partner_id: supplier, item_lines: [line('10.00', '1', input25)] });
      const res = await api('POST', '/documents', { ...invoice(), document_type: 'ARCRN', document_references: [{ reference_type: 'CREDITS', referenced_document_id: bill.id }] });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('document_references.0.referenced_document_id') } });
    });

    it.each(['ARPIN', 'PAYSR'])('"proforma and other types post nothing": %s', async (type) => {
      const doc = await create(invoice({ document_type: type }));
      expect(doc).toMatchObject({ is_draft: false, journal_entry_id: null, payment_status: 'NOT_APPLICABLE', open_amount: '0.00' });
    });
  });

  describe('spec 001 "gross_amount, net_amount | decimal": writable amounts', () => {
    const bare = (extra: Record<string, unknown> = {}) => {
      const body: Record<string, unknown> = { ...invoice(), ...extra };
      delete body.item_lines;
      return body;
    };
    const entryOf = async (doc: any) => (await api('GET', `/journal-entries/${doc.journal_entry_id}`)).body;

    it('spec 001: "gross_amount, net_amount | decimal": a document without item lines takes them as given; VAT is their difference, posted at the code whose rate gives it', async () => {
      const doc = await create(bare({ gross_amount: '1250.00', net_amount: '1000.00' }));
      expect(doc).toMatchObject({ gross_amount: '1250.00', net_amount: '1000.00', open_amount: '1250.00', payment_status: 'UNPAID', is_draft: false, item_lines: [] });
      expect(await get(doc.id)).toMatchObject({ gross_amount: '1250.00', net_amount: '1000.00' });
      expect(await entryLines(doc.journal_entry_id)).toEqual([
        ['1500', '1250.00', '0.00', null, `businesspartner:${customer}`],
        ['3000', '0.00', '1000.00', '3', ''],
        ['2700', '0.00', '250.00', null, ''],
      ]);
      // the list filters on the amount given
      const listed = await api('GET', `/documents?client_account_id=${t.account.id}&gross_amount=1250.00&document_number=${doc.document_number}&document_type=ARINV`);
      expect(listed.body.data.map((d: any) => d.id)).toEqual([doc.id]);
    });

    it.each([
      ['gross_amount', { gross_amount: '480.00' }, '480.00', '480.00'],
      ['net_amount', { net_amount: '480.00' }, '480.00', '480.00'],
      ['neither', {}, '0.00', '0.00'],
    ])('spec 001: "gross_amount, net_amount | decimal": without item lines and only %s sent, the other equals it (no VAT)', async (_name, amounts, gross, net) => {
      const doc = await create(bare({ is_draft: true, ...amounts }));
      expect(doc).toMatchObject({ gross_amount: gross, net_amount: net });
    });

    it('spec 001: "gross_amount, net_amount | decimal": a purchase without lines posts cost, input VAT (code 1, 2710) and the payable; no VAT at all posts the gross as cost', async () => {
      const bill = await create(bare({ document_type: 'APINV', business_partner_id: supplier, document_number: 'NL-1', gross_amount: '1250.00', net_amount: '1000.00' }));
      expect(bill).toMatchObject({ is_payable: true, open_amount: '1250.00' });
      expect(await entryLines(bill.journal_entry_id)).toEqual([
        ['2400', '0.00', '1250.00', null, `businesspartner:${supplier}`],
        ['4000', '1000.00', '0.00', '1', ''],
        ['2710', '250.00', '0.00', null, ''],
      ]);
      const untaxed = await create(bare({ document_type: 'APINV', business_partner_id: supplier, document_number: 'NL-2', gross_amount: '300.00' }));
      expect(await entryLines(untaxed.journal_entry_id)).toEqual([
        ['2400', '0.00', '300.00', null, `businesspartner:${supplier}`],
        ['4000', '300.00', '0.00', null, ''],
      ]);
    });

    it('spec 001: "gross_amount, net_amount | decimal": VAT no single rate gives (mixed rates) still balances: net without a code, VAT on the nearest rate\'s account', async () => {
      // 1000 at 25 % and 100 at 15 %: 265 VAT on 1100
      const doc = await create(bare({ gross_amount: '1365.00', net_amount: '1100.00' }));
      expect(await entryLines(doc.journal_entry_id)).toEqual([
        ['1500', '1365.00', '0.00', null, `businesspartner:${customer}`],
        ['3000', '0.00', '1100.00', null, ''],
        ['2700', '0.00', '265.00', null, ''],
      ]);
      // a credit note without lines posts the reverse
      const crn = await create(bare({ document_type: 'ARCRN', gross_amount: '125.00', net_amount: '100.00' }));
      expect(await entryLines(crn.journal_entry_id)).toEqual([
        ['1500', '0.00', '125.00', null, `businesspartner:${customer}`],
        ['3000', '100.00', '0.00', '3', ''],
        ['2700', '25.00', '0.00', null, ''],
      ]);
    });

    it('spec 001: "gross_amount, net_amount | decimal": a client account that is not VAT-liable posts the whole gross amount as revenue', async () => {
      const tenant = await app.seed.tenant();
      const partner = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: tenant.account.id, name: 'K AS' } })).id;
      const res = await api('POST', '/documents', bare({ client_account_id: tenant.account.id, business_partner_id: partner, gross_amount: '500.00', net_amount: '400.00' }), tenant.user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const entry = (await api('GET', `/journal-entries/${res.body.journal_entry_id}`, undefined, tenant.user.token)).body;
      expect(entry.lines.map((l: any) => [l.account_code, l.debit, l.credit, l.tax_code ?? null])).toEqual([
        ['1500', '500.00', '0.00', null],
        ['3000', '0.00', '500.00', null],
      ]);
      expect(res.body).toMatchObject({ gross_amount: '500.00', net_amount: '400.00', open_amount: '500.00' });
    });

    it('spec 001: "gross_amount, net_amount | decimal": totals in the document\'s currency; the entry converts them at its exchange rate', async () => {
      const doc = await create(bare({ currency_code: 'EUR', exchange_rate: '11.5', gross_amount: '125.00', net_amount: '100.00' }));
      expect(doc).toMatchObject({ currency_code: 'EUR', gross_amount: '125.00', net_amount: '100.00' });
      expect((await entryOf(doc)).lines.map((l: any) => [l.account_code, l.debit, l.credit, l.debit_fc, l.credit_fc])).toEqual([
        ['1500', '1437.50', '0.00', '125.00', '0.00'],
        ['3000', '0.00', '1150.00', '0.00', '100.00'],
        ['2700', '0.00', '287.50', '0.00', '25.00'],
      ]);
      // with lines, the figures compared are the lines' EUR totals, not their NOK ones
      const lines = [line('100.00', '1'), line('0.99', '3', vat15)];
      expect((await api('POST', '/documents', invoice({ currency_code: 'EUR', exchange_rate: '11.5', item_lines: lines, gross_amount: '128.42', net_amount: '102.97' }))).status).toBe(201);
      const nok = await api('POST', '/documents', invoice({ currency_code: 'EUR', exchange_rate: '11.5', item_lines: lines, gross_amount: '1476.84' }));
      expect(nok).toMatchObject({ status: 400, body: { error: expect.stringContaining('gross_amount: is 1476.84 EUR, but the item lines\' gross total (net plus VAT) is 128.42 EUR') } });
    });

    it('spec 001: "gross_amount, net_amount | decimal": with item lines they may be sent and must equal the lines\' totals to the øre (POST), else 400 naming both figures', async () => {
      const lines = [line('1000.00', '2'), line('200.00', '1', vat15)];
      const ok = await create(invoice({ item_lines: lines, gross_amount: '2730.00', net_amount: '2200' }));
      expect(ok).toMatchObject({ gross_amount: '2730.00', net_amount: '2200.00' });
      const off = await api('POST', '/documents', invoice({ item_lines: lines, gross_amount: '2730.01', net_amount: '2000.00' }));
      expect(off.status, JSON.stringify(off.body)).toBe(400);
      expect(off.body.error).toContain("gross_amount: is 2730.01 NOK, but the item lines' gross total (net plus VAT) is 2730.00 NOK");
      expect(off.body.error).toContain("net_amount: is 2000.00 NOK, but the item lines' net total is 2200.00 NOK");
      // the preview reads the body as create does
      expect((await api('POST', '/documents/preview', invoice({ item_lines: lines, gross_amount: '1.00' }))).status).toBe(400);
      // more decimals than the øre is a shape error
      expect((await api('POST', '/documents', invoice({ item_lines: lines, gross_amount: '2730.001' }))).body.error).toContain('gross_amount: must have at most 2 decimals');
    });

    it.each(['PUT', 'PATCH'])('spec 001: "gross_amount, net_amount | decimal": %s of a draft with lines checks them against the lines (sent or kept); without lines it takes them', async (method) => {
      const draft = await create(invoice({ is_draft: true, item_lines: [line('100.00')] }));
      // against the stored lines
      const stale = await api(method, `/documents/${draft.id}`, { gross_amount: '100.00' });
      expect(stale).toMatchObject({ status: 400, body: { error: expect.stringContaining("gross_amount: is 100.00 NOK, but the item lines' gross total (net plus VAT) is 125.00 NOK") } });
      // against the lines sent with them
      const relined = await api(method, `/documents/${draft.id}`, { item_lines: [line('200.00')], gross_amount: '250.00', net_amount: '200.00' });
      expect(relined.status, JSON.stringify(relined.body)).toBe(200);
      expect(relined.body).toMatchObject({ gross_amount: '250.00', net_amount: '200.00' });
      const wrong = await api(method, `/documents/${draft.id}`, { item_lines: [line('300.00')], net_amount: '200.00' });
      expect(wrong).toMatchObject({ status: 400, body: { error: expect.stringContaining("net_amount: is 200.00 NOK, but the item lines' net total is 300.00 NOK") } });
      // lines removed: the amounts sent (one alone: the other equals it)
      const unlined = await api(method, `/documents/${draft.id}`, { item_lines: [], gross_amount: '90.00' });
      expect(unlined.body).toMatchObject({ gross_amount: '90.00', net_amount: '90.00', item_lines: [] });
      // a line-less draft: a field sent changes, one left out keeps its value
      const both = await api(method, `/documents/${draft.id}`, { gross_amount: '625.00', net_amount: '500.00' });
      expect(both.body).toMatchObject({ gross_amount: '625.00', net_amount: '500.00' });
      const one = await api(method, `/documents/${draft.id}`, { gross_amount: '612.50' });
      expect(one.body).toMatchObject({ gross_amount: '612.50', net_amount: '500.00' });
      const noted = await api(method, `/documents/${draft.id}`, { note: 'uendret beløp' });
      expect(noted.body).toMatchObject({ gross_amount: '612.50', net_amount: '500.00' });
      // finalizing (with gross_amount 625.00 sent along) posts them: 125.00 VAT on 500.00 is code 3's 25 %
      const done = await api(method, `/documents/${draft.id}`, { is_draft: false, gross_amount: '625.00' });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(await entryLines(done.body.journal_entry_id)).toEqual([
        ['1500', '625.00', '0.00', null, `businesspartner:${customer}`],
        ['3000', '0.00', '500.00', '3', ''],
        ['2700', '0.00', '125.00', null, ''],
      ]);
    });

    it('spec 001: "gross_amount, net_amount | decimal": a finalized document keeps what it posted (400 "credit it instead"); the same values sent back are accepted', async () => {
      const doc = await create(bare({ gross_amount: '250.00', net_amount: '200.00' }));
      for (const change of [{ gross_amount: '260.00' }, { net_amount: '210.00' }]) {
        const res = await api('PATCH', `/documents/${doc.id}`, change);
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.error).toMatch(/(gross|net)_amount: .*credit it instead/);
      }
      const echoed = await api('PUT', `/documents/${doc.id}`, { ...(await get(doc.id)), note: 'sendt tilbake' });
      expect(echoed.status, JSON.stringify(echoed.body)).toBe(200);
      expect(echoed.body).toMatchObject({ gross_amount: '250.00', net_amount: '200.00', note: 'sendt tilbake' });
    });

    it('spec 001: "gross_amount, net_amount | decimal": a negative amount — a discount line, VAT below zero — posts on the other side, so the entry balances', async () => {
      const discounted = await create(invoice({ item_lines: [line('1000.00'), line('-100.00', '1', vat25, { item_name: 'Rabatt' })] }));
      expect(discounted).toMatchObject({ net_amount: '900.00', gross_amount: '1125.00' });
      expect(await entryLines(discounted.journal_entry_id)).toEqual([
        ['1500', '1125.00', '0.00', null, `businesspartner:${customer}`],
        ['3000', '0.00', '1000.00', '3', ''],
        ['2700', '0.00', '250.00', null, ''],
        ['3000', '100.00', '0.00', '3', ''],
        ['2700', '25.00', '0.00', null, ''],
      ]);
      const below = await create(bare({ gross_amount: '100.00', net_amount: '120.00' }));
      expect(await entryLines(below.journal_entry_id)).toEqual([
        ['1500', '100.00', '0.00', null, `businesspartner:${customer}`],
        ['3000', '0.00', '120.00', null, ''],
        ['2701', '20.00', '0.00', null, ''],
      ]);
    });

    it('spec 001: "gross_amount, net_amount | decimal": a posting type without lines needs a positive gross_amount to be finalized (400 naming it)', async () => {
      const res = await api('POST', '/documents', bare({ net_amount: '0.00' }));
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('gross_amount: a ARINV needs a positive gross amount to be finalized (it is 0.00)') } });
    });
  });

  describe('payment by the bank', () => {
    it("a document's posting, its reconciliation by bank payments, and its open amount and payment status: partly, then fully paid", async () => {
      const doc = await create(invoice({ item_lines: [line('1000.00')] }));
      const entry = (await api('GET', `/journal-entries/${doc.journal_entry_id}`)).body;
      const receivable = entry.lines.find((l: any) => l.account_code === '1500').id;
      const pay = async (amount: string, date: string) => {
        const bt = await api('POST', '/bank-transactions', { client_account_id: t.account.id, amount, currency_code: 'NOK', booking_date: date, payee_bank_account_id: bank, payor_name: 'Kunde AS' });
        expect(bt.status, JSON.stringify(bt.body)).toBe(201);
        const booked = await app.gql(t.user.token, 'mutation($input: BookBankTransactionInput!) { bookBankTransaction(input: $input) { id } }', {
          input: { bankTransactionId: bt.body.id, counterAccountCode: '1500', businessPartnerId: customer, reconcileWithLineIds: [receivable] },
        });
        expect(booked.errors).toBeUndefined();
      };
      await pay('500.00', '2026-03-10');
      const partly = await get(doc.id, 'reconciliation_lines');
      expect(partly).toMatchObject({ open_amount: '750.00', payment_status: 'PARTLY_PAID', is_unpaid: true, is_reconcilable: true, is_unreconciled: false });
      expect(partly.reconciliation_lines).toEqual([
        { id: expect.any(Number), document_id: doc.id, line_id: receivable, description: expect.any(String), reconciliation_type: 'BANK', amount: '500.00', currency_code: 'NOK', transaction_date: '2026-03-10' },
      ]);
      await pay('750.00', '2026-03-14');
      const paid = await get(doc.id, 'reconciliation_lines');
      expect(paid).toMatchObject({ open_amount: '0.00', payment_status: 'PAID', is_unpaid: false, is_reconcilable: false });
      expect(paid.reconciliation_lines.map((r: any) => [r.reconciliation_type, r.amount])).toEqual([['BANK', '500.00'], ['BANK', '750.00']]);
      const list = await api('GET', `/documents?client_account_id=${t.account.id}&payment_status=PAID&document_number=${doc.document_number}`);
      expect(list.body.data.map((d: any) => d.id)).toEqual([doc.id]);
    });
  });

  describe('GET /documents', () => {
    let tenant: Tenant;
    const ids: Record<string, number> = {};
    let bankTx: number;
    beforeAll(async () => {
      tenant = await app.seed.tenant();
      const p = app.seed.prisma;
      await p.clientAccount.update({ where: { id: tenant.account.id }, data: { vatLiable: true } });
      const c1 = (await p.businessPartner.create({ data: { clientAccountId: tenant.account.id, name: 'C1' } })).id;
      const s1 = (await p.businessPartner.create({ data: { clientAccountId: tenant.account.id, name: 'S1' } })).id;
      const own = (await p.bankAccount.create({ data: { clientAccountId: tenant.account.id, accountNumber: '15032012342', ledgerAccountId: (await p.account.findFirstOrThrow({ where: { clientAccountId: tenant.account.id, code: '1920' } })).id } })).id;
      const code = async (c: string) => (await p.taxCode.findFirstOrThrow({ where: { clientAccountId: tenant.account.id, code: c } })).id;
      const [out25, in25] = [await code('3'), await code('1')];
      const mk = async (name: string, body: Record<string, unknown>) => {
        const res = await api('POST', '/documents', { client_account_id: tenant.account.id, business_partner_id: c1, document_type: 'ARINV', ...body }, tenant.user.token);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        ids[name] = res.body.id;
        return res.body;
      };
      await mk('draft', { is_draft: true, document_date: '2026-01-05', item_lines: [line('100.00', '1', out25)] });
      const paid = await mk('paid', { document_date: '2026-01-10', due_date: '2026-01-24', item_lines: [line('200.00', '1', out25)] });
      await mk('open', { document_date: '2026-02-01', due_date: '2026-02-15', item_lines: [line('80.00', '1', out25)], payment_ref: '1234567890' });
      await mk('bill', { document_type: 'APINV', business_partner_id: s1, document_number: 'B-1', document_date: '2026-02-10', item_lines: [line('400.00', '1', in25)] });
      await mk('paying', { document_type: 'APINV', business_partner_id: s1, document_number: 'B-2', document_date: '2026-02-20', item_lines: [line('40.00', '1', in25)] });
      await mk('inactive', { document_type: 'ARPIN', is_active: false, document_date: '2026-03-01', item_lines: [line('10.00', '1', out25)] });
      await p.paymentRequest.create({ data: { clientAccountId: tenant.account.id, documentId: ids.paying, amount: '50.00', status: 'PENDING' } });
      // pay "paid" in full through the bank
      const receivable = (await p.journalEntryLine.findFirstOrThrow({ where: { journalEntryId: paid.journal_entry_id, account: { code: '1500' } } })).id;
      const bt = await api('POST', '/bank-transactions', { client_account_id: tenant.account.id, amount: '250.00', currency_code: 'NOK', booking_date: '2026-01-20', payee_bank_account_id: own }, tenant.user.token);
      const booked = await app.gql(tenant.user.token, 'mutation($input: BookBankTransactionInput!) { bookBankTransaction(input: $input) { id } }', {
        input: { bankTransactionId: bt.body.id, counterAccountCode: '1500', businessPartnerId: c1, reconcileWithLineIds: [receivable] },
      });
      expect(booked.errors).toBeUndefined();
      // an unbooked incoming payment of 100.00 (the open invoice's gross)
      bankTx = (await api('POST', '/bank-transactions', { client_account_id: tenant.account.id, amount: '100.00', currency_code: 'NOK', booking_date: '2026-02-20', payee_bank_account_id: own }, tenant.user.token)).body.id;
      ids.c1 = c1;
    });
    const list = async (qs: string) => {
      const res = await api('GET', `/documents?client_account_id=${tenant.account.id}${qs ? `&${qs}` : ''}`, undefined, tenant.user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const names = async (qs: string) => {
      const body = await list(qs);
      return body.data.map((d: any) => Object.keys(ids).find((k) => ids[k] === d.id)).sort();
    };

    it('{data, meta}: document_date descending (then id) by default; page and per_page', async () => {
      const body = await list('');
      expect(body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 6 });
      expect(body.data.map((d: any) => d.id)).toEqual([ids.inactive, ids.paying, ids.bill, ids.open, ids.paid, ids.draft]);
      const page2 = await list('per_page=2&page=2');
      expect(page2.meta).toEqual({ page: 2, pages: 3, per_page: 2, records: 6 });
      expect(page2.data.map((d: any) => d.id)).toEqual([ids.bill, ids.open]);
    });

    it.each([
      ['business_partner_id=C1', ['draft', 'inactive', 'open', 'paid']],
      ['from_document_date=2026-02-01&to_document_date=2026-02-20', ['bill', 'open', 'paying']],
      ['document_date=2026-01-10', ['paid']],
      ['due_date=2026-02-15', ['open']],
      ['document_type=APINV', ['bill', 'paying']],
      ['document_type=ARINV,ARPIN', ['draft', 'inactive', 'open', 'paid']],
      ['document_status=DRAFT', ['draft']],
      ['document_number=B-2', ['paying']],
      ['payment_reference=1234567890', ['open']],
      ['gross_amount=500.00', ['bill']],
      ['open_amount=100.00', ['open']],
      ['pending_payment_amount=50.00', ['paying']],
      ['payment_status=PAID', ['paid']],
      ['payment_status=UNPAID', ['bill', 'open', 'paying']],
      ['payment_status=not_applicable', ['draft', 'inactive']],
      ['is_active=false', ['inactive']],
      ['is_payable=true', ['bill', 'paying']],
      ['is_unpaid=true', ['bill', 'open', 'paying']],
      ['is_unpaid=false', ['draft', 'inactive', 'paid']],
      ['is_available_for_payment=true', ['bill']],
      ['is_being_paid=true', ['paying']],
      ['is_reconcilable=true', ['bill', 'open', 'paying']],
      ['is_unreconciled=true', ['bill', 'open', 'paying']],
      ['is_unreconciled=false', ['draft', 'inactive', 'paid']],
      ['match_bank_transaction_id=BT', ['open']],
    ])('filter %s', async (qs, expected) => {
      expect(await names(qs.replace('C1', String(ids.c1)).replace('BT', String(bankTx)))).toEqual(expected);
    });

    it('match_bank_transaction_id matches a KID too: the transaction\'s structured reference equal to payment_ref', async () => {
      await app.seed.prisma.bankTransactionDetail.create({ data: { bankTransactionId: bankTx, structuredReference: '1234567890', amount: '100.00', currencyCode: 'NOK' } as never });
      expect(await names(`match_bank_transaction_id=${bankTx}`)).toEqual(['open']);
    });

    it.each([
      ['order_by=gross_amount', ['inactive', 'paying', 'open', 'draft', 'paid', 'bill']],
      ['order_by=gross_amount:desc', ['bill', 'paid', 'draft', 'open', 'paying', 'inactive']],
      ['order_by=-document_date', ['inactive', 'paying', 'bill', 'open', 'paid', 'draft']],
      // numbers are text ('1' ARINV and '1' ARPIN, then '2', 'B-1', 'B-2'); a draft has none: last
      ['order_by=document_number,id', ['paid', 'inactive', 'open', 'bill', 'paying', 'draft']],
    ])('%s', async (qs, expected) => {
      const body = await list(qs);
      expect(body.data.map((d: any) => Object.keys(ids).find((k) => ids[k] === d.id))).toEqual(expected);
    });

    it.each([
      ['', 403],
      ['client_account_id=abc', 403],
      [`client_account_id=OTHER`, 403],
      ['client_account_id=ME&order_by=colour', 400],
      ['client_account_id=ME&document_type=XXINV', 400],
      ['client_account_id=ME&is_payable=maybe', 400],
      ['client_account_id=ME&gross_amount=1.234', 400],
      ['client_account_id=ME&match_bank_transaction_id=999999', 400],
      ['client_account_id=ME&with_relations=colour', 400],
    ])('GET /documents?%s → %i', async (qs, status) => {
      const res = await api('GET', `/documents?${qs.replace('OTHER', String(other.account.id)).replace('ME', String(tenant.account.id))}`, undefined, tenant.user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String), status });
    });
  });

  describe('with_relations', () => {
    let doc: any;
    beforeAll(async () => {
      const draft = await create(invoice({ is_draft: true, bank_account_id: bank, payor_id: customer, collector_id: supplier, structured_data: { ehf: { id: 'X' } }, payment_lines: [{ line_type: 'SUPPLIER_PAYMENT', amount: '10.00', creditor_reference: 'ref' }], document_references: [{ reference_type: 'ORDER', reference_number: 'PO-9' }] }));
      await app.seed.prisma.paymentRequest.create({ data: { clientAccountId: t.account.id, documentId: draft.id, amount: '10.00', status: 'SENT' } });
      doc = draft;
    });
    it.each([
      ['business_partner', (b: any) => expect(b.business_partner).toEqual({ id: customer, name: 'Kunde AS', organization_number: null, email: 'faktura@kunde.example' })],
      ['payor', (b: any) => expect(b.payor).toMatchObject({ id: customer })],
      ['collector', (b: any) => expect(b.collector).toMatchObject({ id: supplier, name: 'Leverandør AS' })],
      ['bank_account', (b: any) => expect(b.bank_account).toEqual({ id: bank, name: null, account_number: '15032012342', bic: null })],
      ['files', (b: any) => expect(b.files).toEqual([])],
      ['structured_data', (b: any) => expect(b.structured_data).toEqual({ ehf: { id: 'X' } })],
      ['item_lines', (b: any) => expect(b.item_lines).toEqual([expect.objectContaining({ document_id: doc.id, line_id: 1, item_name: 'Konsulenttime', price: '1000.000000', quantity: '1.000000', unit_id: piece, tax_code_id: vat25, tax_rate: '25.00', currency_code: 'NOK', account_id: null, item_collection_entry_id: null })])],
      ['payment_lines', (b: any) => expect(b.payment_lines).toEqual([expect.objectContaining({ document_id: doc.id, line_type: 'SUPPLIER_PAYMENT', amount: '10.00', currency_code: 'NOK', creditor_reference: 'ref', requested_execution_date: null })])],
      ['reconciliation_lines', (b: any) => expect(b.reconciliation_lines).toEqual([])],
      ['document_references', (b: any) => expect(b.document_references).toEqual([expect.objectContaining({ reference_type: 'ORDER', reference_number: 'PO-9', referenced_document_id: null })])],
      ['payment_requests', (b: any) => expect(b.payment_requests).toEqual([{ id: expect.any(Number), amount: '10.00', status: 'SENT' }])],
    ])('with_relations=%s embeds it (and only it)', async (relation, check) => {
      const body = await get(doc.id, relation);
      check(body);
      for (const other of ['business_partner', 'payor', 'collector', 'bank_account', 'files', 'item_lines', 'payment_lines', 'reconciliation_lines', 'document_references', 'payment_requests']) {
        if (other !== relation) expect(body, other).not.toHaveProperty(other);
      }
      expect(body.pending_payment_amount).toBe('10.00');
      expect(body.is_being_paid).toBe(true);
    });
    it('the parameter is with_relations: `with` is not a known parameter', async () => {
      const listed = await api('GET', `/documents?client_account_id=${t.account.id}&with_relations=business_partner,item_lines&document_status=DRAFT&per_page=1`);
      expect(listed.body.data[0]).toHaveProperty('business_partner');
      expect(listed.body.data[0]).toHaveProperty('item_lines');
    });
  });

  describe('POST /documents/preview', () => {
    const pdfText = (bytes: Buffer) => {
      const dir = mkdtempSync(join(tmpdir(), 'doc-preview-'));
      try {
        writeFileSync(join(dir, 'p.pdf'), bytes);
        return execFileSync('pdftotext', ['-layout', join(dir, 'p.pdf'), '-'], { encoding: 'utf8' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    it('answers the document\'s PDF (a Norwegian invoice: parties, lines, VAT summary, totals) and saves nothing', async () => {
      const before = await app.seed.prisma.document.count({ where: { clientAccountId: t.account.id } });
      const res = await fetch(`${app.url}/api/v2/documents/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(invoice({ bank_account_id: bank, payment_ref: '0012345678', item_lines: [line('1000.00', '2'), line('200.00', '1', vat15, { item_name: 'Bønner' })] })),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      const text = pdfText(bytes).replace(/\u00a0/g, ' ');
      for (const expected of ['Faktura', t.account.displayName, 'Kunde AS', 'Storgata 1', '0155 Oslo', '02.03.2026', '16.03.2026', '0012345678', '1503.20.12342', 'Konsulenttime', 'Bønner', '2 000,00', '500,00', '30,00', '2 730,00', 'Å betale', 'FORHÅNDSVISNING']) {
        expect(text).toContain(expected);
      }
      expect(await app.seed.prisma.document.count({ where: { clientAccountId: t.account.id } })).toBe(before);
    });
    it('spec 001: "gross_amount, net_amount | decimal": a document without lines shows the amounts given as its totals', async () => {
      const body = { ...invoice({ gross_amount: '1250.00', net_amount: '1000.00' }) } as Record<string, unknown>;
      delete body.item_lines;
      const res = await fetch(`${app.url}/api/v2/documents/preview`, { method: 'POST', headers: { authorization: `Bearer ${t.user.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      const text = pdfText(Buffer.from(await res.arrayBuffer())).replace(/\u00a0/g, ' ');
      for (const expected of ['Sum eks. mva', '1 000,00', 'Merverdiavgift', '250,00', '1 250,00']) expect(text).toContain(expected);
    });
    it('a credit note previews as "Kreditnota"', async () => {
      const res = await fetch(`${app.url}/api/v2/documents/preview`, { method: 'POST', headers: { authorization: `Bearer ${t.user.token}`, 'content-type': 'application/json' }, body: JSON.stringify(invoice({ document_type: 'ARCRN' })) });
      expect(pdfText(Buffer.from(await res.arrayBuffer()))).toContain('Kreditnota');
    });
    it('validation errors are the same 400s as create; Accept: application/json is 406', async () => {
      const bad = invoice({ item_lines: [line('1.0000001')] });
      const created = await api('POST', '/documents', bad);
      const previewed = await api('POST', '/documents/preview', bad);
      expect(previewed.status).toBe(400);
      expect(previewed.body).toEqual(created.body);
      const json = await app.http('POST', '/api/v2/documents/preview', { token: t.user.token, body: invoice(), headers: { accept: 'application/json' } });
      expect(json.status).toBe(406);
    });
  });

  describe('send_document', () => {
    it('e-mails a finalized sales document\'s PDF to the partner through the mail job; sent_at and SENT afterwards', async () => {
      const doc = await create(invoice({ send_document: true }));
      const mail = await eventually(() => mails.find((m) => m.subject.includes(`Faktura ${doc.document_number} `)), 'the invoice mail');
      expect(mail.to).toEqual({ name: 'Kunde AS', address: 'faktura@kunde.example' });
      expect(mail.attachments).toEqual([expect.objectContaining({ contentType: 'application/pdf', filename: `Faktura-${doc.document_number}.pdf` })]);
      expect(Buffer.from(mail.attachments![0].contentBase64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
      const after = await eventually(async () => {
        const d = await get(doc.id);
        return d.document_status === 'SENT' ? d : undefined;
      }, 'document_status SENT');
      expect((await app.seed.prisma.document.findUniqueOrThrow({ where: { id: doc.id } })).sentAt).toBeInstanceOf(Date);
    });
    it('a draft is sent when finalized; a draft with send_document is not sent while it is a draft', async () => {
      const draft = await create(invoice({ is_draft: true, send_document: true, note: 'draft-send' }));
      await new Promise((r) => setTimeout(r, 300));
      expect(mails.some((m) => m.text.includes('draft-send'))).toBe(false);
      const done = await api('PATCH', `/documents/${draft.id}`, { is_draft: false });
      expect(done.status).toBe(200);
      await eventually(() => mails.find((m) => m.subject.includes(`Faktura ${done.body.document_number} `)), 'the mail of the finalized draft');
    });
    it('"no e-mail address → 400 on that request" and nothing is saved', async () => {
      const before = await app.seed.prisma.document.count({ where: { clientAccountId: t.account.id } });
      const res = await api('POST', '/documents', invoice({ business_partner_id: silent, send_document: true }));
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining("send_document: business partner 'Uten Epost AS' has no e-mail address") } });
      expect(await app.seed.prisma.document.count({ where: { clientAccountId: t.account.id } })).toBe(before);
    });
  });
});
