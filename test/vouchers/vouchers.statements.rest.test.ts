import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { voucherDocument, voucherEntry, voucherFactory } from '../support/vouchers.ts';

// spec 001 "Vouchers": GET /vouchers/{id}/statements "Paginated (page, per_page), newest first",
// POST /vouchers/{id}/statements "Create a statement"; "Voucher statement: … creating or updating one
// can update the linked journal entry (for example the project dimension) and influence posting";
// "stated_payment_status: Read-only; set by a voucher statement such as mark as paid". The body and
// the response shape are "not shown": designed here (README "Vouchers").
describe.each(targets())('voucher statements REST (%s)', (target) => {
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

  const create = (voucherId: number, body: unknown, token = t.user.token) => app.http('POST', `/api/v2/vouchers/${voucherId}/statements`, { token, body });
  const list = (voucherId: number, qs = '', token = t.user.token) => app.http('GET', `/api/v2/vouchers/${voucherId}/statements?${qs}`, { token });
  let n = 0;
  const project = async (tenant = t, isActive = true) =>
    app.db.prisma.project.create({ data: { clientAccountId: tenant.account.id, sequenceNumber: 1000 + ++n, name: `Stmt ${n}`, isActive } });

  it('201 with the statement: every field, created_by_id the caller, effects of what it changed', async () => {
    const v = await make.voucher(t);
    const payor = await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kari Ansatt', isEmployee: true } });
    const res = await create(v.id, { purpose: 'Kundemiddag', item_categories: ['meals', 'client'], payment_method: 'PRIVATE_CARD', payor_id: payor.id, comment: 'med Nordlys' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      created_at: expect.any(String),
      created_by_id: t.user.id,
      client_account_id: t.account.id,
      voucher_id: v.id,
      purpose: 'Kundemiddag',
      item_categories: ['meals', 'client'],
      payment_method: 'PRIVATE_CARD',
      payor_id: payor.id,
      project_id: null,
      is_paid: null,
      comment: 'med Nordlys',
      effects: { voucher_project_set: false, draft_journal_entry_ids: [], posted_journal_entry_ids_unchanged: [], document_ids_payment_stated: [] },
    });
  });

  it('project_id sets the project on the voucher and on every line of its draft journal entry; a posted entry is immutable and is left alone (and said so)', async () => {
    const v = await make.voucher(t);
    const p = await project();
    const draft = await voucherEntry(app, t, { voucherId: v.id, draft: true });
    const posted = await voucherEntry(app, t, { voucherId: v.id, cancelled: 'Y' }); // a cancelled one is not the voucher's entry
    const res = await create(v.id, { project_id: p.id, purpose: 'Prosjekt' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.effects).toEqual({ voucher_project_set: true, draft_journal_entry_ids: [draft], posted_journal_entry_ids_unchanged: [], document_ids_payment_stated: [] });
    expect((await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: v.id } })).projectId).toBe(p.id);
    const lines = await app.db.prisma.journalEntryLine.findMany({ where: { journalEntryId: draft } });
    expect(lines.map((l) => l.projectId)).toEqual([p.id, p.id]);
    const untouched = await app.db.prisma.journalEntryLine.findMany({ where: { journalEntryId: posted } });
    expect(untouched.every((l) => l.projectId === null)).toBe(true);

    const w = await make.voucher(t);
    const live = await voucherEntry(app, t, { voucherId: w.id });
    const res2 = await create(w.id, { project_id: p.id });
    expect(res2.body.effects).toMatchObject({ voucher_project_set: true, draft_journal_entry_ids: [], posted_journal_entry_ids_unchanged: [live] });
    expect((await app.db.prisma.journalEntryLine.findMany({ where: { journalEntryId: live } })).every((l) => l.projectId === null)).toBe(true);
  });

  it('is_paid true states the voucher’s documents PAID (stated_payment_status); false clears it', async () => {
    const v = await make.voucher(t);
    const d1 = await voucherDocument(app, t, { voucherId: v.id });
    const d2 = await voucherDocument(app, t, { voucherId: v.id, isDraft: false, documentStatus: 'FINALIZED' });
    const unrelated = await voucherDocument(app, t, { voucherId: null });
    const res = await create(v.id, { is_paid: true, payment_method: 'COMPANY_CARD' });
    expect(res.body.effects.document_ids_payment_stated).toEqual([d1.id, d2.id]);
    const docs = await app.db.prisma.document.findMany({ where: { id: { in: [d1.id, d2.id, unrelated.id] } }, orderBy: { id: 'asc' } });
    expect(docs.map((d) => d.statedPaymentStatus)).toEqual(['PAID', 'PAID', null]);
    await create(v.id, { is_paid: false });
    expect((await app.db.prisma.document.findUniqueOrThrow({ where: { id: d1.id } })).statedPaymentStatus).toBeNull();
  });

  it('"Paginated (page, per_page), newest first"', async () => {
    const v = await make.voucher(t);
    const made = [];
    for (const purpose of ['first', 'second', 'third']) made.push((await create(v.id, { purpose })).body.id);
    const res = await list(v.id);
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: any) => s.purpose)).toEqual(['third', 'second', 'first']);
    expect(res.body.meta).toEqual({ records: 3, per_page: 100, page: 1, pages: 1 });
    const page2 = await list(v.id, 'page=2&per_page=2');
    expect(page2.body).toMatchObject({ data: [{ id: made[0] }], meta: { records: 3, per_page: 2, page: 2, pages: 2 } });
    // the newest is the voucher's statement
    const withStatement = await app.http('GET', `/api/v2/vouchers/${v.id}?with=statement`, { token: t.user.token });
    expect(withStatement.body.statement.id).toBe(made[2]);
  });

  it.each<[string, () => Promise<unknown>, RegExp]>([
    ['no body', async () => undefined, /body/],
    ['an empty statement', async () => ({}), /at least one field/],
    ['only empty fields', async () => ({ purpose: '', item_categories: [] }), /at least one field/],
    ['an unknown payment_method', async () => ({ payment_method: 'BITCOIN' }), /payment_method/],
    ['a purpose over 1000 characters', async () => ({ purpose: 'x'.repeat(1001) }), /purpose/],
    ['a comment over 2000 characters', async () => ({ comment: 'x'.repeat(2001) }), /comment/],
    ['more than 20 item categories', async () => ({ item_categories: Array.from({ length: 21 }, (_, i) => `c${i}`) }), /item_categories/],
    ['a payor of another client account', async () => ({ payor_id: (await app.db.prisma.businessPartner.create({ data: { clientAccountId: other.account.id, name: 'X' } })).id }), /payor_id/],
    ['a project of another client account', async () => ({ project_id: (await project(other)).id }), /project_id/],
    ['an inactive project', async () => ({ project_id: (await project(t, false)).id }), /project_id.*inactive/],
    ['an unknown field', async () => ({ purpose: 'x', voucher: 1 }), /voucher: is not a known field/],
  ])('400 {error, status}: %s; nothing is stored', async (_name, body, message) => {
    const v = await make.voucher(t);
    const res = await create(v.id, await body());
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
    expect(await app.db.prisma.voucherStatement.count({ where: { voucherId: v.id } })).toBe(0);
  });

  it('403 for another account’s voucher (list and create), 404 for a missing or deleted one, 403 for a read-only token', async () => {
    const theirs = await make.voucher(other);
    expect(await list(theirs.id)).toMatchObject({ status: 403, body: { status: 403 } });
    expect(await create(theirs.id, { purpose: 'x' })).toMatchObject({ status: 403, body: { status: 403 } });
    expect((await list(99999999)).status).toBe(404);
    expect((await create(99999999, { purpose: 'x' })).status).toBe(404);
    const mine = await make.voucher(t);
    expect((await app.http('DELETE', `/api/v2/vouchers/${mine.id}`, { token: t.user.token })).status).toBe(204);
    expect((await create(mine.id, { purpose: 'x' })).status).toBe(404);
    const live = await make.voucher(t);
    expect((await create(live.id, { purpose: 'x' }, t.user.readToken)).status).toBe(403);
  });
});
