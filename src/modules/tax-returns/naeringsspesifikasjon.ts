import { Decimal } from '../../shared/scalars.ts';
import { isBalanceAccount } from '../ledger-accounts/account-classes.ts';
import { UNCLOSED_RESULT } from '../reports/grouping.ts';
import { naeringsspesifikasjonSchema, type NaeringsspesifikasjonData } from '../../integrations/taxauthority/tax-returns.ts';
import { NAERINGSSPESIFIKASJON_CODES, type NaeringsspesifikasjonCode } from './reference/naeringsspesifikasjon-codes.ts';

/**
 * The næringsspesifikasjon (the business specification of the company tax return) computed from the
 * ledger: each account's figure (a result account's movement in the period, a balance account's
 * closing balance) under a næringsspesifikasjon grouping code, the codes summed into the income
 * statement's and the balance sheet's sections. Pure: the service reads the ledger, this computes.
 *
 * Which code an account goes to: its saftGroupingCode when its saftGroupingCategory is one of the
 * list's categories and the list has that code in it; else its own number when the list has that as
 * a code (the list's codes follow the usual NS 4102 numbering: 1920 Bankinnskudd, 3000 Salgsinntekt);
 * else it is unmapped. Unmapped accounts are listed with their figure and why, never dropped, and the
 * balance check then fails.
 */

const BY_CODE: ReadonlyMap<string, NaeringsspesifikasjonCode> = new Map(NAERINGSSPESIFIKASJON_CODES.map((c) => [c.code, c]));
const CATEGORIES: ReadonlySet<string> = new Set(NAERINGSSPESIFIKASJON_CODES.map((c) => c.category));

export type SectionName =
  | 'driftsinntekter'
  | 'driftskostnader'
  | 'finansinntekter'
  | 'finanskostnader'
  | 'skattekostnad'
  | 'disponering'
  | 'anleggsmidler'
  | 'omloepsmidler'
  | 'egenkapital'
  | 'langsiktigGjeld'
  | 'kortsiktigGjeld';

/**
 * The section of each category of the form for ordinary businesses, and the sign its figures are
 * shown with (1: debit positive, as assets and costs; -1: credit positive, as income, equity, debt).
 * The bank-and-insurance and IFRS categories are not on this form.
 */
const SECTIONS: Readonly<Record<string, { section: SectionName; sign: 1 | -1; balance: boolean }>> = {
  salgsinntekt: { section: 'driftsinntekter', sign: -1, balance: false },
  annenDriftsinntekt: { section: 'driftsinntekter', sign: -1, balance: false },
  varekostnad: { section: 'driftskostnader', sign: 1, balance: false },
  loennskostnad: { section: 'driftskostnader', sign: 1, balance: false },
  annenDriftskostnad: { section: 'driftskostnader', sign: 1, balance: false },
  finansinntekt: { section: 'finansinntekter', sign: -1, balance: false },
  finanskostnad: { section: 'finanskostnader', sign: 1, balance: false },
  skattekostnad: { section: 'skattekostnad', sign: 1, balance: false },
  'resultatDisponeringForSAF-T': { section: 'disponering', sign: 1, balance: false },
  balanseverdiForAnleggsmiddel: { section: 'anleggsmidler', sign: 1, balance: true },
  balanseverdiForOmloepsmiddel: { section: 'omloepsmidler', sign: 1, balance: true },
  egenkapital: { section: 'egenkapital', sign: -1, balance: true },
  langsiktigGjeld: { section: 'langsiktigGjeld', sign: -1, balance: true },
  kortsiktigGjeld: { section: 'kortsiktigGjeld', sign: -1, balance: true },
};

/** One ledger account's figures as the service reads them (debit − credit). */
export interface LedgerAccountFigures {
  code: string;
  name: string;
  saftGroupingCategory: string | null;
  saftGroupingCode: string | null;
  /** debit − credit of every posted line up to to_date */
  closing: Decimal;
  /** debit − credit of the posted lines from from_date to to_date */
  movement: Decimal;
}

