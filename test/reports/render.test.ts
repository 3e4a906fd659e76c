import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { strFromU8, unzipSync } from 'fflate';
import readXlsxFile from 'read-excel-file/node';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESENTATION_SIGN_LEGEND, presentedFigure, presentReport, type PresentContext, type ReportName } from '../../src/modules/reports/reports.presenters.ts';
import { rowsFromWire } from './wire-rows.ts';
import { groupingOf } from '../../src/modules/reports/grouping.ts';
import { formatCell, formatMoney, isNumeric } from '../../src/modules/reports/render/format.ts';
import { REPORT_HTML_CSP, renderHtml } from '../../src/modules/reports/render/html.ts';
import { REPORT_MEDIA_TYPES, renderReport } from '../../src/modules/reports/render/index.ts';
import type { Cell, ReportTable } from '../../src/modules/reports/render/model.ts';
import { renderPdf } from '../../src/modules/reports/render/pdf.ts';
import { MONEY_FORMAT, renderXlsx, XLSX_HEADER_ROW } from '../../src/modules/reports/render/xlsx.ts';
import { hashSource } from '../../src/http/security-headers.ts';
import { Decimal } from '../../src/shared/scalars.ts';
import { DEFAULT_FILE_LIMITS } from '../../src/modules/files/file-limits.ts';
import { heavyWork } from '../../src/workers/heavy-work.ts';

// No database: every table is built by presentReport from a hand-written JSON body of the route, and
// every file format is read back with a reader other than its writer (read-excel-file, a regex over
// the HTML, pdftotext) and compared with the JSON, cell for cell.

const company: PresentContext['company'] = { displayName: 'Blåbær & Søn <Øst> "Æra" AS', organizationNumber: '912345678' };

const grouping = (l1: [string, string], l2: [string, string], l3: [string, string]) => ({
  level_1_code: l1[0], level_1_name: l1[1], level_2_code: l2[0], level_2_name: l2[1], level_3_code: l3[0], level_3_name: l3[1],
});
const ASSETS: [string, string] = ['1', 'Eiendeler'];
const EQUITY_LIABILITIES: [string, string] = ['2', 'Egenkapital og gjeld'];
const INCOME: [string, string] = ['3', 'Driftsinntekter'];
const COSTS: [string, string] = ['4', 'Driftskostnader & varekjøp'];

const balanceSheet = [
  { grouping: grouping(ASSETS, ['12', 'Anleggsmidler'], ['120', 'Maskiner']), account_code: '1200', account_name: 'Maskiner & anlegg', balance: 150000.5 },
  { grouping: grouping(ASSETS, ['19', 'Omløpsmidler'], ['190', 'Kontanter og bank']), account_code: '1900', account_name: 'Kontanter <kasse>', balance: -120.35 },
  { grouping: grouping(ASSETS, ['19', 'Omløpsmidler'], ['190', 'Kontanter og bank']), account_code: '1920', account_name: 'Bankinnskudd Sparebank Øst', balance: 1234567.89 },
  { grouping: grouping(ASSETS, ['15', 'Fordringer'], ['150', 'Kundefordringer']), account_code: '1500', account_name: 'Kundefordringer', balance: 0.1 },
  { grouping: grouping(ASSETS, ['15', 'Fordringer'], ['150', 'Kundefordringer']), account_code: '1501', account_name: 'Kundefordringer, tvilsomme', balance: 0.2 },
  { grouping: grouping(EQUITY_LIABILITIES, ['20', 'Egenkapital'], ['200', 'Innskutt egenkapital']), account_code: '2000', account_name: 'Aksjekapital', balance: -30000 },
  { grouping: grouping(EQUITY_LIABILITIES, ['20', 'Egenkapital'], ['205', 'Opptjent egenkapital']), account_code: '2050', account_name: 'Annen egenkapital', balance: -800000.04 },
  { grouping: grouping(EQUITY_LIABILITIES, ['24', 'Kortsiktig gjeld'], ['240', 'Leverandørgjeld']), account_code: '2400', account_name: 'Leverandørgjeld', balance: -554448.1 },
];

/** Twelve months of debit movements as the route answers them (decimal strings), income negative. */
const months = (f: (m: number) => number) => Object.fromEntries(Array.from({ length: 12 }, (_, i) => [String(i + 1), f(i + 1).toFixed(2)]));
const incomeStatement = [
  { grouping: grouping(INCOME, ['30', 'Salgsinntekt'], ['300', 'Salgsinntekt, avgiftspliktig']), account_code: '3000', account_name: 'Salg & tjenester <høy sats>', period_debit_movements: months((m) => -(150000 + m * 1234.56)) },
  { grouping: grouping(INCOME, ['30', 'Salgsinntekt'], ['310', 'Salgsinntekt, avgiftsfri']), account_code: '3100', account_name: 'Salg, avgiftsfritt', period_debit_movements: months((m) => (m === 7 ? 0 : -0.1 * m)) },
  { grouping: grouping(COSTS, ['40', 'Varekostnad'], ['400', 'Innkjøp']), account_code: '4000', account_name: 'Innkjøp av råvarer', period_debit_movements: months((m) => 40000.2 + m) },
  { grouping: grouping(COSTS, ['50', 'Lønn'], ['500', 'Lønn til ansatte']), account_code: '5000', account_name: 'Lønn til ansatte', period_debit_movements: months((m) => (m === 12 ? 250000 : 70000.7)) },
  { grouping: grouping(COSTS, ['63', 'Lokaler'], ['630', 'Leie']), account_code: '6300', account_name: 'Leie lokale – Øvre Ål', period_debit_movements: months(() => 0.2) },
];

