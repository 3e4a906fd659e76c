import { decimalOf, formatDate, formatOrganizationNumber, moneyCell } from '../../shared/norwegian-format.ts';
import type { Cell, ReportChart, ReportColumn, ReportRow, ReportTable } from './render/model.ts';
import { Decimal, formatDate as isoDate } from '../../shared/scalars.ts';
import { osloToday } from '../journal-entries/journal-entries.rules.ts';
import { defaultPeriod } from './reports.rules.ts';
import type { Grouping } from './grouping.ts';
import type { BalanceSheetRow, IncomeStatementRow, LedgerFile, LedgerRow, TrialBalanceRow } from './reports.service.ts';

/**
 * A report's rows, as its service computes them → the one ReportTable every file format draws
 * (render/). The presenters copy the service's figures into cells and never recompute one: the only
 * numbers they make are sums of those figures (subtotals, totals, a row's year total, the running
 * balance of a ledger, the chart's series), exact decimals kept as decimal text in the cells, so
 * 1000000000003584.01 keeps its øre. The JSON answer is the same rows under the spec's names, so the
 * files agree with it cell for cell (after the presentation's sign).
 */

export type ReportName =
  | 'balance-sheet'
  | 'income-statement'
  | 'trial-balance'
  | 'general-ledger'
  | 'accounts-payable'
  | 'accounts-receivable';

export interface PresentContext {
  company: { displayName: string; organizationNumber: string | null };
  /** the request's query parameters as given, snake_case */
  query: Record<string, string | undefined>;
}

/** The rows each report's file is drawn from (the service's own results). */
export interface ReportRows {
  'balance-sheet': BalanceSheetRow[];
  'income-statement': IncomeStatementRow[];
  'trial-balance': TrialBalanceRow[];
  'general-ledger': LedgerFile;
  'accounts-payable': LedgerFile;
  'accounts-receivable': LedgerFile;
}

// ---- titles, subtitles, file names ----

const TITLES: Record<ReportName, string> = {
  'balance-sheet': 'Balanse',
  'income-statement': 'Resultatregnskap',
  'trial-balance': 'Saldobalanse',
  'general-ledger': 'Hovedbok',
  'accounts-payable': 'Leverandørreskontro',
  'accounts-receivable': 'Kundereskontro',
};

/** ASCII base names of the downloads (æøå are not safe in every Content-Disposition reader). */
const FILE_NAMES: Record<ReportName, string> = {
  'balance-sheet': 'balanse',
  'income-statement': 'resultatregnskap',
  'trial-balance': 'saldobalanse',
  'general-ledger': 'hovedbok',
  'accounts-payable': 'leverandorreskontro',
  'accounts-receivable': 'kundereskontro',
};

const isIsoDate = (s: string | undefined): s is string => !!s && /^\d{4}-\d{2}-\d{2}$/.test(s);

interface Period {
  /** e.g. 'per 31.12.2025', '01.01.2025–31.12.2025' */
  text: string;
  /** the dates for the file name */
  dates: string[];
}

function periodOf(report: ReportName, query: PresentContext['query']): Period {
  if (report === 'balance-sheet') {
    const date = isIsoDate(query.report_date) ? query.report_date : isoDate(osloToday());
    return { text: `per ${formatDate(date)}`, dates: [date] };
  }
  let from = isIsoDate(query.date_from) ? query.date_from : undefined;
  let to = isIsoDate(query.date_to) ? query.date_to : undefined;
  // the period the report used when dates were left out (income statement, general ledger)
  if (report === 'income-statement' || report === 'general-ledger') {
    const period = defaultPeriod(from ? new Date(from) : null, to ? new Date(to) : null);
    [from, to] = [isoDate(period.dateFrom), isoDate(period.dateTo)];
  }
  if (from && to) return { text: `${formatDate(from)}–${formatDate(to)}`, dates: [from, to] };
  if (from) return { text: `fra ${formatDate(from)}`, dates: [from] };
  if (to) return { text: `til ${formatDate(to)}`, dates: [to] };
  return { text: 'alle datoer', dates: [] };
}

function frame(report: ReportName, context: PresentContext, extra?: string): Pick<ReportTable, 'title' | 'subtitle' | 'fileName'> {
  const { company, query } = context;
  const period = periodOf(report, query);
  const org = company.organizationNumber ? ` (${formatOrganizationNumber(company.organizationNumber)})` : '';
  const subtitle = [`${company.displayName}${org}`, period.text, extra].filter(Boolean).join(' · ');
  return { title: TITLES[report], subtitle, fileName: [FILE_NAMES[report], ...period.dates].join('-') };
}