export interface PreviewLine {
  /** the grouping code; null for the year's result not yet closed into equity */
  code: string | null;
  description: string;
  amount: Decimal;
  /** the ledger accounts summed into the line */
  accounts: string[];
}
export interface PreviewSection {
  lines: PreviewLine[];
  sum: Decimal;
}
export interface UnmappedAccount {
  accountCode: string;
  accountName: string;
  amount: Decimal;
  reason: string;
}
export interface PreviewCheck {
  code: string;
  ok: boolean;
  message: string;
}

export interface TaxReturnPreview {
  clientAccountId: number;
  orgNumber: string | null;
  reportingYear: number;
  fromDate: Date;
  toDate: Date;
  resultatregnskap: {
    driftsinntekter: PreviewSection;
    driftskostnader: PreviewSection;
    driftsresultat: Decimal;
    finansinntekter: PreviewSection;
    finanskostnader: PreviewSection;
    nettoFinans: Decimal;
    resultatFoerSkatt: Decimal;
    skattekostnad: PreviewSection;
    aarsresultat: Decimal;
    /** disposition of the result (8800-8990), shown beside the result, not in it */
    disponering: PreviewSection;
  };
  balanse: {
    eiendeler: { anleggsmidler: PreviewSection; omloepsmidler: PreviewSection; sum: Decimal };
    egenkapitalOgGjeld: { egenkapital: PreviewSection; langsiktigGjeld: PreviewSection; kortsiktigGjeld: PreviewSection; sum: Decimal };
  };
  unmappedAccounts: UnmappedAccount[];
  checks: PreviewCheck[];
}

const zero = () => new Decimal(0);
const money = (d: Decimal) => d.toDecimalPlaces(2);

/** The code an account is reported under, or why none. */
export function mapAccount(a: Pick<LedgerAccountFigures, 'code' | 'saftGroupingCategory' | 'saftGroupingCode'>): { code: NaeringsspesifikasjonCode } | { reason: string } {
  let code: NaeringsspesifikasjonCode | undefined;
  if (a.saftGroupingCategory && CATEGORIES.has(a.saftGroupingCategory) && a.saftGroupingCode) {
    const listed = BY_CODE.get(a.saftGroupingCode);
    if (listed && listed.category === a.saftGroupingCategory) code = listed;
  }
  code ??= BY_CODE.get(a.code);
  if (!code) {
    return {
      reason: a.saftGroupingCode
        ? `its SAF-T grouping ${a.saftGroupingCategory ?? '(no category)'}/${a.saftGroupingCode} is not a næringsspesifikasjon code, and neither is the account number`
        : 'it has no SAF-T grouping code, and the account number is not a næringsspesifikasjon code',
    };
  }
  const section = SECTIONS[code.category];
  if (!section) return { reason: `its code ${code.code} (${code.category}) is not on the form for ordinary businesses (banks, insurers, IFRS)` };
  if (section.balance !== isBalanceAccount(a.code)) {
    return { reason: `its code ${code.code} is a ${section.balance ? 'balance sheet' : 'result'} code but the account is a ${section.balance ? 'result' : 'balance sheet'} account` };
  }
  return { code };
}

function emptySections(): Record<SectionName, Map<string, PreviewLine>> {
  const names: SectionName[] = ['driftsinntekter', 'driftskostnader', 'finansinntekter', 'finanskostnader', 'skattekostnad', 'disponering', 'anleggsmidler', 'omloepsmidler', 'egenkapital', 'langsiktigGjeld', 'kortsiktigGjeld'];
  return Object.fromEntries(names.map((n) => [n, new Map()])) as Record<SectionName, Map<string, PreviewLine>>;
}

function section(lines: Map<string, PreviewLine>, extra: PreviewLine[] = []): PreviewSection {
  const all = [...[...lines.values()].filter((l) => !l.amount.isZero()).sort((a, b) => (a.code! < b.code! ? -1 : 1)), ...extra].map((l) => ({ ...l, amount: money(l.amount) }));
  return { lines: all, sum: money(all.reduce((s, l) => s.plus(l.amount), zero())) };
}

