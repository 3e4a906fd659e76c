import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { pdfBytes, pngBytes, voucherDocument, voucherEntry, voucherFactory } from '../support/vouchers.ts';

// spec 001 "Voucher (an uploaded file with voucher fields)", "Voucher relations (`with`)", "Vouchers":
// GET /vouchers/{id}, GET /vouchers (envelope, tenancy, paging), DELETE /vouchers/{id} ("States and
// transitions": removed unless posted entries, posted documents or in-app receivables block it; the
// v2 error envelope, spec 000 "Errors").
describe.each(targets())('vouchers REST (%s)', (target) => {
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

  const get = (path: string, token = t.user.token) => app.http('GET', `/api/v2${path}`, { token });
  const del = (id: number, token = t.user.token) => app.http('DELETE', `/api/v2/vouchers/${id}`, { token });

  describe('GET /vouchers/{id}', () => {
    it('"One voucher": every field of the Voucher table, URLs presigned from its file, page_images per page', async () => {
      const v = await make.voucher(t, { bytes: await pdfBytes(3), fileName: 'kvittering.pdf', data: { type: 'RECPT', documentDate: new Date('2026-03-04'), processingTrack: 'fast', workflowStatus: 'COMPLETED' } });
      const res = await get(`/vouchers/${v.id}`);
      expect(res.status).toBe(200);
      const url = (variant: string, page?: number) =>
        expect.stringMatching(new RegExp(`^${app.url}/api/v2/files/${v.fileId}/${variant}\\?${page ? `page=${page}&` : ''}expires=\\d+&signature=[\\w-]+$`));
      expect(res.body).toEqual({
        id: v.id,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        created_by_id: t.user.id,
        updated_at: expect.any(String),
        updated_by_id: t.user.id,
        client_account_id: t.account.id,
        type: 'RECPT',
        file_name: 'kvittering.pdf',
        content_type: 'application/pdf',
        channel: 'upload',
        processing_track: 'fast',
        size: expect.any(Number),
        is_active: true,
        thumbnail_url: url('thumbnail'),
        preview_url: url('preview', 1),
        download_url: url('download'),
        original_url: url('original'),
        page_images: [1, 2, 3].map((n) => ({ page_number: n, preview_url: url('preview', n) })),
        document_date: '2026-03-04',
        status: 'DRAFT',
        collection_id: null,
        project_id: null,
        workflow_status: 'COMPLETED',
      });
      const stored = await app.db.prisma.storedFile.findUniqueOrThrow({ where: { id: v.fileId } });
      expect(res.body.size).toBe(stored.size);
    });

    it('403 for a voucher of another client account; 404 for none; 400 for a non-integer id', async () => {
      const theirs = await make.voucher(other);
      expect(await get(`/vouchers/${theirs.id}`)).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
      expect(await get('/vouchers/99999999')).toMatchObject({ status: 404, body: { error: expect.any(String), status: 404 } });
      expect((await get('/vouchers/abc')).status).toBe(400);
    });

    it('with: an unknown relation is 400 naming the allowed ones', async () => {
      const v = await make.voucher(t);
      const res = await get(`/vouchers/${v.id}?with=bogus`);
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('attachments'), status: 400 } });
    });
  });

  describe('"Voucher relations (`with`)"', () => {
    let v: { id: number; fileId: number };
    let ids: Record<string, number>;

    beforeAll(async () => {
      const prisma = app.db.prisma;
      const project = await prisma.project.create({ data: { clientAccountId: t.account.id, sequenceNumber: 901, name: `Rel ${Date.now()}` } });
      const collection = await prisma.voucherCollection.create({ data: { clientAccountId: t.account.id, name: 'Reiser' } });
      v = await make.voucher(t, { data: { projectId: project.id, collectionId: collection.id } });
      const attachment = await make.file(t, { bytes: pngBytes(), contentType: 'image/png', fileName: 'bilde.png', pageCount: 1, voucherId: v.id, type: 'ATTACHMENT' });
      const cancelled = await voucherEntry(app, t, { voucherId: v.id, cancelled: 'Y' });
      const reversal = await voucherEntry(app, t, { voucherId: v.id, cancelled: 'C' });
      const current = await voucherEntry(app, t, { voucherId: v.id, draft: true });
      const older = await prisma.voucherStatement.create({ data: { clientAccountId: t.account.id, voucherId: v.id, purpose: 'old', createdAt: new Date('2026-01-01T00:00:00Z') } });
      const newer = await prisma.voucherStatement.create({ data: { clientAccountId: t.account.id, voucherId: v.id, purpose: 'new', createdAt: new Date('2026-02-01T00:00:00Z') } });
      const task = await prisma.task.create({ data: { clientAccountId: t.account.id, title: 'Check receipt', relationType: 'voucher', relationId: v.id } });
      await prisma.task.create({ data: { clientAccountId: t.account.id, title: 'Other record', relationType: 'document', relationId: v.id } });
      const question = await prisma.voucherQuestion.create({ data: { clientAccountId: t.account.id, voucherId: v.id, questionType: 'DUPLICATE', text: 'Keep it?' } });
      ids = { project: project.id, collection: collection.id, attachment: attachment.id, cancelled, reversal, current, older: older.id, newer: newer.id, task: task.id, question: question.id };
    });

    it('without with: no relation is embedded', async () => {
      const res = await get(`/vouchers/${v.id}`);
      for (const r of ['attachments', 'journal_entries', 'journal_entry', 'statements', 'statement', 'tasks', 'questions', 'collection', 'project']) expect(res.body).not.toHaveProperty(r);
    });

    it.each([
      ['attachments', (b: any, i: Record<string, number>) => expect(b.attachments.map((f: any) => [f.id, f.file_name, f.content_type, f.voucher_id])).toEqual([[i.attachment, 'bilde.png', 'image/png', b.id]])],
      ['journal_entries', (b: any, i: Record<string, number>) => expect(b.journal_entries.map((e: any) => e.id)).toEqual([i.cancelled, i.reversal, i.current])],
      ['journal_entry', (b: any, i: Record<string, number>) => expect(b.journal_entry).toMatchObject({ id: i.current, cancelled: null, voucher_id: b.id })],
      ['statements', (b: any, i: Record<string, number>) => expect(b.statements.map((s: any) => s.id)).toEqual([i.newer, i.older])],
      ['statement', (b: any, i: Record<string, number>) => expect(b.statement).toMatchObject({ id: i.newer, purpose: 'new' })],
      ['tasks', (b: any, i: Record<string, number>) => expect(b.tasks.map((x: any) => [x.id, x.relation_type, x.relation_id])).toEqual([[i.task, 'voucher', b.id]])],
      ['questions', (b: any, i: Record<string, number>) => expect(b.questions).toEqual([expect.objectContaining({ id: i.question, question_type: 'DUPLICATE', status: 'OPEN' })])],
      ['collection', (b: any, i: Record<string, number>) => expect(b.collection).toMatchObject({ id: i.collection, name: 'Reiser' })],
      ['project', (b: any, i: Record<string, number>) => expect(b.project).toMatchObject({ id: i.project })],
    ])('with=%s embeds it by name', async (relation, check) => {
      const res = await get(`/vouchers/${v.id}?with=${relation}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      check(res.body, ids);
      const listed = await get(`/vouchers?client_account_id=${t.account.id}&with=${relation}&per_page=1000`);
      check(listed.body.data.find((x: any) => x.id === v.id), ids);
    });

    it('journal_entry is null when every entry of the voucher is cancelled; collection and project null when unset', async () => {
      const w = await make.voucher(t);
      await voucherEntry(app, t, { voucherId: w.id, cancelled: 'Y' });
      const res = await get(`/vouchers/${w.id}?with=journal_entry,collection,project,statement`);
      expect(res.body).toMatchObject({ journal_entry: null, collection: null, project: null, statement: null });
    });
  });

  describe('GET /vouchers', () => {
    it('"Response {data, meta: {records, per_page, page, pages}}", newest first by default; page and per_page', async () => {
      const tenant = await app.seed.tenant();
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await make.voucher(tenant, { data: { createdAt: new Date(Date.UTC(2026, 0, 1 + i)) } }));
      const res = await get(`/vouchers?client_account_id=${tenant.account.id}`, tenant.user.token);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ records: 5, per_page: 100, page: 1, pages: 1 });
      expect(res.body.data.map((v: any) => v.id)).toEqual(made.map((v) => v.id).reverse());
      const page2 = await get(`/vouchers?client_account_id=${tenant.account.id}&page=2&per_page=2`, tenant.user.token);
      expect(page2.body.meta).toEqual({ records: 5, per_page: 2, page: 2, pages: 3 });
      expect(page2.body.data.map((v: any) => v.id)).toEqual([made[2].id, made[1].id]);
      const capped = await get(`/vouchers?client_account_id=${tenant.account.id}&per_page=5000`, tenant.user.token);
      expect(capped.body.meta.per_page).toBe(1000);
    });

    it('without client_account_id: every eligible client account of the caller, no one else’s', async () => {
      const user = await app.seed.user();
      const [a, b] = [await app.seed.clientAccount(), await app.seed.clientAccount()];
      await app.seed.grantRole({ userId: user.id, clientAccountId: a.id, role: 'CA' });
      await app.seed.grantRole({ userId: user.id, clientAccountId: b.id, role: 'EM' });
      const ta = { account: a, user } as unknown as Tenant;
      const tb = { account: b, user } as unknown as Tenant;
      const [va, vb, theirs] = [await make.voucher(ta), await make.voucher(tb), await make.voucher(other)];
      const res = await get('/vouchers', user.token);
      expect(res.status).toBe(200);
      expect(res.body.data.map((v: any) => v.id).sort()).toEqual([va.id, vb.id].sort());
      expect(res.body.data.map((v: any) => v.id)).not.toContain(theirs.id);
      // both accounts named, comma-separated and repeated
      expect((await get(`/vouchers?client_account_id=${a.id},${b.id}`, user.token)).body.meta.records).toBe(2);
      expect((await get(`/vouchers?client_account_id=${a.id}&client_account_id=${b.id}`, user.token)).body.meta.records).toBe(2);
      expect((await get(`/vouchers?client_account_id=${a.id}`, user.token)).body.data.map((v: any) => v.id)).toEqual([va.id]);
    });

    it('"client_account_id must be one of the caller\'s eligible client accounts; otherwise 403"', async () => {
      const res = await get(`/vouchers?client_account_id=${t.account.id},${other.account.id}`);
      expect(res).toMatchObject({ status: 403, body: { error: expect.stringContaining(String(other.account.id)), status: 403 } });
    });

    it.each([
      ['status=BOGUS', 'status'],
      ['page=0', 'page'],
      ['per_page=abc', 'per_page'],
      ['client_account_id=x', 'client_account_id'],
      ['document_date_from=2026-13-01', 'document_date_from'],
      ['has_project=maybe', 'has_project'],
      ['document_type=XXXXX', 'document_type'],
    ])('400 {error, status} for %s', async (qs, field) => {
      const res = await get(`/vouchers?${qs}`);
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
    });
  });

  describe('DELETE /vouchers/{id}', () => {
    const envelope = (status: number, code: string) => ({
      status,
      body: { error: { code, message: expect.any(String), request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) } },
    });

    it('"204": the voucher is removed with its draft journal entries and draft documents; GET is 404 and the list leaves it out', async () => {
      const v = await make.voucher(t);
      const draftEntry = await voucherEntry(app, t, { voucherId: v.id, draft: true });
      const draftDoc = await voucherDocument(app, t, { voucherId: v.id, isDraft: true });
      const res = await del(v.id);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await app.db.prisma.journalEntry.findUnique({ where: { id: draftEntry } })).toBeNull();
      expect(await app.db.prisma.document.findUnique({ where: { id: draftDoc.id } })).toBeNull();
      expect((await get(`/vouchers/${v.id}`)).status).toBe(404);
      const listed = await get(`/vouchers?client_account_id=${t.account.id}&per_page=1000`);
      expect(listed.body.data.map((x: any) => x.id)).not.toContain(v.id);
      // kept as evidence: status DELETED, listed only when asked for
      expect(await app.db.prisma.voucher.findUnique({ where: { id: v.id } })).toMatchObject({ status: 'DELETED', isActive: false });
      const trash = await get(`/vouchers?client_account_id=${t.account.id}&status=deleted&per_page=1000`);
      expect(trash.body.data.map((x: any) => x.id)).toContain(v.id);
      expect(await del(v.id)).toMatchObject(envelope(404, 'common.not_found'));
    });

    it('cancelled entries (Y and their reversal C) and cancelled posted documents do not block it', async () => {
      const v = await make.voucher(t);
      const cancelled = await voucherEntry(app, t, { voucherId: v.id, cancelled: 'Y' });
      await voucherEntry(app, t, { voucherId: v.id, cancelled: 'C' });
      await voucherDocument(app, t, { voucherId: v.id, isDraft: false, documentStatus: 'CANCELLED' });
      expect((await del(v.id)).status).toBe(204);
      expect(await app.db.prisma.journalEntry.findUnique({ where: { id: cancelled } })).not.toBeNull();
    });

    it.each([
      ['a posted, non-cancelled journal entry', async (voucherId: number) => void (await voucherEntry(app, t, { voucherId })), /posted journal entry/],
      ['a posted (non-draft) document', async (voucherId: number) => void (await voucherDocument(app, t, { voucherId, isDraft: false, documentStatus: 'FINALIZED' })), /posted document/],
      ['an in-app created receivable document (draft)', async (voucherId: number) => void (await voucherDocument(app, t, { voucherId, documentType: 'ARINV', createdInApp: true, isDraft: true })), /receivable document/],
    ])('"400 when blocked by" %s, in the v2 error envelope; nothing is removed', async (_what, block, message) => {
      const v = await make.voucher(t);
      const draft = await voucherEntry(app, t, { voucherId: v.id, draft: true });
      await block(v.id);
      const res = await del(v.id);
      expect(res).toMatchObject(envelope(400, 'common.validation_error'));
      expect(res.body.error.message).toMatch(message);
      expect(await app.db.prisma.voucher.findUnique({ where: { id: v.id } })).toMatchObject({ status: 'DRAFT' });
      expect(await app.db.prisma.journalEntry.findUnique({ where: { id: draft } })).not.toBeNull();
    });

    it('an imported receivable document (created_in_app false) does not block it when it is a draft', async () => {
      const v = await make.voucher(t);
      await voucherDocument(app, t, { voucherId: v.id, documentType: 'ARINV', createdInApp: false, isDraft: true });
      expect((await del(v.id)).status).toBe(204);
    });

    it('403 for another account’s voucher, 404 for none, 403 for a read-only token — all in the v2 envelope', async () => {
      const theirs = await make.voucher(other);
      expect(await del(theirs.id)).toMatchObject(envelope(403, 'common.forbidden'));
      expect(await del(99999999)).toMatchObject(envelope(404, 'common.not_found'));
      const mine = await make.voucher(t);
      const ro = await del(mine.id, t.user.readToken);
      expect(ro.status).toBe(403);
      expect(ro.body.error).toMatchObject({ code: 'insufficient_scope' });
      expect((await get(`/vouchers/${mine.id}`)).status).toBe(200);
    });
  });

  describe('journal entries and vouchers (spec 001 "Journal entries": 409 for a second non-cancelled entry)', () => {
    // a tenant of its own: the other tests write posted entries straight to the tables, past the ledger chain
    let j: Tenant;
    beforeAll(async () => {
      j = await app.seed.tenant();
    });
    const post = (voucherId: number, extra: Record<string, unknown> = {}) =>
      app.http('POST', '/api/v2/journal-entries/', {
        token: j.user.token,
        body: {
          client_account_id: j.account.id,
          voucher_id: voucherId,
          lines: [
            { posting_date: '2026-03-15', account_code: '6300', debit: 10, credit: 0 },
            { posting_date: '2026-03-15', account_code: '1920', debit: 0, credit: 10 },
          ],
          ...extra,
        },
      });

    it('a second entry on a voucher is 409; after cancelling the first, a new one is accepted and becomes journal_entry', async () => {
      const v = await make.voucher(j);
      const first = await post(v.id);
      expect(first.status).toBe(201);
      expect((await post(v.id)).status).toBe(409);
      const cancel = await app.http('PATCH', `/api/v2/journal-entries/${first.body.id}`, { token: j.user.token, body: { cancelled: 'Y', cancellation_reason: 'wrong account' } });
      expect(cancel.status).toBe(200);
      const second = await post(v.id);
      expect(second.status).toBe(201);
      const res = await get(`/vouchers/${v.id}?with=journal_entry,journal_entries`, j.user.token);
      expect(res.body.journal_entry.id).toBe(second.body.id);
      expect(res.body.journal_entries).toHaveLength(3); // the original, its reversal, the new one
      // the posted, non-cancelled one blocks DELETE
      expect((await del(v.id, j.user.token)).status).toBe(400);
    });
  });
});
