import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001, "Bank transaction" and "Bank transactions": GET/POST /bank-transactions, GET
// /bank-transactions/{id}, GET/POST /bank-transactions/{id}/statements; POST /bank-statements.
describe.each(targets())('bank transactions REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let bank: number;
  let partnerAccount: number;
  let otherBank: number;
  let partner: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    const prisma = app.seed.prisma;
    const ledgerAccountId = await t.ledgerAccount('1920');
    bank = (await prisma.bankAccount.create({ data: { clientAccountId: t.account.id, accountNumber: '15032012342', ledgerAccountId } })).id;
    partner = (await prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } })).id;
    partnerAccount = (await prisma.bankAccount.create({ data: { clientAccountId: t.account.id, businessPartnerId: partner, accountNumber: '12030000043' } })).id;
    otherBank = (await prisma.bankAccount.create({ data: { clientAccountId: other.account.id, accountNumber: '15032012342', ledgerAccountId: await other.ledgerAccount('1920') } })).id;
  });
  afterAll(() => app?.close());

  const incoming = (extra: Record<string, unknown> = {}) => ({
    client_account_id: t.account.id,
    amount: '1250.00',
    currency_code: 'NOK',
    booking_date: '2026-03-10',
    payee_bank_account_id: bank,
    payor_name: 'Kunde AS',
    ...extra,
  });
  const outgoing = (extra: Record<string, unknown> = {}) => ({
    client_account_id: t.account.id,
    amount: '-499.50',
    currency_code: 'NOK',
    booking_date: '2026-03-11',
    payor_bank_account_id: bank,
    payee_name: 'Leverandør AS',
    ...extra,
  });
  const post = (body: unknown, token = t.user.token) => app.http('POST', '/api/v2/bank-transactions', { token, body });
  const created = async (body: unknown) => {
    const res = await post(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };

  describe('POST /bank-transactions', () => {
    it('"Create; 201; details not included": the transaction shape, the own account stored as bank_account_id', async () => {
      const res = await post(incoming({ value_date: '2026-03-11', memo: 'Faktura 1001', end_to_end_id: 'E2E-1', details: [{ structured_reference: '12345678903' }] }));
      expect(res.status).toBe(201);
      expect(res.body).not.toHaveProperty('details');
      expect(res.body).toMatchObject({
        client_account_id: t.account.id, bank_account_id: bank, payee_bank_account_id: bank, payor_bank_account_id: null, amount: '1250.00',
        currency_code: 'NOK', booking_date: '2026-03-10', value_date: '2026-03-11', memo: 'Faktura 1001', end_to_end_id: 'E2E-1',
        external_reconciled_amount: '0.00', payor_name: 'Kunde AS',
      });
      const got = await app.http('GET', `/api/v2/bank-transactions/${res.body.id}`, { token: t.user.token });
      expect(got.body.details).toEqual([expect.objectContaining({ structured_reference: '12345678903', transaction_uuid: expect.any(String) })]);
    });

    it('"id and external_reconciled_amount are ignored on input"', async () => {
      const res = await post(incoming({ id: 999999, external_reconciled_amount: '1250.00' }));
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe(999999);
      expect(res.body.external_reconciled_amount).toBe('0.00');
    });

    it('an outgoing transaction opens an ATTACH_FILE question (attach the receipt); an incoming one none', async () => {
      const out = await created(outgoing());
      const inc = await created(incoming());
      const q = await app.http('GET', `/api/v2/bank-transactions/${out.id}?with=questions`, { token: t.user.token });
      expect(q.body.questions).toEqual([expect.objectContaining({ question_type: 'ATTACH_FILE', status: 'OPEN', text: expect.stringMatching(/receipt/) })]);
      const none = await app.http('GET', `/api/v2/bank-transactions/${inc.id}?with=questions`, { token: t.user.token });
      expect(none.body.questions).toEqual([]);
    });

    type Body = Record<string, unknown>;
    it.each<[string, (b: Body) => Body, string]>([
      ['client_account_id missing (required)', ({ client_account_id: _c, ...b }) => b, 'client_account_id'],
      ['amount missing (required)', ({ amount: _a, ...b }) => b, 'amount'],
      ['currency_code missing (required)', ({ currency_code: _c, ...b }) => b, 'currency_code'],
      ['booking_date missing (required)', ({ booking_date: _d, ...b }) => b, 'booking_date'],
      ['currency_code not ISO 4217', (b) => ({ ...b, currency_code: 'KRONER' }), 'currency_code'],
      ['currency_code unknown', (b) => ({ ...b, currency_code: 'XYZ' }), 'currency_code'],
      ['currency_code not the account currency', (b) => ({ ...b, currency_code: 'EUR' }), 'currency_code'],
      ['amount 0', (b) => ({ ...b, amount: '0' }), 'amount'],
      ['payee_bank_account_id missing when amount is positive', ({ payee_bank_account_id: _p, ...b }) => b, 'payee_bank_account_id'],
      ['payor_bank_account_id missing when amount is negative', ({ payee_bank_account_id: _p, ...b }) => ({ ...b, amount: '-10' }), 'payor_bank_account_id'],
      ['payee bank account in another client account', (b) => ({ ...b, payee_bank_account_id: otherBank }), 'payee_bank_account_id'],
      ['payee bank account missing', (b) => ({ ...b, payee_bank_account_id: 99999999 }), 'payee_bank_account_id'],
      ["payee bank account a partner's, not the company's", (b) => ({ ...b, payee_bank_account_id: partnerAccount }), 'payee_bank_account_id'],
      ['payor bank account (the counterparty) in another client account', (b) => ({ ...b, payor_bank_account_id: otherBank }), 'payor_bank_account_id'],
    ])('"Errors: 400": %s', async (_what, change, field) => {
      const res = await post(change(incoming()));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it("a counterparty's account of the same client account is accepted as payor of an incoming transaction", async () => {
      expect((await post(incoming({ payor_bank_account_id: partnerAccount }))).status).toBe(201);
    });

    it('"403": another tenant\'s client account, and a read-only token', async () => {
      expect((await post(incoming({ client_account_id: other.account.id }))).status).toBe(403);
      expect((await post(incoming(), t.user.readToken)).status).toBe(403);
    });

    it('a repeated entry_reference of the bank account is 400', async () => {
      await created(incoming({ entry_reference: 'REF-DUP-1' }));
      const res = await post(incoming({ entry_reference: 'REF-DUP-1' }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('entry_reference');
    });
  });

  describe('GET /bank-transactions', () => {
    let ids: number[];
    beforeAll(async () => {
      const tenant = await app.seed.tenant();
      t = tenant;
      const prisma = app.seed.prisma;
      bank = (await prisma.bankAccount.create({ data: { clientAccountId: t.account.id, accountNumber: '15032012342', ledgerAccountId: await t.ledgerAccount('1920') } })).id;
      ids = [];
      for (const [amount, date] of [['300', '2026-02-01'], ['-100', '2026-02-01'], ['50', '2026-01-15'], ['75', '2026-03-01']] as const) {
        const body = Number(amount) > 0 ? incoming({ amount, booking_date: date }) : outgoing({ amount, booking_date: date });
        ids.push((await created(body)).id);
      }
      // the last one fully booked
      await prisma.bankTransaction.update({ where: { id: ids[3] }, data: { externalReconciledAmount: '75' } });
    });
    const list = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/bank-transactions?${qs}`, { token });

    it('"order_by (default booking_date asc, amount asc)", the page envelope, details by default; fully booked ones left out by default', async () => {
      const res = await list(`client_account_id=${t.account.id}`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 50, records: 3 });
      expect(res.body.data.map((x: { id: number }) => x.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(res.body.data[0].details).toEqual([]);
    });

    it('"include_externally_reconciled (boolean)" includes fully booked transactions', async () => {
      const res = await list(`client_account_id=${t.account.id}&include_externally_reconciled=true`);
      expect(res.body.data.map((x: { id: number }) => x.id)).toEqual([ids[2], ids[1], ids[0], ids[3]]);
    });

    it('"from_date, to_date (booking date, inclusive)", bank_account_id, order_by with - for descending, page and per_page', async () => {
      const res = await list(`client_account_id=${t.account.id}&from_date=2026-02-01&to_date=2026-03-01&include_externally_reconciled=true&order_by=-amount`);
      expect(res.body.data.map((x: { id: number }) => x.id)).toEqual([ids[0], ids[3], ids[1]]);
      expect((await list(`client_account_id=${t.account.id}&bank_account_id=${bank}`)).body.meta.records).toBe(3);
      const paged = await list(`client_account_id=${t.account.id}&per_page=2&page=2`);
      expect(paged.body).toMatchObject({ meta: { page: 2, pages: 2, per_page: 2, records: 3 }, data: [{ id: ids[0] }] });
      expect((await list(`client_account_id=${t.account.id}&order_by=colour`)).status).toBe(400);
    });

    it('order_by written as the spec writes the default, "booking_date asc, amount asc", and with desc', async () => {
      const asWritten = await list(`client_account_id=${t.account.id}&order_by=${encodeURIComponent('booking_date asc, amount asc')}`);
      expect(asWritten.body.data.map((x: { id: number }) => x.id)).toEqual([ids[2], ids[1], ids[0]]);
      const reversed = await list(`client_account_id=${t.account.id}&order_by=${encodeURIComponent('booking_date desc, amount desc')}`);
      expect(reversed.body.data.map((x: { id: number }) => x.id)).toEqual([ids[0], ids[1], ids[2]]);
      expect(await list(`client_account_id=${t.account.id}&order_by=${encodeURIComponent('-amount desc')}`)).toMatchObject({
        status: 400, body: { error: "order_by: 'desc' must follow the field it orders, e.g. 'created_at desc'", status: 400 },
      });
    });

    it.each([
      ['missing', ''],
      ['invalid', 'client_account_id=abc'],
      ['another tenant\'s', 'client_account_id=OTHER'],
    ])('"client_account_id must be one of the caller\'s eligible client accounts; otherwise 403": %s', async (_what, qs) => {
      const res = await list(qs.replace('OTHER', String(other.account.id)));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.any(String), status: 403 });
    });
  });

  describe('GET /bank-transactions/{id}', () => {
    it('"details included by default; 403 no access"; 404 for none; with= relations; details "always included on GET", whatever with names', async () => {
      const tx = await created(incoming());
      const res = await app.http('GET', `/api/v2/bank-transactions/${tx.id}`, { token: t.user.token });
      expect(res.status).toBe(200);
      expect(res.body).toHaveProperty('details');
      expect(res.body).not.toHaveProperty('questions');
      const all = await app.http('GET', `/api/v2/bank-transactions/${tx.id}?with=questions,statements,posted_payments,receivable_payments,reconciled_documents`, { token: t.user.token });
      expect(all.body).toMatchObject({ details: expect.any(Array), questions: [], statements: [], posted_payments: [], receivable_payments: [], reconciled_documents: [] });
      const listed = await app.http('GET', `/api/v2/bank-transactions?client_account_id=${t.account.id}&with=statements`, { token: t.user.token });
      expect(listed.body.data.length).toBeGreaterThan(0);
      expect(listed.body.data.every((row: Record<string, unknown>) => Array.isArray(row.details))).toBe(true);
      expect((await app.http('GET', `/api/v2/bank-transactions/${tx.id}`, { token: other.user.token })).status).toBe(403);
      expect((await app.http('GET', '/api/v2/bank-transactions/99999999', { token: t.user.token })).status).toBe(404);
    });
  });

  describe('/bank-transactions/{id}/statements', () => {
    const postStatement = (id: number, body: unknown, token = t.user.token) => app.http('POST', `/api/v2/bank-transactions/${id}/statements`, { token, body });

    it('"201 with the statement"; client_account_id and bank_transaction_id from the parent, created_by_id from the caller; "closes open questions of type ATTACH_FILE or STATEMENT"', async () => {
      const tx = await created(outgoing());
      await app.seed.prisma.bankTransactionQuestion.create({ data: { clientAccountId: t.account.id, bankTransactionId: tx.id, questionType: 'STATEMENT', text: 'What was this?' } });
      const res = await postStatement(tx.id, { category: 'office', business_partner_id: null, voucher_id: 77, comment: 'Printer paper' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ client_account_id: t.account.id, bank_transaction_id: tx.id, created_by_id: t.user.id, category: 'office', voucher_id: 77, comment: 'Printer paper' });
      const q = await app.http('GET', `/api/v2/bank-transactions/${tx.id}?with=questions`, { token: t.user.token });
      expect(q.body.questions).toHaveLength(2);
      for (const question of q.body.questions) expect(question).toMatchObject({ status: 'CLOSED', closed_by_id: t.user.id, closed_at: expect.any(String) });
      const listed = await app.http('GET', `/api/v2/bank-transactions/${tx.id}/statements?with=bank_transaction,voucher`, { token: t.user.token });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([expect.objectContaining({ id: res.body.id, voucher: { id: 77 }, bank_transaction: expect.objectContaining({ id: tx.id, details: [] }) })]);
    });

    it('"all optional": {} is a statement; "400 no body"', async () => {
      const tx = await created(incoming());
      expect((await postStatement(tx.id, {})).status).toBe(201);
      const res = await app.http('POST', `/api/v2/bank-transactions/${tx.id}/statements`, { token: t.user.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining('body'), status: 400 });
    });

    it('business_partner_id must be a partner of the same client account (400); "403" for another tenant\'s transaction; 404 for none', async () => {
      const tx = await created(incoming());
      const foreign = await app.seed.prisma.businessPartner.create({ data: { clientAccountId: other.account.id, name: 'Fremmed AS' } });
      const bad = await postStatement(tx.id, { business_partner_id: foreign.id });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toContain('business_partner_id');
      const mine = await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Egen AS' } });
      const ok = await postStatement(tx.id, { business_partner_id: mine.id });
      expect(ok.status).toBe(201);
      const withPartner = await app.http('GET', `/api/v2/bank-transactions/${tx.id}/statements?with=business_partner`, { token: t.user.token });
      expect(withPartner.body[0].business_partner).toMatchObject({ id: mine.id, name: 'Egen AS' });
      expect((await postStatement(tx.id, {}, other.user.token)).status).toBe(403);
      expect((await app.http('GET', `/api/v2/bank-transactions/${tx.id}/statements`, { token: other.user.token })).status).toBe(403);
      expect((await postStatement(99999999, {})).status).toBe(404);
    });
  });

  describe('POST /bank-statements (JSON)', () => {
    const statement = (extra: Record<string, unknown> = {}) => ({
      client_account_id: t.account.id,
      bank_account_id: bank,
      from_date: '2026-04-01',
      to_date: '2026-04-30',
      opening_balance: '1000.00',
      closing_balance: '1500.00',
      transactions: [
        { amount: '700.00', currency_code: 'NOK', booking_date: '2026-04-02', payor_name: 'Kunde AS', entry_reference: 'S-1' },
        { amount: '-200.00', currency_code: 'NOK', booking_date: '2026-04-03', payee_name: 'Leverandør AS', entry_reference: 'S-2' },
      ],
      ...extra,
    });
    const postStatement = (body: unknown) => app.http('POST', '/api/v2/bank-statements', { token: t.user.token, body });

    it('201 with the statement and its transactions, the bank account filled in by sign', async () => {
      const res = await postStatement(statement());
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({
        client_account_id: t.account.id, bank_account_id: bank, from_date: '2026-04-01', to_date: '2026-04-30', opening_balance: '1000.00',
        closing_balance: '1500.00', source: 'JSON', imported: 2, skipped: 0,
      });
      expect(res.body.transactions.map((x: Record<string, unknown>) => [x.amount, x.payee_bank_account_id, x.payor_bank_account_id, x.bank_statement_id])).toEqual([
        ['700.00', bank, null, res.body.id],
        ['-200.00', null, bank, res.body.id],
      ]);
      const again = await postStatement(statement());
      expect(again.body).toMatchObject({ imported: 0, skipped: 2, transactions: [] });
    });

    it('"opening_balance + sum(transactions.amount) must equal closing_balance": 400 naming the difference, nothing written', async () => {
      const before = await app.seed.prisma.bankTransaction.count({ where: { clientAccountId: t.account.id } });
      const statements = await app.seed.prisma.bankStatement.count({ where: { clientAccountId: t.account.id } });
      const res = await postStatement(statement({ closing_balance: '1490.00', transactions: statement().transactions.map((x, i) => ({ ...x, entry_reference: `B-${i}` })) }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('difference -10.00');
      expect(await app.seed.prisma.bankTransaction.count({ where: { clientAccountId: t.account.id } })).toBe(before);
      expect(await app.seed.prisma.bankStatement.count({ where: { clientAccountId: t.account.id } })).toBe(statements);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a transaction on another bank account', { transactions: [{ amount: '500', currency_code: 'NOK', booking_date: '2026-04-02', payee_bank_account_id: 0 }] }, 'transactions.0.payee_bank_account_id'],
      ['a booking date outside the period', { transactions: [{ amount: '500', currency_code: 'NOK', booking_date: '2026-05-02' }] }, 'transactions.0.booking_date'],
      ['transactions missing', { transactions: undefined }, 'transactions'],
      ['a bank account of another client account', { bank_account_id: 0 }, 'bank_account_id'],
    ])('400: %s', async (_what, change, field) => {
      const body = statement({ closing_balance: '1500.00', ...change });
      if ((change.transactions as { payee_bank_account_id?: number }[] | undefined)?.[0]?.payee_bank_account_id === 0) (body.transactions as Record<string, unknown>[])[0].payee_bank_account_id = partnerAccount;
      if (change.bank_account_id === 0) body.bank_account_id = otherBank;
      const res = await postStatement(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toContain(field);
    });

    it('403 for another tenant\'s client account or a missing one', async () => {
      expect((await postStatement(statement({ client_account_id: other.account.id }))).status).toBe(403);
      expect((await postStatement(statement({ client_account_id: undefined }))).status).toBe(403);
    });
  });
});
