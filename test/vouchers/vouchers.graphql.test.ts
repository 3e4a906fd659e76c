import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { pageCountOf, pdfBytes, voucherFactory } from '../support/vouchers.ts';

// The same operations over GraphQL (the REST adapter runs these fields): vouchers, voucher,
// mergeVouchers, splitVoucher, createVoucherStatement, deleteVoucher, voucherCollections.
describe.each(targets())('vouchers GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let make: ReturnType<typeof voucherFactory>;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    make = voucherFactory(app);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(async () => {
    await app?.close();
  });

  it('vouchers with relations: one query per relation, however many vouchers (no N+1)', async () => {
    const tenant = await app.seed.tenant();
    for (let i = 0; i < 6; i++) {
      const v = await make.voucher(tenant);
      await app.db.prisma.voucherStatement.create({ data: { clientAccountId: tenant.account.id, voucherId: v.id, purpose: `p${i}` } });
      await app.db.prisma.task.create({ data: { clientAccountId: tenant.account.id, title: 't', relationType: 'voucher', relationId: v.id } });
    }
    app.statements.length = 0;
    const res = await app.gql(tenant.user.token, `{
      vouchers(clientAccountIds: [${tenant.account.id}]) {
        nodes { id fileName pageImages { pageNumber } statement { purpose } statements { id } tasks { id } journalEntry { id } attachments { id } collection { id } }
        meta { records }
      }
    }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.vouchers.meta.records).toBe(6);
    expect(res.data.vouchers.nodes.every((n: any) => n.statement && n.tasks.length === 1 && n.pageImages.length === 1)).toBe(true);
    const perVoucher = app.statements.filter((s) => /"voucher_statements"|"tasks"|"journal_entries"/.test(s));
    expect(perVoucher.length).toBeLessThanOrEqual(4);
  });

  it('mergeVouchers, splitVoucher and createVoucherStatement; deleteVoucher; a read-only token cannot', async () => {
    const a = await make.voucher(t, { bytes: await pdfBytes(2) });
    const b = await make.voucher(t, { bytes: await pdfBytes(1) });
    const merged = await app.gql(t.user.token, `mutation($ids: [Int!]!) { mergeVouchers(input: { voucherIds: $ids, sourceAction: ARCHIVE }) { id channel status fileId } }`, { ids: [a.id, b.id] });
    expect(merged.errors).toBeUndefined();
    expect(merged.data.mergeVouchers).toMatchObject({ channel: 'merge', status: 'DRAFT' });
    expect(await pageCountOf(await make.bytesOf(merged.data.mergeVouchers.fileId))).toBe(3);
    const parts = await app.gql(t.user.token, `mutation($id: Int!) { splitVoucher(input: { voucherId: $id, pageRanges: [[1, 2], [3, 3]] }) { id channel } }`, { id: merged.data.mergeVouchers.id });
    expect(parts.errors).toBeUndefined();
    expect(parts.data.splitVoucher).toHaveLength(2);
    const stmt = await app.gql(t.user.token, `mutation($id: Int!) { createVoucherStatement(voucherId: $id, input: { purpose: "Lunsj", paymentMethod: CASH }) { id purpose paymentMethod effects { voucherProjectSet } } }`, { id: parts.data.splitVoucher[0].id });
    expect(stmt.data.createVoucherStatement).toMatchObject({ purpose: 'Lunsj', paymentMethod: 'CASH', effects: { voucherProjectSet: false } });
    const ro = await app.gql(t.user.readToken, `mutation($id: Int!) { deleteVoucher(id: $id) }`, { id: parts.data.splitVoucher[1].id });
    expect(errorCode(ro)).toBe('insufficient_scope');
    const deleted = await app.gql(t.user.token, `mutation($id: Int!) { deleteVoucher(id: $id) }`, { id: parts.data.splitVoucher[1].id });
    expect(deleted.data.deleteVoucher).toBe(true);
    const gone = await app.gql(t.user.token, `query($id: Int!) { voucher(id: $id) { id } }`, { id: parts.data.splitVoucher[1].id });
    expect(errorCode(gone)).toBe('common.not_found');
  });

  it('tenancy: another account’s voucher is forbidden; validation errors carry common.validation_error', async () => {
    const theirs = await make.voucher(other);
    expect(errorCode(await app.gql(t.user.token, `{ voucher(id: ${theirs.id}) { id } }`))).toBe('common.forbidden');
    const bad = await app.gql(t.user.token, `mutation { splitVoucher(input: { voucherId: ${theirs.id}, pageRanges: [[1, 2]] }) { id } }`);
    expect(errorCode(bad)).toBe('common.validation_error');
    const coll = await app.gql(t.user.token, `mutation { createVoucherCollection(input: { clientAccountId: ${t.account.id}, name: "Q1" }) { id name createdById } }`);
    expect(coll.data.createVoucherCollection).toMatchObject({ name: 'Q1', createdById: t.user.id });
    const listed = await app.gql(t.user.token, `{ voucherCollections(clientAccountId: ${t.account.id}) { nodes { id vouchers { id } } meta { records } } }`);
    expect(listed.data.voucherCollections.meta.records).toBeGreaterThan(0);
  });
});