/** The næringsspesifikasjon of the period from the ledger accounts' figures. */
export function computePreview(head: Pick<TaxReturnPreview, 'clientAccountId' | 'orgNumber' | 'reportingYear' | 'fromDate' | 'toDate'>, accounts: readonly LedgerAccountFigures[]): TaxReturnPreview {
  const sections = emptySections();
  const unmapped: UnmappedAccount[] = [];
  // result accounts' closing balances that were not closed into equity (every year up to to_date)
  let unclosed = zero();
  for (const a of [...accounts].sort((x, y) => (x.code < y.code ? -1 : 1))) {
    const balance = isBalanceAccount(a.code);
    if (!balance) unclosed = unclosed.plus(a.closing);
    const figure = balance ? a.closing : a.movement;
    if (figure.isZero()) continue;
    const mapped = mapAccount(a);
    if ('reason' in mapped) {
      unmapped.push({ accountCode: a.code, accountName: a.name, amount: money(figure), reason: mapped.reason });
      continue;
    }
    const { section: name, sign } = SECTIONS[mapped.code.category]!;
    const lines = sections[name];
    const line = lines.get(mapped.code.code) ?? { code: mapped.code.code, description: mapped.code.description, amount: zero(), accounts: [] };
    line.amount = line.amount.plus(figure.times(sign));
    line.accounts.push(a.code);
    lines.set(mapped.code.code, line);
  }
  const r = {
    driftsinntekter: section(sections.driftsinntekter),
    driftskostnader: section(sections.driftskostnader),
    finansinntekter: section(sections.finansinntekter),
    finanskostnader: section(sections.finanskostnader),
    skattekostnad: section(sections.skattekostnad),
    disponering: section(sections.disponering),
  };
  const driftsresultat = r.driftsinntekter.sum.minus(r.driftskostnader.sum);
  const nettoFinans = r.finansinntekter.sum.minus(r.finanskostnader.sum);
  const resultatFoerSkatt = driftsresultat.plus(nettoFinans);
  const aarsresultat = resultatFoerSkatt.minus(r.skattekostnad.sum);
  const unclosedLine: PreviewLine[] = unclosed.isZero() ? [] : [{ code: null, description: UNCLOSED_RESULT.name, amount: unclosed.negated(), accounts: [] }];
  const anleggsmidler = section(sections.anleggsmidler);
  const omloepsmidler = section(sections.omloepsmidler);
  const egenkapital = section(sections.egenkapital, unclosedLine);
  const langsiktigGjeld = section(sections.langsiktigGjeld);
  const kortsiktigGjeld = section(sections.kortsiktigGjeld);
  const eiendeler = { anleggsmidler, omloepsmidler, sum: anleggsmidler.sum.plus(omloepsmidler.sum) };
  const egenkapitalOgGjeld = { egenkapital, langsiktigGjeld, kortsiktigGjeld, sum: egenkapital.sum.plus(langsiktigGjeld.sum).plus(kortsiktigGjeld.sum) };
  const balances = eiendeler.sum.equals(egenkapitalOgGjeld.sum);
  const checks: PreviewCheck[] = [
    {
      code: 'BALANSE_BALANSERER',
      ok: balances,
      message: balances
        ? `Eiendeler ${eiendeler.sum.toFixed(2)} = egenkapital og gjeld ${egenkapitalOgGjeld.sum.toFixed(2)}`
        : `Eiendeler ${eiendeler.sum.toFixed(2)} ≠ egenkapital og gjeld ${egenkapitalOgGjeld.sum.toFixed(2)} (difference ${eiendeler.sum.minus(egenkapitalOgGjeld.sum).toFixed(2)})`,
    },
    {
      code: 'ALLE_KONTOER_TILORDNET',
      ok: unmapped.length === 0,
      message: unmapped.length ? `${unmapped.length} account(s) with figures have no næringsspesifikasjon code: ${unmapped.map((u) => u.accountCode).join(', ')}` : 'Every account with figures has a næringsspesifikasjon code',
    },
    {
      code: 'EGENKAPITAL_IKKE_NEGATIV',
      ok: !egenkapital.sum.isNegative(),
      message: egenkapital.sum.isNegative() ? `Negative equity: ${egenkapital.sum.toFixed(2)}` : `Equity ${egenkapital.sum.toFixed(2)}`,
    },
  ];
  return {
    ...head,
    resultatregnskap: { ...r, driftsresultat, nettoFinans, resultatFoerSkatt, aarsresultat },
    balanse: { eiendeler, egenkapitalOgGjeld },
    unmappedAccounts: unmapped,
    checks,
  };
}

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const wireSection = (s: PreviewSection) => ({ lines: s.lines.map((l) => ({ code: l.code, description: l.description, amount: l.amount.toFixed(2), accounts: l.accounts })), sum: s.sum.toFixed(2) });

