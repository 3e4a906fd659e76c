import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { seedReportFixture, type ReportFixture } from './fixture.ts';

// The reports as typed GraphQL fields (issue: "GraphQL for every report (typed rows), so a frontend
// can draw them"): the same figures as REST, every amount the Decimal string scalar (the balance
// sheet's balance too: only its REST route shows a number), the months also as a list.
describe.each(targets())('reports GraphQL (%s)', (target) => {
  let app: TestApp;
  let f: ReportFixture;

  beforeAll(async () => {
    app = await startTestApp(target);
    f = await seedReportFixture(app);
  });
  afterAll(() => app?.close());

  it('spec 000 "Decimal amounts are returned as strings": trialBalance, balanceSheet and incomeStatement answer typed rows with the fixture’s figures as Decimal strings', async () => {
    const res = await app.gql(
      f.t.user.token,
      `query($ca: Int!) {
        trialBalance(clientAccountId: $ca, dateFrom: "2026-01-01", dateTo: "2026-03-31", accountCodes: ["1920"]) {
          accountCode accountName incomingBalance debit credit outgoingBalance grouping { level1Name level2Name level3Code }
        }
        balanceSheet(clientAccountId: $ca, reportDate: "2026-03-31") { accountCode balance }
        incomeStatement(clientAccountId: $ca, dateFrom: "2026-01-01", dateTo: "2026-03-31", groupByDimension: PROJECT) {
          accountCode relationType relationId relationName monthlyDebitMovements periodDebitMovements
        }
      }`,
      { ca: f.t.account.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.trialBalance).toEqual([
      { accountCode: '1920', accountName: expect.any(String), incomingBalance: '100000.00', debit: '12500.00', credit: '15899.00', outgoingBalance: '96601.00', grouping: { level1Name: 'Eiendeler', level2Name: 'Omløpsmidler', level3Code: '19' } },
    ]);
    expect(res.data.balanceSheet.find((r: { accountCode: string }) => r.accountCode === '1920').balance).toBe('96601.00');
    const sum = res.data.balanceSheet.reduce((s: bigint, r: { balance: string }) => s + BigInt(r.balance.replace('.', '')), 0n);
    expect(sum).toBe(0n);
    const sales = res.data.incomeStatement.find((r: { accountCode: string }) => r.accountCode === '3000');
    expect(sales).toMatchObject({ relationType: 'PROJECT', relationId: f.project, relationName: 'Baristakurs' });
    expect(sales.monthlyDebitMovements).toEqual(['-10000.00', ...Array(11).fill('0.00')]);
    expect(sales.periodDebitMovements['1']).toBe('-10000.00');
    expect(sales.periodDebitMovements['12']).toBe('0.00');
  });

  it('generalLedger pages with meta; accountsReceivable filters by business partner', async () => {
    const res = await app.gql(
      f.t.user.token,
      `query($ca: Int!, $bp: Int) {
        generalLedger(clientAccountId: $ca, dateFrom: "2026-01-01", dateTo: "2026-03-31", perPage: 2, page: 2) {
          nodes { accountCode debit journalEntry { sequenceNumber createdBy { fullName } } grouping { level1Code incomingBalance movement outgoingBalance } }
          meta { page perPage records pages }
        }
        accountsReceivable(clientAccountId: $ca, businessPartnerId: $bp, dateFrom: "2026-01-01", dateTo: "2026-03-31") { meta { records } }
      }`,
      { ca: f.t.account.id, bp: f.customer },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.generalLedger.meta).toEqual({ page: 2, perPage: 2, records: 12, pages: 6 });
    expect(res.data.generalLedger.nodes).toHaveLength(2);
    // page 2 starts at 1920 (1500's two lines are page 1): 100000.00 from 2025, +12500.00 −15000.00 −899.00 in the period
    expect(res.data.generalLedger.nodes[0].grouping).toEqual({ level1Code: '1920', incomingBalance: '100000.00', movement: '-3399.00', outgoingBalance: '96601.00' });
    expect(res.data.accountsReceivable.meta.records).toBe(2);
  });

  it('another client account’s report is common.forbidden; a bad dimension is common.validation_error', async () => {
    const other = await app.seed.tenant();
    const forbidden = await app.gql(other.user.token, `query($ca: Int!) { balanceSheet(clientAccountId: $ca) { balance } }`, { ca: f.t.account.id });
    expect(errorCode(forbidden)).toBe('common.forbidden');
    const bad = await app.gql(f.t.user.token, `query($ca: Int!) { balanceSheet(clientAccountId: $ca, dimensions: ["planet:1"]) { balance } }`, { ca: f.t.account.id });
    expect(errorCode(bad)).toBe('common.validation_error');
  });
});