// ---- exact sums ----

/** Sums of money cells per column key, exact. */
class Sums {
  private readonly sums = new Map<string, Decimal>();
  constructor(private readonly keys: string[]) {}
  add(cells: Record<string, Cell>): void {
    for (const key of this.keys) {
      const v = cells[key];
      if (v !== null && v !== undefined && v !== '') this.sums.set(key, (this.sums.get(key) ?? new Decimal(0)).plus(decimalOf(v)));
    }
  }
  cells(): Record<string, string> {
    return Object.fromEntries(this.keys.map((key) => [key, moneyCell(this.sums.get(key) ?? 0)]));
  }
}

// ---- the three-level account reports (balance sheet, income statement, trial balance) ----

interface AccountLine {
  grouping: Grouping;
  cells: Record<string, Cell>;
}

interface GroupNode {
  code: string | null;
  name: string | null;
  children: Map<string, GroupNode>;
  lines: AccountLine[];
}

const levelOf = (g: Grouping, level: 1 | 2 | 3): { code: string | null; name: string | null } => ({
  code: g[`level${level}Code`] ?? null,
  name: g[`level${level}Name`] ?? null,
});

/**
 * Rows under headings per grouping level (of `levels`), each group closed by a subtotal. Groups keep
 * the order they first appear in the JSON (the route's account order); a level with neither code nor
 * name gets no heading of its own (its rows sit directly under the level above), and neither does a
 * level with its parent's code: NS 4102 levels that cover one account range (20 Egenkapital, 80
 * Finansinntekter, 82-89) are one group, and a second heading would repeat it with a second "Sum".
 */
function groupedRows(lines: AccountLine[], sumKeys: string[], levels: readonly (1 | 2 | 3)[] = [1, 2, 3], depth0 = 0): { rows: ReportRow[]; sums: Record<string, string> } {
  const root: GroupNode = { code: null, name: null, children: new Map(), lines: [] };
  for (const line of lines) {
    let node = root;
    for (const level of levels) {
      const { code, name } = levelOf(line.grouping, level);
      if (code === null && name === null) continue;
      if (code !== null && code === node.code) continue;
      const key = `${code ?? ''}\u0000${name ?? ''}`;
      let child = node.children.get(key);
      if (!child) node.children.set(key, (child = { code, name, children: new Map(), lines: [] }));
      node = child;
    }
    node.lines.push(line);
  }

  const rows: ReportRow[] = [];
  const emit = (node: GroupNode, depth: number): Sums => {
    const sums = new Sums(sumKeys);
    for (const line of node.lines) {
      rows.push({ kind: 'detail', depth, cells: line.cells });
      sums.add(line.cells);
    }
    for (const child of node.children.values()) {
      rows.push({ kind: 'group', depth, cells: { account_code: child.code, account_name: child.name ?? '' } });
      const childSums = emit(child, depth + 1);
      rows.push({ kind: 'group', depth, cells: { account_code: child.code, account_name: `Sum ${child.name ?? ''}`.trim(), ...childSums.cells() } });
      sums.add(childSums.cells());
    }
    return sums;
  };
  const sums = emit(root, depth0).cells();
  return { rows, sums };
}

/** The grouped rows closed by a grand total. */
function groupedRowsWithTotal(lines: AccountLine[], sumKeys: string[], totalLabel: string): ReportRow[] {
  const { rows, sums } = groupedRows(lines, sumKeys);
  return [...rows, { kind: 'total', depth: 0, cells: { account_code: null, account_name: totalLabel, ...sums } }];
}

/**
 * The files show the income statement and the balance sheet as NS 4102 presents them, income,
 * equity and liabilities positive and costs positive, while the JSON keeps the ledger's debit sign
 * (the spec's shapes and signs). This sentence goes into each file's legend so a reader knows.
 */
export const PRESENTATION_SIGN_LEGEND = 'Inntekter, egenkapital og gjeld vises med positivt fortegn; kostnader vises positive.';

/** The NS 4102 two-digit account group of a code (NaN when it has none). */
const groupNumber = (code: string): number => Number(/^\d\d/.exec(String(code ?? ''))?.[0] ?? NaN);

/** Credit-natured groups the files show with the sign flipped: class 2, revenue (3), financial income (80), extraordinary income (82). */
const presentedNegated = (code: string): boolean => {
  const g = groupNumber(code);
  return (g >= 20 && g <= 39) || g === 80 || g === 82;
};