/** The preview as the filing's data (the authority's wire format, ../../integrations/taxauthority/tax-returns.ts). */
export function toFilingData(p: TaxReturnPreview): NaeringsspesifikasjonData {
  const r = p.resultatregnskap;
  const b = p.balanse;
  return {
    form: 'naeringsspesifikasjon',
    org_number: p.orgNumber,
    reporting_year: p.reportingYear,
    from_date: ymd(p.fromDate),
    to_date: ymd(p.toDate),
    resultatregnskap: {
      driftsinntekter: wireSection(r.driftsinntekter),
      driftskostnader: wireSection(r.driftskostnader),
      driftsresultat: r.driftsresultat.toFixed(2),
      finansinntekter: wireSection(r.finansinntekter),
      finanskostnader: wireSection(r.finanskostnader),
      netto_finans: r.nettoFinans.toFixed(2),
      resultat_foer_skatt: r.resultatFoerSkatt.toFixed(2),
      skattekostnad: wireSection(r.skattekostnad),
      aarsresultat: r.aarsresultat.toFixed(2),
      disponering: wireSection(r.disponering),
    },
    balanse: {
      eiendeler: { anleggsmidler: wireSection(b.eiendeler.anleggsmidler), omloepsmidler: wireSection(b.eiendeler.omloepsmidler), sum: b.eiendeler.sum.toFixed(2) },
      egenkapital_og_gjeld: {
        egenkapital: wireSection(b.egenkapitalOgGjeld.egenkapital),
        langsiktig_gjeld: wireSection(b.egenkapitalOgGjeld.langsiktigGjeld),
        kortsiktig_gjeld: wireSection(b.egenkapitalOgGjeld.kortsiktigGjeld),
        sum: b.egenkapitalOgGjeld.sum.toFixed(2),
      },
    },
    unmapped_accounts: p.unmappedAccounts.map((u) => ({ account_code: u.accountCode, account_name: u.accountName, amount: u.amount.toFixed(2), reason: u.reason })),
  };
}

/** A filing's data when it is a næringsspesifikasjon (what an import seeds from), else null. */
export function parseFilingData(data: unknown): NaeringsspesifikasjonData | null {
  const parsed = naeringsspesifikasjonSchema.safeParse(data);
  return parsed.success ? parsed.data : null;
}

export interface WealthItem {
  code: string | null;
  description: string;
  amount: string;
}
/**
 * net_wealth (spec 002: "parsed wealth and debt breakdown", structure not shown): the return's
 * balance sheet as wealth (every asset line) and debt (every long- and short-term debt line), and
 * net wealth = assets − debts. Equity lines are not debt. Null when the return has no readable data.
 */
export interface NetWealth {
  assets: WealthItem[];
  debts: WealthItem[];
  totalAssets: string;
  totalDebts: string;
  netWealth: string;
}

export function netWealthOf(data: unknown): NetWealth | null {
  const d = parseFilingData(data);
  if (!d) return null;
  const item = (l: { code: string | null; description: string; amount: string }): WealthItem => ({ code: l.code, description: l.description, amount: l.amount });
  const e = d.balanse.eiendeler;
  const g = d.balanse.egenkapital_og_gjeld;
  const assets = [...e.anleggsmidler.lines, ...e.omloepsmidler.lines].map(item);
  const debts = [...g.langsiktig_gjeld.lines, ...g.kortsiktig_gjeld.lines].map(item);
  const total = (xs: WealthItem[]) => xs.reduce((s, x) => s.plus(x.amount), zero());
  const [a, debt] = [total(assets), total(debts)];
  return { assets, debts, totalAssets: a.toFixed(2), totalDebts: debt.toFixed(2), netWealth: a.minus(debt).toFixed(2) };
}
