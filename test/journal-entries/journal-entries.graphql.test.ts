import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001 "Journal entry" over GraphQL, plus what a frontend needs that REST lacks (issue: post a
// draft, an account's balance, an entry's lines with their accounts in one query).
describe.each(targets())('journal entries GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  const ENTRY = `id sequenceNumber isDraft cancelled postedAt postedBy { id fullName } lines { lineId accountCode debit credit dimensions { type id name } account { code name mandatoryDimensions } }`;
  const lines = (amount: string, date = '2026-04-10') => [
    { postingDate: date, accountCode: '6300', debit: amount, credit: '0' },
    { postingDate: date, accountCode: '1920', debit: '0', credit: amount },
  ];
  const create = (input: Record<string, unknown>, token = t.user.token) =>
    app.gql(token, `mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { ${ENTRY} } }`, { input: { clientAccountId: t.account.id, ...input } });

  it('"post a draft": postJournalEntry gives a draft the next sequence number and posted_at', async () => {
    const draft = await create({ isDraft: true, lines: lines('1000.00') });
    expect(draft.errors).toBeUndefined();
    expect(draft.data.createJournalEntry).toMatchObject({ isDraft: true, sequenceNumber: null, postedAt: null });
    const posted = await app.gql(t.user.token, `mutation($id: Int!) { postJournalEntry(id: $id) { ${ENTRY} } }`, { id: draft.data.createJournalEntry.id });
    expect(posted.errors).toBeUndefined();
    expect(posted.data.postJournalEntry).toMatchObject({ isDraft: false, sequenceNumber: expect.any(Number), postedBy: { id: t.user.id, fullName: 'Test User' } });
    const again = await app.gql(t.user.token, `mutation($id: Int!) { postJournalEntry(id: $id) { id } }`, { id: draft.data.createJournalEntry.id });
    expect(errorCode(again)).toBe('common.validation_error');
  });

  it('"an entry\'s lines with their accounts in one query"', async () => {
    const e = await create({ lines: lines('10.00') });
    const res = await app.gql(t.user.token, `query($id: Int!) { journalEntry(id: $id) { ${ENTRY} } }`, { id: e.data.createJournalEntry.id });
    expect(res.data.journalEntry.lines).toEqual([
      { lineId: 1, accountCode: '6300', debit: '10.00', credit: '0.00', dimensions: [], account: { code: '6300', name: expect.any(String), mandatoryDimensions: [] } },
      { lineId: 2, accountCode: '1920', debit: '0.00', credit: '10.00', dimensions: [], account: { code: '1920', name: 'Bankinnskudd', mandatoryDimensions: [] } },
    ]);
  });

  it('"an account\'s balance": accountBalance sums posted lines (drafts on request), in a date range', async () => {
    const tenant = await app.seed.tenant();
    const mk = (input: Record<string, unknown>) =>
      app.gql(tenant.user.token, `mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { id } }`, { input: { clientAccountId: tenant.account.id, ...input } });
    await mk({ lines: lines('100.10', '2026-01-05') });
    await mk({ lines: lines('0.20', '2026-02-05') });
    await mk({ isDraft: true, lines: lines('5.00', '2026-02-06') });
    const q = (args: string) => app.gql(tenant.user.token, `{ accountBalance(clientAccountId: ${tenant.account.id}, accountCode: "1920"${args}) { accountCode debit credit balance } }`);
    expect((await q('')).data.accountBalance).toEqual({ accountCode: '1920', debit: '0.00', credit: '100.30', balance: '-100.30' });
    expect((await q(', dateFrom: "2026-02-01"')).data.accountBalance.balance).toBe('-0.20');
    expect((await q(', includeDrafts: true')).data.accountBalance.balance).toBe('-105.30');
    const foreign = await app.gql(t.user.token, `{ accountBalance(clientAccountId: ${tenant.account.id}, accountCode: "1920") { balance } }`);
    expect(errorCode(foreign)).toBe('common.forbidden');
  });

  it('"a typed companion beside the spec\'s string": cancelled \'Y\'/\'C\' is isCancelled/isCancellation', async () => {
    const e = await create({ lines: lines('20.00') });
    const FLAGS = 'id cancelled isCancelled isCancellation cancellationEntryId';
    const c = await app.gql(t.user.token, `mutation($id: Int!) { cancelJournalEntry(id: $id, cancelled: "Y", cancellationReason: "wrong") { ${FLAGS} } }`, { id: e.data.createJournalEntry.id });
    expect(c.errors).toBeUndefined();
    expect(c.data.cancelJournalEntry).toMatchObject({ cancelled: 'Y', isCancelled: true, isCancellation: false });
    const reversal = await app.gql(t.user.token, `query($id: Int!) { journalEntry(id: $id) { ${FLAGS} } }`, { id: c.data.cancelJournalEntry.cancellationEntryId });
    expect(reversal.data.journalEntry).toMatchObject({ cancelled: 'C', isCancelled: false, isCancellation: true });
    const plain = await app.gql(t.user.token, `query($id: Int!) { journalEntry(id: $id) { ${FLAGS} } }`, { id: (await create({ lines: lines('1.00') })).data.createJournalEntry.id });
    expect(plain.data.journalEntry).toMatchObject({ cancelled: null, isCancelled: false, isCancellation: false });
  });

  it('cancelJournalEntry on a draft removes it (null); deleteJournalEntry answers true', async () => {
    const d1 = await create({ isDraft: true, lines: lines('1.00') });
    const c = await app.gql(t.user.token, `mutation($id: Int!) { cancelJournalEntry(id: $id, cancelled: "Y") { id } }`, { id: d1.data.createJournalEntry.id });
    expect(c).toEqual({ data: { cancelJournalEntry: null } });
    const d2 = await create({ isDraft: true, lines: lines('1.00') });
    const d = await app.gql(t.user.token, `mutation($id: Int!) { deleteJournalEntry(id: $id) }`, { id: d2.data.createJournalEntry.id });
    expect(d).toEqual({ data: { deleteJournalEntry: true } });
  });

  it('a read-only token cannot post (insufficient scope)', async () => {
    const res = await create({ lines: lines('1.00') }, t.user.readToken);
    expect(res.errors?.[0]?.extensions?.code).toBe('insufficient_scope');
  });

  describe('"Changing the lock date is a GraphQL mutation for managers"', () => {
    const setLock = (token: string, id: number, lockDate: string | null) =>
      app.gql(token, `mutation($id: Int!, $input: UpdateClientAccountInput!) { updateClientAccount(id: $id, input: $input) { lockDate } }`, { id, input: { lockDate } });

    it('a CA moves it, and a posting on or before it is refused', async () => {
      const tenant = await app.seed.tenant();
      expect((await setLock(tenant.user.token, tenant.account.id, '2026-03-31')).data.updateClientAccount).toEqual({ lockDate: '2026-03-31' });
      const res = await app.gql(tenant.user.token, `mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { id } }`, {
        input: { clientAccountId: tenant.account.id, lines: lines('1.00', '2026-03-31') },
      });
      expect(errorCode(res)).toBe('common.validation_error');
      expect(res.errors![0].message).toContain('2026-03-31 is in a locked period');
    });

    it('an employee (EM) may not move it (403)', async () => {
      const tenant = await app.seed.tenant();
      const em = await app.seed.user();
      await app.seed.grantRole({ userId: em.id, clientAccountId: tenant.account.id, role: 'EM' });
      expect(errorCode(await setLock(em.token, tenant.account.id, '2026-03-31'))).toBe('common.forbidden');
    });
  });
});
