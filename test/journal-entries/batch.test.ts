import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/modules/journal-entries/ledger-chain.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { bareVoucher } from '../support/vouchers.ts';

// Issue 33, bulk posting: "POST /api/v2/journal-entries/batch {client_account_id, entries: [… up to
// 1,000 entries in the create shape …], atomic?: boolean (default true)} → 201 {data: [{index, id,
// sequence_number} | {index, error}]}; atomic means all or nothing with every error listed by index;
// non-atomic posts the valid ones. … Every ledger rule of the single create applies (balance, locks,
// dimensions, tax, voucher 409), the hash chain and gapless numbering hold, and the reads the rules
// need are done once per batch."
describe.each(targets())('bulk posting (%s)', (target) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
  });
  afterAll(() => app?.close());

  const sale = (amount: number, more: Record<string, unknown> = {}, date = '2026-05-02') => ({
    description: `sale ${amount}`,
    lines: [
      { posting_date: date, account_code: '1920', debit: amount, credit: 0 },
      { posting_date: date, account_code: '3000', debit: 0, credit: amount },
    ],
    ...more,
  });
  const batch = (t: Tenant, entries: unknown[], more: Record<string, unknown> = {}) =>
    app.http('POST', '/api/v2/journal-entries/batch', { token: t.user.token, body: { client_account_id: t.account.id, entries, ...more } });
  const count = (t: Tenant) => app.db.prisma.journalEntry.count({ where: { clientAccountId: t.account.id } });

  it('201 {data: [{index, id, sequence_number}]}: entries posted in order with gapless numbers after the single creates, and the hash chain verifies', async () => {
    const t = await app.seed.tenant();
    const single = await app.http('POST', '/api/v2/journal-entries/', { token: t.user.token, body: { client_account_id: t.account.id, ...sale(5) } });
    expect(single.status).toBe(201);
    const res = await batch(t, [sale(100), sale(200), { ...sale(300), client_account_id: t.account.id }]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.map((d: Record<string, unknown>) => Object.keys(d).sort())).toEqual([0, 1, 2].map(() => ['id', 'index', 'sequence_number']));
    expect(res.body.data.map((d: { index: number; sequence_number: number }) => [d.index, d.sequence_number])).toEqual([[0, 2], [1, 3], [2, 4]]);
    const after = await app.http('POST', '/api/v2/journal-entries/', { token: t.user.token, body: { client_account_id: t.account.id, ...sale(7) } });
    expect(after.body.sequence_number).toBe(5);
    const got = await app.http('GET', `/api/v2/journal-entries/${res.body.data[1].id}`, { token: t.user.token });
    expect(got.body).toMatchObject({ sequence_number: 3, description: 'sale 200', is_draft: false, lines: [{ account_code: '1920', debit: '200.00' }, { account_code: '3000', credit: '200.00' }] });
    expect(await verifyLedger(app.db.prisma, t.account.id)).toMatchObject({ ok: true, entries: 5 });
  });

  it('a draft in a batch (is_draft true) gets no number and the numbers stay gapless; a new account\'s first posting can be a batch', async () => {
    const t = await app.seed.tenant();
    const res = await batch(t, [sale(1), sale(2, { is_draft: true }), sale(3)]);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual([
      { index: 0, id: expect.any(Number), sequence_number: 1 },
      { index: 1, id: expect.any(Number) },
      { index: 2, id: expect.any(Number), sequence_number: 2 },
    ]);
    expect(await verifyLedger(app.db.prisma, t.account.id)).toMatchObject({ ok: true, entries: 2 });
  });

  describe('"every ledger rule of the single create applies (balance, locks, dimensions, tax, voucher 409)"', () => {
    let t: Tenant;
    let voucher: number;
    let bad: unknown[];
    beforeAll(async () => {
      t = await app.seed.tenant();
      await app.db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { lockDate: new Date('2026-01-31T00:00:00Z') } });
      voucher = await bareVoucher(app.db.prisma, t.account.id);
      const first = await app.http('POST', '/api/v2/journal-entries/', { token: t.user.token, body: { client_account_id: t.account.id, ...sale(1, { voucher_id: voucher }) } });
      expect(first.status).toBe(201);
      bad = [
        sale(10),
        { lines: [{ posting_date: '2026-05-02', account_code: '1920', debit: 10, credit: 0 }, { posting_date: '2026-05-02', account_code: '3000', debit: 0, credit: 9 }] },
        sale(11, {}, '2026-01-15'),
        { lines: [{ posting_date: '2026-05-02', account_code: '1500', debit: 10, credit: 0 }, { posting_date: '2026-05-02', account_code: '3000', debit: 0, credit: 10 }] },
        { lines: [{ posting_date: '2026-05-02', account_code: '9999', debit: 10, credit: 0 }, { posting_date: '2026-05-02', account_code: '3000', debit: 0, credit: 10 }] },
        sale(12, { voucher_id: voucher }),
        sale(13),
      ];
    });

    it('atomic (the default): 400 listing every error by index (entries.<index>.<field>), and nothing is written', async () => {
      const before = await count(t);
      const res = await batch(t, bad);
      expect(res.status).toBe(400);
      const error: string = res.body.error;
      expect(error).toContain('entries.1.lines: lines do not balance in the accounting currency: debit 10.00, credit 9.00, difference 1.00');
      expect(error).toContain('entries.2.lines.0.posting_date: 2026-01-15 is in a locked period');
      expect(error).toContain('entries.3.lines.0.dimensions: account 1500 requires a businesspartner dimension on every line');
      expect(error).toContain("entries.4.lines.0.account_code: ledger account '9999' does not exist");
      expect(error).toContain(`entries.5: Journal entry`);
      expect(error).toContain(`already exists for voucher ${voucher}`);
      expect(error).not.toMatch(/entries\.(0|6)\b/);
      expect(await count(t)).toBe(before);
    });

    it('atomic false: the valid entries are posted (201), each refused one answered in place with the status and message a single create gives', async () => {
      const before = await count(t);
      const res = await batch(t, bad, { atomic: false });
      expect(res.status).toBe(201);
      const data = res.body.data;
      expect(data[0]).toEqual({ index: 0, id: expect.any(Number), sequence_number: 2 });
      expect(data[6]).toEqual({ index: 6, id: expect.any(Number), sequence_number: 3 });
      expect(data[1]).toEqual({ index: 1, error: { status: 400, code: 'common.validation_error', message: expect.stringContaining('lines: lines do not balance'), issues: [{ path: ['lines'], message: expect.any(String) }] } });
      expect(data[2].error.issues[0].path).toEqual(['lines', '0', 'posting_date']);
      expect(data[3].error.message).toBe('lines.0.dimensions: account 1500 requires a businesspartner dimension on every line');
      expect(data[4].error.message).toContain("lines.0.account_code: ledger account '9999' does not exist");
      expect(data[5].error).toMatchObject({ status: 409, code: 'common.conflict', message: expect.stringContaining(`voucher ${voucher}`) });
      expect(await count(t)).toBe(before + 2);
      expect(await verifyLedger(app.db.prisma, t.account.id)).toMatchObject({ ok: true, entries: 3 });
    });

    it('a tax code on an account that is not VAT-liable is refused as in a single create', async () => {
      const res = await batch(t, [{ lines: [{ posting_date: '2026-05-02', account_code: '1920', debit: 10, credit: 0 }, { posting_date: '2026-05-02', account_code: '3000', debit: 0, credit: 10, tax_code: '3' }] }]);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('entries.0.lines.1.tax_code: client account');
      expect(res.body.error).toContain('is not VAT-liable');
    });
  });

  it('409 when every failure is a conflict: a voucher twice in one batch is the second entry\'s conflict, and nothing is written', async () => {
    const t = await app.seed.tenant();
    const voucher = await bareVoucher(app.db.prisma, t.account.id);
    const res = await batch(t, [sale(1, { voucher_id: voucher }), sale(2, { voucher_id: voucher })]);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: `Nothing was written: entries.1: Entry 0 of this batch is already for voucher ${voucher}`, status: 409 });
    expect(await count(t)).toBe(0);
  });

  it('the batch itself: 1 to 1,000 entries, client_account_id of an entry must be the batch\'s, an account of someone else is 403', async () => {
    const t = await app.seed.tenant();
    const other = await app.seed.tenant();
    expect((await batch(t, [])).body).toEqual({ error: 'entries: send at least one entry', status: 400 });
    const tooMany = await batch(t, Array.from({ length: 1001 }, () => sale(1)));
    expect(tooMany).toMatchObject({ status: 400, body: { error: 'entries: at most 1000 entries in one batch' } });
    const mixed = await batch(t, [{ ...sale(1), client_account_id: other.account.id }]);
    expect(mixed.body.error).toBe(`entries.0.client_account_id: must be the batch's client account ${t.account.id} (or left out)`);
    expect((await batch(other, [sale(1)], { client_account_id: t.account.id })).status).toBe(403);
  });

  it('"the reads the rules need are done once per batch": 5 and 200 entries (with vouchers, dimensions and tax codes) issue the same number of SQL statements', async () => {
    const t = await app.seed.tenant();
    await app.db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    const partner = (await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde' } })).id;
    const vouchers: number[] = [];
    for (let i = 0; i < 210; i++) vouchers.push(await bareVoucher(app.db.prisma, t.account.id));
    const entries = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        voucher_id: vouchers[from + i],
        lines: [
          { posting_date: '2026-05-02', account_code: '1500', debit: 125, credit: 0, dimensions: [{ type: 'businesspartner', id: partner }] },
          { posting_date: '2026-05-02', account_code: '3000', debit: 0, credit: 100, tax_code: '3' },
          { posting_date: '2026-05-02', account_code: '2700', debit: 0, credit: 25, currency_code: 'NOK' },
        ],
      }));
    const statements = async (from: number, n: number) => {
      app.statements.length = 0;
      const res = await batch(t, entries(from, n));
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
      return app.statements.length;
    };
    await statements(0, 5); // a first request also fills caches (the currencies, the caller's accounts)
    const small = await statements(5, 5);
    const large = await statements(10, 200);
    console.log(`[${target}] bulk posting: ${large} SQL statements for 200 entries (${small} for 5)`);
    expect(large).toBe(small);
    expect(await verifyLedger(app.db.prisma, t.account.id)).toMatchObject({ ok: true, entries: 210 });
  });

  it('GraphQL createJournalEntries answers the same items, the error with camelCase paths', async () => {
    const t = await app.seed.tenant();
    const res = await app.gql(
      t.user.token,
      `mutation($input: CreateJournalEntriesInput!) { createJournalEntries(input: $input) { data { index id sequenceNumber error { status message issues { path message } } } } }`,
      {
        input: {
          clientAccountId: t.account.id,
          atomic: false,
          entries: [
            { lines: [{ postingDate: '2026-05-02', accountCode: '1920', debit: '10', credit: '0' }, { postingDate: '2026-05-02', accountCode: '3000', debit: '0', credit: '10' }] },
            { lines: [{ postingDate: '2026-05-02', accountCode: '1920', debit: '10', credit: '0' }, { postingDate: '2026-05-02', accountCode: '9999', debit: '0', credit: '10' }] },
          ],
        },
      },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.createJournalEntries.data[0]).toEqual({ index: 0, id: expect.any(Number), sequenceNumber: 1, error: null });
    expect(res.data.createJournalEntries.data[1]).toMatchObject({ index: 1, id: null, error: { status: 400, issues: [{ path: ['lines', '1', 'accountCode'] }] } });
  });
});
