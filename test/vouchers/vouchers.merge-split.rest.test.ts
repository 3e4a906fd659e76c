import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { jpegBytes, pageCountOf, pageSizesOf, pdfBytes, pngBytes, voucherDocument, voucherEntry, voucherFactory } from '../support/vouchers.ts';

// spec 001 "Vouchers": POST /vouchers/merge and POST /vouchers/split, every rule and every 400 listed;
// "States and transitions": source_action ARCHIVE archives the sources, DELETE removes them ("No
// posted journal entries on the source").
describe.each(targets())('voucher merge and split REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let make: ReturnType<typeof voucherFactory>;

  beforeAll(async () => {
    app = await startTestApp(target);
    make = voucherFactory(app);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(async () => {
    await app?.close();
  });

  const merge = (body: unknown, token = t.user.token) => app.http('POST', '/api/v2/vouchers/merge', { token, body });
  const split = (body: unknown, token = t.user.token) => app.http('POST', '/api/v2/vouchers/split', { token, body });
  const pdf = async (pages: number, label = 'V', extra = {}) => make.voucher(t, { bytes: await pdfBytes(pages, label), fileName: `${label}.pdf`, ...extra });
  const statusOf = async (id: number) => (await app.db.prisma.voucher.findUniqueOrThrow({ where: { id } })).status;

  describe('POST /vouchers/merge', () => {
    it('"PDFs and images are combined; other files become attachments": pages in voucher_ids order; 201 with the merged voucher', async () => {
      const a = await pdf(2, 'A');
      const img = await make.voucher(t, { bytes: pngBytes(40, 20), contentType: 'image/png', fileName: 'bilde.png' });
      const b = await pdf(3, 'B');
      const jpg = await make.voucher(t, { bytes: jpegBytes(), contentType: 'image/jpeg', fileName: 'foto.jpg' });
      const xml = await make.voucher(t, { bytes: Buffer.from('<Invoice/>'), contentType: 'application/xml', fileName: 'ehf.xml', pageCount: null });
      const attached = await make.file(t, { bytes: Buffer.from('hello'), contentType: 'text/plain', fileName: 'note.txt', voucherId: a.id, type: 'ATTACHMENT' });
      const res = await merge({ voucher_ids: [b.id, img.id, a.id, xml.id, jpg.id] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ channel: 'merge', status: 'DRAFT', content_type: 'application/pdf', client_account_id: t.account.id, is_active: true, file_name: 'B (merged).pdf' });
      expect(res.body.page_images).toHaveLength(3 + 1 + 2 + 1);
      const merged = await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: res.body.id } });
      const bytes = await make.bytesOf(merged.fileId);
      expect(await pageCountOf(bytes)).toBe(7);
      expect(res.body.size).toBe(bytes.length);
      // the xml voucher's own file and a's attachment became attachments (copies)
      const withAttachments = await app.http('GET', `/api/v2/vouchers/${res.body.id}?with=attachments`, { token: t.user.token });
      expect(withAttachments.body.attachments.map((f: any) => [f.file_name, f.content_type])).toEqual([['ehf.xml', 'application/xml'], ['note.txt', 'text/plain']]);
      expect(withAttachments.body.attachments.every((f: any) => f.id !== attached.id && f.id !== xml.fileId)).toBe(true);
      // source_action NONE (default): the sources are kept as they were
      for (const s of [a, b, img, jpg, xml]) expect(await statusOf(s.id)).toBe('DRAFT');
    });

    it('"order sets page order": the pages follow voucher_ids (each source has its own page size); an image is fitted on an A4 page', async () => {
      const one = await make.voucher(t, { bytes: await pdfBytes(1, 'First', [300, 300]) });
      const two = await make.voucher(t, { bytes: await pdfBytes(2, 'Second', [400, 500]) });
      const wide = await make.voucher(t, { bytes: pngBytes(60, 20), contentType: 'image/png' });
      const res = await merge({ voucher_ids: [two.id, wide.id, one.id] });
      expect(res.status).toBe(201);
      const merged = await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(await pageSizesOf(await make.bytesOf(merged.fileId))).toEqual(['400x500', '400x500', '842x595', '300x300']);
      const reversed = await merge({ voucher_ids: [one.id, two.id] });
      const again = await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: reversed.body.id } });
      expect(await pageSizesOf(await make.bytesOf(again.fileId))).toEqual(['300x300', '400x500', '400x500']);
    });

    it('source_action ARCHIVE: the sources get status ARCHIVED and is_active false', async () => {
      const [a, b] = [await pdf(1), await pdf(1)];
      const res = await merge({ voucher_ids: [a.id, b.id], source_action: 'ARCHIVE' });
      expect(res.status).toBe(201);
      for (const s of [a, b]) expect(await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: s.id } })).toMatchObject({ status: 'ARCHIVED', isActive: false });
    });

    it('source_action DELETE: the sources are removed with their draft entries (GET 404)', async () => {
      const [a, b] = [await pdf(1), await pdf(1)];
      const draft = await voucherEntry(app, t, { voucherId: a.id, draft: true });
      const res = await merge({ voucher_ids: [a.id, b.id], source_action: 'DELETE' });
      expect(res.status).toBe(201);
      for (const s of [a, b]) expect((await app.http('GET', `/api/v2/vouchers/${s.id}`, { token: t.user.token })).status).toBe(404);
      expect(await app.db.prisma.journalEntry.findUnique({ where: { id: draft } })).toBeNull();
    });

    describe('"400: voucher_ids missing, not a list or fewer than 2; invalid source_action; sources in different client accounts; DELETE with posted journal entries; no PDF-able files"', () => {
      let ids: Record<string, number>;
      beforeAll(async () => {
        const a = await pdf(1);
        const b = await pdf(1);
        const posted = await pdf(1);
        await voucherEntry(app, t, { voucherId: posted.id });
        const cancelledOnly = await pdf(1);
        await voucherEntry(app, t, { voucherId: cancelledOnly.id, cancelled: 'Y' });
        const theirs = await make.voucher(other);
        const xml1 = await make.voucher(t, { bytes: Buffer.from('<a/>'), contentType: 'application/xml', fileName: 'a.xml', pageCount: null });
        const xml2 = await make.voucher(t, { bytes: Buffer.from('<b/>'), contentType: 'text/csv', fileName: 'b.csv', pageCount: null });
        const broken = await make.voucher(t, { bytes: Buffer.from('%PDF-1.7 not really'), contentType: 'application/pdf', fileName: 'broken.pdf', pageCount: 1 });
        // another account the caller may also see: different client accounts
        const second = await app.seed.clientAccount();
        await app.seed.grantRole({ userId: t.user.id, clientAccountId: second.id, role: 'CA' });
        const inSecond = await make.voucher({ account: second, user: t.user } as unknown as Tenant);
        ids = { a: a.id, b: b.id, posted: posted.id, cancelledOnly: cancelledOnly.id, theirs: theirs.id, xml1: xml1.id, xml2: xml2.id, broken: broken.id, inSecond: inSecond.id };
      });

      it.each<[string, (i: Record<string, number>) => unknown, RegExp]>([
        ['voucher_ids missing', () => ({}), /voucher_ids: is required/],
        ['voucher_ids null', () => ({ voucher_ids: null }), /voucher_ids/],
        ['voucher_ids not a list (a string)', () => ({ voucher_ids: 'abc' }), /voucher_ids/],
        ['voucher_ids not a list (an object)', (i) => ({ voucher_ids: { a: i.a } }), /voucher_ids/],
        ['voucher_ids not a list (one number)', (i) => ({ voucher_ids: i.a }), /voucher_ids.*at least 2/],
        ['voucher_ids not integers', () => ({ voucher_ids: [1.5, 'x'] }), /voucher_ids/],
        ['voucher_ids empty', () => ({ voucher_ids: [] }), /voucher_ids.*at least 2/],
        ['fewer than 2 voucher_ids', (i) => ({ voucher_ids: [i.a] }), /voucher_ids.*at least 2/],
        ['the same voucher twice', (i) => ({ voucher_ids: [i.a, i.a] }), /voucher_ids.1.*twice/],
        ['invalid source_action', (i) => ({ voucher_ids: [i.a, i.b], source_action: 'SHRED' }), /source_action/],
        ['sources in different client accounts', (i) => ({ voucher_ids: [i.a, i.inSecond] }), /different client accounts/],
        ['DELETE with posted journal entries', (i) => ({ voucher_ids: [i.a, i.posted], source_action: 'DELETE' }), /voucher_ids.1.*posted journal entry/],
        ['DELETE with a cancelled posted entry ("no posted journal entries on the source")', (i) => ({ voucher_ids: [i.cancelledOnly, i.a], source_action: 'DELETE' }), /voucher_ids.0.*posted journal entry/],
        ['no PDF-able files', (i) => ({ voucher_ids: [i.xml1, i.xml2] }), /no.*PDF or an image|none of the vouchers/],
        ['a PDF that cannot be read', (i) => ({ voucher_ids: [i.a, i.broken] }), /voucher_ids.1.*not a readable PDF/],
        ['an unknown field', (i) => ({ voucher_ids: [i.a, i.b], extra: 1 }), /extra: is not a known field/],
      ])('400 {error, status}: %s; nothing is created or changed', async (_name, body, message) => {
        const before = await app.db.prisma.voucher.count({ where: { clientAccountId: t.account.id } });
        const res = await merge(body(ids));
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
        expect(await app.db.prisma.voucher.count({ where: { clientAccountId: t.account.id } })).toBe(before);
        expect(await statusOf(ids.posted)).toBe('DRAFT');
      });

      it('spec 001 "merge or split with source_action DELETE | No posted journal entries on the source": documents do not block it; the source\'s draft documents go with it', async () => {
        const [withProforma, withDraft] = [await pdf(1), await pdf(1)];
        const proforma = await voucherDocument(app, t, { voucherId: withProforma.id, documentType: 'ARPIN', isDraft: false, documentStatus: 'FINALIZED', documentNumber: '1', createdInApp: true });
        const draft = await voucherDocument(app, t, { voucherId: withDraft.id, documentType: 'ARINV', isDraft: true, documentStatus: 'DRAFT', createdInApp: true });
        // DELETE of the voucher itself refuses both (its own rule: "no … documents, and no in-app created receivable documents")
        expect((await app.http('DELETE', `/api/v2/vouchers/${withProforma.id}`, { token: t.user.token })).status).toBe(400);
        const res = await merge({ voucher_ids: [withProforma.id, withDraft.id], source_action: 'DELETE' });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        for (const id of [withProforma.id, withDraft.id]) expect(await statusOf(id)).toBe('DELETED');
        expect(await app.db.prisma.document.findUnique({ where: { id: draft.id } })).toBeNull();
        expect(await app.db.prisma.document.findUnique({ where: { id: proforma.id } })).toMatchObject({ voucherId: withProforma.id, isDraft: false });
      });

      it('DELETE with posted entries is refused, NONE and ARCHIVE with them are not', async () => {
        expect((await merge({ voucher_ids: [ids.posted, ids.a], source_action: 'DELETE' })).status).toBe(400);
        expect((await merge({ voucher_ids: [ids.posted, ids.a] })).status).toBe(201);
      });

      it('"403 no access": a voucher of another client account', async () => {
        expect(await merge({ voucher_ids: [ids.a, ids.theirs] })).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
      });

      it('"404 voucher not found" (a missing or a deleted voucher)', async () => {
        expect(await merge({ voucher_ids: [ids.a, 99999999] })).toMatchObject({ status: 404, body: { error: expect.stringContaining('99999999'), status: 404 } });
        const gone = await pdf(1);
        expect((await app.http('DELETE', `/api/v2/vouchers/${gone.id}`, { token: t.user.token })).status).toBe(204);
        expect((await merge({ voucher_ids: [ids.a, gone.id] })).status).toBe(404);
      });

      it('403 for a read-only token', async () => {
        expect((await merge({ voucher_ids: [ids.a, ids.b] }, t.user.readToken)).status).toBe(403);
      });
    });
  });

  describe('POST /vouchers/split', () => {
    it('"one new voucher per range", 1-indexed inclusive, in the order of the ranges', async () => {
      const src = await pdf(5, 'Bunke', { data: { type: 'APINV', documentDate: new Date('2026-04-01') } });
      const res = await split({ voucher_id: src.id, page_ranges: [[4, 5], [1, 1], [2, 3]] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toHaveLength(3);
      expect(res.body.map((v: any) => v.file_name)).toEqual(['Bunke (pages 4-5).pdf', 'Bunke (page 1).pdf', 'Bunke (pages 2-3).pdf']);
      expect(res.body.map((v: any) => v.page_images.length)).toEqual([2, 1, 2]);
      for (const v of res.body) {
        expect(v).toMatchObject({ channel: 'split', status: 'DRAFT', type: 'APINV', document_date: '2026-04-01', content_type: 'application/pdf' });
        const row = await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: v.id } });
        expect(await pageCountOf(await make.bytesOf(row.fileId))).toBe(v.page_images.length);
      }
      expect(await statusOf(src.id)).toBe('DRAFT');
    });

    it('spec 001: "A statement on the source is copied to every new voucher": every statement, not only the newest, with its content and in its order', async () => {
      const src = await pdf(3, 'Utlegg');
      const payor = (await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Ansatt Ola', isEmployee: true } })).id;
      const at = (iso: string) => new Date(iso);
      // three statements; two made in the same millisecond, so their order is the id's
      await app.db.prisma.voucherStatement.create({ data: { clientAccountId: t.account.id, voucherId: src.id, purpose: 'first', paymentMethod: 'PRIVATE_CARD', payorId: payor, createdAt: at('2026-01-01T08:00:00Z'), createdById: t.user.id } });
      await app.db.prisma.voucherStatement.create({ data: { clientAccountId: t.account.id, voucherId: src.id, purpose: 'second', itemCategories: ['travel', 'meals'], comment: 'Reise til Bergen', createdAt: at('2026-02-01T08:00:00Z') } });
      await app.db.prisma.voucherStatement.create({ data: { clientAccountId: t.account.id, voucherId: src.id, purpose: 'third', isPaid: true, createdAt: at('2026-02-01T08:00:00Z') } });
      const original = (await app.http('GET', `/api/v2/vouchers/${src.id}/statements`, { token: t.user.token })).body.data;
      expect(original.map((s: any) => s.purpose)).toEqual(['third', 'second', 'first']);
      const res = await split({ voucher_id: src.id, page_ranges: [[1, 1], [2, 3]] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const content = ({ id: _id, voucher_id: _v, effects: _e, ...rest }: any) => rest;
      for (const v of res.body) {
        const copied = (await app.http('GET', `/api/v2/vouchers/${v.id}/statements`, { token: t.user.token })).body.data;
        expect(copied.map((s: any) => s.voucher_id)).toEqual([v.id, v.id, v.id]);
        expect(copied.map(content)).toEqual(original.map(content));
        const embedded = (await app.http('GET', `/api/v2/vouchers/${v.id}?with=statement`, { token: t.user.token })).body.statement;
        expect(embedded).toMatchObject({ purpose: 'third' });
      }
      // the source keeps its own
      expect(await app.db.prisma.voucherStatement.count({ where: { voucherId: src.id } })).toBe(3);
    });

    it('ranges need not cover every page; a source without a statement gives vouchers without one', async () => {
      const src = await pdf(4);
      const res = await split({ voucher_id: src.id, page_ranges: [[1, 1], [3, 4]] });
      expect(res.status).toBe(201);
      expect(await app.db.prisma.voucherStatement.count({ where: { voucherId: { in: res.body.map((v: any) => v.id) } } })).toBe(0);
    });

    it('source_action ARCHIVE archives the source; DELETE removes it', async () => {
      const a = await pdf(2);
      expect((await split({ voucher_id: a.id, page_ranges: [[1, 1], [2, 2]], source_action: 'ARCHIVE' })).status).toBe(201);
      expect(await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({ status: 'ARCHIVED', isActive: false });
      const b = await pdf(2);
      expect((await split({ voucher_id: b.id, page_ranges: [[1, 1], [2, 2]], source_action: 'DELETE' })).status).toBe(201);
      expect((await app.http('GET', `/api/v2/vouchers/${b.id}`, { token: t.user.token })).status).toBe(404);
    });

    describe('"400: voucher_id missing or not an integer; page_ranges missing, not a list or fewer than 2; a range not exactly two integers; invalid source_action; not a PDF; only one page; range out of bounds; start after end; overlapping ranges; DELETE with posted journal entries"', () => {
      let ids: Record<string, number>;
      beforeAll(async () => {
        const five = await pdf(5);
        const one = await pdf(1);
        const png = await make.voucher(t, { bytes: pngBytes(), contentType: 'image/png', fileName: 'x.png' });
        const posted = await pdf(3);
        await voucherEntry(app, t, { voucherId: posted.id });
        ids = { five: five.id, one: one.id, png: png.id, posted: posted.id };
      });
      const ok = [[1, 2], [3, 5]];

      it.each<[string, (i: Record<string, number>) => unknown, RegExp]>([
        ['voucher_id missing', () => ({ page_ranges: ok }), /voucher_id: is required/],
        ['voucher_id not an integer (a string)', () => ({ voucher_id: 'abc', page_ranges: ok }), /voucher_id/],
        ['voucher_id not an integer (a fraction)', (i) => ({ voucher_id: i.five + 0.5, page_ranges: ok }), /voucher_id/],
        ['page_ranges missing', (i) => ({ voucher_id: i.five }), /page_ranges: is required/],
        ['page_ranges not a list', (i) => ({ voucher_id: i.five, page_ranges: 'all' }), /page_ranges/],
        ['page_ranges an object', (i) => ({ voucher_id: i.five, page_ranges: { a: [1, 2] } }), /page_ranges/],
        ['fewer than 2 ranges', (i) => ({ voucher_id: i.five, page_ranges: [[1, 5]] }), /page_ranges.*at least 2/],
        ['no ranges', (i) => ({ voucher_id: i.five, page_ranges: [] }), /page_ranges.*at least 2/],
        ['a range of one integer', (i) => ({ voucher_id: i.five, page_ranges: [[1], [2, 3]] }), /page_ranges.0.*exactly two integers/],
        ['a range of three integers', (i) => ({ voucher_id: i.five, page_ranges: [[1, 2], [3, 4, 5]] }), /page_ranges.1.*exactly two integers/],
        ['a range that is not a list', (i) => ({ voucher_id: i.five, page_ranges: [[1, 2], 3] }), /page_ranges.1.*exactly two integers/],
        ['a range of non-integers', (i) => ({ voucher_id: i.five, page_ranges: [[1, 2], [3, 'x']] }), /page_ranges/],
        ['invalid source_action', (i) => ({ voucher_id: i.five, page_ranges: ok, source_action: 'MOVE' }), /source_action/],
        ['not a PDF', (i) => ({ voucher_id: i.png, page_ranges: ok }), /not a PDF/],
        ['only one page', (i) => ({ voucher_id: i.one, page_ranges: [[1, 1], [1, 1]] }), /only one page/],
        ['range out of bounds (past the last page)', (i) => ({ voucher_id: i.five, page_ranges: [[1, 2], [3, 6]] }), /page_ranges.1.*out of bounds/],
        ['range out of bounds (page 0)', (i) => ({ voucher_id: i.five, page_ranges: [[0, 2], [3, 5]] }), /page_ranges.0.*out of bounds/],
        ['range out of bounds (negative)', (i) => ({ voucher_id: i.five, page_ranges: [[-1, 2], [3, 5]] }), /page_ranges.0.*out of bounds/],
        ['start after end', (i) => ({ voucher_id: i.five, page_ranges: [[2, 1], [3, 5]] }), /page_ranges.0.*starts after it ends/],
        ['overlapping ranges', (i) => ({ voucher_id: i.five, page_ranges: [[1, 3], [3, 5]] }), /page_ranges.1.*overlaps/],
        ['overlapping ranges (in any order)', (i) => ({ voucher_id: i.five, page_ranges: [[2, 4], [1, 2]] }), /overlaps/],
        ['the same range twice', (i) => ({ voucher_id: i.five, page_ranges: [[1, 2], [1, 2]] }), /overlaps/],
        ['DELETE with posted journal entries', (i) => ({ voucher_id: i.posted, page_ranges: [[1, 1], [2, 3]], source_action: 'DELETE' }), /posted journal entry/],
      ])('400 {error, status}: %s; nothing is created', async (_name, body, message) => {
        const before = await app.db.prisma.voucher.count({ where: { clientAccountId: t.account.id } });
        const res = await split(body(ids));
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
        expect(await app.db.prisma.voucher.count({ where: { clientAccountId: t.account.id } })).toBe(before);
      });

      it('403 for another account’s voucher; 404 for a missing one', async () => {
        const theirs = await make.voucher(other, { bytes: await pdfBytes(3) });
        expect(await split({ voucher_id: theirs.id, page_ranges: ok })).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
        expect(await split({ voucher_id: 99999999, page_ranges: ok })).toMatchObject({ status: 404, body: { error: expect.any(String), status: 404 } });
      });
    });
  });
});
