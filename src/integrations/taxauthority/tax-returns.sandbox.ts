import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';
import { checkFiling, defineFilingRules } from '../govportal/filings.sandbox.ts';
import type { Finding } from '../govportal/filings.ts';
import { naeringsspesifikasjonSchema, type NaeringsspesifikasjonData } from './tax-returns.ts';

/**
 * The tax authority's side of a company's tax return, simulated: its validation rules for a
 * næringsspesifikasjon (registered as the portal's rules for kind `tax-return`, so a filing and
 * POST /taxauthority/tax-returns/validation find the same), and the pre-filled data it holds,
 * derived deterministically from the organisation number and the income year.
 */

const cents = (s: string): bigint => {
  const [whole, frac = '00'] = s.replace('-', '').split('.');
  const v = BigInt(whole) * 100n + BigInt(frac.padEnd(2, '0').slice(0, 2));
  return s.startsWith('-') ? -v : v;
};
const sumOf = (lines: { amount: string }[]) => lines.reduce((s, l) => s + cents(l.amount), 0n);
const show = (v: bigint) => `${v < 0n ? '-' : ''}${(v < 0n ? -v : v) / 100n}.${String((v < 0n ? -v : v) % 100n).padStart(2, '0')}`;

/**
 * The authority's rules (errors keep a filing a draft; warnings do too unless ignore_warnings):
 * - MALFORMED: the data is no næringsspesifikasjon;
 * - WRONG_YEAR: its year is not the filing's;
 * - SECTION_SUM: a section's sum is not the sum of its lines;
 * - RESULT_MISMATCH: årsresultat is not inntekter − kostnader ± finans − skatt;
 * - BALANCE_MISMATCH: eiendeler ≠ egenkapital og gjeld;
 * - UNMAPPED_ACCOUNTS: ledger accounts with amounts that no code could be found for;
 * - NEGATIVE_EQUITY (warning): egenkapital below zero;
 * - EMPTY (warning): nothing reported at all.
 */
export function taxReturnFindings(data: unknown, filing: { reportingYear: number }): Finding[] {
  const parsed = naeringsspesifikasjonSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return [{ severity: 'error', code: 'MALFORMED', message: `The data is not a næringsspesifikasjon: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`, path: issue?.path.join('.') || null }];
  }
  const d: NaeringsspesifikasjonData = parsed.data;
  const findings: Finding[] = [];
  const error = (code: string, message: string, path: string | null = null) => findings.push({ severity: 'error', code, message, path });
  const warning = (code: string, message: string, path: string | null = null) => findings.push({ severity: 'warning', code, message, path });
  if (d.reporting_year !== filing.reportingYear) error('WRONG_YEAR', `The næringsspesifikasjon is for ${d.reporting_year}, the filing for ${filing.reportingYear}`, 'reporting_year');
  const r = d.resultatregnskap;
  const b = d.balanse;
  const sections: [string, { lines: { amount: string }[]; sum: string }][] = [
    ['resultatregnskap.driftsinntekter', r.driftsinntekter],
    ['resultatregnskap.driftskostnader', r.driftskostnader],
    ['resultatregnskap.finansinntekter', r.finansinntekter],
    ['resultatregnskap.finanskostnader', r.finanskostnader],
    ['resultatregnskap.skattekostnad', r.skattekostnad],
    ['resultatregnskap.disponering', r.disponering],
    ['balanse.eiendeler.anleggsmidler', b.eiendeler.anleggsmidler],
    ['balanse.eiendeler.omloepsmidler', b.eiendeler.omloepsmidler],
    ['balanse.egenkapital_og_gjeld.egenkapital', b.egenkapital_og_gjeld.egenkapital],
    ['balanse.egenkapital_og_gjeld.langsiktig_gjeld', b.egenkapital_og_gjeld.langsiktig_gjeld],
    ['balanse.egenkapital_og_gjeld.kortsiktig_gjeld', b.egenkapital_og_gjeld.kortsiktig_gjeld],
  ];
  for (const [path, s] of sections) if (sumOf(s.lines) !== cents(s.sum)) error('SECTION_SUM', `${path}: sum ${s.sum} is not the sum of its lines (${show(sumOf(s.lines))})`, `${path}.sum`);
  const result = cents(r.driftsinntekter.sum) - cents(r.driftskostnader.sum) + cents(r.finansinntekter.sum) - cents(r.finanskostnader.sum) - cents(r.skattekostnad.sum);
  if (result !== cents(r.aarsresultat)) error('RESULT_MISMATCH', `Årsresultat ${r.aarsresultat} does not follow from the lines (${show(result)})`, 'resultatregnskap.aarsresultat');
  const assets = cents(b.eiendeler.sum);
  const equityAndDebt = cents(b.egenkapital_og_gjeld.sum);
  if (assets !== equityAndDebt) error('BALANCE_MISMATCH', `The balance sheet does not balance: eiendeler ${b.eiendeler.sum}, egenkapital og gjeld ${b.egenkapital_og_gjeld.sum}`, 'balanse');
  const unmapped = d.unmapped_accounts.filter((u) => cents(u.amount) !== 0n);
  if (unmapped.length) {
    error('UNMAPPED_ACCOUNTS', `Accounts without a næringsspesifikasjon code: ${unmapped.map((u) => `${u.account_code} ${u.account_name} (${u.amount})`).join(', ')}`, 'unmapped_accounts');
  }
  if (cents(b.egenkapital_og_gjeld.egenkapital.sum) < 0n) warning('NEGATIVE_EQUITY', `Negative equity (${b.egenkapital_og_gjeld.egenkapital.sum}): the board must consider the company's equity and liquidity`, 'balanse.egenkapital_og_gjeld.egenkapital');
  if (sections.every(([, s]) => s.lines.length === 0)) warning('EMPTY', 'Nothing is reported: no income, costs, assets, equity or debt', null);
  return findings;
}

