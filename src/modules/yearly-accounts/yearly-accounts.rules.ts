import { z } from 'zod';
import { cursorRules, orderByNames, pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { Decimal, formatDate } from '../../shared/scalars.ts';
import { formatDate as isoToNorwegian } from '../../shared/norwegian-format.ts';
import { decimal, id, required } from '../../shared/validation.ts';

/**
 * Yearly accounts (spec 002 "Yearly account submission", "Yearly accounts"): the statuses and their
 * transitions, the inputs of every operation, the note shape and the small-enterprise figures
 * (regnskapsloven § 3-2, small enterprises: the line items of LINE_ITEMS and the section sums)
 * computed from ledger balances.
 */
export const YEARLY_ACCOUNT_STATUSES = ['DRAFT', 'SUBMITTED', 'APPROVED', 'REJECTED', 'CANCELLED'] as const;
export type YearlyAccountStatus = (typeof YEARLY_ACCOUNT_STATUSES)[number];

export const YEARLY_ACCOUNT_STATUS_DESCRIPTIONS: Record<YearlyAccountStatus, string> = {
  DRAFT: 'Made by POST /drafts with notes generated from the ledger; the notes may be edited; submit or cancel it',
  SUBMITTED: 'Filed with the government portal (portal_instance_id); awaiting the authority’s assessment; may be cancelled',
  APPROVED: 'Accepted by the authority (read from the portal when the submission is fetched)',
  REJECTED: 'Rejected by the authority (error_message says why); a new submission for the year may be made',
  CANCELLED: 'Cancelled here and, when it had a portal instance, at the portal; a new submission for the year may be made',
};

/** spec 002 "States and transitions": submit only from DRAFT; cancel from DRAFT or SUBMITTED. */
export const CAN_SUBMIT: readonly YearlyAccountStatus[] = ['DRAFT'];
export const CAN_CANCEL: readonly YearlyAccountStatus[] = ['DRAFT', 'SUBMITTED'];
/** Statuses that hold the account's year: another draft or submission for it is refused (400). */
export const OPEN_STATUSES: readonly YearlyAccountStatus[] = ['DRAFT', 'SUBMITTED', 'APPROVED'];

export const YEARLY_ACCOUNT_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 1000 };

export const YEARLY_ACCOUNT_ORDER = {
  id: 'id',
  reporting_year: 'reportingYear',
  status: 'status',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  submitted_at: 'submittedAt',
} as const;
export const DEFAULT_YEARLY_ACCOUNT_ORDER = ['-reporting_year', '-id'];

const year = z.number(required).int('must be a whole year').min(1900, 'must be a year from 1900 to 2999').max(2999, 'must be a year from 1900 to 2999');

// ── Notes ────────────────────────────────────────────────────────────────────────────────────────

export const NOTE_BODY_TYPES = ['text', 'table'] as const;
export type NoteBodyType = (typeof NOTE_BODY_TYPES)[number];

export interface NoteTable {
  columns: string[];
  rows: string[][];
}

/** spec 002 note object: {note_number, key, title, body_type, body, footer_text?} (camelCase in-process). */
export interface Note {
  noteNumber: number;
  key: string;
  title: string;
  bodyType: NoteBodyType;
  body: string | NoteTable;
  footerText?: string | null;
}

const cell = z.string('must be a string').max(2000, 'must be at most 2000 characters');
const table = z.object(
  {
    columns: z.array(cell, 'must be an array of strings').min(1, 'must name at least one column').max(20, 'at most 20 columns'),
    rows: z.array(z.array(cell, 'must be an array of strings'), 'must be an array of rows').max(500, 'at most 500 rows'),
  },
  'must be a table object {columns, rows}',
);

