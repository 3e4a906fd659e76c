import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/admin/seed-demo.ts';
import { osloToday } from '../../src/modules/journal-entries/journal-entries.rules.ts';
import { BALANCE_SECTIONS, itemSum, LINE_ITEMS, nok, sectionSum, type Balance } from '../../src/modules/yearly-accounts/yearly-accounts.rules.ts';
import { createIntegrations } from '../../src/integrations/integrations.ts';
import { Decimal } from '../../src/shared/scalars.ts';
import type { Database } from '../../src/db/database.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { openOwnDatabase } from '../support/own-database.ts';

// Issue 28 item 2: the yearly accounts in the Accounting Act's format, read as an accountant reads
// them on the demo company (src/admin/seed-demo.ts): its previous year opens with an opening balance
// ('Inngående balanse', is_opening_balance) and is closed (the result moved to 2050 by 8960); this
// year runs to today, not closed. On both databases, wire-level (REST). The demo has fixed names (its
// firm, company, login, organization number), and the admin CLI test seeds and edits the same demo on
// the run's PostgreSQL database: so this file seeds it in a database of its own there (a scratch
// database, migrated like the run's), as on PGlite (a clone of the template).
type Line = { key: string; label: string; amount: string; previous_amount: string; is_sum: boolean };

describe.each(targets())('the demo company\'s yearly accounts in the Accounting Act\'s format (%s)', (target) => {
  let db: Database;
  let own: Awaited<ReturnType<typeof openOwnDatabase>> | undefined;
  let app: TestApp;
  let token: string;
  let company: number;
  const prev = osloToday().getUTCFullYear() - 1;
  /** the opening balance's lines: debit − credit per account code */
  const opening: Balance[] = [];
  /** the previous year's (first year's) and this year's previews */
  let first: any;
  let second: any;
  const api = (path: string) => app.http('GET', `/api/v2${path}`, { token });
  const preview = async (year: number) => {
    const res = await api(`/yearly-accounts/preview?client_account_id=${company}&reporting_year=${year}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const byKey = (lines: Line[]) => Object.fromEntries(lines.map((l) => [l.key, l]));
  const note = (p: any, key: string) => p.notes.find((n: { key: string }) => n.key === key);

  beforeAll(async () => {
    own = await openOwnDatabase(target, 'ya_demo');
    db = own.db;
    const demo = await seedDemo(db.prisma);
    expect(demo.created).toBe(true);
    company = demo.company.id;
    app = await startTestApp(target, { database: db });
    token = await app.seed.token(demo.user.id, 'read write');
    const entries = await api(`/journal-entries?client_account_id=${company}&date_from=${prev}-01-01&date_to=${prev}-01-01`);
    const flagged = entries.body.data.filter((e: { is_opening_balance: boolean }) => e.is_opening_balance);
    expect(flagged).toHaveLength(1);
    for (const l of flagged[0].lines as { account_code: string; debit: string; credit: string }[]) {
      opening.push({ code: l.account_code, amount: new Decimal(l.debit).minus(l.credit) });
    }
    [first, second] = await Promise.all([preview(prev), preview(prev + 1)]);
  }, 400_000); // migrating a PostgreSQL database and seeding a year and a half of books, on a loaded machine
  afterAll(async () => {
    await app?.close();
    await own?.close();
  });

  it('"in the first year the previous year\'s column is the opening balance": every balance-sheet line item and sum of the previous year', () => {
    const lines = byKey(first.balance_sheet);
    const items = LINE_ITEMS.filter((i) => i.section !== 'disponering');
    expect(items.length).toBeGreaterThan(15);
    for (const item of items) {
      const sign = BALANCE_SECTIONS.find((s) => s.key === item.section)!.sign;
      expect([item.key, lines[item.key].previous_amount]).toEqual([item.key, itemSum(opening, item, sign).toFixed(2)]);
    }
    for (const s of BALANCE_SECTIONS) expect([s.key, lines[s.key].previous_amount]).toEqual([s.key, sectionSum(opening, s.groups, s.sign).toFixed(2)]);
    expect(lines.sum_eiendeler.previous_amount).toBe('997000.00');
    expect(lines.sum_egenkapital_og_gjeld.previous_amount).toBe('997000.00');
    // the income statement's previous year is empty: the opening balance is no year's movement
    for (const l of first.income_statement as Line[]) expect([l.key, l.previous_amount]).toEqual([l.key, '0.00']);
  });

  it('"the previous year\'s figures are the previous year\'s books": this year\'s previous-year column is last year\'s yearly accounts, line by line', () => {
    const last = byKey(first.balance_sheet);
    for (const l of second.balance_sheet as Line[]) expect([l.key, l.previous_amount]).toEqual([l.key, last[l.key].amount]);
    const lastIncome = byKey(first.income_statement);
    for (const l of second.income_statement as Line[]) expect([l.key, l.previous_amount]).toEqual([l.key, lastIncome[l.key].amount]);
  });

  it.each([
    ['the first year', () => first],
    ['this year', () => second],
  ])('"every balance-sheet line item sums to its section", and assets equal equity and liabilities: %s, both columns', (_what, which) => {
    const lines = which().balance_sheet as Line[];
    const øre = (v: string) => Math.round(Number(v) * 100);
    for (const column of ['amount', 'previous_amount'] as const) {
      let items = 0;
      const sums: Record<string, number> = {};
      for (const l of lines) {
        if (!l.is_sum) items += øre(l[column]);
        else if (BALANCE_SECTIONS.some((s) => s.key === l.key)) {
          expect([l.key, column, items]).toEqual([l.key, column, øre(l[column])]);
          sums[l.key] = items;
          items = 0;
        } else sums[l.key] = øre(l[column]);
      }
      expect(sums.sum_eiendeler).toBe(sums.anleggsmidler + sums.omlopsmidler);
      expect(sums.sum_gjeld).toBe(sums.langsiktig_gjeld + sums.kortsiktig_gjeld);
      expect(sums.sum_egenkapital_og_gjeld).toBe(sums.egenkapital + sums.sum_gjeld);
      expect(sums.sum_eiendeler).toBe(sums.sum_egenkapital_og_gjeld);
    }
  });

  it('"Egenkapital ved årets begynnelse is last year\'s closing equity": the opening balance\'s equity in the first year, last year\'s egenkapital this year; the rows add up', () => {
    const openingEquity = sectionSum(opening, [[20, 20]], -1);
    expect(openingEquity.isZero()).toBe(false);
    for (const [p, beginning] of [[first, nok(openingEquity)], [second, nok(new Decimal(byKey(first.balance_sheet).egenkapital.amount))]] as const) {
      const rows = note(p, 'equity').body.rows as [string, string][];
      expect(rows.map((r) => r[0])).toEqual(['Egenkapital ved årets begynnelse', 'Årets resultat', 'Avsatt utbytte', 'Andre endringer', 'Egenkapital ved årets slutt']);
      expect(rows[0][1]).toBe(beginning);
      expect(rows[1][1]).toBe(nok(new Decimal(byKey(p.income_statement).arsresultat.amount)));
      expect(rows[2][1]).toBe(nok(new Decimal(byKey(p.income_statement).avsatt_utbytte.amount).negated()));
      expect(rows[4][1]).toBe(nok(new Decimal(byKey(p.balance_sheet).egenkapital.amount)));
      const number = (s: string) => new Decimal(s.replace(/ /g, '').replace(',', '.'));
      expect(number(rows[0][1]).plus(number(rows[1][1])).plus(number(rows[2][1])).plus(number(rows[3][1])).toFixed(2)).toBe(number(rows[4][1]).toFixed(2));
    }
  });

  it('"the fixed-asset note\'s opening book value is the opening balance of the asset accounts (10–12)", and each group\'s row adds up to its closing book value = the balance sheet', () => {
    const rows = note(first, 'fixed_assets').body.rows as string[][];
    const number = (s: string) => new Decimal(s.replace(/ /g, '').replace(',', '.'));
    const total = rows.find((r) => r[0] === 'Sum')!;
    const openingAssets = opening.filter((b) => /^1[0-2]/.test(b.code)).reduce((s, b) => s.plus(b.amount), new Decimal(0));
    expect(openingAssets.toFixed(2)).toBe('450000.00');
    expect(total[1]).toBe(nok(openingAssets));
    for (const r of rows) expect([r[0], number(r[1]).plus(number(r[2])).minus(number(r[3])).minus(number(r[4])).toFixed(2)]).toEqual([r[0], number(r[5]).toFixed(2)]);
    const lines = byKey(first.balance_sheet);
    const fixed = ['immaterielle_eiendeler', 'tomter_bygninger', 'maskiner_inventar'].reduce((s, k) => s.plus(lines[k].amount), new Decimal(0));
    expect(total[5]).toBe(nok(fixed));
    // the year's depreciation in the note is the income statement's (all of it on the fixed assets in the demo)
    expect(total[4]).toBe(nok(new Decimal(byKey(first.income_statement).avskrivning.amount)));
  });

  it('"Årsresultat equals the result moved to equity (the 88xx/89xx allocations)": the closed year\'s allocations as booked, and the block sums to årsresultat', async () => {
    const tb = await api(`/reports/trial-balance?client_account_id=${company}&date_from=${prev}-01-01&date_to=${prev}-12-31`);
    expect(tb.status).toBe(200);
    const booked = (tb.body as { account_code: string; debit: string; credit: string }[])
      .filter((r) => /^8[89]/.test(r.account_code))
      .reduce((s, r) => s.plus(r.debit).minus(r.credit), new Decimal(0));
    const income = byKey(first.income_statement);
    expect(booked.isZero()).toBe(false);
    expect(income.arsresultat.amount).toBe(booked.toFixed(2));
    expect(income.sum_overforinger.amount).toBe(income.arsresultat.amount);
    expect(income.overfort_annen_egenkapital.amount).toBe(booked.toFixed(2)); // the demo closes by 8960 → 2050
    expect(first.checks.find((c: { key: string }) => c.key === 'result_allocated')).toMatchObject({ passed: true });
    // this year is not closed: its result is shown as transferred to annen egenkapital (2050 counts it), with a warning
    const now = byKey(second.income_statement);
    expect(now.sum_overforinger.amount).toBe(now.arsresultat.amount);
    expect(second.checks.find((c: { key: string }) => c.key === 'result_allocated')).toMatchObject({ passed: now.arsresultat.amount === '0.00', severity: 'warning' });
  });

  it('the government portal (sandbox) accepts the first year\'s figures with their line items: SUBMITTED, the items in the filing', async () => {
    const res = await app.http('POST', '/api/v2/yearly-accounts/submissions', { token, body: { client_account_id: company, reporting_year: prev } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe('SUBMITTED');
    const filing = await createIntegrations(app.config.integrations).connector('govportal').get<any>(`/filings/${res.body.portal_instance_id}/data`);
    const lines = byKey(first.balance_sheet);
    expect(filing.body.data.balance_sheet).toMatchObject({ maskiner_inventar: lines.maskiner_inventar.amount, sum_eiendeler: lines.sum_eiendeler.amount });
    expect(filing.body.data.balance_sheet_previous_year.sum_eiendeler).toBe('997000.00');
    expect(filing.body.data.income_statement.sum_overforinger).toBe(byKey(first.income_statement).arsresultat.amount);
  });
});
