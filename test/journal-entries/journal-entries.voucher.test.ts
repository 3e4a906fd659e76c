import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001 "voucher_id … a second non-cancelled entry for the same voucher is 409", within one client
// account: another client account's entries neither block the voucher nor show up in the answer.
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

  it('the same voucher_id in two client accounts: both 201; a second entry in the same account is 409 naming its own entry', async () => {
    const voucher = 424_242;
    const first = await post(a, { voucher_id: voucher });
    expect(first.status).toBe(201);
    const other = await post(b, { voucher_id: voucher });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const again = await post(b, { voucher_id: voucher });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(`Journal entry ${other.body.id} already exists for voucher ${voucher}; cancel it first`);
  });

  it('a draft of another client account with the voucher does not stop posting (PUT is_draft false)', async () => {
    const voucher = 424_243;
    expect((await post(a, { voucher_id: voucher, is_draft: true })).status).toBe(201);
    const draft = await post(b, { is_draft: true });
    const res = await app.http('PUT', `/api/v2/journal-entries/${draft.body.id}`, {
      token: b.user.token,
      body: { voucher_id: voucher, is_draft: false, lines: draft.body.lines.map((l: Record<string, unknown>) => ({ posting_date: l.posting_date, account_code: l.account_code, debit: l.debit, credit: l.credit })) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ voucher_id: voucher, is_draft: false });
  });
});
