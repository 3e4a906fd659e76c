import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 31 (posting path): POST /journal-entries/ answers from the rows it just wrote instead of
// reading them back after the commit. The answer must be the one a read gives: every case below is
// compared, byte for byte, with GET /journal-entries/{id} (REST) and with the journalEntry query
// asking for the same fields (GraphQL), and the create reads none of it after its commit.
describe.each(targets())('a created journal entry answers as it reads back (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let partner: number;
  let project: number;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    await app.seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    partner = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } })).id;
    project = (await app.seed.prisma.project.create({ data: { clientAccountId: t.account.id, name: 'Messe', sequenceNumber: 1 } })).id;
  });
  afterAll(() => app?.close());

  const line = (account_code: string, debit: string | number, credit: string | number, extra: Record<string, unknown> = {}) => ({
    posting_date: '2026-03-15',
    account_code,
    debit,
    credit,
    ...extra,
  });

  const cases: [string, () => Record<string, unknown>][] = [
    ['a posted two-line entry', () => ({ description: 'Kontantsalg', lines: [line('1920', '100.00', 0), line('3000', 0, '100.00')] })],
    ['a draft without description', () => ({ is_draft: true, lines: [line('1920', '5', 0), line('3000', 0, '5')] })],
    ['VAT filled from the tax code, lines given out of order', () => ({
      lines: [line('2700', 0, '25.00', { line_id: 3 }), line('3000', 0, '100.00', { tax_code: '3', line_id: 2 }), line('1920', '125.00', 0, { line_id: 1 })],
    })],
    ['a foreign-currency line with an implied rate and a quantity', () => ({
      lines: [line('1940', '1150.00', 0, { currency_code: 'EUR', debit_fc: '100.00', quantity: '2.5' }), line('3000', 0, '1150.00', { description: 'Salg EUR' })],
    })],
    ['dimensions on a line', () => ({
      lines: [line('1500', '200.00', 0, { dimensions: [{ type: 'businesspartner', id: partner }, { type: 'project', id: project }] }), line('3000', 0, '200.00')],
    })],
    ['an opening balance', () => ({ is_opening_balance: true, lines: [line('1920', '1000.00', 0, { posting_date: '2020-01-01' }), line('2050', 0, '1000.00', { posting_date: '2020-01-01' })] })],
  ];

  it.each(cases)('REST: %s', async (_name, body) => {
    const res = await app.http('POST', '/api/v2/journal-entries/', { token: t.user.token, body: { client_account_id: t.account.id, ...body() } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = await app.http('GET', `/api/v2/journal-entries/${res.body.id}`, { token: t.user.token });
    expect(read.status).toBe(200);
    // GET /journal-entries/{id} embeds each line's account (spec 001's single-entry shape); the create's answer never did
    for (const l of read.body.lines) delete l.account;
    expect(JSON.stringify(res.body)).toBe(JSON.stringify(read.body));
  });

  it('GraphQL: createJournalEntry answers what journalEntry reads, and reads nothing after its commit', async () => {
    const fields = `id sequenceNumber entryHash isDraft createdAt updatedAt postedAt postedById createdById lines { id lineId accountCode taxCode debit credit debitFc exchangeRate currencyCode taxBaseAmount taxAmount quantity reconciledAmount dimensions { type id } }`;
    app.statements.length = 0;
    const created = await app.gql(t.user.token,
      `mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { ${fields} } }`,
      {
        input: {
          clientAccountId: t.account.id,
          lines: [
            { postingDate: '2026-04-01', accountCode: '1920', debit: '125.00', credit: '0' },
            { postingDate: '2026-04-01', accountCode: '3000', debit: '0', credit: '100.00', taxCode: '3', dimensions: [{ type: 'BUSINESS_PARTNER', id: partner }] },
            { postingDate: '2026-04-01', accountCode: '2700', debit: '0', credit: '25.00' },
          ],
        },
      },
    );
    expect(created.errors).toBeUndefined();
    const commit = app.statements.findIndex((s) => /COMMIT/i.test(s));
    expect(commit).toBeGreaterThan(0);
    // after the commit nothing of the entry is read again: not the entry, its lines, their accounts or tax codes
    expect(app.statements.slice(commit + 1).filter((s) => /journal_entr|"accounts"|tax_codes/.test(s))).toEqual([]);
    const entry = created.data!.createJournalEntry as { id: number };
    const read = await app.gql(t.user.token, `query($id: Int!) { journalEntry(id: $id) { ${fields} } }`, { id: entry.id });
    expect(JSON.stringify(read.data!.journalEntry)).toBe(JSON.stringify(entry));
  });

  it('a selection it cannot build (the entry with its creator) is read back as before', async () => {
    const res = await app.http('POST', '/api/v2/journal-entries/?with=created_by', {
      token: t.user.token,
      body: { client_account_id: t.account.id, lines: [line('1920', '7.00', 0), line('3000', 0, '7.00')] },
    });
    expect(res.status).toBe(201);
    const read = await app.http('GET', `/api/v2/journal-entries/${res.body.id}?with=created_by`, { token: t.user.token });
    expect(JSON.stringify(res.body)).toBe(JSON.stringify(read.body));
  });
});
