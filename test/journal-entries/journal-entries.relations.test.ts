import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue "One naming": "every foreign id has its object relation (Document.journalEntry,
// JournalEntry.voucher …)". The objects come batched (a list issues the same statements for 2 and 20
// entries) and are checked by their own type, so a forged id never shows another account's record.
describe.each(targets())('journal entry relations (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  const vouchers: number[] = [];
  const entries: number[] = [];

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    for (let i = 0; i < 20; i++) {
      // one entry per voucher
      const file = await app.db.prisma.storedFile.create({
        data: { clientAccountId: t.account.id, type: 'VOUCHER', fileName: 'bilag.pdf', contentType: 'application/pdf', size: 10, sha256: '0'.repeat(64), storageKey: `${t.account.id}/${randomUUID()}`, pageCount: 1 },
      });
      const voucherId = (await app.db.prisma.voucher.create({ data: { clientAccountId: t.account.id, fileId: file.id, workflowStatus: 'COMPLETED' } })).id;
      vouchers.push(voucherId);
      const res = await app.gql(t.user.token, `mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { id } }`, {
        input: {
          clientAccountId: t.account.id,
          voucherId,
          lines: [
            { postingDate: '2026-05-02', accountCode: '6300', debit: `${100 + i}`, credit: '0' },
            { postingDate: '2026-05-02', accountCode: '1920', debit: '0', credit: `${100 + i}` },
          ],
        },
      });
      expect(res.errors).toBeUndefined();
      entries.push(res.data.createJournalEntry.id);
    }
  });
  afterAll(() => app?.close());

  it('JournalEntry.voucher, clientAccount, createdBy and the cancellation pair are the records their ids name', async () => {
    const c = await app.gql(t.user.token, `mutation($id: Int!) { cancelJournalEntry(id: $id, cancelled: "Y", cancellationReason: "feil") { id cancellationEntryId } }`, { id: entries[0] });
    expect(c.errors).toBeUndefined();
    const res = await app.gql(
      t.user.token,
      `query($id: Int!) { journalEntry(id: $id) { voucherId voucher { id } clientAccount { id } createdBy { id } cancellationEntryId cancellationEntry { id reversesEntryId reversesEntry { id } } lines { currencyCode currency { code } } } }`,
      { id: entries[0] },
    );
    expect(res.errors).toBeUndefined();
    const e = res.data.journalEntry;
    expect(e).toMatchObject({ voucherId: vouchers[0], voucher: { id: vouchers[0] }, clientAccount: { id: t.account.id }, createdBy: { id: t.user.id } });
    expect(e.cancellationEntry).toEqual({ id: e.cancellationEntryId, reversesEntryId: entries[0], reversesEntry: { id: entries[0] } });
    expect(e.lines[0].currency).toEqual({ code: e.lines[0].currencyCode });
  });

  it('Document.journalEntry is the entry its journalEntryId names', async () => {
    const doc = await app.db.prisma.document.create({
      data: { clientAccountId: t.account.id, documentType: 'INV', documentNumber: 'R-1', documentDate: new Date('2026-05-02'), isDraft: false, journalEntryId: entries[1] },
    });
    const res = await app.gql(t.user.token, `query($id: Int!) { document(id: $id) { journalEntryId journalEntry { id voucher { id } } } }`, { id: doc.id });
    expect(res.errors).toBeUndefined();
    expect(res.data.document).toEqual({ journalEntryId: entries[1], journalEntry: { id: entries[1], voucher: { id: vouchers[1] } } });
  });

  it("a forged id never shows another account's record: the related object is checked by its own type (403, null)", async () => {
    const other = await app.seed.tenant();
    const doc = await app.db.prisma.document.create({
      data: { clientAccountId: other.account.id, documentType: 'INV', documentNumber: 'X-1', documentDate: new Date('2026-05-02'), isDraft: false, journalEntryId: entries[2] },
    });
    const res = await app.gql(other.user.token, `query($id: Int!) { document(id: $id) { id journalEntryId journalEntry { id description } } }`, { id: doc.id });
    expect(res.data.document).toEqual({ id: doc.id, journalEntryId: entries[2], journalEntry: null });
    expect(errorCode(res)).toBe('common.forbidden');
  });

  it('the relations of a list are batched: the same number of statements for 2 and 20 entries', async () => {
    const count = async (perPage: number) => {
      app.statements.length = 0;
      const res = await app.gql(
        t.user.token,
        `query($ca: Int!, $n: Int) { journalEntries(clientAccountId: $ca, perPage: $n, includeDrafts: true) { nodes {
          id voucher { id file { id } } clientAccount { id } createdBy { id } reversesEntry { id } cancellationEntry { id }
          lines { currency { code } account { code } journalEntry { id } }
        } } }`,
        { ca: t.account.id, n: perPage },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data.journalEntries.nodes).toHaveLength(perPage);
      expect(res.data.journalEntries.nodes.filter((e: { voucher: unknown }) => e.voucher).length).toBeGreaterThan(0);
      return app.statements.length;
    };
    // the first test cancelled entries[0], the first of both pages (its reversal comes last): both pages have one cancellation pair to load
    await count(2);
    const small = Math.min(await count(2), await count(2));
    const large = Math.min(await count(20), await count(20));
    expect(large).toBe(small);
  });
});
