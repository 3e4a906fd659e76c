import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { seedDemo } from '../../src/admin/seed-demo.ts';
import { createJournalEntry } from '../../src/modules/journal-entries/journal-entries.service.ts';
import { osloToday } from '../../src/modules/journal-entries/journal-entries.rules.ts';
import { verifyLedger } from '../../src/modules/journal-entries/ledger-chain.ts';
import { systemContext } from '../../src/shared/context.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { checkSaft } from '../../src/modules/reports/saft/saft.checks.ts';
import { BALANCE_SECTIONS, nok, sectionSum } from '../../src/modules/yearly-accounts/yearly-accounts.rules.ts';
import { Decimal } from '../../src/shared/scalars.ts';
import { openTestDatabase, startTestApp, targets, type TestApp } from '../support/harness.ts';

// The demo company's books, checked with SQL on the ledger. PGlite only: the demo has fixed names
// (its firm, company and login), and on the PostgreSQL database a run shares the admin CLI's test
// seeds the same demo concurrently; here the file has its own clone of the template. (In the run
// that has PGlite: CI runs one suite per database.)
describe.runIf(targets().includes('pglite'))('the demo company: the previous year closed and locked, this year to date', () => {
  let db: Database;
  let company: number;
  let userId: number;
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
    userId = demo.user.id;
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

  // Issue 28: the demo's 'Inngående balanse' is the opening balance of the previous year, and the
  // year's books are checked as an accountant reads them, over the API (REST, as a client would).
  describe('the previous year as an accountant reads it: the opening balance is its incoming balance, not its movement', () => {
    let app: TestApp;
    let token: string;
    const scratch = mkdtempSync(join(tmpdir(), 'demo-year-'));
    /** the opening balance's lines: debit − credit per account code */
    let opening: Map<string, Decimal>;
    let openingId: number;
    const api = (path: string, accept?: string) => app.http('GET', `/api/v2${path}`, { token, headers: accept ? { accept } : undefined });
    const year = `date_from=${prev}-01-01&date_to=${prev}-12-31`;

    beforeAll(async () => {
      app = await startTestApp('pglite', { database: db });
      token = await app.seed.token(userId, 'read write');
      const entries = await api(`/journal-entries?client_account_id=${company}&date_from=${prev}-01-01&date_to=${prev}-01-01`);
      const flagged = entries.body.data.filter((e: { is_opening_balance: boolean }) => e.is_opening_balance);
      expect(flagged.map((e: { description: string }) => e.description)).toEqual(['Inngående balanse']);
      openingId = flagged[0].id;
      opening = new Map();
      for (const l of flagged[0].lines as { account_code: string; debit: string; credit: string }[]) {
        opening.set(l.account_code, (opening.get(l.account_code) ?? new Decimal(0)).plus(l.debit).minus(l.credit));
      }
    }, 60_000);
    afterAll(async () => {
      rmSync(scratch, { recursive: true, force: true });
      await app?.close();
    });

    it('the trial balance of the year: every account’s incoming_balance is its opening balance, and its debit and credit leave the opening balance out', async () => {
      const res = await api(`/reports/trial-balance?client_account_id=${company}&${year}`);
      expect(res.status).toBe(200);
      const rows = res.body as { account_code: string; incoming_balance: string; debit: string; credit: string }[];
      for (const r of rows) expect([r.account_code, r.incoming_balance]).toEqual([r.account_code, (opening.get(r.account_code) ?? new Decimal(0)).toFixed(2)]);
      // the year's debits on 1200 (the roaster) are what was bought during the year, not the 360 000 brought in
      const [{ bought }] = await sql<{ bought: string }>(
        `SELECT COALESCE(SUM(l.debit), 0)::text AS bought ${POSTED} AND a.code = '1200' AND e.id <> $2 AND l.posting_date BETWEEN $3::date AND $4::date`,
        company, openingId, `${prev}-01-01`, `${prev}-12-31`,
      );
      const roaster = rows.find((r) => r.account_code === '1200');
      expect(roaster?.debit ?? '0.00').toBe(new Decimal(bought).toFixed(2));
    });

    it('the yearly accounts: the previous year’s balance sheet is the opening balance, section by section', async () => {
      const res = await api(`/yearly-accounts/preview?client_account_id=${company}&reporting_year=${prev}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const balances = [...opening].map(([code, amount]) => ({ code, amount }));
      const previous = Object.fromEntries(res.body.balance_sheet.map((l: { key: string; previous_amount: string }) => [l.key, l.previous_amount]));
      for (const section of BALANCE_SECTIONS) expect([section.key, previous[section.key]]).toEqual([section.key, sectionSum(balances, section.groups, section.sign).toFixed(2)]);
      // the roaster 360 000, the café 90 000, stock 85 000, the bank 412 000 and open invoices 50 000
      expect(previous.sum_eiendeler).toBe('997000.00');
      expect(previous.sum_eiendeler).toBe(previous.sum_egenkapital_og_gjeld);
    });

    it('the equity note: "Egenkapital ved årets begynnelse" is the opening balance’s equity (share capital and other equity)', async () => {
      const res = await api(`/yearly-accounts/preview?client_account_id=${company}&reporting_year=${prev}`);
      const equity = res.body.notes.find((n: { key: string }) => n.key === 'equity').body.rows;
      const openingEquity = sectionSum([...opening].map(([code, amount]) => ({ code, amount })), [[20, 20]], -1);
      expect(openingEquity.toFixed(2)).not.toBe('0.00');
      expect(equity[0]).toEqual(['Egenkapital ved årets begynnelse', nok(openingEquity)]);
    });

    it('the fixed-asset note: the opening book value is the opening balance of the asset accounts, and the additions leave it out', async () => {
      const res = await api(`/yearly-accounts/preview?client_account_id=${company}&reporting_year=${prev}`);
      const rows = res.body.notes.find((n: { key: string }) => n.key === 'fixed_assets').body.rows as string[][];
      const machines = rows.find((r) => r[0] === 'Transportmidler, inventar og maskiner')!;
      const openingAssets = [...opening].filter(([code]) => code.startsWith('12')).reduce((s, [, a]) => s.plus(a), new Decimal(0));
      expect(openingAssets.toFixed(2)).toBe('450000.00'); // the roaster and the café fittings
      const [{ additions }] = await sql<{ additions: string }>(
        `SELECT COALESCE(SUM(l.debit), 0)::text AS additions ${POSTED} AND a.code LIKE '12%' AND e.id <> $2 AND l.posting_date BETWEEN $3::date AND $4::date`,
        company, openingId, `${prev}-01-01`, `${prev}-12-31`,
      );
      expect(machines[1]).toBe(nok(openingAssets));
      expect(machines[2]).toBe(nok(new Decimal(additions)));
    });

    it('the SAF-T file of the year validates, its opening balances are the opening balance, and the opening balance is not among its transactions', async () => {
      const res = await api(`/reports/data-export?client_account_id=${company}&${year}`, 'text/xml');
      expect(res.status).toBe(200);
      const file = join(scratch, 'demo.xml');
      writeFileSync(file, res.text);
      const xsd = resolve(import.meta.dirname, '../../src/modules/reports/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd');
      const lint = spawnSync('xmllint', ['--noout', '--schema', xsd, file], { encoding: 'utf8' });
      expect(lint.status, lint.stderr.slice(0, 2000)).toBe(0);
      expect(checkSaft(res.text).problems).toEqual([]);
      const parsed = new XMLParser({ parseTagValue: false, isArray: (n) => ['Account', 'Transaction'].includes(n) }).parse(res.text).AuditFile;
      for (const a of parsed.MasterFiles.GeneralLedgerAccounts.Account as Record<string, string>[]) {
        const openingInFile = new Decimal(a.OpeningDebitBalance ?? 0).minus(a.OpeningCreditBalance ?? 0);
        expect([a.AccountID, openingInFile.toFixed(2)]).toEqual([a.AccountID, (opening.get(a.AccountID) ?? new Decimal(0)).toFixed(2)]);
      }
      const [{ seq }] = await sql<{ seq: number }>('SELECT sequence_number AS seq FROM journal_entries WHERE id = $1', openingId);
      const ids = (parsed.GeneralLedgerEntries.Journal.Transaction as { TransactionID: string }[]).map((t) => t.TransactionID);
      expect(ids.length).toBeGreaterThan(200);
      expect(ids).not.toContain(String(seq));
    });
  });

  it('the ledger chain verifies', async () => {
    const v = await verifyLedger(db.prisma, company);
    expect(v).toMatchObject({ ok: true, brokenCount: 0 });
  });
});