export const noteSchema = z
  .object({
    noteNumber: z.number(required).int('must be a whole number').min(1, 'must be at least 1').max(999, 'must be at most 999'),
    /** spec 002 gives no form: any text (the generated notes use snake_case keys); unique in the list */
    key: z.string(required).trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'),
    title: z.string(required).trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    bodyType: z.enum(NOTE_BODY_TYPES, 'must be text or table'),
    body: z.custom<string | NoteTable>((v) => v !== undefined && v !== null, 'is required'),
    footerText: z.string().max(2000, 'must be at most 2000 characters').nullish(),
  })
  .superRefine((n, ctx) => {
    if (n.bodyType === 'text') {
      if (typeof n.body !== 'string') ctx.addIssue({ code: 'custom', path: ['body'], message: 'must be a string when body_type is text' });
      else if (n.body.length > 20000) ctx.addIssue({ code: 'custom', path: ['body'], message: 'must be at most 20000 characters' });
      return;
    }
    const t = table.safeParse(n.body);
    if (!t.success) {
      for (const issue of t.error.issues) ctx.addIssue({ code: 'custom', path: ['body', ...(issue.path as (string | number)[])], message: issue.message });
      return;
    }
    for (const [i, row] of t.data.rows.entries()) {
      if (row.length !== t.data.columns.length) ctx.addIssue({ code: 'custom', path: ['body', 'rows', i], message: `must have ${t.data.columns.length} cells, one per column` });
    }
  });

const notes = z
  .array(noteSchema, required)
  .max(100, 'at most 100 notes')
  .superRefine((list, ctx) => {
    const numbers = new Set<number>();
    const keys = new Set<string>();
    for (const [i, n] of list.entries()) {
      if (numbers.has(n.noteNumber)) ctx.addIssue({ code: 'custom', path: [i, 'noteNumber'], message: `note_number ${n.noteNumber} is used by another note` });
      if (keys.has(n.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `key ${n.key} is used by another note` });
      numbers.add(n.noteNumber);
      keys.add(n.key);
    }
  });

// ── Annual allocations ───────────────────────────────────────────────────────────────────────────

/** A journal line's amount (Decimal(18, 2)); the journal entries service checks the rest, as for any entry. */
const amount = decimal({ precision: 18, scale: 2, min: 0 });

const allocationLine = z
  .object({
    accountCode: z.string(required).trim().min(1, 'must not be empty').max(10, 'must be at most 10 characters'),
    debit: amount,
    credit: amount,
  })
  .superRefine((l, ctx) => {
    if (!(l.debit instanceof Decimal) || !(l.credit instanceof Decimal)) return;
    if (l.debit.isZero() === l.credit.isZero()) ctx.addIssue({ code: 'custom', path: ['credit'], message: 'exactly one of debit and credit must be non-zero' });
  });

/** The default description of an annual allocation entry. */
export const allocationDescription = (reportingYear: number) => `Årsavslutning ${reportingYear}: disponering av årsresultat`;

// ── Inputs ───────────────────────────────────────────────────────────────────────────────────────

const period = {
  clientAccountId: id,
  reportingYear: year,
  fromDate: z.date().nullish(),
  toDate: z.date().nullish(),
};

/** from/to default to the calendar year; from ≤ to and both within a span of at most 18 months. */
const periodOf = <T extends { reportingYear: number; fromDate?: Date | null; toDate?: Date | null }>(v: T) => ({
  ...v,
  fromDate: v.fromDate ?? new Date(Date.UTC(v.reportingYear, 0, 1)),
  toDate: v.toDate ?? new Date(Date.UTC(v.reportingYear, 11, 31)),
});
const orderedPeriod = (v: { fromDate: Date; toDate: Date }, ctx: z.RefinementCtx) => {
  if (v.fromDate > v.toDate) ctx.addIssue({ code: 'custom', path: ['toDate'], message: 'must not be before from_date' });
  else if (v.toDate.getTime() - v.fromDate.getTime() > 548 * 86_400_000) ctx.addIssue({ code: 'custom', path: ['toDate'], message: 'a reporting period is at most 18 months' });
};

export const yearlyAccountRules = {
  preview: z.object(period).transform(periodOf).superRefine(orderedPeriod),
  list: z.object({
    clientAccountId: z.array(id).max(1000, 'names at most 1000 client accounts').nullish(),
    reportingYear: year.nullish(),
    status: z.array(z.enum(YEARLY_ACCOUNT_STATUSES)).max(10).nullish(),
    orderBy: orderByNames(YEARLY_ACCOUNT_ORDER),
    page: pageArgs.page,
    /** spec 002: yearly accounts are paged with page_size (not per_page) */
    pageSize: pageArgs.perPage,
    ...cursorRules,
  }),
  create: z.object({ input: z.object(period).transform(periodOf).superRefine(orderedPeriod) }),
  notes: z.object({ id, notes }),
  allocation: z.object({
    input: z.object({
      clientAccountId: id,
      reportingYear: year,
      lines: z.array(allocationLine, required).min(2, 'an allocation needs at least two lines (a debit and a credit)').max(100, 'at most 100 lines'),
      description: z.string().trim().max(1000, 'must be at most 1000 characters').nullish(),
    }).superRefine((a, ctx) => {
      let debit = new Decimal(0);
      let credit = new Decimal(0);
      for (const l of a.lines) {
        if (l.debit instanceof Decimal) debit = debit.plus(l.debit);
        if (l.credit instanceof Decimal) credit = credit.plus(l.credit);
      }
      if (!debit.equals(credit)) ctx.addIssue({ code: 'custom', path: ['lines'], message: `lines do not balance: debit ${debit.toFixed(2)}, credit ${credit.toFixed(2)}` });
    }),
  }),
};