const trialBalance = [
  { grouping: grouping(ASSETS, ['19', 'Omløpsmidler'], ['190', 'Kontanter og bank']), account_id: 11, account_code: '1920', account_name: 'Bankinnskudd', incoming_balance: '1000.10', debit: '500000.55', credit: '400000.20', outgoing_balance: '101000.45', relation_type: null, relation_id: null, relation_name: null },
  { grouping: grouping(EQUITY_LIABILITIES, ['24', 'Kortsiktig gjeld'], ['240', 'Leverandørgjeld']), account_id: 12, account_code: '2400', account_name: 'Leverandørgjeld', incoming_balance: '-20000.00', debit: '15000.00', credit: '30000.30', outgoing_balance: '-35000.30', relation_type: null, relation_id: null, relation_name: null },
  { grouping: grouping(INCOME, ['30', 'Salgsinntekt'], ['300', 'Salgsinntekt, avgiftspliktig']), account_id: 13, account_code: '3000', account_name: 'Salgsinntekt & gebyr <A>', incoming_balance: '0.00', debit: '0.10', credit: '66000.35', outgoing_balance: '-66000.25', relation_type: null, relation_id: null, relation_name: null },
];
const trialBalanceByProject = [
  { ...trialBalance[2], debit: '0.00', credit: '40000.00', outgoing_balance: '-40000.00', relation_type: 'project', relation_id: 7, relation_name: 'Prosjekt Ærfugl & Co' },
  { ...trialBalance[2], debit: '0.10', credit: '26000.35', outgoing_balance: '-26000.25', relation_type: 'project', relation_id: 8, relation_name: 'Prosjekt <Øya>' },
];

/** A ledger line as the route answers it. */
function ledgerLine(i: number, account: { code: string; name: string; incoming: number; outgoing: number }, debit: number, credit: number) {
  const day = String((i % 28) + 1).padStart(2, '0');
  const month = String((Math.floor(i / 28) % 12) + 1).padStart(2, '0');
  return {
    grouping: { level_1_code: account.code, level_1_name: account.name, incoming_balance: account.incoming.toFixed(2), outgoing_balance: account.outgoing.toFixed(2), movement: (account.outgoing - account.incoming).toFixed(2) },
    id: 1000 + i,
    line_id: 5000 + i,
    posting_date: `2025-${month}-${day}`,
    account_id: Number(account.code),
    account_code: account.code,
    description: i % 10 === 0 ? `Kjøp hos Bø & Ås <${i}>` : `Linje ${i} – blåbær`,
    debit: debit.toFixed(2),
    credit: credit.toFixed(2),
    debit_amount: (debit - credit).toFixed(2),
    currency_code: i % 7 === 0 ? 'EUR' : 'NOK',
    exchange_rate: '1.000000',
    tax_code: i % 3 === 0 ? '3' : null,
    tax_base_amount: null,
    tax_amount: null,
    reconciled_amount: '0.00',
    dimensions: i % 2 ? [{ type: 'businesspartner', id: 9, name: 'Ærlig Ølbryggeri & Søn' }] : [],
    journal_entry: { id: 700 + i, sequence_number: 100 + i, cancelled: false, is_draft: false, voucher_id: null, description: 'Bilag', related_object: null, created_by: { id: 1, full_name: 'Åse Øren' } },
  };
}
const BANK = { code: '1920', name: 'Bankinnskudd', incoming: 5000.5, outgoing: 17345.75 };
const SALES = { code: '3000', name: 'Salgsinntekt <høy>', incoming: 0, outgoing: -98765.43 };
const generalLedger = {
  meta: { records: 120, per_page: 500, page: 1, pages: 1 },
  data: [
    ...Array.from({ length: 60 }, (_, i) => ledgerLine(i, BANK, i % 2 ? 0 : 1234.5 + i, i % 2 ? 99.99 * i : 0)),
    ...Array.from({ length: 60 }, (_, i) => ledgerLine(60 + i, SALES, 0, 1000000 + i * 0.01)),
  ],
};
const SUPPLIERS = { code: '2400', name: 'Leverandørgjeld', incoming: -1500, outgoing: -2750.25 };
const accountsPayable = {
  meta: { records: 3, per_page: 100, page: 1, pages: 1 },
  data: [ledgerLine(1, SUPPLIERS, 0, 1250.25), ledgerLine(3, SUPPLIERS, 500, 0), ledgerLine(5, SUPPLIERS, 0, 500)],
};
const CUSTOMERS = { code: '1500', name: 'Kundefordringer', incoming: 200, outgoing: 1450.75 };
const accountsReceivable = {
  meta: { records: 2, per_page: 1, page: 2, pages: 2 },
  data: [ledgerLine(2, CUSTOMERS, 1250.75, 0)],
};

const context = (query: PresentContext['query']): PresentContext => ({ company, query });
/** The table the files draw from a JSON body of the route (read back into the service's rows). */
const present = (report: ReportName, body: unknown, ctx: PresentContext) => presentReport(report, rowsFromWire(report, body), ctx);
const PERIOD = { date_from: '2025-01-01', date_to: '2025-12-31' };

