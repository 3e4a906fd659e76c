import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { seedDemo } from '../../src/admin/seed-demo.ts';
import { createJournalEntry } from '../../src/modules/journal-entries/journal-entries.service.ts';
import { osloToday } from '../../src/modules/journal-entries/journal-entries.rules.ts';
import { verifyLedger } from '../../src/modules/journal-entries/ledger-chain.ts';
import { systemContext } from '../../src/shared/context.ts';
import { openTestDatabase, targets } from '../support/harness.ts';

// The demo company's books, checked with SQL on the ledger. PGlite only: the demo has fixed names
// (its firm, company and login), and on the PostgreSQL database a run shares the admin CLI's test
// seeds the same demo concurrently; here the file has its own clone of the template. (In the run
// that has PGlite: CI runs one suite per database.)
describe.runIf(targets().includes('pglite'))('the demo company: the previous year closed and locked, this year to date', () => {
  let db: Database;
  let company: number;
  const today = osloToday();
  const prev = today.getUTCFullYear() - 1;
  const sql = <T = Record<string, unknown>>(query: string, ...params: unknown[]) => db.prisma.$queryRawUnsafe<T[]>(query, ...params);
  /** posted lines of the demo company with their entry and account */
  const POSTED = `FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id JOIN accounts a ON a.id = l.account_id
                  WHERE l.client_account_id = $1 AND NOT e.is_draft`;

  beforeAll(async () => {
    db = await openTestDatabase('pglite');
    const demo = await seedDemo(db.prisma);
    expect(demo.created).toBe(true);
    company = demo.company.id;
  }, 180_000);
  afterAll(() => db?.close());

  it('every entry balances (debits equal credits), drafts included', async () => {
    const unbalanced = await sql(
      `SELECT e.id, SUM(l.debit)::text AS debit, SUM(l.credit)::text AS credit FROM journal_entries e JOIN journal_entry_lines l ON l.journal_entry_id = e.id
        WHERE e.client_account_id = $1 GROUP BY e.id HAVING SUM(l.debit) <> SUM(l.credit)`,
      company,
    );
    expect(unbalanced).toEqual([]);
    const [{ entries }] = await sql<{ entries: number }>('SELECT COUNT(*)::int AS entries FROM journal_entries WHERE client_account_id = $1 AND NOT is_draft', company);
    expect(entries).toBeGreaterThan(300);
  });

  it('the previous year has posted entries in all 12 months', async () => {
    const months = await sql<{ m: number }>(
      `SELECT DISTINCT extract(month FROM l.posting_date)::int AS m ${POSTED} AND e.cancelled IS NULL AND extract(year FROM l.posting_date) = $2 ORDER BY 1`,
      company,
      prev,
    );
    expect(months.map((r) => r.m)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('the lock date is 31 December of the previous year, and a posting into that year is refused', async () => {
    const [{ lock }] = await sql<{ lock: string }>('SELECT lock_date::text AS lock FROM client_accounts WHERE id = $1', company);
    expect(lock).toBe(`${prev}-12-31`);
    const late = new Date(Date.UTC(prev, 11, 31));
    await expect(
      createJournalEntry(systemContext(db.prisma), {
        input: { clientAccountId: company, lines: [
          { postingDate: late, accountCode: '6800', debit: '100.00', credit: '0' },
          { postingDate: late, accountCode: '1920', debit: '0', credit: '100.00' },
        ] },
      }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/locked period/) });
  });

  it('assets = equity + liabilities + the period result on every date: the posted lines up to each date sum to zero', async () => {
    const off = await sql(
      `WITH days AS (SELECT l.posting_date AS d, SUM(l.debit - l.credit) AS net ${POSTED} GROUP BY 1)
       SELECT d::text, SUM(net) OVER (ORDER BY d)::text AS running FROM days ORDER BY d`,
      company,
    );
    expect(off.length).toBeGreaterThan(200);
    expect(off.filter((r) => r.running !== '0.00')).toEqual([]);
    // and at today: class 1 (assets) = −(class 2 + classes 3–8), with equity positive
    const [b] = await sql<{ assets: string; liabilities_equity: string; result: string; equity: string }>(
      `SELECT SUM(l.debit - l.credit) FILTER (WHERE a.code < '2')::text AS assets,
              SUM(l.credit - l.debit) FILTER (WHERE a.code >= '2' AND a.code < '3')::text AS liabilities_equity,
              SUM(l.credit - l.debit) FILTER (WHERE a.code >= '3')::text AS result,
              SUM(l.credit - l.debit) FILTER (WHERE a.code >= '2' AND a.code < '21')::text AS equity ${POSTED}`,
      company,
    );
    expect(Number(b.assets)).toBeCloseTo(Number(b.liabilities_equity) + Number(b.result), 2);
    expect(Number(b.equity)).toBeGreaterThan(30_000);
  });

  it('the previous year was profitable, with a coffee shop\'s turnover, and its result is transferred: classes 3–8 net to zero', async () => {
    const [y] = await sql<{ turnover: string; result: string; transferred: string; closed: string }>(
      `SELECT SUM(l.credit - l.debit) FILTER (WHERE a.code LIKE '3%')::text AS turnover,
              SUM(l.credit - l.debit) FILTER (WHERE a.code >= '3' AND a.code <> '8960')::text AS result,
              SUM(l.debit - l.credit) FILTER (WHERE a.code = '8960')::text AS transferred,
              SUM(l.credit - l.debit) FILTER (WHERE a.code >= '3')::text AS closed
         ${POSTED} AND l.posting_date BETWEEN $2::date AND $3::date`,
      company,
      `${prev}-01-01`,
      `${prev}-12-31`,
    );
    expect(Number(y.turnover)).toBeGreaterThan(3_000_000);
    expect(Number(y.turnover)).toBeLessThan(4_000_000);
    expect(Number(y.result)).toBeGreaterThan(0);
    expect(y.transferred).toBe(y.result);
    expect(y.closed).toBe('0.00');
    const [equity] = await sql<{ credit: string }>(
      `SELECT l.credit::text FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id JOIN accounts a ON a.id = l.account_id
        WHERE l.client_account_id = $1 AND a.code = '2050' AND l.posting_date = $2::date`,
      company,
      `${prev}-12-31`,
    );
    expect(equity.credit).toBe(y.result);
  });

  it('receivables (1500) and payables (2400) have open items, each with its business partner; most items are reconciled', async () => {
    const rows = await sql<{ code: string; open: number; reconciled: number; without_partner: number }>(
      `SELECT a.code, COUNT(*) FILTER (WHERE l.debit + l.credit > l.reconciled_amount)::int AS open,
              COUNT(*) FILTER (WHERE l.debit + l.credit = l.reconciled_amount)::int AS reconciled,
              COUNT(*) FILTER (WHERE l.business_partner_id IS NULL)::int AS without_partner
         ${POSTED} AND e.cancelled IS NULL AND a.code IN ('1500', '2400') GROUP BY a.code ORDER BY a.code`,
      company,
    );
    expect(rows).toEqual([
      { code: '1500', open: expect.any(Number), reconciled: expect.any(Number), without_partner: 0 },
      { code: '2400', open: expect.any(Number), reconciled: expect.any(Number), without_partner: 0 },
    ]);
    for (const r of rows) {
      expect(r.open).toBeGreaterThan(0);
      expect(r.reconciled).toBeGreaterThan(r.open * 3);
    }
  });

  it('sales invoices carry their document (relation_type document), VAT codes 3 and 31 on 3000 and 3030, and departments and projects', async () => {
    const [r] = await sql<{ invoices: number; documented: number; code3: number; code31: number; departments: number; projects: number }>(
      `SELECT COUNT(DISTINCT e.id) FILTER (WHERE a.code = '1500' AND e.description LIKE 'Faktura %')::int AS invoices,
              COUNT(DISTINCT e.id) FILTER (WHERE a.code = '1500' AND e.description LIKE 'Faktura %' AND e.relation_type = 'document'
                                           AND EXISTS (SELECT 1 FROM documents d WHERE d.id = e.relation_id AND d.document_type = 'ARINV'))::int AS documented,
              COUNT(*) FILTER (WHERE a.code = '3000' AND t.code = '3')::int AS code3,
              COUNT(*) FILTER (WHERE a.code = '3030' AND t.code = '31')::int AS code31,
              COUNT(DISTINCT l.department_id)::int AS departments,
              COUNT(DISTINCT l.project_id)::int AS projects
         FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id JOIN accounts a ON a.id = l.account_id
         LEFT JOIN tax_codes t ON t.id = l.tax_code_id
        WHERE l.client_account_id = $1 AND NOT e.is_draft`,
      company,
    );
    expect(r.invoices).toBeGreaterThan(50);
    expect(r.documented).toBe(r.invoices);
    expect(r.code3).toBeGreaterThan(20);
    expect(r.code31).toBeGreaterThan(20);
    expect(r.departments).toBeGreaterThanOrEqual(4);
    expect(r.projects).toBe(2);
    const [{ untaxed }] = await sql<{ untaxed: number }>(`SELECT COUNT(*)::int AS untaxed ${POSTED} AND e.cancelled IS NULL AND a.code IN ('3000', '3030') AND l.tax_code_id IS NULL`, company);
    expect(untaxed).toBe(0);
  });

  it('the ledger chain verifies', async () => {
    const v = await verifyLedger(db.prisma, company);
    expect(v).toMatchObject({ ok: true, brokenCount: 0 });
  });
});