// ── Figures ──────────────────────────────────────────────────────────────────────────────────────

/** A line of the income statement or balance sheet: this year's and the previous year's amount. */
export interface FigureLine {
  key: string;
  label: string;
  amount: Decimal;
  previousAmount: Decimal;
  isSum: boolean;
}

/** Account groups (first two digits) of each section; `sign` -1 shows credits positive. */
interface Section {
  key: string;
  label: string;
  groups: readonly [number, number][];
  sign: 1 | -1;
}

/**
 * The small-enterprise income statement (resultatregnskap) by NS 4102 account groups. 88-89
 * (årsresultat, overføringer og disponeringer) are the allocations of the result, not part of it:
 * their lines are in LINE_ITEMS (section 'disponering').
 */
export const INCOME_SECTIONS: readonly Section[] = [
  { key: 'salgsinntekt', label: 'Salgsinntekt', groups: [[30, 35]], sign: -1 },
  { key: 'annen_driftsinntekt', label: 'Annen driftsinntekt', groups: [[36, 39]], sign: -1 },
  { key: 'varekostnad', label: 'Varekostnad', groups: [[40, 49]], sign: 1 },
  { key: 'lonnskostnad', label: 'Lønnskostnad', groups: [[50, 59]], sign: 1 },
  { key: 'avskrivning', label: 'Avskrivning på varige driftsmidler og immaterielle eiendeler', groups: [[60, 60]], sign: 1 },
  { key: 'annen_driftskostnad', label: 'Annen driftskostnad', groups: [[61, 79]], sign: 1 },
  { key: 'finansinntekt', label: 'Annen finansinntekt', groups: [[80, 80], [82, 82]], sign: -1 },
  { key: 'finanskostnad', label: 'Annen finanskostnad', groups: [[81, 81], [84, 85]], sign: 1 },
  { key: 'skattekostnad', label: 'Skattekostnad', groups: [[83, 83], [86, 87]], sign: 1 },
];

/** The small-enterprise balance sheet (balanse): assets debit-positive, equity and liabilities credit-positive. */
export const BALANCE_SECTIONS: readonly Section[] = [
  { key: 'anleggsmidler', label: 'Sum anleggsmidler', groups: [[10, 13]], sign: 1 },
  { key: 'omlopsmidler', label: 'Sum omløpsmidler', groups: [[14, 19]], sign: 1 },
  { key: 'egenkapital', label: 'Sum egenkapital', groups: [[20, 20]], sign: -1 },
  { key: 'langsiktig_gjeld', label: 'Sum langsiktig gjeld', groups: [[21, 22]], sign: -1 },
  { key: 'kortsiktig_gjeld', label: 'Sum kortsiktig gjeld', groups: [[23, 29]], sign: -1 },
];

/** A line item of the statements: the account ranges (first four digits, both ends included) it sums. */
export interface LineItem {
  key: string;
  label: string;
  /** the section (BALANCE_SECTIONS) a balance-sheet item belongs to; 'disponering' for the allocations */
  section: string;
  ranges: readonly [string, string][];
}

/**
 * THE MAPPING of the chart (NS 4102) to the line items of the yearly accounts, in the order they are
 * shown (regnskapsloven § 6-1 and § 6-2 as small enterprises may aggregate them). Every account 1000–
 * 2999 is in exactly one balance-sheet item, and each item lies inside its section's groups, so the
 * items sum to the section totals (yearly-accounts.rules.test.ts checks both). 88–89 are the
 * allocation of the year's result (overføringer og disponeringer), debit-positive: a closed year's
 * allocations sum to its årsresultat.
 */