const cases: { name: string; report: ReportName; body: unknown; query: PresentContext['query'] }[] = [
  { name: 'balance sheet', report: 'balance-sheet', body: balanceSheet, query: { report_date: '2025-12-31' } },
  { name: 'income statement', report: 'income-statement', body: incomeStatement, query: PERIOD },
  { name: 'trial balance', report: 'trial-balance', body: trialBalance, query: PERIOD },
  { name: 'trial balance by project', report: 'trial-balance', body: trialBalanceByProject, query: { ...PERIOD, group_by_dimension: 'project' } },
  { name: 'general ledger (120 lines, two accounts)', report: 'general-ledger', body: generalLedger, query: PERIOD },
  { name: 'accounts payable', report: 'accounts-payable', body: accountsPayable, query: PERIOD },
  { name: 'accounts receivable (page 2 of 2)', report: 'accounts-receivable', body: accountsReceivable, query: PERIOD },
];
const tables = await Promise.all(cases.map(async (c) => ({ ...c, table: await present(c.report, c.body, context(c.query)) })));

// ---- helpers ----

/** The exact sum of JSON figures (decimal strings or numbers) as a money cell holds it: '1234.50'. */
const sum = (values: (string | number)[]) => {
  const total = values.reduce<Decimal>((s, v) => s.plus(String(v)), new Decimal(0));
  return (total.isZero() ? new Decimal(0) : total).toFixed(2);
};
const negated = (figure: string) => new Decimal(figure).negated().plus(0).toFixed(2);
const normalizeSpace = (s: string) => s.replace(/[\s\u00a0]+/g, ' ').trim();
const decodeEntities = (s: string) =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The cells of a table row as the table holds them, in column order. */
const rowValues = (table: ReportTable, cells: Record<string, Cell>) => table.columns.map((c) => cells[c.key] ?? null);

const workdir = mkdtempSync(join(tmpdir(), 'report-render-'));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