/** A JSON figure as the files show it (PRESENTATION_SIGN_LEGEND). */
export const presentedFigure = (code: string, figure: unknown): string => moneyCell(presentedNegated(code) ? decimalOf(figure).negated() : decimalOf(figure));

const ACCOUNT_COLUMNS: ReportColumn[] = [
  { key: 'account_code', label: 'Konto', kind: 'text' },
  { key: 'account_name', label: 'Kontonavn', kind: 'text' },
];

const RELATION_COLUMNS: ReportColumn[] = [
  { key: 'relation_type', label: 'Dimensjonstype', kind: 'text' },
  { key: 'relation_name', label: 'Dimensjon', kind: 'text' },
];


/** The main side of the balance sheet chart a row belongs to, by account class (first digit). */
const accountClass = (code: string): string => String(code ?? '').trim().charAt(0);

function presentBalanceSheet(data: BalanceSheetRow[], context: PresentContext): ReportTable {
  const columns: ReportColumn[] = [...ACCOUNT_COLUMNS, { key: 'balance', label: 'Saldo', kind: 'money' }];
  const lines = data.map((r) => ({ grouping: r.grouping, cells: { account_code: r.accountCode, account_name: r.accountName, balance: presentedFigure(r.accountCode, r.balance) } }));
  // No grand total: with equity and liabilities shown positive, "Sum Eiendeler" and "Sum Egenkapital
  // og gjeld" are the two figures that agree, and a sum of both would mean nothing.
  const { rows } = groupedRows(lines, ['balance']);

  // The chart: assets (class 1) against equity and liabilities (class 2, shown positive), each side
  // split by its level-2 groups (level 1 when a row has no level 2).
  const sides = [
    { cls: '1', label: 'Eiendeler', sign: 1 },
    { cls: '2', label: 'Egenkapital og gjeld', sign: -1 },
  ].map(({ cls, label, sign }) => {
    const parts = new Map<string, Decimal>();
    for (const r of data) {
      if (accountClass(r.accountCode) !== cls) continue;
      const l2 = levelOf(r.grouping, 2);
      const l1 = levelOf(r.grouping, 1);
      const partLabel = l2.name ?? l2.code ?? l1.name ?? l1.code ?? label;
      parts.set(partLabel, (parts.get(partLabel) ?? new Decimal(0)).plus(r.balance.times(sign)));
    }
    return { label, parts: [...parts].map(([partLabel, sum]) => ({ label: partLabel, value: moneyCell(sum) })) };
  });
  const chart: ReportChart = { kind: 'split', title: 'Eiendeler mot egenkapital og gjeld', sides };

  return { ...frame('balance-sheet', context), legend: PRESENTATION_SIGN_LEGEND, columns, rows, chart };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'mai', 'jun', 'jul', 'aug', 'sep', 'okt', 'nov', 'des'];
const MONTH_KEYS = MONTHS.map((_, i) => `m${i + 1}`);