export const LINE_ITEMS: readonly LineItem[] = [
  // Anleggsmidler (10–13)
  { key: 'immaterielle_eiendeler', label: 'Immaterielle eiendeler', section: 'anleggsmidler', ranges: [['1000', '1099']] },
  { key: 'tomter_bygninger', label: 'Tomter, bygninger og annen fast eiendom', section: 'anleggsmidler', ranges: [['1100', '1199']] },
  { key: 'maskiner_inventar', label: 'Maskiner, inventar, transportmidler o.l.', section: 'anleggsmidler', ranges: [['1200', '1299']] },
  { key: 'finansielle_anleggsmidler', label: 'Finansielle anleggsmidler', section: 'anleggsmidler', ranges: [['1300', '1399']] },
  // Omløpsmidler (14–19); kundefordringer as in the receivables note (1500–1549)
  { key: 'varer', label: 'Varer', section: 'omlopsmidler', ranges: [['1400', '1499']] },
  { key: 'kundefordringer', label: 'Kundefordringer', section: 'omlopsmidler', ranges: [['1500', '1549']] },
  { key: 'andre_fordringer', label: 'Andre fordringer', section: 'omlopsmidler', ranges: [['1550', '1799']] },
  { key: 'investeringer', label: 'Investeringer', section: 'omlopsmidler', ranges: [['1800', '1899']] },
  { key: 'bankinnskudd_kontanter', label: 'Bankinnskudd, kontanter o.l.', section: 'omlopsmidler', ranges: [['1900', '1999']] },
  // Egenkapital (20): innskutt 2000–2049, opptjent 2050–2099 (with the result not yet closed into it)
  { key: 'aksjekapital', label: 'Aksjekapital', section: 'egenkapital', ranges: [['2000', '2019']] },
  { key: 'overkurs', label: 'Overkurs', section: 'egenkapital', ranges: [['2020', '2029']] },
  { key: 'annen_innskutt_egenkapital', label: 'Annen innskutt egenkapital', section: 'egenkapital', ranges: [['2030', '2049']] },
  { key: 'annen_egenkapital', label: 'Annen egenkapital', section: 'egenkapital', ranges: [['2050', '2099']] },
  // Langsiktig gjeld (21–22)
  { key: 'avsetninger_forpliktelser', label: 'Avsetninger for forpliktelser', section: 'langsiktig_gjeld', ranges: [['2100', '2199']] },
  { key: 'gjeld_kredittinstitusjoner', label: 'Gjeld til kredittinstitusjoner', section: 'langsiktig_gjeld', ranges: [['2220', '2249']] },
  { key: 'annen_langsiktig_gjeld', label: 'Øvrig langsiktig gjeld', section: 'langsiktig_gjeld', ranges: [['2200', '2219'], ['2250', '2299']] },
  // Kortsiktig gjeld (23–29)
  { key: 'leverandorgjeld', label: 'Leverandørgjeld', section: 'kortsiktig_gjeld', ranges: [['2400', '2499']] },
  { key: 'betalbar_skatt', label: 'Betalbar skatt', section: 'kortsiktig_gjeld', ranges: [['2500', '2599']] },
  { key: 'skyldige_offentlige_avgifter', label: 'Skyldige offentlige avgifter', section: 'kortsiktig_gjeld', ranges: [['2600', '2799']] },
  { key: 'annen_kortsiktig_gjeld', label: 'Annen kortsiktig gjeld', section: 'kortsiktig_gjeld', ranges: [['2300', '2399'], ['2800', '2999']] },
  // Overføringer og disponeringer (88–89)
  { key: 'avsatt_utbytte', label: 'Avsatt til utbytte', section: 'disponering', ranges: [['8920', '8929']] },
  { key: 'andre_overforinger', label: 'Andre overføringer (fond, konsernbidrag)', section: 'disponering', ranges: [['8900', '8919'], ['8930', '8959']] },
  { key: 'overfort_udekket_tap', label: 'Overført til/fra udekket tap', section: 'disponering', ranges: [['8990', '8999']] },
  { key: 'overfort_annen_egenkapital', label: 'Overført til/fra annen egenkapital', section: 'disponering', ranges: [['8800', '8899'], ['8960', '8989']] },
];