async function pdfText(buffer: Buffer, name: string): Promise<string> {
  const file = join(workdir, `${name}.pdf`);
  writeFileSync(file, buffer);
  const { stdout } = await promisify(execFile)('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 32 * 1024 * 1024 });
  return stdout;
}

/** The text of each <td> of each body row of the page. */
function htmlBodyRows(html: string): string[][] {
  const tbody = /<tbody>([\s\S]*)<\/tbody>/.exec(html)![1];
  return [...tbody.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((td) => decodeEntities(td[1])));
}

// ---- the presenters ----

describe('presentReport: one ReportTable per report, from the JSON alone', () => {
  it('titles are Norwegian: Balanse, Resultatregnskap, Saldobalanse, Hovedbok, Leverandørreskontro, Kundereskontro', () => {
    expect(tables.map((t) => t.table.title)).toEqual(['Balanse', 'Resultatregnskap', 'Saldobalanse', 'Saldobalanse', 'Hovedbok', 'Leverandørreskontro', 'Kundereskontro']);
  });

  it('"the subtitle names the company, its org number (999 999 999) and the period/date (dd.mm.yyyy)"', async () => {
    const [bs, is] = tables;
    expect(bs.table.subtitle).toBe('Blåbær & Søn <Øst> "Æra" AS (912 345 678) · per 31.12.2025');
    expect(is.table.subtitle).toBe('Blåbær & Søn <Øst> "Æra" AS (912 345 678) · 01.01.2025–31.12.2025');
    expect(bs.table.fileName).toBe('balanse-2025-12-31');
    // a file holds the whole period, so it counts its lines, not a JSON page
    expect(tables[4].table.subtitle).toContain('· 120 linjer');
    expect(tables[6].table.subtitle).toContain('· 1 linje');
    const defaults = await present('general-ledger', { meta: generalLedger.meta, data: [] }, context({ date_to: '2025-06-30' }));
    expect(defaults.subtitle).toContain('01.01.2025–30.06.2025');
    expect(defaults.fileName).toBe('hovedbok-2025-01-01-2025-06-30');
    const noOrg = await present('trial-balance', [], { company: { displayName: 'Enkeltpersonforetak', organizationNumber: null }, query: PERIOD });
    expect(noOrg.subtitle).toBe('Enkeltpersonforetak · 01.01.2025–31.12.2025');
  });

  it('"headings per level_1/level_2/level_3 with subtotals"; "Sum Eiendeler" and "Sum Egenkapital og gjeld" (shown positive) close the balance sheet', () => {
    const { table } = tables[0];
    const labels = table.rows.map((r) => `${r.kind}:${r.depth}:${r.cells.account_code ?? ''} ${r.cells.account_name}`);
    expect(labels.slice(0, 6)).toEqual(['group:0:1 Eiendeler', 'group:1:12 Anleggsmidler', 'group:2:120 Maskiner', 'detail:3:1200 Maskiner & anlegg', 'group:2:120 Sum Maskiner', 'group:1:12 Sum Anleggsmidler']);
    expect(labels.at(-1)).toBe('group:0:2 Sum Egenkapital og gjeld');
    const subtotal = (code: string) => table.rows.find((r) => r.cells.account_code === code && String(r.cells.account_name).startsWith('Sum'))!.cells.balance;
    expect(subtotal('1')).toBe(sum(balanceSheet.filter((r) => r.account_code.startsWith('1')).map((r) => r.balance)));
    expect(subtotal('2')).toBe(negated(sum(balanceSheet.filter((r) => r.account_code.startsWith('2')).map((r) => r.balance))));
    expect(table.legend).toBe(PRESENTATION_SIGN_LEGEND);
  });

  it('"each heading level once": a level covering its parent\'s account range (20 Egenkapital under 20, 82-89 under 82-89) gets no second heading', async () => {
    const ns4102 = (code: string) => {
      const g = groupingOf(code);
      return { level_1_code: g.level1Code, level_1_name: g.level1Name, level_2_code: g.level2Code, level_2_name: g.level2Name, level_3_code: g.level3Code, level_3_name: g.level3Name };
    };
    const bs = await present('balance-sheet', ['1920', '2000', '2050', '2400'].map((code) => ({ grouping: ns4102(code), account_code: code, account_name: code, balance: '1.00' })), context(PERIOD));
    const is = await present('income-statement', ['3000', '8050', '8150', '8300', '8800'].map((code) => ({ grouping: ns4102(code), account_code: code, account_name: code, period_debit_movements: months(() => 1) })), context(PERIOD));
    for (const table of [bs, is]) {
      const headings = table.rows.filter((r) => r.kind === 'group' && !String(r.cells.account_name).startsWith('Sum')).map((r) => `${r.cells.account_code}`);
      expect(headings).toEqual([...new Set(headings)]);
    }
  });

  it('"result lines and dispositions below the result": the year-end tax (83) and the transfer to equity (8960) are no month\'s operations, and "Sum overføringer og disponeringer" equals "Årsresultat"', async () => {
    const ns4102 = (code: string) => {
      const g = groupingOf(code);
      return { level_1_code: g.level1Code, level_1_name: g.level1Name, level_2_code: g.level2Code, level_2_name: g.level2Name, level_3_code: g.level3Code, level_3_name: g.level3Name };
    };
    const december = (amount: number) => months((m) => (m === 12 ? amount : 0));
    const year = [
      { code: '3000', movements: months(() => -1000) },
      { code: '5000', movements: months(() => 600) },
      { code: '8150', movements: months(() => 10) },
      { code: '8300', movements: december(858) }, // 22 % of 12 × 390
      { code: '8960', movements: december(3822) }, // the rest moved to other equity
    ].map(({ code, movements }) => ({ grouping: ns4102(code), account_code: code, account_name: `Konto ${code}`, period_debit_movements: movements }));
    const table = await present('income-statement', year, context(PERIOD));
    const line = (label: string) => table.rows.find((r) => r.kind === 'total' && r.cells.account_name === label)!.cells;
    expect([line('Driftsresultat').total, line('Resultat før skattekostnad').total, line('Årsresultat').total]).toEqual(['4800.00', '4680.00', '3822.00']);
    expect(line('Sum overføringer og disponeringer').total).toBe(line('Årsresultat').total);
    expect(table.rows.findIndex((r) => r.cells.account_name === 'Overføringer og disponeringer')).toBeGreaterThan(table.rows.findIndex((r) => r.cells.account_name === 'Årsresultat'));
    // one heading for the dispositions: NS 4102's group names ("Årsresultat", "Overføringer og disponeringer") do not repeat
    expect(table.rows.filter((r) => r.kind === 'group' && /Overføringer og disponeringer|^Årsresultat$/.test(String(r.cells.account_name)))).toHaveLength(1);
    const chart = table.chart!;
    if (chart.kind !== 'bars') throw new Error('expected bars');
    expect(chart.title).toBe('Driftsresultat per måned');
    expect(chart.bars.map((b) => b.value)).toEqual(Array(12).fill('400.00'));
  });

  it('"totals/subtotals are sums of JSON cells", exact (0.1 + 0.2 is 0.30, not 0.30000000000000004)', () => {
    const { table } = tables[0];
    expect(table.rows.find((r) => r.cells.account_name === 'Sum Kundefordringer')!.cells.balance).toBe('0.30');
  });

  it('"one column per month 1..12 plus a total" (income statement); "Driftsresultat", "Resultat før skattekostnad", "Årsresultat" = −(debit movements of classes 3-7, 3-81, 3-87) per month', () => {
    const { table } = tables[1];
    expect(table.columns.map((c) => c.label)).toEqual(['Konto', 'Kontonavn', 'jan', 'feb', 'mar', 'apr', 'mai', 'jun', 'jul', 'aug', 'sep', 'okt', 'nov', 'des', 'Sum']);
    const upTo = (last: number) => incomeStatement.filter((r) => Number(r.account_code.slice(0, 2)) <= last);
    for (const [label, last] of [['Driftsresultat', 79], ['Resultat før skattekostnad', 81], ['Årsresultat', 87]] as const) {
      const line = table.rows.find((r) => r.kind === 'total' && r.cells.account_name === label)!;
      for (let m = 1; m <= 12; m++) expect(line.cells[`m${m}`]).toBe(negated(sum(upTo(last).map((r) => r.period_debit_movements[String(m)]))));
      expect(line.cells.total).toBe(negated(sum(upTo(last).flatMap((r) => Object.values(r.period_debit_movements)))));
    }
    for (const r of incomeStatement) {
      const row = table.rows.find((x) => x.kind === 'detail' && x.cells.account_code === r.account_code)!;
      expect(row.cells.m1, r.account_code).toBe(presentedFigure(r.account_code, r.period_debit_movements['1']));
    }
  });

  it('"the monthly result shown as income positive: result = −(sum of debit movements)"', () => {
    const chart = tables[1].table.chart!;
    expect(chart.kind).toBe('bars');
    if (chart.kind !== 'bars') return;
    expect(chart.bars.map((b) => b.label)).toEqual(['jan', 'feb', 'mar', 'apr', 'mai', 'jun', 'jul', 'aug', 'sep', 'okt', 'nov', 'des']);
    chart.bars.forEach((b, i) => expect(b.value).toBe(negated(sum(incomeStatement.map((r) => r.period_debit_movements[String(i + 1)])))));
    expect(Number(chart.bars[0].value)).toBeGreaterThan(0);
    expect(Number(chart.bars[11].value)).toBeLessThan(0); // December's wages make a loss
  });

  it('"assets (class 1) against equity and liabilities (class 2, shown positive)" (balance sheet chart)', () => {
    const chart = tables[0].table.chart!;
    if (chart.kind !== 'split') throw new Error('expected a split chart');
    const side = (label: string) => chart.sides.find((s) => s.label === label)!;
    expect(sum(side('Eiendeler').parts.map((p) => p.value))).toBe(sum(balanceSheet.filter((r) => r.account_code[0] === '1').map((r) => r.balance)));
    expect(side('Egenkapital og gjeld').parts).toEqual([
      { label: 'Egenkapital', value: '830000.04' },
      { label: 'Kortsiktig gjeld', value: '554448.10' },
    ]);
  });

  it('"include_dimensions (default true) shows relation_type/relation_name columns when the rows have them"', async () => {
    expect(tables[2].table.columns.map((c) => c.key)).not.toContain('relation_name');
    expect(tables[3].table.columns.map((c) => c.key)).toEqual(['account_code', 'account_name', 'relation_type', 'relation_name', 'incoming_balance', 'debit', 'credit', 'outgoing_balance']);
    const off = await present('trial-balance', trialBalanceByProject, context({ ...PERIOD, group_by_dimension: 'project', include_dimensions: 'false' }));
    expect(off.columns.map((c) => c.key)).not.toContain('relation_name');
  });

  it('"for the trial balance, the totals of incoming, debit, credit, outgoing"', () => {
    const total = tables[2].table.rows.at(-1)!;
    expect(total.kind).toBe('total');
    for (const key of ['incoming_balance', 'debit', 'credit', 'outgoing_balance'] as const) expect(total.cells[key]).toBe(sum(trialBalance.map((r) => r[key])));
  });

  it('spec 000 "Decimal amounts are returned as strings": 10^14-scale figures keep their øre in the cells, the sums and the HTML/PDF text', async () => {
    const big = [
      { ...trialBalance[0], incoming_balance: '1000000000003584.01', debit: '0.01', credit: '0.00', outgoing_balance: '1000000000003584.02' },
      { ...trialBalance[1], incoming_balance: '-1000000000003584.01', debit: '0.00', credit: '0.01', outgoing_balance: '-1000000000003584.02' },
      { ...trialBalance[2], incoming_balance: '1000000000003584.01', debit: '0.00', credit: '0.00', outgoing_balance: '1000000000003584.01' },
    ];
    const table = await present('trial-balance', big, context(PERIOD));
    expect(table.rows.find((r) => r.cells.account_code === '1920')!.cells.incoming_balance).toBe('1000000000003584.01');
    expect(table.rows.at(-1)!.cells.incoming_balance).toBe('1000000000003584.01');
    expect(table.rows.at(-1)!.cells.outgoing_balance).toBe('1000000000003584.01');
    expect(formatCell('money', '1000000000003584.01')).toBe('1\u00a0000\u00a0000\u00a0000\u00a0003\u00a0584,01');
    expect(htmlBodyRows(renderHtml(table)).flat()).toContain('-1\u00a0000\u00a0000\u00a0000\u00a0003\u00a0584,02');
    // the balance sheet's number (the adapter's JsonNumber, read by its text) as well
    const sheet = await present('balance-sheet', [{ ...balanceSheet[0], balance: { toString: () => '1000000000003584.01' } }], context({ report_date: '2025-12-31' }));
    expect(sheet.rows.find((r) => r.kind === 'detail')!.cells.balance).toBe('1000000000003584.01');
  });

  it('"rows grouped per grouping.level_1_code with a heading row showing incoming balance … and an outgoing balance row" (general ledger)', () => {
    const { table } = tables[4];
    const groups = table.rows.filter((r) => r.kind === 'group');
    expect(groups.map((r) => [r.cells.account_code, r.cells.balance])).toEqual([
      ['1920', '5000.50'], ['1920', '17345.75'], ['3000', '0.00'], ['3000', '-98765.43'],
    ]);
    const details = table.rows.filter((r) => r.kind === 'detail');
    expect(details).toHaveLength(120);
    details.forEach((r, i) => {
      const line = generalLedger.data[i];
      expect(r.cells).toMatchObject({ posting_date: line.posting_date, voucher: line.journal_entry.sequence_number, description: line.description, debit: line.debit, credit: line.credit, tax_code: line.tax_code, currency_code: line.currency_code });
    });
  });

  it('"a running balance per account in the general ledger": each line\'s Saldo is the incoming balance plus the debit − credit of the account\'s lines so far, and the last equals the outgoing balance', async () => {
    const { table } = tables[4];
    let running = new Decimal(0);
    for (const r of table.rows) {
      if (r.kind === 'group' && String(r.cells.description).endsWith('inngående saldo')) running = new Decimal(String(r.cells.balance));
      if (r.kind !== 'detail') continue;
      running = running.plus(String(r.cells.debit)).minus(String(r.cells.credit));
      expect(r.cells.balance).toBe(running.toFixed(2));
    }
    // a consistent account: 100.00 in, +250.50, −50.25 → 300.25 out
    const account = { code: '1920', name: 'Bank', incoming: 100, outgoing: 300.25 };
    const ledger = await present('general-ledger', { meta: { records: 2, per_page: 100, page: 1, pages: 1 }, data: [ledgerLine(1, account, 250.5, 0), ledgerLine(2, account, 0, 50.25)] }, context(PERIOD));
    expect(ledger.rows.map((r) => [r.kind, r.cells.balance])).toEqual([['group', '100.00'], ['detail', '350.50'], ['detail', '300.25'], ['group', '300.25']]);
  });
});

// ---- Excel ----

describe('renderXlsx: read back with read-excel-file, cells agree with the JSON', () => {
  it.each(tables)('$name: "cells are numbers (not text) equal to the JSON", dates are dates, text is the JSON text', async ({ table }) => {
    const [sheet] = await readXlsxFile(await renderXlsx(table));
    expect(sheet.sheet).toBe(table.title);
    const data = sheet.data;
    expect(data[0][0]).toBe(table.title);
    expect(data[1][0]).toBe(table.subtitle);
    expect(data[XLSX_HEADER_ROW - 1]).toEqual(table.columns.map((c) => c.label));
    const body = data.slice(XLSX_HEADER_ROW);
    expect(body).toHaveLength(table.rows.length);
    table.rows.forEach((row, r) => {
      table.columns.forEach((column, c) => {
        const expected = row.cells[column.key] ?? null;
        const actual = body[r][c];
        if (expected === null) expect(actual).toBeNull();
        else if (column.kind === 'date') {
          expect(actual).toBeInstanceOf(Date);
          expect((actual as unknown as Date).toISOString().slice(0, 10)).toBe(expected);
        }
        else if (isNumeric(column.kind)) {
          expect(typeof actual).toBe('number');
          // a money cell holds the JSON's decimal text; Excel the number
          expect(actual).toBe(column.kind === 'money' ? Number(expected) : expected);
        } else expect(actual).toBe(expected);
      });
    });
  });

  it('balance sheet: every JSON row is a row of the sheet with its balance as a number', async () => {
    const [sheet] = await readXlsxFile(await renderXlsx(tables[0].table));
    for (const json of balanceSheet) expect(sheet.data).toContainEqual([json.account_code, json.account_name, Number(presentedFigure(json.account_code, json.balance))]);
    expect(sheet.data[2][0]).toBe(PRESENTATION_SIGN_LEGEND);
  });

  it('general ledger: every JSON line is a row with a real date, the voucher number and Number(debit), Number(credit)', async () => {
    const [sheet] = await readXlsxFile(await renderXlsx(tables[4].table));
    const rows = sheet.data.filter((row) => row[1] instanceof Date);
    expect(rows).toHaveLength(generalLedger.data.length);
    rows.forEach((row, i) => {
      const json = generalLedger.data[i];
      // Konto, Dato, Bilag, Beskrivelse, MVA-kode, Valuta, Debet, Kredit, Saldo
      expect(row.slice(0, 8)).toEqual([json.account_code, new Date(`${json.posting_date}T00:00:00Z`), json.journal_entry.sequence_number, json.description, json.tax_code, json.currency_code, Number(json.debit), Number(json.credit)]);
    });
  });

  it('"money formatted #,##0.00;[Red]-#,##0.00, dates dd.mm.yyyy, header row frozen" (the file itself)', async () => {
    const files = unzipSync(new Uint8Array(await renderXlsx(tables[4].table)));
    const styles = strFromU8(files['xl/styles.xml']);
    expect(styles).toContain(`formatCode="${MONEY_FORMAT.replace(/"/g, '&quot;')}"`);
    expect(styles).toContain('formatCode="dd.mm.yyyy"');
    const sheetXml = strFromU8(files['xl/worksheets/sheet1.xml']);
    expect(sheetXml).toMatch(new RegExp(`<pane[^>]*ySplit="${XLSX_HEADER_ROW}"[^>]*state="frozen"`));
  });
});

// ---- HTML ----

describe('renderHtml: a complete, escaped, printable page', () => {
  it.each(tables)('$name: "the page shows every formatted value", cell for cell, text escaped', ({ table }) => {
    const html = renderHtml(table);
    const rows = htmlBodyRows(html);
    expect(rows).toHaveLength(table.rows.length);
    table.rows.forEach((row, r) => expect(rows[r]).toEqual(table.columns.map((c) => formatCell(c.kind, row.cells[c.key] ?? null))));
    expect([...html.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => decodeEntities(m[1]))).toEqual(table.columns.map((c) => c.label));
  });

  it('"numbers Norwegian style (1 234,50 with a non-breaking space, comma decimals), negatives with a minus sign, right-aligned"', () => {
    const html = renderHtml(tables[0].table);
    expect(html).toContain('<td class="n">1\u00a0234\u00a0567,89</td>');
    expect(html).toContain('<td class="n">-120,35</td>');
    expect(html).toContain('<td class="n">800\u00a0000,04</td>'); // equity shown positive
    expect(html).toContain('<td class="n">-120,35</td>');
    expect(html).toMatch(/td\.n,th\.n\{text-align:right/);
  });

  it('"ESCAPE every text (company names can contain < & ")"', () => {
    const html = renderHtml(tables[0].table);
    expect(html).not.toContain('<Øst>');
    expect(html).not.toContain('<kasse>');
    expect(html).toContain('Blåbær &amp; Søn &lt;Øst&gt; &quot;Æra&quot; AS');
    expect(html).toContain('Kontanter &lt;kasse&gt;');
    // Every & in the page starts an entity.
    expect(html.replace(/&(amp|lt|gt|quot|#39);/g, '')).not.toContain('&');
  });

  it('"a complete HTML5 page (lang="nb", UTF-8), print CSS with the header repeated via thead, no scripts, no external resources"', () => {
    const html = renderHtml(tables[4].table);
    expect(html.startsWith('<!doctype html>\n<html lang="nb">')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toMatch(/<thead><tr>(<th[^>]*>[^<]*<\/th>)+<\/tr><\/thead>/);
    expect(html).toContain('thead{display:table-header-group}');
    expect(html).toContain('@page{');
    expect(html).toContain('@media print');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(/i);
    expect(html).not.toMatch(/\sstyle="/); // style attributes would need 'unsafe-inline'
  });

  it.each([tables[0], tables[1]])('$name: "make the page work under the CSP the reports will be served with": REPORT_HTML_CSP allows each <style> by hash, and no script', ({ table }) => {
    const html = renderHtml(table);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    expect(styles.length).toBe(table.columns.length > 6 ? 2 : 1);
    const styleSrc = /style-src ([^;]*)/.exec(REPORT_HTML_CSP)![1].split(' ');
    for (const style of styles) expect(styleSrc).toContain(hashSource(style));
    expect(REPORT_HTML_CSP).toContain("default-src 'none'");
    expect(REPORT_HTML_CSP).not.toContain('script-src');
    expect(REPORT_HTML_CSP).not.toContain('unsafe-inline');
  });

  it('"A4, landscape when there are more than 6 columns" on print too', () => {
    expect(renderHtml(tables[1].table)).toContain('<style>@page{size:A4 landscape}</style>');
    expect(renderHtml(tables[0].table)).not.toContain('landscape');
  });
});

describe('the chart', () => {
  const svgOf = (html: string) => /<svg[\s\S]*?<\/svg>/.exec(html)?.[0];

  it('"an inline SVG chart for the income statement": bars with a zero line, month labels jan–des, role="img" and a <title>', () => {
    const svg = svgOf(renderHtml(tables[1].table))!;
    expect(svg).toBeDefined();
    expect(svg).toMatch(/^<svg role="img"/);
    expect(svg).toContain('<title id="chart-title">Driftsresultat per måned</title>');
    for (const m of ['jan', 'feb', 'mar', 'apr', 'mai', 'jun', 'jul', 'aug', 'sep', 'okt', 'nov', 'des']) expect(svg).toContain(`>${m}</text>`);
    expect(svg.match(/<rect /g)).toHaveLength(12);
    expect(svg).toMatch(/<line [^>]*stroke=/);
    const december = negated(sum(incomeStatement.map((r) => r.period_debit_movements['12'])));
    expect(svg).toContain(`<title>des: ${formatMoney(december)}</title>`);
  });

  it('"an inline SVG chart for the balance sheet": two stacked columns with labels and values', () => {
    const svg = svgOf(renderHtml(tables[0].table))!;
    expect(svg).toMatch(/^<svg role="img"/);
    expect(svg).toContain('<title id="chart-title">');
    expect(svg).toContain(`Eiendeler: ${formatMoney(sum(balanceSheet.filter((r) => r.account_code[0] === '1').map((r) => r.balance)))}`);
    expect(svg).toContain(`Egenkapital og gjeld: ${formatMoney('1384448.14')}`);
    expect(svg).toContain(`Kortsiktig gjeld: ${formatMoney('554448.10')}`);
  });

  it('"absent for the trial balance"', () => {
    expect(tables[2].table.chart).toBeUndefined();
    expect(renderHtml(tables[2].table)).not.toContain('<svg');
  });
});

// ---- PDF ----

describe('renderPdf: read back with pdftotext -layout', () => {
  /** A text cell's row line holds the full text or, when it wraps, its first words (the rest on the lines below). */
  const cellPattern = (text: string, kind: string) => {
    const t = normalizeSpace(text);
    if (kind !== 'text') return escapeRegExp(t);
    const words = t.split(' ');
    const prefixes = words.map((_, i) => escapeRegExp(words.slice(0, words.length - i).join(' ')));
    return `(?:${prefixes.join('|')})`;
  };

  it.each(tables)('$name: "contains every formatted value", each row on one line in column order', async ({ name, table }) => {
    const text = await pdfText(await renderPdf(table), name.replace(/\W+/g, '-'));
    const lines = text.split(/\n|\f/).map(normalizeSpace);
    let from = 0;
    for (const row of table.rows) {
      const parts = table.columns
        .map((c) => ({ kind: c.kind, text: formatCell(c.kind, row.cells[c.key] ?? null) }))
        .filter((p) => p.text !== '')
        .map((p) => cellPattern(p.text, p.kind));
      const pattern = new RegExp(`^${parts.join(' ')}$`);
      const at = lines.findIndex((line, i) => i >= from && pattern.test(line));
      expect(at, `row ${JSON.stringify(rowValues(table, row.cells))}`).toBeGreaterThanOrEqual(0);
      from = at + 1;
    }
  });

  it('"the Norwegian letters intact" and the title and subtitle on the first page', async () => {
    const text = await pdfText(await renderPdf(tables[0].table), 'letters');
    const first = text.split('\f')[0];
    expect(first).toContain('Balanse');
    expect(normalizeSpace(first)).toContain('Blåbær & Søn <Øst> "Æra" AS (912 345 678) · per 31.12.2025');
    expect(text).toContain('Leverandørgjeld');
    expect(text).toContain('Omløpsmidler');
    const ap = await pdfText(await renderPdf(tables[5].table), 'letters-ap');
    expect(ap).toContain('Leverandørreskontro');
    expect(ap).toContain('Ærlig Ølbryggeri & Søn');
  });

  it('"the headers on every page (Side 2 av …)" for the 120-line general ledger, with page numbers "Side n av N"', async () => {
    const { table } = tables[4];
    const text = await pdfText(await renderPdf(table), 'pages');
    const pages = text.split('\f').filter((p) => p.trim());
    expect(pages.length).toBeGreaterThan(1);
    const header = table.columns.map((c) => c.label).join(' ');
    pages.forEach((page, i) => {
      expect(page.split('\n').map(normalizeSpace), `page ${i + 1}`).toContain(header);
      expect(page).toContain(`Side ${i + 1} av ${pages.length}`);
    });
    expect(text).toContain('Side 2 av');
    expect(pages[1]).not.toContain('Hovedbok'); // the title is on the first page only
  });

  it('"A4, landscape when there are more than 6 columns", Producer and Creator regnskap-api', async () => {
    const info = async (table: ReportTable, name: string) => {
      const file = join(workdir, `${name}.pdf`);
      writeFileSync(file, await renderPdf(table));
      return (await promisify(execFile)('pdfinfo', [file])).stdout;
    };
    const portrait = await info(tables[0].table, 'portrait');
    expect(portrait).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
    expect(portrait).toMatch(/Producer:\s+regnskap-api/);
    expect(portrait).toMatch(/Creator:\s+regnskap-api/);
    expect(await info(tables[1].table, 'landscape')).toMatch(/Page size:\s+841\.89 x 595\.28 pts \(A4\)/);
  });

  it('"no truncated account names in the PDF (wrap)": a long name wraps onto further lines of its row, every word kept, no ellipsis', async () => {
    const long = 'Svært lang kontobeskrivelse for æøå-kontoen som ikke får plass i kolonnen sin på en liggende A4-side '.repeat(3).trim();
    const body = incomeStatement.map((r, i) => (i === 0 ? { ...r, account_name: long } : r));
    const text = await pdfText(await renderPdf(await present('income-statement', body, context(PERIOD))), 'ellipsis');
    expect(text).not.toContain('…');
    expect(text).toMatch(new RegExp(long.split(' ').map(escapeRegExp).join('\\s+(?:\\S+\\s+)*?')));
  });
});

// ---- renderReport ----

describe('renderReport: the body, Content-Type and file name per media type (PDF and Excel drawn in a worker thread)', () => {
  const pool = heavyWork({ threads: 1, maxMemoryMb: 256, timeoutMs: 60_000, limits: DEFAULT_FILE_LIMITS });
  afterAll(() => pool.close());
  it.each([
    [REPORT_MEDIA_TYPES.xlsx, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'saldobalanse-2025-01-01-2025-12-31.xlsx'],
    [REPORT_MEDIA_TYPES.html, 'text/html; charset=utf-8', 'saldobalanse-2025-01-01-2025-12-31.html'],
    [REPORT_MEDIA_TYPES.pdf, 'application/pdf', 'saldobalanse-2025-01-01-2025-12-31.pdf'],
  ])('%s → %s, %s', async (mediaType, contentType, fileName) => {
    const out = await renderReport(tables[2].table, mediaType, pool);
    expect(out.contentType).toBe(contentType);
    expect(out.fileName).toBe(fileName);
    if (mediaType === REPORT_MEDIA_TYPES.html) {
      expect(typeof out.body).toBe('string');
      expect(out.headers).toEqual({ 'Content-Security-Policy': REPORT_HTML_CSP });
    }
    else expect(Buffer.isBuffer(out.body)).toBe(true);
    if (mediaType === REPORT_MEDIA_TYPES.pdf) expect((out.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    if (mediaType === REPORT_MEDIA_TYPES.xlsx) expect((out.body as Buffer).subarray(0, 2).toString()).toBe('PK');
  });
});
