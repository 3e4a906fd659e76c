import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { pngBytes, voucherDocument, voucherEntry, voucherFactory } from '../support/vouchers.ts';

// spec 001 "Vouchers", list query: "client_account_id, status, document_type, document_status,
// payment_status, business_partner_id, collection_id, project_id, account_code, tax_code (arrays);
// document_date_from/to, due_date_from/to, posting_date_from/to (dates); free_text; similar_to (voucher
// id; vector similarity, the source voucher must have an embedding); has_project, has_collection,
// has_journal_entry, has_document, has_attachment (booleans); order_by (e.g. a field plus asc or desc)".
describe.each(targets())('GET /vouchers filters (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let make: ReturnType<typeof voucherFactory>;
  /** the tenant's vouchers by role in the fixture */
  const v: Record<string, number> = {};
  const ref: Record<string, number> = {};

  beforeAll(async () => {
    app = await startTestApp(target);
    make = voucherFactory(app);
    t = await app.seed.tenant();
    const prisma = app.db.prisma;
    const acc = t.account.id;
    const [projectA, projectB] = [
      await prisma.project.create({ data: { clientAccountId: acc, sequenceNumber: 1, name: 'A' } }),
      await prisma.project.create({ data: { clientAccountId: acc, sequenceNumber: 2, name: 'B' } }),
    ];
    const [colA, colB] = [await prisma.voucherCollection.create({ data: { clientAccountId: acc, name: 'A' } }), await prisma.voucherCollection.create({ data: { clientAccountId: acc, name: 'B' } })];
    const [partnerA, partnerB] = [
      await prisma.businessPartner.create({ data: { clientAccountId: acc, name: 'Fjordkraft AS', isSupplier: true } }),
      await prisma.businessPartner.create({ data: { clientAccountId: acc, name: 'Rema 1000', isSupplier: true } }),
    ];
    Object.assign(ref, { projectA: projectA.id, projectB: projectB.id, colA: colA.id, colB: colB.id, partnerA: partnerA.id, partnerB: partnerB.id });
    const tax1 = await t.taxCode('1');
    const tax3 = await t.taxCode('3');
    const a6300 = await t.ledgerAccount('6300');
    const a6800 = await t.ledgerAccount('6800');
    const a1920 = await t.ledgerAccount('1920');

    const day = (d: number) => new Date(Date.UTC(2026, 0, d));
    v.plain = (await make.voucher(t, { fileName: 'plain.pdf', data: { createdAt: day(1), status: 'PENDING' } })).id;
    v.booked = (await make.voucher(t, { fileName: 'strøm januar.pdf', data: { createdAt: day(2), status: 'BOOKED', type: 'APINV', documentDate: new Date('2026-01-10'), projectId: projectA.id, collectionId: colA.id, extractedText: 'Faktura for strøm, KID 12345' } })).id;
    v.archived = (await make.voucher(t, { fileName: 'old.pdf', data: { createdAt: day(3), status: 'ARCHIVED', type: 'RECPT', documentDate: new Date('2026-02-20'), projectId: projectB.id, collectionId: colB.id } })).id;
    v.image = (await make.voucher(t, { bytes: pngBytes(), contentType: 'image/png', fileName: 'lunsj.png', data: { createdAt: day(4), type: 'RECPT' } })).id;
    v.docOnly = (await make.voucher(t, { fileName: 'docs.pdf', data: { createdAt: day(5) } })).id;

    // journal entries: booked has a posted entry on 6300 with tax code 1 posted 2026-01-15; archived a draft on 6800/3 on 2026-02-20
    await voucherEntry(app, t, { voucherId: v.booked, description: 'Strøm Fjordkraft', lines: [
      { accountId: a6300, debit: '100', taxCodeId: tax1, postingDate: '2026-01-15' },
      { accountId: a1920, credit: '100', postingDate: '2026-01-15' },
    ] });
    await voucherEntry(app, t, { voucherId: v.archived, draft: true, lines: [
      { accountId: a6800, debit: '50', taxCodeId: tax3, postingDate: '2026-02-20' },
      { accountId: a1920, credit: '50', postingDate: '2026-02-20' },
    ] });
    // a cancelled entry (and its reversal) on plain: it does not count as plain's journal entry
    await voucherEntry(app, t, { voucherId: v.plain, cancelled: 'Y', lines: [{ accountId: a6800, debit: '1', postingDate: '2026-03-01' }, { accountId: a1920, credit: '1', postingDate: '2026-03-01' }] });
    await voucherEntry(app, t, { voucherId: v.plain, cancelled: 'C', lines: [{ accountId: a6800, credit: '1', postingDate: '2026-03-01' }, { accountId: a1920, debit: '1', postingDate: '2026-03-01' }] });

    // documents: booked has a finalized supplier invoice from partner A due 2026-02-10, stated paid;
    // docOnly has a draft from partner B due 2026-03-31, with a journal entry of its own (posting date 2026-03-31)
    await voucherDocument(app, t, { voucherId: v.booked, documentType: 'APINV', documentStatus: 'FINALIZED', isDraft: false, businessPartnerId: partnerA.id, dueDate: new Date('2026-02-10'), documentNumber: 'INV-7781', statedPaymentStatus: 'PAID' });
    const docEntry = await voucherEntry(app, t, { voucherId: null, lines: [{ accountId: a6800, debit: '10', postingDate: '2026-03-31' }, { accountId: a1920, credit: '10', postingDate: '2026-03-31' }] });
    await voucherDocument(app, t, { voucherId: v.docOnly, documentType: 'APCRN', documentStatus: 'DRAFT', businessPartnerId: partnerB.id, dueDate: new Date('2026-03-31'), documentDescription: 'Kreditnota for returnerte varer', journalEntryId: docEntry });

    // an attachment on image; statements on archived
    await make.file(t, { bytes: pngBytes(), contentType: 'image/png', fileName: 'vedlegg.png', pageCount: 1, voucherId: v.image, type: 'ATTACHMENT' });
    await prisma.voucherStatement.create({ data: { clientAccountId: acc, voucherId: v.archived, purpose: 'Kundemøte med Nordlys', comment: 'taxi' } });

    // a deleted voucher is never listed unless status names DELETED
    v.deleted = (await make.voucher(t, { fileName: 'plain deleted.pdf', data: { createdAt: day(6), status: 'DELETED', isActive: false } })).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  const ids = async (qs: string) => {
    const res = await app.http('GET', `/api/v2/vouchers?client_account_id=${t.account.id}&per_page=1000&${qs}`, { token: t.user.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.records).toBe(res.body.data.length);
    return (res.body.data as { id: number }[]).map((x) => x.id);
  };
  const names = (...keys: string[]) => keys.map((k) => v[k]);
  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);

  it('no filter: every voucher but the DELETED one, newest first', async () => {
    expect(await ids('')).toEqual(names('docOnly', 'image', 'archived', 'booked', 'plain'));
  });

  // each row: the parameters, the vouchers they select
  it.each<[string, () => string, string[]]>([
    ['status (array)', () => 'status=BOOKED,archived', ['archived', 'booked']],
    ['status repeated', () => 'status=PENDING&status=BOOKED', ['booked', 'plain']],
    ['status DELETED lists removed vouchers', () => 'status=DELETED', ['deleted']],
    ['document_type: the voucher type', () => 'document_type=RECPT', ['image', 'archived']],
    ['document_type: or a document’s type', () => 'document_type=apcrn', ['docOnly']],
    ['document_status', () => 'document_status=FINALIZED', ['booked']],
    ['document_status (array)', () => 'document_status=FINALIZED;DRAFT', ['docOnly', 'booked']],
    ['payment_status as GET /documents derives it: neither document posted a receivable/payable line', () => 'payment_status=NOT_APPLICABLE', ['docOnly', 'booked']],
    ['payment_status is derived, not the stated one (booked’s document is stated PAID)', () => 'payment_status=PAID', []],
    ['business_partner_id', () => `business_partner_id=${ref.partnerB}`, ['docOnly']],
    ['business_partner_id (array)', () => `business_partner_id=${ref.partnerA},${ref.partnerB}`, ['docOnly', 'booked']],
    ['collection_id', () => `collection_id=${ref.colB}`, ['archived']],
    ['collection_id repeated', () => `collection_id=${ref.colA}&collection_id=${ref.colB}`, ['archived', 'booked']],
    ['project_id', () => `project_id=${ref.projectA}`, ['booked']],
    ['account_code (lines of non-cancelled entries, drafts included)', () => 'account_code=6800', ['docOnly', 'archived']],
    ['account_code (array)', () => 'account_code=6300,6800', ['docOnly', 'archived', 'booked']],
    ['tax_code', () => 'tax_code=1', ['booked']],
    ['tax_code (array)', () => 'tax_code=1,3', ['archived', 'booked']],
    ['document_date_from/to (inclusive)', () => 'document_date_from=2026-01-10&document_date_to=2026-02-19', ['booked']],
    ['document_date_from', () => 'document_date_from=2026-02-20', ['archived']],
    ['due_date_from/to (a document’s due date)', () => 'due_date_from=2026-02-01&due_date_to=2026-02-28', ['booked']],
    ['due_date_to', () => 'due_date_to=2026-12-31', ['docOnly', 'booked']],
    ['posting_date_from/to (the voucher’s and its documents’ entries)', () => 'posting_date_from=2026-02-01&posting_date_to=2026-03-31', ['docOnly', 'archived']],
    ['posting_date_to: a cancelled entry’s date does not count', () => 'posting_date_from=2026-03-01&posting_date_to=2026-03-01', []],
    ['spec 001 "document_date_from/to, due_date_from/to, posting_date_from/to (dates)": a from after its to matches nothing (200, not 400)', () => 'document_date_from=2026-02-19&document_date_to=2026-01-10', []],
    ['spec 001 "due_date_from/to … posting_date_from/to (dates)": inverted due and posting ranges match nothing', () => 'due_date_from=2026-12-31&due_date_to=2026-01-01&posting_date_from=2026-03-31&posting_date_to=2026-02-01', []],
    ['free_text: file name (case-insensitive)', () => 'free_text=LUNSJ', ['image']],
    ['free_text: extracted text', () => 'free_text=KID%2012345', ['booked']],
    ['free_text: statement purpose', () => 'free_text=kundemøte', ['archived']],
    ['free_text: statement comment', () => 'free_text=taxi', ['archived']],
    ['free_text: document number', () => 'free_text=INV-7781', ['booked']],
    ['free_text: document description', () => 'free_text=returnerte', ['docOnly']],
    ['free_text: business partner name', () => 'free_text=rema', ['docOnly']],
    ['free_text: journal entry description', () => 'free_text=Fjordkraft', ['booked']],
    ['free_text: % and _ are literal', () => 'free_text=%25', []],
    ['has_project true', () => 'has_project=true', ['archived', 'booked']],
    ['has_project false', () => 'has_project=false', ['docOnly', 'image', 'plain']],
    ['has_collection true', () => 'has_collection=1', ['archived', 'booked']],
    ['has_collection false', () => 'has_collection=0', ['docOnly', 'image', 'plain']],
    ['has_journal_entry true (a cancelled one does not count)', () => 'has_journal_entry=true', ['docOnly', 'archived', 'booked']],
    ['has_journal_entry false', () => 'has_journal_entry=false', ['image', 'plain']],
    ['has_document true', () => 'has_document=true', ['docOnly', 'booked']],
    ['has_document false', () => 'has_document=false', ['image', 'archived', 'plain']],
    ['has_attachment true', () => 'has_attachment=true', ['image']],
    ['has_attachment false', () => 'has_attachment=false', ['docOnly', 'archived', 'booked', 'plain']],
    ['filters combine (AND)', () => `has_project=true&status=BOOKED&account_code=6300`, ['booked']],
  ])('%s', async (_name, qs, expected) => {
    expect(await ids(qs())).toEqual(names(...expected));
  });

  describe('order_by', () => {
    it.each<[string, string[]]>([
      ['created_at desc', ['docOnly', 'image', 'archived', 'booked', 'plain']],
      ['created_at asc', ['plain', 'booked', 'archived', 'image', 'docOnly']],
      ['created_at', ['plain', 'booked', 'archived', 'image', 'docOnly']],
      ['-created_at', ['docOnly', 'image', 'archived', 'booked', 'plain']],
      ['id desc', ['docOnly', 'image', 'archived', 'booked', 'plain']],
      ['file_name asc', ['docOnly', 'image', 'archived', 'plain', 'booked']],
      ['document_date desc, created_at asc', ['archived', 'booked', 'plain', 'image', 'docOnly']],
      ['document_date asc', ['plain', 'image', 'docOnly', 'booked', 'archived']],
      ['status asc, id desc', ['plain', 'docOnly', 'image', 'archived', 'booked']],
    ])('order_by=%s', async (order, expected) => {
      expect(await ids(`order_by=${encodeURIComponent(order)}`)).toEqual(names(...expected));
    });

    it.each(['bogus', 'created_at sideways', 'created_at desc, created_at asc', 'embedding desc', '-created_at desc', 'constructor'])('order_by=%s is 400 naming the allowed fields', async (order) => {
      const res = await app.http('GET', `/api/v2/vouchers?order_by=${encodeURIComponent(order)}`, { token: t.user.token });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('order_by'), status: 400 } });
    });
  });

  describe('similar_to', () => {
    let s: Tenant;
    const sv: Record<string, number> = {};
    beforeAll(async () => {
      s = await app.seed.tenant();
      const unit = (x: number[]) => {
        const n = Math.sqrt(x.reduce((a, b) => a + b * b, 0));
        return x.map((y) => y / n);
      };
      const mk = async (name: string, embedding: number[] | undefined, extra = {}) =>
        (sv[name] = (await make.voucher(s, { fileName: `${name}.pdf`, data: { embedding, ...extra } })).id);
      await mk('source', unit([1, 0.2, 0.1, 0]));
      await mk('far', unit([0, 0, 0.1, 1]));
      await mk('nearDuplicate', unit([0.99, 0.21, 0.1, 0.01]));
      await mk('middle', unit([0.6, 0.6, 0.1, 0.3]));
      await mk('opposite', unit([-1, -0.2, -0.1, 0]));
      await mk('noEmbedding', undefined);
      await mk('otherLength', unit([1, 0.2, 0.1]));
    });
    const similar = (qs: string, token = s.user.token) => app.http('GET', `/api/v2/vouchers?client_account_id=${s.account.id}&${qs}`, { token });

    it('"vector similarity": the others ordered by cosine similarity, a near-duplicate first; the source and vouchers without a comparable embedding left out', async () => {
      const res = await similar(`similar_to=${sv.source}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.map((x: any) => x.id)).toEqual([sv.nearDuplicate, sv.middle, sv.far, sv.opposite]);
      expect(res.body.meta.records).toBe(4);
    });

    it('similar_to combines with filters and pages', async () => {
      const res = await similar(`similar_to=${sv.source}&per_page=2&page=2`);
      expect(res.body.data.map((x: any) => x.id)).toEqual([sv.far, sv.opposite]);
      const filtered = await similar(`similar_to=${sv.source}&free_text=middle`);
      expect(filtered.body.data.map((x: any) => x.id)).toEqual([sv.middle]);
    });

    it('"the source voucher must have an embedding": 400 without one', async () => {
      const res = await similar(`similar_to=${sv.noEmbedding}`);
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('embedding'), status: 400 } });
    });

    it('400 when the source does not exist or is another client account’s', async () => {
      expect(await similar('similar_to=99999999')).toMatchObject({ status: 400, body: { error: expect.stringContaining('similar_to'), status: 400 } });
      const theirs = await make.voucher(await app.seed.tenant(), { data: { embedding: [1, 0, 0, 0] } });
      expect(await similar(`similar_to=${theirs.id}`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('similar_to'), status: 400 } });
    });
  });
});