/** An account's figure: code and amount (debit − credit). */
export interface Balance {
  code: string;
  amount: Decimal;
}

const groupOf = (code: string) => (/^\d\d/.test(code) ? Number(code.slice(0, 2)) : NaN);

/** The sum of (debit − credit) of the accounts in the groups, times the sign. */
export function sectionSum(balances: readonly Balance[], groups: readonly [number, number][], sign: 1 | -1 = 1): Decimal {
  let sum = new Decimal(0);
  for (const b of balances) {
    const g = groupOf(b.code);
    if (groups.some(([lo, hi]) => g >= lo && g <= hi)) sum = sum.plus(b.amount);
  }
  return sign === 1 ? sum : sum.negated();
}

/** The sum of (debit − credit) of the accounts whose codes start in [from, to] ('1370'–'1379': 1370, 13750 …). */
export function rangeSum(balances: readonly Balance[], from: string, to: string): Decimal {
  let sum = new Decimal(0);
  for (const b of balances) {
    const head = b.code.slice(0, from.length);
    if (/^\d+$/.test(head) && head.length === from.length && head >= from && head <= to) sum = sum.plus(b.amount);
  }
  return sum;
}

/**
 * Whether an account code is in a line item's ranges: its first four digits (a shorter code padded
 * with zeros, '19' as 1900, as sectionSum reads its first two digits).
 */
export function inRanges(code: string, ranges: readonly [string, string][]): boolean {
  if (!/^\d\d/.test(code)) return false;
  const head = /^\d+/.exec(code)![0].slice(0, 4).padEnd(4, '0');
  return ranges.some(([from, to]) => head >= from && head <= to);
}

/** The sum of (debit − credit) of the accounts in a line item, times the sign. */
export function itemSum(balances: readonly Balance[], item: LineItem, sign: 1 | -1 = 1): Decimal {
  let sum = new Decimal(0);
  for (const b of balances) if (inRanges(b.code, item.ranges)) sum = sum.plus(b.amount);
  return sign === 1 ? sum : sum.negated();
}

export const lineItem = (key: string): LineItem => {
  const found = LINE_ITEMS.find((i) => i.key === key);
  if (!found) throw new Error(`no line item ${key}`);
  return found;
};

function sections(current: readonly Balance[], previous: readonly Balance[]): Record<string, [Decimal, Decimal]> {
  const out: Record<string, [Decimal, Decimal]> = {};
  for (const s of [...INCOME_SECTIONS, ...BALANCE_SECTIONS]) out[s.key] = [sectionSum(current, s.groups, s.sign), sectionSum(previous, s.groups, s.sign)];
  return out;
}

const line = (key: string, label: string, [amount, previousAmount]: [Decimal, Decimal], isSum = false): FigureLine => ({ key, label, amount, previousAmount, isSum });
const both = (f: (i: 0 | 1) => Decimal): [Decimal, Decimal] => [f(0), f(1)];

/**
 * The income statement of a period and the previous one, from the result accounts' movements
 * (debit − credit per account): income positive, costs positive, results signed; then the
 * allocation of the result (overføringer og disponeringer, 88–89, debit-positive). A result not (or
 * not fully) allocated by a closing entry stays in 2050 in the balance sheet (the reports count the
 * unclosed result there), so the rest is shown as transferred to annen egenkapital, as the balance
 * sheet counts it: the allocations always sum to årsresultat (a check warns when the books have not
 * allocated it).
 */
