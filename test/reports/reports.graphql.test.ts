import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { seedReportFixture, type ReportFixture } from './fixture.ts';

// The reports as typed GraphQL fields (issue: "GraphQL for every report (typed rows), so a frontend
// can draw them"): the same figures as REST, amounts as numbers, the months also as a list.
describe.each(targets())('reports GraphQL (%s)', (target) => {
  let app: TestApp;
  let f: ReportFixture;

  beforeAll(async () => {
    app = await startTestApp(target);
    f = await seedReportFixture(app);
  });
  afterAll(() => app?.close());

  it('trialBalance, balanceSheet and incomeStatement answer typed rows with the fixture’s figures', async () => {
    const res = await app.gql(
      f.t.user.token,
      `query($ca: Int!) {
        trialBalance(clientAccountId: $ca, dateFrom: "2026-01-01", dateTo: "2026-03-31", accountCodes: ["1920"]) {
          accountCode accountName incomingBalance debit credit outgoingBalance grouping { level1Name level2Name level3Code }
        }
        balanceSheet(clientAccountId: $ca, reportDate: "2026-03-31") { accountCode balance }
        incomeStatement(clientAccountId: $ca, dateFrom: "2026-01-01", dateTo: "2026-03-31", groupByDimension: project) {
          accountCode relationType relationId relationName monthlyDebitMovements periodDebitMovements
        }
      }`,
      { ca: f.t.account.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.trialBalance).toEqual([
      { accountCode: '1920', accountName: expect.any(String), incomingBalance: 100000, debit: 12500, credit: 15899, outgoingBalance: 96601, grouping: { level1Name: 'Eiendeler', level2Name: 'Omløpsmidler', level3Code: '19' } },
    ]);
    const sum = res.data.balanceSheet.reduce((s: number, r: { balance: number }) => s + Math.round(r.balance * 100), 0);
    expect(sum).toBe(0);
    const sales = res.data.incomeStatement.find((r: { accountCode: string }) => r.accountCode === '3000');
    expect(sales).toMatchObject({ relationType: 'project', relationId: f.project, relationName: 'Baristakurs' });
    expect(sales.monthlyDebitMovements).toEqual([-10000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(sales.periodDebitMovements['1']).toBe(-10000);
  });

  it('generalLedger pages with meta; accountsReceivable filters by business partner', async () => {
    const res = await app.gql(
      f.t.user.token,
      `query($ca: Int!, $bp: Int) {
        generalLedger(clientAccountId: $ca, dateFrom: "2026-01-01", dateTo: "2026-03-31", perPage: 2, page: 2) {
          nodes { accountCode debit journalEntry { sequenceNumber createdBy { fullName } } grouping { level1Code movement } }
          meta { page perPage records pages }
        }
        accountsReceivable(clientAccountId: $ca, businessPartnerId: $bp, dateFrom: "2026-01-01", dateTo: "2026-03-31") { meta { records } }
      }`,
      { ca: f.t.account.id, bp: f.customer },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.generalLedger.meta).toEqual({ page: 2, perPage: 2, records: 12, pages: 6 });
    expect(res.data.generalLedger.nodes).toHaveLength(2);
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
