import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { bareVoucher } from '../support/vouchers.ts';

// spec 001 "voucher_id … a second non-cancelled entry for the same voucher is 409", within one client
// account: another client account's entries neither block the voucher nor show up in the answer.
// voucher_id names a voucher of the entry's client account (each account its own voucher here).
describe.each(targets())('journal entry vouchers per client account (%s)', (target) => {
  let app: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [a, b] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const post = (t: Tenant, body: Record<string, unknown>) =>
    app.http('POST', '/api/v2/journal-entries/', {
      token: t.user.token,
      body: {
        client_account_id: t.account.id,
        lines: [
          { posting_date: '2026-03-15', account_code: '6300', debit: 10, credit: 0 },
          { posting_date: '2026-03-15', account_code: '1920', debit: 0, credit: 10 },
        ],
        ...body,
      },
    });

  it('a voucher of each client account: both 201; a second entry in the same account is 409 naming its own entry; another account\'s voucher is 400', async () => {
    const [va, vb] = [await bareVoucher(app.db.prisma, a.account.id), await bareVoucher(app.db.prisma, b.account.id)];
    const first = await post(a, { voucher_id: va });
    expect(first.status).toBe(201);
    const other = await post(b, { voucher_id: vb });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const again = await post(b, { voucher_id: vb });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(`Journal entry ${other.body.id} already exists for voucher ${vb}; cancel it first`);
    expect((await post(b, { voucher_id: va })).status).toBe(400);
  });

  it('a draft of another client account with the voucher does not stop posting (PUT is_draft false)', async () => {
    const voucher = await bareVoucher(app.db.prisma, b.account.id);
    // a draft in a naming the same id directly (as the ledger allowed before voucher ids were checked)
    await app.db.prisma.journalEntry.create({ data: { clientAccountId: a.account.id, voucherId: voucher, isDraft: true } });
    const draft = await post(b, { is_draft: true });
    const res = await app.http('PUT', `/api/v2/journal-entries/${draft.body.id}`, {
      token: b.user.token,
      body: { voucher_id: voucher, is_draft: false, lines: draft.body.lines.map((l: Record<string, unknown>) => ({ posting_date: l.posting_date, account_code: l.account_code, debit: l.debit, credit: l.credit })) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ voucher_id: voucher, is_draft: false });
  });
});