export function incomeStatementLines(current: readonly Balance[], previous: readonly Balance[]): FigureLine[] {
  const s = sections(current, previous);
  const income = both((i) => s.salgsinntekt[i].plus(s.annen_driftsinntekt[i]));
  const costs = both((i) => s.varekostnad[i].plus(s.lonnskostnad[i]).plus(s.avskrivning[i]).plus(s.annen_driftskostnad[i]));
  const operating = both((i) => income[i].minus(costs[i]));
  const beforeTax = both((i) => operating[i].plus(s.finansinntekt[i]).minus(s.finanskostnad[i]));
  const result = both((i) => beforeTax[i].minus(s.skattekostnad[i]));
  const by = (key: string) => INCOME_SECTIONS.find((x) => x.key === key)!;
  const plain = (key: string) => line(key, by(key).label, s[key]);
  const allocation = (key: string): [Decimal, Decimal] => [itemSum(current, lineItem(key)), itemSum(previous, lineItem(key))];
  const booked = bookedAllocations(current, previous);
  const [dividends, other, loss, toEquity] = ['avsatt_utbytte', 'andre_overforinger', 'overfort_udekket_tap', 'overfort_annen_egenkapital'].map(allocation);
  // the unallocated rest (the unclosed result, in 2050 in the balance sheet) counts as transferred to annen egenkapital
  const equity = both((i) => toEquity[i].plus(result[i].minus(booked[i])));
  return [
    plain('salgsinntekt'),
    plain('annen_driftsinntekt'),
    line('sum_driftsinntekter', 'Sum driftsinntekter', income, true),
    plain('varekostnad'),
    plain('lonnskostnad'),
    plain('avskrivning'),
    plain('annen_driftskostnad'),
    line('sum_driftskostnader', 'Sum driftskostnader', costs, true),
    line('driftsresultat', 'Driftsresultat', operating, true),
    plain('finansinntekt'),
    plain('finanskostnad'),
    line('resultat_for_skatt', 'Resultat før skattekostnad', beforeTax, true),
    plain('skattekostnad'),
    line('arsresultat', 'Årsresultat', result, true),
    line('avsatt_utbytte', lineItem('avsatt_utbytte').label, dividends),
    line('andre_overforinger', lineItem('andre_overforinger').label, other),
    line('overfort_udekket_tap', lineItem('overfort_udekket_tap').label, loss),
    line('overfort_annen_egenkapital', lineItem('overfort_annen_egenkapital').label, equity),
    line('sum_overforinger', 'Sum overføringer og disponeringer', both((i) => dividends[i].plus(other[i]).plus(loss[i]).plus(equity[i])), true),
  ];
}

/** The year's result allocated by entries on 88–89 (debit-positive), this year and the previous. */
export function bookedAllocations(current: readonly Balance[], previous: readonly Balance[]): [Decimal, Decimal] {
  return [sectionSum(current, [[88, 89]]), sectionSum(previous, [[88, 89]])];
}

/**
 * The balance sheet at the period's end and the previous year's end, from the balance-sheet rows
 * (debit − credit per account, the unclosed result included in 2050 annen egenkapital): the line
 * items of LINE_ITEMS, each section's sum after its items.
 */
export function balanceSheetLines(current: readonly Balance[], previous: readonly Balance[]): FigureLine[] {
  const s = sections(current, previous);
  const assets = both((i) => s.anleggsmidler[i].plus(s.omlopsmidler[i]));
  const debt = both((i) => s.langsiktig_gjeld[i].plus(s.kortsiktig_gjeld[i]));
  const equityAndDebt = both((i) => s.egenkapital[i].plus(debt[i]));
  const section = (key: string): FigureLine[] => {
    const sec = BALANCE_SECTIONS.find((x) => x.key === key)!;
    const items = LINE_ITEMS.filter((i) => i.section === key).map((i) => line(i.key, i.label, [itemSum(current, i, sec.sign), itemSum(previous, i, sec.sign)]));
    return [...items, line(key, sec.label, s[key], true)];
  };
  return [
    ...section('anleggsmidler'),
    ...section('omlopsmidler'),
    line('sum_eiendeler', 'Sum eiendeler', assets, true),
    ...section('egenkapital'),
    ...section('langsiktig_gjeld'),
    ...section('kortsiktig_gjeld'),
    line('sum_gjeld', 'Sum gjeld', debt, true),
    line('sum_egenkapital_og_gjeld', 'Sum egenkapital og gjeld', equityAndDebt, true),
  ];
}

export const figure = (lines: readonly FigureLine[], key: string): FigureLine => {
  const found = lines.find((l) => l.key === key);
  if (!found) throw new Error(`no figure ${key}`);
  return found;
};

/** Norwegian amount text of a note table cell: 1 234 567,89 (non-breaking spaces avoided: plain spaces). */
export function nok(d: Decimal): string {
  const [int, dec] = d.abs().toFixed(2).split('.');
  return `${d.isNegative() && !d.isZero() ? '-' : ''}${int.replace(/\B(?=(\d{3})+(?!\d))/g, ' ')},${dec}`;
}

/** A date as a Norwegian reader writes it, 31.12.2024 (the reports' formatter: one place for it). */
export const norwegianDate = (d: Date): string => isoToNorwegian(formatDate(d));