defineFilingRules('tax-return', (data, filing) => taxReturnFindings(data, filing));

const ORG_NUMBER = /^\d{9}$/;

/** a deterministic number in [0, max) from the organisation, year and what it is for */
function seeded(org: string, year: number, what: string, max: number): number {
  const h = createHash('sha256').update(`${org}:${year}:${what}`).digest();
  return h.readUInt32BE(0) % max;
}
const kroner = (v: number) => `${v}.00`;
const BANKS = ['Sandbox Sparebank', 'Fjordbanken', 'Nordlys Bank'];
const MUNICIPALITIES = [
  ['0301', 'Oslo'],
  ['4601', 'Bergen'],
  ['5001', 'Trondheim'],
  ['1103', 'Stavanger'],
] as const;

/**
 * What the authority holds for an organisation and income year: bank deposits and interest reported
 * by the banks, loans and interest paid, property values, and the loss carried forward from earlier
 * years. Every figure follows from the organisation number and the year (the same question gets the
 * same answer).
 */
export function prefilledFor(org: string, year: number) {
  const bankCount = 1 + seeded(org, year, 'banks', 2);
  const bankAccounts = Array.from({ length: bankCount }, (_, i) => {
    const deposit = 10_000 + seeded(org, year, `deposit${i}`, 990_000);
    return {
      bank_name: BANKS[seeded(org, 0, `bank${i}`, BANKS.length)],
      account_number: `${1200 + seeded(org, 0, `reg${i}`, 8000)}${String(seeded(org, 0, `acct${i}`, 10_000_000)).padStart(7, '0')}`,
      deposit_dec31: kroner(deposit),
      interest_earned: kroner(Math.round(deposit * 0.025)),
    };
  });
  const hasLoan = seeded(org, year, 'loan', 3) === 0;
  const loans = hasLoan
    ? [{ lender: BANKS[seeded(org, 0, 'lender', BANKS.length)], balance_dec31: kroner(100_000 + seeded(org, year, 'loanbal', 1_900_000)), interest_paid: kroner(5_000 + seeded(org, year, 'loanint', 95_000)) }]
    : [];
  const hasProperty = seeded(org, 0, 'property', 2) === 0;
  const [municipalityNumber, municipality] = MUNICIPALITIES[seeded(org, 0, 'municipality', MUNICIPALITIES.length)];
  const properties = hasProperty
    ? [{
        property_id: `${municipalityNumber}-${1 + seeded(org, 0, 'gnr', 300)}/${1 + seeded(org, 0, 'bnr', 500)}`,
        municipality,
        address: `Sandkassegata ${1 + seeded(org, 0, 'street', 120)}`,
        property_type: 'naeringseiendom',
        tax_value: kroner(1_000_000 + seeded(org, year, 'value', 9_000_000)),
      }]
    : [];
  const lossCarriedForward = seeded(org, year, 'loss', 4) === 0 ? kroner(seeded(org, year, 'lossamt', 500_000)) : '0.00';
  return {
    org_number: org,
    income_year: year,
    bank_accounts: bankAccounts,
    loans,
    properties,
    loss_carried_forward: lossCarriedForward,
    reported_at: `${year + 1}-02-01T00:00:00.000Z`,
  };
}

const body = (req: Request): Record<string, unknown> => (req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {});

defineSandbox('taxauthority', (router) => {
  /** {org_number, income_year, data} → {valid, findings}: the rules a tax-return filing is checked by */
  router.post('/tax-returns/validation', (req, res) => {
    const b = body(req);
    if (typeof b.org_number !== 'string' || !ORG_NUMBER.test(b.org_number)) return sandboxError(res, 400, 'org_number must be 9 digits');
    if (!Number.isInteger(b.income_year)) return sandboxError(res, 400, 'income_year must be an integer');
    const findings = checkFiling('tax-return', b.data, { orgNumber: b.org_number, reportingYear: b.income_year as number, purpose: 'original' });
    res.json({ valid: !findings.some((f) => f.severity === 'error'), findings });
  });

  router.get('/tax-returns/:org/:year/prefilled', (req, res) => {
    const org = String(req.params.org);
    const year = Number(req.params.year);
    if (!ORG_NUMBER.test(org)) return sandboxError(res, 400, 'The organisation number must be 9 digits');
    if (!Number.isInteger(year)) return sandboxError(res, 400, 'The income year must be an integer');
    // the authority has pre-filled data from 2008 until the year before the current one
    if (year < 2008 || year >= new Date().getUTCFullYear() + 1) return sandboxError(res, 404, `No pre-filled data for income year ${year}`);
    res.json(prefilledFor(org, year));
  });
});