function presentIncomeStatement(data: IncomeStatementRow[], context: PresentContext): ReportTable {
  const withRelations = !!context.query.group_by_dimension || data.some((r) => r.relationType != null);
  const columns: ReportColumn[] = [
    ...ACCOUNT_COLUMNS,
    ...(withRelations ? RELATION_COLUMNS : []),
    ...MONTHS.map((label, i) => ({ key: MONTH_KEYS[i], label, kind: 'money' as const })),
    { key: 'total', label: 'Sum', kind: 'money' },
  ];
  const sumKeys = [...MONTH_KEYS, 'total'];
  /** A row's cells with its figures as the JSON has them (debit positive) or as the files show them. */
  const cellsOf = (r: IncomeStatementRow, sign: (figure: unknown) => string): Record<string, Cell> => {
    const cells: Record<string, Cell> = { account_code: r.accountCode, account_name: r.accountName };
    if (withRelations) Object.assign(cells, { relation_type: r.relationType, relation_name: r.relationName });
    let total = new Decimal(0);
    MONTH_KEYS.forEach((key, i) => {
      const v = r.months[i];
      cells[key] = sign(v);
      total = total.plus(v);
    });
    cells.total = sign(total);
    return cells;
  };

  // The NS 4102 statement: blocks of account groups, each closed by the result it leads to. A result
  // line is −(the debit movements of every row above it), so income positive; the dispositions (88-89)
  // come below Årsresultat and are not summed into it, they say where it went.
  const BLOCKS: { from: number; to: number; levels: readonly (1 | 2 | 3)[]; heading?: string; result: string }[] = [
    { from: 30, to: 79, levels: [2, 3], result: 'Driftsresultat' },
    { from: 80, to: 81, levels: [2, 3], result: 'Resultat før skattekostnad' },
    { from: 82, to: 87, levels: [3], result: 'Årsresultat' },
    // NS 4102 names group 88 "Årsresultat" and 89 "Overføringer og disponeringer": under one heading
    // their accounts stand alone, so neither the result's name nor the heading repeats
    { from: 88, to: 89, levels: [], heading: 'Overføringer og disponeringer', result: 'Sum overføringer og disponeringer' },
  ];
  const rows: ReportRow[] = [];
  const resultSoFar = new Sums(sumKeys);
  for (const block of BLOCKS) {
    const inBlock = data.filter((r) => groupNumber(r.accountCode) >= block.from && groupNumber(r.accountCode) <= block.to);
    const lines = inBlock.map((r) => ({ grouping: r.grouping, cells: cellsOf(r, (v) => presentedFigure(r.accountCode, v)) }));
    const blockSums = new Sums(sumKeys);
    for (const r of inBlock) blockSums.add(cellsOf(r, (v) => moneyCell(decimalOf(v).negated())));
    const isDisposition = block.heading !== undefined;
    if (!isDisposition) resultSoFar.add(blockSums.cells());
    // a result line always shows (a year's statement has all three), dispositions only when there are any
    if (isDisposition && inBlock.length === 0) continue;
    if (block.heading) rows.push({ kind: 'group', depth: 0, cells: { account_code: null, account_name: block.heading } });
    rows.push(...groupedRows(lines, sumKeys, block.levels, block.heading ? 1 : 0).rows);
    // dispositions are shown as debits (the transfer of a profit to equity is positive), so they equal Årsresultat
    const result = isDisposition ? Object.fromEntries(Object.entries(blockSums.cells()).map(([k, v]) => [k, moneyCell(decimalOf(v).negated())])) : resultSoFar.cells();
    rows.push({ kind: 'total', depth: 0, cells: { account_code: null, account_name: block.result, ...result } });
  }
  // Rows outside NS 4102's result classes (an account code without two digits) keep their own block.
  const others = data.filter((r) => !BLOCKS.some((b) => groupNumber(r.accountCode) >= b.from && groupNumber(r.accountCode) <= b.to));
  if (others.length > 0) rows.push(...groupedRowsWithTotal(others.map((r) => ({ grouping: r.grouping, cells: cellsOf(r, moneyCell) })), sumKeys, 'Sum andre kontoer'));

  // The operating result per month (classes 3-7), income positive: the year-end closing entries on
  // tax (83) and the transfer to equity (88) are not the month's operations.
  const operating = data.filter((r) => groupNumber(r.accountCode) >= 30 && groupNumber(r.accountCode) <= 79);
  const bars = MONTHS.map((label, i) => {
    const sum = operating.reduce((s, r) => s.plus(r.months[i]), new Decimal(0));
    return { label, value: moneyCell(sum.negated()) };
  });
  const chart: ReportChart = { kind: 'bars', title: 'Driftsresultat per måned', bars };

  return { ...frame('income-statement', context), legend: PRESENTATION_SIGN_LEGEND, columns, rows, chart };
}

function presentTrialBalance(data: TrialBalanceRow[], context: PresentContext): ReportTable {
  const includeDimensions = context.query.include_dimensions !== 'false';
  const withRelations = includeDimensions && data.some((r) => r.relationType != null || r.relationName != null);
  const columns: ReportColumn[] = [
    ...ACCOUNT_COLUMNS,
    ...(withRelations ? RELATION_COLUMNS : []),
    { key: 'incoming_balance', label: 'Inngående saldo', kind: 'money' },
    { key: 'debit', label: 'Debet', kind: 'money' },
    { key: 'credit', label: 'Kredit', kind: 'money' },
    { key: 'outgoing_balance', label: 'Utgående saldo', kind: 'money' },
  ];
  const lines = data.map((r) => {
    const cells: Record<string, Cell> = { account_code: r.accountCode, account_name: r.accountName };
    if (withRelations) Object.assign(cells, { relation_type: r.relationType, relation_name: r.relationName });
    Object.assign(cells, { incoming_balance: moneyCell(r.incomingBalance), debit: moneyCell(r.debit), credit: moneyCell(r.credit), outgoing_balance: moneyCell(r.outgoingBalance) });
    return { grouping: r.grouping, cells };
  });
  const rows = groupedRowsWithTotal(lines, ['incoming_balance', 'debit', 'credit', 'outgoing_balance'], 'Sum');
  return { ...frame('trial-balance', context), columns, rows };
}

