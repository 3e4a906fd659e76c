import { defineSandbox, sandboxError } from '../sandbox/define.ts';
import { defineFilingRules } from './filings.sandbox.ts';
import type { Finding } from './filings.ts';

/**
 * The authority's side of yearly accounts, simulated: the form catalogue (main form RR-0002
 * Årsregnskap, notes sub-form RR-0002-N for every year from 2000) and the rules a yearly-accounts
 * filing is checked by. The data a filing carries (src/modules/yearly-accounts): main_form_id,
 * sub_form_id, income_statement and balance_sheet ({key: amount}), loans_to_shareholders, notes
 * ([{note_number, key, title, body_type, body, footer_text}]).
 */
export const SANDBOX_YEARLY_ACCOUNT_FORMS = { main: 'RR-0002', notes: 'RR-0002-N' } as const;

const FIRST_YEAR = 2000;

/** Notes every small enterprise files (regnskapsloven § 7-1 ff., small enterprises). */
const REQUIRED_NOTES: readonly [string, string][] = [
  ['accounting_principles', 'Regnskapsprinsipper'],
  ['employees', 'Ansatte og lønnskostnader'],
];

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const amount = (v: unknown): number | null => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : typeof v === 'number' ? v : null);

defineFilingRules('yearly-accounts', (raw, filing) => {
  const data = record(raw);
  const findings: Finding[] = [];
  if (data.main_form_id !== SANDBOX_YEARLY_ACCOUNT_FORMS.main) {
    findings.push({ severity: 'error', code: 'unknown_form', message: `main_form_id must be ${SANDBOX_YEARLY_ACCOUNT_FORMS.main} for ${filing.reportingYear}`, path: 'main_form_id' });
  }
  const balance = record(data.balance_sheet);
  const assets = amount(balance.sum_eiendeler);
  const equityAndDebt = amount(balance.sum_egenkapital_og_gjeld);
  if (assets === null || equityAndDebt === null) {
    findings.push({ severity: 'error', code: 'balance_sheet_missing', message: 'The balance sheet (sum_eiendeler, sum_egenkapital_og_gjeld) is missing', path: 'balance_sheet' });
  } else if (Math.round(assets * 100) !== Math.round(equityAndDebt * 100)) {
    findings.push({ severity: 'error', code: 'balance_sheet_unbalanced', message: `Sum eiendeler (${assets}) differs from sum egenkapital og gjeld (${equityAndDebt})`, path: 'balance_sheet' });
  }
  const notes = Array.isArray(data.notes) ? data.notes.map(record) : [];
  const keys = new Set(notes.map((n) => n.key));
  for (const [key, title] of REQUIRED_NOTES) {
    if (!keys.has(key)) findings.push({ severity: 'error', code: 'note_missing', message: `The note ${title} (${key}) is required`, path: 'notes' });
  }
  const equity = amount(balance.egenkapital);
  if (equity !== null && equity < 0 && !keys.has('going_concern')) {
    findings.push({ severity: 'error', code: 'going_concern_note_missing', message: 'Equity is negative: a note on going concern (going_concern) is required', path: 'notes' });
  }
  const loans = amount(data.loans_to_shareholders);
  if (loans !== null && loans !== 0 && !keys.has('loans_to_shareholders')) {
    findings.push({ severity: 'warning', code: 'shareholder_loan_note_missing', message: 'Receivables from shareholders should be shown in a note (loans_to_shareholders)', path: 'notes' });
  }
  return findings;
});

defineSandbox('govportal', (router) => {
  /** the forms a reporting year's yearly account is filed on */
  router.get('/forms/yearly-accounts/:year', (req, res) => {
    const year = Number(req.params.year);
    if (!Number.isInteger(year) || year < FIRST_YEAR || year > 2999) return sandboxError(res, 404, `No yearly-accounts forms for ${String(req.params.year).slice(0, 20)}`);
    res.json({ reporting_year: year, main_form_id: SANDBOX_YEARLY_ACCOUNT_FORMS.main, sub_form_id: SANDBOX_YEARLY_ACCOUNT_FORMS.notes });
  });
});
