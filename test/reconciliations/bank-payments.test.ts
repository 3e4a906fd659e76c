import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '@prisma/client/runtime/client';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { inTransaction } from '../../src/shared/context.ts';
import { reconcileInTx } from '../../src/modules/reconciliations/reconciliations.service.ts';

// Reconciliations about bank transactions (issue: "Booking payments" and "Automatic matching"):
// a proposal on an unbooked bank transaction lists the open items it settles; committing it books
// the payment and reconciles it with them in one transaction. bookBankTransaction can reconcile the
// payment with open items at once.
describe.each(targets())('reconciling bank payments (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let bank: number;
  let customer: number;
  let other: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    bank = (await app.seed.prisma.bankAccount.create({ data: { clientAccountId: t.account.id, accountNumber: '15032012342', ledgerAccountId: await t.ledgerAccount('1920') } })).id;
    customer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } })).id;
    other = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Annen AS', isCustomer: true } })).id;
  });
  afterAll(() => app?.close());

  async function invoice(amount: string, partner = customer) {
    const res = await app.http('POST', '/api/v2/journal-entries/', {
      token: t.user.token,
      body: {
        client_account_id: t.account.id,
        lines: [
          { posting_date: '2026-03-01', account_code: '1500', debit: amount, credit: 0, dimensions: [{ type: 'businesspartner', id: partner }] },
          { posting_date: '2026-03-01', account_code: '3000', debit: 0, credit: amount },
        ],
      },
    });
    expect(res.status).toBe(201);
    return res.body.lines[0] as { id: number; journal_entry_id: number };
  }
  async function incoming(amount: string) {
    const res = await app.http('POST', '/api/v2/bank-transactions', {
      token: t.user.token,
      body: { client_account_id: t.account.id, amount, currency_code: 'NOK', booking_date: '2026-03-20', payee_bank_account_id: bank, payor_name: 'Kunde AS' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  }
  /** A proposal as the matcher writes it. */
  const propose = (bankTransactionId: number, lines: { id: number; amount?: string }[]) =>
    inTransaction(app.seed.contextOf(t.user), (tx) =>
      reconcileInTx(
        tx,
        { clientAccountId: t.account.id, date: new Date('2026-03-20'), entryLines: lines.map((l) => ({ journalEntryLineId: l.id, ...(l.amount ? { debit: new Decimal(l.amount) } : {}) })) },
        { isDraft: true, matchRule: 'AMOUNT', bankTransactionId },
      ),
    );
  const line = (id: number) => app.seed.prisma.journalEntryLine.findUniqueOrThrow({ where: { id } });
  const transaction = (id: number) => app.seed.prisma.bankTransaction.findUniqueOrThrow({ where: { id } });

  it('a proposal on an unbooked transaction lists the items it settles; committing books the payment and reconciles it with them', async () => {
    const a = await invoice('700.00');
    const b = await invoice('550.00');
    const tx = await incoming('1250.00');
    const id = await propose(tx, [{ id: a.id }, { id: b.id }]);
    const draft = await app.http('GET', `/api/v2/reconciliations?client_account_id=${t.account.id}&is_draft=true&journal_entry_line_id=${a.id}&with=entries`, { token: t.user.token });
    expect(draft.body.data).toEqual([expect.objectContaining({ id, is_draft: true, sequence_number: null, entries: [expect.objectContaining({ debit: '700.00' }), expect.objectContaining({ debit: '550.00' })] })]);
    expect((await transaction(tx)).externalReconciledAmount.toFixed(2)).toBe('0.00');

    const res = await app.http('PATCH', `/api/v2/reconciliations/${id}`, { token: t.user.token, body: { is_draft: false } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.entries).toHaveLength(3);
    expect(res.body.entries[2]).toMatchObject({ credit: '1250.00' });
    expect((await transaction(tx)).externalReconciledAmount.toFixed(2)).toBe('1250.00');
    expect((await line(a.id)).reconciledAmount.toFixed(2)).toBe('700.00');
    expect((await line(b.id)).reconciledAmount.toFixed(2)).toBe('550.00');
    const payment = await app.http('GET', `/api/v2/journal-entries/${res.body.entries[2].journal_entry_id}`, { token: t.user.token });
    expect(payment.body).toMatchObject({ relation_type: 'bank_transaction', relation_id: tx, is_draft: false });
    expect(payment.body.lines.map((l: any) => [l.account_code, l.debit, l.credit])).toEqual([
      ['1920', '1250.00', '0.00'],
      ['1500', '0.00', '1250.00'],
    ]);
    // the transaction's posted payment and reconciled documents are visible on the bank side
    const bt = await app.http('GET', `/api/v2/bank-transactions/${tx}?with=posted_payments`, { token: t.user.token });
    expect(bt.body.external_reconciled_amount).toBe('1250.00');
    expect(bt.body.posted_payments).toHaveLength(1);
  });

  it('a proposal must settle exactly what is unbooked of the transaction, on one account with one partner (400)', async () => {
    const a = await invoice('300.00');
    const c = await invoice('200.00', other);
    const tx = await incoming('400.00');
    await expect(propose(tx, [{ id: a.id }])).rejects.toThrow(/the entries settle 300\.00 NOK, but 400\.00 NOK of bank transaction \d+ is unbooked/);
    await expect(propose(tx, [{ id: a.id }, { id: c.id }])).rejects.toThrow(/must be on one account with one business partner/);
  });

  it('"a cited line was … reconciled elsewhere": the transaction booked meanwhile makes the proposal stale: 409 and deleted', async () => {
    const a = await invoice('120.00');
    const tx = await incoming('120.00');
    const id = await propose(tx, [{ id: a.id }]);
    const booked = await app.gql(t.user.token, `mutation($input: BookBankTransactionInput!) { bookBankTransaction(input: $input) { id } }`, {
      input: { bankTransactionId: tx, counterAccountCode: '1500', businessPartnerId: customer },
    });
    expect(booked.errors).toBeUndefined();
    const res = await app.http('PATCH', `/api/v2/reconciliations/${id}`, { token: t.user.token, body: { is_draft: false } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/stale and was deleted/);
    expect(await app.seed.prisma.reconciliation.findUnique({ where: { id } })).toBeNull();
    expect((await transaction(tx)).externalReconciledAmount.toFixed(2)).toBe('120.00');
  });

  it('bookBankTransaction with reconcileWithLineIds books and reconciles in one transaction: the payment spread over the items in order', async () => {
    const a = await invoice('400.00');
    const b = await invoice('400.00');
    const tx = await incoming('600.00');
    const res = await app.gql(t.user.token, `mutation($input: BookBankTransactionInput!) { bookBankTransaction(input: $input) { id externalReconciledAmount } }`, {
      input: { bankTransactionId: tx, counterAccountCode: '1500', businessPartnerId: customer, reconcileWithLineIds: [a.id, b.id] },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.bookBankTransaction.externalReconciledAmount).toBe('600.00');
    expect((await line(a.id)).reconciledAmount.toFixed(2)).toBe('400.00');
    expect((await line(b.id)).reconciledAmount.toFixed(2)).toBe('200.00');
  });

  it('cancelling a booked payment releases it from the transaction’s external_reconciled_amount', async () => {
    const tx = await incoming('310.00');
    const booked = await app.gql(t.user.token, `mutation($input: BookBankTransactionInput!) { bookBankTransaction(input: $input) { postedPayments { id } } }`, {
      input: { bankTransactionId: tx, counterAccountCode: '1500', businessPartnerId: customer, amount: '110.00' },
    });
    expect(booked.errors).toBeUndefined();
    expect((await transaction(tx)).externalReconciledAmount.toFixed(2)).toBe('110.00');
    const entryId = booked.data.bookBankTransaction.postedPayments[0].id;
    const res = await app.http('PATCH', `/api/v2/journal-entries/${entryId}`, { token: t.user.token, body: { cancelled: 'Y', cancellation_reason: 'booked on the wrong customer' } });
    expect(res.status).toBe(200);
    expect((await transaction(tx)).externalReconciledAmount.toFixed(2)).toBe('0.00');
    // and it can be booked again, in full
    const again = await app.gql(t.user.token, `mutation($input: BookBankTransactionInput!) { bookBankTransaction(input: $input) { externalReconciledAmount } }`, {
      input: { bankTransactionId: tx, counterAccountCode: '1500', businessPartnerId: other },
    });
    expect(again.data.bookBankTransaction.externalReconciledAmount).toBe('310.00');
  });

  it('bookBankTransaction with an item that cannot be reconciled writes nothing (no payment booked either)', async () => {
    const a = await invoice('50.00');
    const cancelled = await app.http('PATCH', `/api/v2/journal-entries/${a.journal_entry_id}`, { token: t.user.token, body: { cancelled: 'Y', cancellation_reason: 'wrong' } });
    expect(cancelled.status).toBe(200);
    const tx = await incoming('50.00');
    const res = await app.gql(t.user.token, `mutation($input: BookBankTransactionInput!) { bookBankTransaction(input: $input) { id } }`, {
      input: { bankTransactionId: tx, counterAccountCode: '1500', businessPartnerId: customer, reconcileWithLineIds: [a.id] },
    });
    expect(res.errors?.[0].message).toMatch(/a cancelled line cannot be reconciled/);
    expect((await transaction(tx)).externalReconciledAmount.toFixed(2)).toBe('0.00');
    expect(await app.seed.prisma.journalEntry.count({ where: { relationType: 'bank_transaction', relationId: tx } })).toBe(0);
  });
});