// ---- general ledger and the two sub-ledgers ----

/** The partner of a sub-ledger line: its business-partner dimension, else its document's partner. */
const partnerOf = (r: LedgerRow): string | null => r.partnerName ?? r.journalEntry.relatedObject?.businessPartner?.name ?? null;

/**
 * Every line of the period (the file reads all of them, batch by batch), one block per account:
 * "inngående saldo", the lines each with the account's running balance (incoming + the debit −
 * credit of the lines so far), "utgående saldo" (the service's figure, which the last running
 * balance equals).
 */
async function presentLedger(report: 'general-ledger' | 'accounts-payable' | 'accounts-receivable', ledger: LedgerFile, context: PresentContext): Promise<ReportTable> {
  const withPartner = report !== 'general-ledger';
  const columns: ReportColumn[] = [
    { key: 'account_code', label: 'Konto', kind: 'text' },
    { key: 'posting_date', label: 'Dato', kind: 'date' },
    { key: 'voucher', label: 'Bilag', kind: 'integer' },
    ...(withPartner ? [{ key: 'partner', label: 'Partner', kind: 'text' as const }] : []),
    { key: 'description', label: 'Beskrivelse', kind: 'text' },
    { key: 'tax_code', label: 'MVA-kode', kind: 'text' },
    { key: 'currency_code', label: 'Valuta', kind: 'text' },
    { key: 'debit', label: 'Debet', kind: 'money' },
    { key: 'credit', label: 'Kredit', kind: 'money' },
    // last, as a ledger reads and so the HTML keeps it in view while the other columns scroll
    { key: 'balance', label: 'Saldo', kind: 'money' },
  ];

  const rows: ReportRow[] = [];
  interface Block {
    code: string;
    name: string;
    outgoing: Decimal;
    running: Decimal;
  }
  let open = null as Block | null;
  const close = (block: Block | null) => {
    if (block) rows.push({ kind: 'group', depth: 0, cells: { account_code: block.code, description: `${block.name} – utgående saldo`.trim(), balance: moneyCell(block.outgoing) } });
  };
  for await (const batch of ledger.batches) {
    for (const r of batch) {
      const g = r.grouping;
      if (open?.code !== g.level1Code) {
        close(open);
        open = { code: g.level1Code, name: g.level1Name, outgoing: g.outgoingBalance, running: g.incomingBalance };
        rows.push({ kind: 'group', depth: 0, cells: { account_code: g.level1Code, description: `${g.level1Name} – inngående saldo`.trim(), balance: moneyCell(g.incomingBalance) } });
      }
      open.running = open.running.plus(r.debit).minus(r.credit);
      const cells: Record<string, Cell> = {
        account_code: r.accountCode,
        posting_date: isoDate(r.postingDate),
        voucher: r.journalEntry.sequenceNumber,
        description: r.description ?? r.journalEntry.description ?? null,
        debit: moneyCell(r.debit),
        credit: moneyCell(r.credit),
        balance: moneyCell(open.running),
        tax_code: r.taxCode,
        currency_code: r.currencyCode,
      };
      if (withPartner) cells.partner = partnerOf(r);
      rows.push({ kind: 'detail', depth: 1, cells });
    }
  }
  close(open);
  return { ...frame(report, context, `${ledger.records} ${ledger.records === 1 ? 'linje' : 'linjer'}`), columns, rows };
}

export function presentReport<R extends ReportName>(report: R, rows: ReportRows[R], context: PresentContext): Promise<ReportTable>;
export async function presentReport(report: ReportName, rows: ReportRows[ReportName], context: PresentContext): Promise<ReportTable> {
  switch (report) {
    case 'balance-sheet':
      return presentBalanceSheet(rows as BalanceSheetRow[], context);
    case 'income-statement':
      return presentIncomeStatement(rows as IncomeStatementRow[], context);
    case 'trial-balance':
      return presentTrialBalance(rows as TrialBalanceRow[], context);
    case 'general-ledger':
    case 'accounts-payable':
    case 'accounts-receivable':
      return presentLedger(report, rows as LedgerFile, context);
  }
}
