import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../project-root.ts';
import type { RequestContext } from '../../../shared/context.ts';
import { ValidationError } from '../../../shared/errors.ts';
import { requireAccount } from '../../../shared/tenancy.ts';
import { parse, type Args } from '../../../shared/validation.ts';
import { Decimal, formatDate } from '../../../shared/scalars.ts';
import { UNCLOSED_RESULT } from '../grouping.ts';
import { BALANCE_ACCOUNT_PATTERN } from '../../ledger-accounts/account-classes.ts';
import { incomingOf, movementOf } from '../opening-balances.ts';
import { startOfYear } from '../reports.rules.ts';
import { saftRules } from './saft.rules.ts';
import { clip, escapeXml, XmlWriter } from './xml-writer.ts';

/**
 * SAF-T Financial 1.30 (Norway) of a client account's ledger for a period, written as a stream
 * (shared/notes/saft-notes.md; the XSD beside this file). Nothing holds the whole file or all lines:
 * master data and totals come from aggregate queries, the journal lines are read in keyset batches of
 * BATCH lines and written as they arrive, through a 64 KB buffer that waits for `drain`.
 *
 * Consistency without a long transaction: the export reads the ledger up to the sequence number the
 * chain head had when it started (posted entries are immutable and numbered in posting order), so
 * balances, totals and lines describe the same ledger even while others post, and PGlite's single
 * connection is never held while a slow client reads.
 *
 * Mapping choices (README "SAF-T export"):
 *   - Transactions: posted entries (drafts left out) with lines dated in the period, cancelled
 *     originals and their reversals both; lines outside the period stay out (they belong to the
 *     opening balance or to a later file), and so do the lines of an opening-balance entry dated the
 *     period's first day: they are the Opening…Balance of their accounts (opening-balances.ts).
 *     TransactionID = sequence number; TransactionDate, Period and PeriodYear from the posting date
 *     of the entry's first line in the period; SystemEntryDate, GLPostingDate and ModificationDate
 *     are the Oslo dates of created_at, posted_at and updated_at;
 *     SourceID = the creating user's id; VoucherType = the related document's type (ARINV, …).
 *   - Description never empty: the entry's, else "Annullering av bilag N" for a reversal, else
 *     "Bilag N"; a line's falls back to its transaction's.
 *   - Amounts: debit − credit of a line decides the side (DebitAmount when ≥ 0), written positive
 *     with two decimals; CurrencyCode/CurrencyAmount/ExchangeRate only on lines in another currency
 *     than the accounting currency (the currency amount rounded to two decimals, as SAF-T allows).
 *   - TaxInformation on lines with a tax code that are not themselves the VAT line (tax_line): the
 *     VAT line is a normal line on its 27xx account. TaxPercentage is the code's rate on the posting
 *     date; the tax amount sits on the line's own side (a negative tax amount on the other side).
 *   - Sub-ledgers: a business partner on a line of 1500–1599 is a customer (Line/CustomerID), on
 *     2400–2499 a supplier (Line/SupplierID); CustomerID/SupplierID = the partner's id.
 *     Customers/Suppliers list partners with such a balance or movement, plus partners flagged
 *     is_customer/is_supplier that appear on a line of the period; BalanceAccount per sub-ledger
 *     account.
 *   - Analysis: project → AnalysisType "P" (Prosjekt), department → "A" (Avdeling); AnalysisID =
 *     the record's id, as the API names dimensions. Other dimensions (asset, tag, item, bank account)
 *     are not exported.
 *   - GroupingCategory/GroupingCode from the account's saft columns; "NA" for an account without a
 *     mapping (the code lists' value for "cannot be mapped").
 *   - Header Contact: the client account's first owner (CA), else the requesting user.
 */

/** Lines per query of the journal. */
const BATCH = 5000;

export const SAFT_NAMESPACE = 'urn:StandardAuditFile-Taxation-Financial:NO';

const PACKAGE = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

export interface SaftArgs {
  clientAccountId: number;
  dateFrom: Date;
  dateTo: Date;
  /** when the file is made (default now): pass the instant saftFileName used, so the names agree */
  createdAt?: Date;
}

export interface SaftOptions {
  /** journal lines per query (default 5,000); tests use tiny batches to cross many batch boundaries */
  batchSize?: number;
}

export interface SaftSummary {
  /** `SAF-T Financial_<orgnr>_<YYYYMMDDhhmmss>.xml` (Oslo time) */
  fileName: string;
  numberOfEntries: number;
  totalDebit: string;
  totalCredit: string;
}

interface Company {
  id: number;
  displayName: string;
  organizationNumber: string;
  accountingCurrency: string;
  vatLiable: boolean;
}

// ── dates ────────────────────────────────────────────────────────────────────────────────────────

const OSLO = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Oslo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** The instant's wall-clock time in Oslo: YYYY, MM, DD, hh, mm, ss. */
function osloParts(at: Date): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  const parts = Object.fromEntries(OSLO.formatToParts(at).map((p) => [p.type, p.value]));
  return parts as never;
}

const osloDate = (at: Date): string => {
  const p = osloParts(at);
  return `${p.year}-${p.month}-${p.day}`;
};

// ── tenancy, validation, file name ───────────────────────────────────────────────────────────────

/**
 * The checks every entry point makes before anything is written: the arguments, an existing client
 * account (400 common.validation_error when there is none, as spec 001 says for data-export), the
 * caller's access to it (403) and an organisation number (the file is named by it and Skatteetaten
 * identifies the company by it).
 */
export async function checkSaftRequest(ctx: RequestContext, args: Args<typeof saftRules.export>): Promise<Company & { dateFrom: Date; dateTo: Date }> {
  const { clientAccountId, dateFrom, dateTo } = parse(saftRules.export, args);
  const account = await ctx.db.clientAccount.findUnique({
    where: { id: clientAccountId },
    select: { id: true, displayName: true, organizationNumber: true, accountingCurrency: true, vatLiable: true },
  });
  if (!account) throw ValidationError.field('clientAccountId', `client account ${clientAccountId} not found`);
  await requireAccount(ctx, clientAccountId);
  if (!account.organizationNumber) {
    throw ValidationError.field('clientAccountId', `client account ${clientAccountId} has no organisation number, which a SAF-T file requires`);
  }
  return { ...account, organizationNumber: account.organizationNumber, dateFrom, dateTo };
}

/** `SAF-T Financial_<orgnr>_<YYYYMMDDhhmmss>.xml`, the official examples' naming (Oslo time). */
export function saftFileNameOf(organizationNumber: string, createdAt: Date): string {
  const p = osloParts(createdAt);
  return `SAF-T Financial_${organizationNumber}_${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}.xml`;
}

/**
 * The file's name before it is written (a route sets Content-Disposition first), after the same
 * checks writeSaft makes: call writeSaft with the same createdAt so both agree.
 */
export async function saftFileName(ctx: RequestContext, args: SaftArgs): Promise<string> {
  const company = await checkSaftRequest(ctx, args);
  return saftFileNameOf(company.organizationNumber, args.createdAt ?? new Date());
}

// ── amounts ──────────────────────────────────────────────────────────────────────────────────────

/** A numeric with two decimals from SQL ('-1250.00') without its sign. */
const abs = (amount: string): string => (amount.startsWith('-') ? amount.slice(1) : amount);
const negative = (amount: string): boolean => amount.startsWith('-') && /[1-9]/.test(amount);

// ── the queries ──────────────────────────────────────────────────────────────────────────────────

interface Scope {
  cid: number;
  from: string;
  to: string;
  /** 1 January of the period's first year: result accounts open at zero there */
  yearStart: string;
  /** the ledger's last sequence number when the export started */
  maxSeq: number;
}

interface BalanceRow {
  opening: string;
  closing: string;
}

interface AccountRow extends BalanceRow {
  code: string;
  name: string;
  category: string | null;
  groupingCode: string | null;
}

interface PartnerBalanceRow extends BalanceRow {
  partnerId: number;
  code: string;
  kind: 'C' | 'S';
}

interface AddressRow {
  type: 'POSTAL' | 'DELIVERY' | 'VISITING';
  line1: string | null;
  line2: string | null;
  postalCode: string | null;
  city: string | null;
  country: string | null;
}

interface PartnerRow {
  id: number;
  name: string;
  organizationNumber: string | null;
  isCustomer: boolean;
  isSupplier: boolean;
  inPeriod: boolean;
  addresses: AddressRow[] | null;
}

interface TaxCodeRow {
  id: number;
  code: string;
  name: string;
  standardTaxCode: string;
}

interface TaxRateRow {
  taxCodeId: number;
  rate: string;
  validFrom: string | null;
  validTo: string | null;
}

interface DimensionRow {
  type: 'P' | 'A';
  id: number;
  name: string;
}

interface TotalsRow {
  entries: number;
  debit: string;
  credit: string;
  firstSeq: number | null;
}

interface LineRow {
  seq: number;
  entryDescription: string | null;
  cancelled: string | null;
  reversesSeq: number | null;
  createdAt: string;
  postedAt: string | null;
  updatedAt: string;
  createdById: number | null;
  documentType: string | null;
  documentNumber: string | null;
  lineId: number;
  postingDate: string;
  description: string | null;
  accountCode: string;
  net: string;
  netFc: string;
  currencyCode: string;
  exchangeRate: string;
  taxCodeId: number | null;
  taxCode: string | null;
  taxLine: boolean;
  taxBase: string | null;
  taxAmount: string | null;
  taxAmountFc: string | null;
  quantity: string | null;
  partnerId: number | null;
  projectId: number | null;
  departmentId: number | null;
}

/** The ledger's head: the highest sequence number posted so far (0 for an empty ledger). */
async function ledgerHead(ctx: RequestContext, cid: number): Promise<number> {
  const rows = await ctx.db.$queryRaw<{ last: number }[]>`SELECT last_number AS last FROM ledger_chains WHERE client_account_id = ${cid}`;
  return rows[0]?.last ?? 0;
}

/**
 * Opening (posted before the period, and an opening-balance entry dated its first day; for a result
 * account, classes 3-8, only since 1 January of the period's year, as in the trial balance) and
 * closing (opening + the period's movements) balance of every account with a balance or a movement,
 * in one aggregate over the ledger up to the period's end.
 */
const accountBalances = (ctx: RequestContext, s: Scope) => ctx.db.$queryRaw<AccountRow[]>`
  SELECT a.code, a.name, a.saft_grouping_category AS category, a.saft_grouping_code AS "groupingCode",
         (COALESCE(SUM(l.debit - l.credit) FILTER (WHERE ${incomingOf(s.cid, s.from)} AND (a.code ~ ${BALANCE_ACCOUNT_PATTERN} OR l.posting_date >= ${s.yearStart}::date)), 0))::numeric(20, 2)::text AS opening,
         (COALESCE(SUM(l.debit - l.credit) FILTER (WHERE a.code ~ ${BALANCE_ACCOUNT_PATTERN} OR l.posting_date >= ${s.yearStart}::date), 0))::numeric(20, 2)::text AS closing
    FROM accounts a
    JOIN journal_entry_lines l ON l.account_id = a.id
    JOIN journal_entries e ON e.id = l.journal_entry_id
   WHERE a.client_account_id = ${s.cid} AND l.client_account_id = ${s.cid} AND l.posting_date <= ${s.to}::date
     AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq}
   GROUP BY a.id, a.code, a.name, a.saft_grouping_category, a.saft_grouping_code
  HAVING COUNT(*) FILTER (WHERE ${movementOf(s.cid, s.from, s.to)}) > 0
      OR COALESCE(SUM(l.debit - l.credit) FILTER (WHERE ${incomingOf(s.cid, s.from)} AND (a.code ~ ${BALANCE_ACCOUNT_PATTERN} OR l.posting_date >= ${s.yearStart}::date)), 0) <> 0
   ORDER BY a.code`;

/**
 * The result of earlier years that no closing entry moved into equity: the result accounts' lines
 * before the first day of the period's year. Result accounts open every year at zero (as in the trial
 * balance), so this is part of equity's opening balance (UNCLOSED_RESULT's account, as the balance
 * sheet shows it), and the opening balances of the file still net to zero.
 */
const unclosedResult = async (ctx: RequestContext, s: Scope): Promise<string> =>
  (
    await ctx.db.$queryRaw<{ result: string }[]>`
      SELECT COALESCE(SUM(l.debit - l.credit), 0)::numeric(20, 2)::text AS result
        FROM journal_entry_lines l
        JOIN accounts a ON a.id = l.account_id
        JOIN journal_entries e ON e.id = l.journal_entry_id
       WHERE l.client_account_id = ${s.cid} AND l.posting_date < ${s.yearStart}::date AND a.code !~ ${BALANCE_ACCOUNT_PATTERN}
         AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq}`
  )[0]!.result;

/**
 * The opening balances (debit − credit, the non-zero ones, by account code) that writeSaft gives the
 * accounts of client account `cid` in a file whose period starts `from`: accountBalances' openings,
 * with the unclosed result of earlier years in UNCLOSED_RESULT's account. The SAF-T import checks a
 * file that continues an account's books against them (saft-imports.service.ts, continuesBooks).
 */
export async function saftOpeningBalances(ctx: RequestContext, cid: number, from: Date): Promise<Map<string, Decimal>> {
  const s: Scope = { cid, from: formatDate(from), to: formatDate(from), yearStart: formatDate(startOfYear(from)), maxSeq: await ledgerHead(ctx, cid) };
  const [accounts, carried] = [await accountBalances(ctx, s), new Decimal(await unclosedResult(ctx, s))];
  const opening = new Map(accounts.map((a) => [a.code, new Decimal(a.opening)]));
  if (!carried.isZero()) opening.set(UNCLOSED_RESULT.code, carried.plus(opening.get(UNCLOSED_RESULT.code) ?? 0));
  for (const [code, amount] of opening) if (amount.isZero()) opening.delete(code);
  return opening;
}

/** Accounts without a balance or movement of their own that a partner's BalanceAccount still names. */
const accountsByCode = (ctx: RequestContext, cid: number, codes: string[]) =>
  ctx.db.account.findMany({
    where: { clientAccountId: cid, code: { in: codes } },
    select: { code: true, name: true, saftGroupingCategory: true, saftGroupingCode: true },
  });

/** Balances per business partner and sub-ledger account (1500–1599 customers, 2400–2499 suppliers). */
const partnerBalances = (ctx: RequestContext, s: Scope) => ctx.db.$queryRaw<PartnerBalanceRow[]>`
  SELECT l.business_partner_id AS "partnerId", a.code, CASE WHEN a.code LIKE '15%' THEN 'C' ELSE 'S' END AS kind,
         (COALESCE(SUM(l.debit - l.credit) FILTER (WHERE ${incomingOf(s.cid, s.from)}), 0))::numeric(20, 2)::text AS opening,
         (SUM(l.debit - l.credit))::numeric(20, 2)::text AS closing
    FROM journal_entry_lines l
    JOIN journal_entries e ON e.id = l.journal_entry_id
    JOIN accounts a ON a.id = l.account_id
   WHERE l.client_account_id = ${s.cid} AND l.business_partner_id IS NOT NULL AND l.posting_date <= ${s.to}::date
     AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq}
     AND (a.code LIKE '15__%' OR a.code LIKE '24__%')
   GROUP BY l.business_partner_id, a.code
  HAVING COUNT(*) FILTER (WHERE ${movementOf(s.cid, s.from, s.to)}) > 0
      OR COALESCE(SUM(l.debit - l.credit) FILTER (WHERE ${incomingOf(s.cid, s.from)}), 0) <> 0
   ORDER BY 1, 2`;

/** Partners on a sub-ledger line up to the period's end, or flagged customer/supplier with a line in the period. */
const partners = (ctx: RequestContext, s: Scope) => ctx.db.$queryRaw<PartnerRow[]>`
  SELECT p.id, p.name, p.organization_number AS "organizationNumber", p.is_customer AS "isCustomer", p.is_supplier AS "isSupplier",
         EXISTS (SELECT 1 FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
                  WHERE l.business_partner_id = p.id AND ${movementOf(s.cid, s.from, s.to)}
                    AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq}) AS "inPeriod",
         (SELECT json_agg(json_build_object('type', x.address_type, 'line1', x.line1, 'line2', x.line2, 'postalCode', x.postal_code,
                                            'city', x.city, 'country', x.country_code) ORDER BY x.address_type)
            FROM business_partner_addresses x WHERE x.business_partner_id = p.id) AS addresses
    FROM business_partners p
   WHERE p.client_account_id = ${s.cid}
     AND EXISTS (SELECT 1 FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id JOIN accounts a ON a.id = l.account_id
                  WHERE l.business_partner_id = p.id AND l.posting_date <= ${s.to}::date AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq}
                    AND (a.code LIKE '15__%' OR a.code LIKE '24__%' OR (${movementOf(s.cid, s.from, s.to)} AND (p.is_customer OR p.is_supplier))))
   ORDER BY p.id`;

/** Tax codes on the period's lines (those the journal writes) that carry TaxInformation (not the VAT lines themselves). */
const taxCodesUsed = (ctx: RequestContext, s: Scope) => ctx.db.$queryRaw<TaxCodeRow[]>`
  SELECT t.id, t.code, t.name, t.standard_tax_code AS "standardTaxCode"
    FROM tax_codes t
   WHERE t.id IN (SELECT l.tax_code_id FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
                   WHERE l.client_account_id = ${s.cid} AND ${movementOf(s.cid, s.from, s.to)}
                     AND l.tax_code_id IS NOT NULL AND NOT l.tax_line AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq})
   ORDER BY t.code`;

const taxRates = (ctx: RequestContext, cid: number) => ctx.db.$queryRaw<TaxRateRow[]>`
  SELECT r.tax_code_id AS "taxCodeId", r.rate_percent::text AS rate, r.valid_from::text AS "validFrom", r.valid_to::text AS "validTo"
    FROM tax_rates r JOIN tax_codes t ON t.id = r.tax_code_id
   WHERE t.client_account_id = ${cid}
   ORDER BY r.tax_code_id, r.valid_from NULLS FIRST`;

/** Projects and departments on the period's lines (those the journal writes). */
const dimensionsUsed = (ctx: RequestContext, s: Scope) => ctx.db.$queryRaw<DimensionRow[]>`
  SELECT 'P' AS type, p.id, p.name FROM projects p
   WHERE p.client_account_id = ${s.cid}
     AND EXISTS (SELECT 1 FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
                  WHERE l.project_id = p.id AND ${movementOf(s.cid, s.from, s.to)} AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq})
  UNION ALL
  SELECT 'A' AS type, d.id, d.name FROM departments d
   WHERE d.client_account_id = ${s.cid}
     AND EXISTS (SELECT 1 FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
                  WHERE l.department_id = d.id AND ${movementOf(s.cid, s.from, s.to)} AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq})
   ORDER BY 1 DESC, 2`;

/** NumberOfEntries, TotalDebit, TotalCredit: the same lines and the same sides as the journal writes. */
const totals = async (ctx: RequestContext, s: Scope): Promise<TotalsRow> =>
  (
    await ctx.db.$queryRaw<TotalsRow[]>`
  SELECT COUNT(DISTINCT e.id)::int AS entries,
         (COALESCE(SUM(GREATEST(l.debit - l.credit, 0)), 0))::numeric(20, 2)::text AS debit,
         (COALESCE(SUM(GREATEST(l.credit - l.debit, 0)), 0))::numeric(20, 2)::text AS credit,
         MIN(e.sequence_number) AS "firstSeq"
    FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
   WHERE l.client_account_id = ${s.cid} AND ${movementOf(s.cid, s.from, s.to)}
     AND NOT e.is_draft AND e.sequence_number <= ${s.maxSeq}`
  )[0]!;

/** The next BATCH lines after (seq, lineId), in sequence and line order. */
const lineBatch = (ctx: RequestContext, s: Scope, after: { seq: number; lineId: number }, limit: number) => ctx.db.$queryRaw<LineRow[]>`
  SELECT e.sequence_number AS seq, e.description AS "entryDescription", e.cancelled, r.sequence_number AS "reversesSeq",
         (e.created_at AT TIME ZONE 'Europe/Oslo')::date::text AS "createdAt",
         (e.posted_at AT TIME ZONE 'Europe/Oslo')::date::text AS "postedAt",
         (e.updated_at AT TIME ZONE 'Europe/Oslo')::date::text AS "updatedAt",
         e.created_by_id AS "createdById", d.document_type AS "documentType", d.document_number AS "documentNumber",
         l.line_id AS "lineId", l.posting_date::text AS "postingDate", l.description, a.code AS "accountCode",
         (l.debit - l.credit)::numeric(20, 2)::text AS net, (l.debit_fc - l.credit_fc)::numeric(20, 2)::text AS "netFc",
         l.currency_code AS "currencyCode", l.exchange_rate::text AS "exchangeRate",
         l.tax_code_id AS "taxCodeId", t.code AS "taxCode", l.tax_line AS "taxLine",
         l.tax_base_amount::numeric(20, 2)::text AS "taxBase", l.tax_amount::numeric(20, 2)::text AS "taxAmount",
         l.tax_amount_fc::numeric(20, 2)::text AS "taxAmountFc", l.quantity::text AS quantity,
         l.business_partner_id AS "partnerId", l.project_id AS "projectId", l.department_id AS "departmentId"
    FROM journal_entries e
    JOIN journal_entry_lines l ON l.journal_entry_id = e.id
    JOIN accounts a ON a.id = l.account_id
    LEFT JOIN tax_codes t ON t.id = l.tax_code_id
    LEFT JOIN journal_entries r ON r.id = e.reverses_entry_id
    LEFT JOIN documents d ON e.relation_type = 'document' AND d.id = e.relation_id AND d.client_account_id = e.client_account_id
   WHERE e.client_account_id = ${s.cid} AND NOT e.is_draft
     AND e.sequence_number >= ${after.seq} AND e.sequence_number <= ${s.maxSeq}
     AND (e.sequence_number, l.line_id) > (${after.seq}::int, ${after.lineId}::int)
     AND ${movementOf(s.cid, s.from, s.to)}
   ORDER BY e.sequence_number, l.line_id
   LIMIT ${limit}`;

// ── pieces of the file ───────────────────────────────────────────────────────────────────────────

const el = (name: string, value: string | number | null | undefined): string =>
  value === null || value === undefined || value === '' ? '' : `<${name}>${escapeXml(String(value))}</${name}>`;

/** Opening…Balance / Closing…Balance: exactly one of Debit/Credit each (zero as debit). */
const balances = (b: BalanceRow): string =>
  (negative(b.opening) ? el('OpeningCreditBalance', abs(b.opening)) : el('OpeningDebitBalance', abs(b.opening))) +
  (negative(b.closing) ? el('ClosingCreditBalance', abs(b.closing)) : el('ClosingDebitBalance', abs(b.closing)));

const ADDRESS_TYPES: Record<AddressRow['type'], string> = { VISITING: 'StreetAddress', POSTAL: 'PostalAddress', DELIVERY: 'ShipToAddress' };

const address = (a: AddressRow): string =>
  '<Address>' +
  el('StreetName', a.line1 && clip(a.line1, 256)) +
  el('AdditionalAddressDetail', a.line2 && clip(a.line2, 256)) +
  el('City', a.city && clip(a.city, 256)) +
  el('PostalCode', a.postalCode && clip(a.postalCode, 70)) +
  el('Country', a.country && a.country.length === 2 ? a.country : null) +
  el('AddressType', ADDRESS_TYPES[a.type]) +
  '</Address>';

/** An AmountStructure: Amount, and the currency only when it differs from the accounting currency. */
function amount(value: string, currency: { code: string; amount: string | null; rate?: string } | null): string {
  let out = `<Amount>${abs(value)}</Amount>`;
  if (currency && currency.amount !== null) {
    out += `<CurrencyCode>${escapeXml(currency.code)}</CurrencyCode><CurrencyAmount>${abs(currency.amount)}</CurrencyAmount>`;
    if (currency.rate) out += `<ExchangeRate>${currency.rate}</ExchangeRate>`;
  }
  return out;
}

const STANDARD_TAX_CODE = /^[0-9anAN]{1,2}$/;

/** Whether the rate's validity overlaps [from, to] (ISO dates compare as text). */
const overlaps = (r: TaxRateRow, from: string, to: string) => (r.validFrom === null || r.validFrom <= to) && (r.validTo === null || r.validTo >= from);
const covers = (r: TaxRateRow, day: string) => (r.validFrom === null || r.validFrom <= day) && (r.validTo === null || r.validTo >= day);

/** Percentages as SAF-T shows them: '25.00' → '25', '11.11' stays. */
const percent = (rate: string) => rate.replace(/\.?0+$/, '') || '0';

const VOUCHER_DESCRIPTIONS: Record<string, string> = { ARINV: 'Utgående faktura', APINV: 'Inngående faktura' };

/** A sub-ledger account: 1500–1599 customers, 2400–2499 suppliers (sub-accounts may be longer). */
export function subLedgerOf(accountCode: string): 'customer' | 'supplier' | null {
  if (accountCode.length < 4) return null;
  if (accountCode.startsWith('15')) return 'customer';
  if (accountCode.startsWith('24')) return 'supplier';
  return null;
}

// ── the writer ───────────────────────────────────────────────────────────────────────────────────

/**
 * Writes the SAF-T file to `out` and resolves with its summary once the last byte is handed to the
 * stream. The stream is not ended: the caller ends it (and destroys it when this rejects). Checks
 * first (checkSaftRequest), so an error comes before the first byte.
 */
export async function writeSaft(ctx: RequestContext, args: SaftArgs, out: NodeJS.WritableStream, options: SaftOptions = {}): Promise<SaftSummary> {
  const batchSize = options.batchSize ?? BATCH;
  const company = await checkSaftRequest(ctx, args);
  const createdAt = args.createdAt ?? new Date();
  const s: Scope = {
    cid: company.id,
    from: formatDate(company.dateFrom),
    to: formatDate(company.dateTo),
    yearStart: formatDate(startOfYear(company.dateFrom)),
    maxSeq: await ledgerHead(ctx, company.id),
  };

  // everything but the journal lines, before the first byte
  const [accounts, carried, partnerRows, partnerBalanceRows, taxCodes, rates, dimensions, total, contact, self] = await Promise.all([
    accountBalances(ctx, s),
    unclosedResult(ctx, s),
    partners(ctx, s),
    partnerBalances(ctx, s),
    taxCodesUsed(ctx, s),
    taxRates(ctx, s.cid),
    dimensionsUsed(ctx, s),
    totals(ctx, s),
    contactPerson(ctx, s.cid),
    ctx.db.businessPartner.findFirst({ where: { clientAccountId: s.cid, isSelf: true }, select: { addresses: { orderBy: { addressType: 'asc' } } } }),
  ]);

  const balancesOf = new Map<number, PartnerBalanceRow[]>();
  for (const b of partnerBalanceRows) balancesOf.set(b.partnerId, [...(balancesOf.get(b.partnerId) ?? []), b]);
  const customers: PartnerRow[] = [];
  const suppliers: PartnerRow[] = [];
  for (const p of partnerRows) {
    const own = balancesOf.get(p.id) ?? [];
    if (!own.length && !p.inPeriod) continue;
    if (own.some((b) => b.kind === 'C') || (p.isCustomer && p.inPeriod)) customers.push(p);
    if (own.some((b) => b.kind === 'S') || (p.isSupplier && p.inPeriod)) suppliers.push(p);
  }
  // a BalanceAccount names an account the file must list, even one whose partners net to zero; the
  // unclosed result of earlier years opens (and stays) in equity
  const listed = new Set(accounts.map((a) => a.code));
  const carriedResult = new Decimal(carried);
  const missing = [...new Set([...partnerBalanceRows.map((b) => b.code), ...(carriedResult.isZero() ? [] : [UNCLOSED_RESULT.code])])].filter((c) => !listed.has(c));
  if (missing.length) {
    for (const a of await accountsByCode(ctx, s.cid, missing)) {
      accounts.push({ code: a.code, name: a.name, category: a.saftGroupingCategory, groupingCode: a.saftGroupingCode, opening: '0.00', closing: '0.00' });
    }
    accounts.sort((x, y) => (x.code < y.code ? -1 : x.code > y.code ? 1 : 0));
  }
  const equity = accounts.find((a) => a.code === UNCLOSED_RESULT.code);
  if (equity && !carriedResult.isZero()) {
    equity.opening = carriedResult.plus(equity.opening).toFixed(2);
    equity.closing = carriedResult.plus(equity.closing).toFixed(2);
  }
  const customerIds = new Set(customers.map((c) => c.id));
  const supplierIds = new Set(suppliers.map((c) => c.id));
  const ratesOf = new Map<number, TaxRateRow[]>();
  for (const r of rates) ratesOf.set(r.taxCodeId, [...(ratesOf.get(r.taxCodeId) ?? []), r]);

  const w = new XmlWriter(out);
  w.declaration();
  await w.open('AuditFile', { xmlns: SAFT_NAMESPACE });

  // Header
  await w.raw(
    '<Header>' +
      el('AuditFileVersion', '1.30') +
      el('AuditFileCountry', 'NO') +
      el('AuditFileDateCreated', osloDate(createdAt)) +
      el('SoftwareCompanyName', clip(PACKAGE.name, 70)) +
      el('SoftwareID', clip(PACKAGE.name, 256)) +
      el('SoftwareVersion', clip(PACKAGE.version, 18)) +
      '<Company>' +
      el('RegistrationNumber', company.organizationNumber) +
      el('Name', clip(company.displayName, 256)) +
      (self?.addresses ?? []).map((a) => address({ type: a.addressType, line1: a.line1, line2: a.line2, postalCode: a.postalCode, city: a.city, country: a.countryCode })).join('') +
      '<Contact><ContactPerson>' +
      el('FirstName', contact.firstName) +
      el('LastName', contact.lastName) +
      '</ContactPerson>' +
      el('Email', contact.email) +
      '</Contact>' +
      (company.vatLiable ? `<TaxRegistration>${el('TaxRegistrationNumber', `${company.organizationNumber}MVA`)}${el('TaxAuthority', 'Skatteetaten')}</TaxRegistration>` : '') +
      '</Company>' +
      el('DefaultCurrencyCode', company.accountingCurrency) +
      `<SelectionCriteria>${el('SelectionStartDate', s.from)}${el('SelectionEndDate', s.to)}</SelectionCriteria>` +
      el('TaxAccountingBasis', 'A') +
      '</Header>',
  );

  // MasterFiles
  await w.open('MasterFiles');
  if (accounts.length) {
    await w.open('GeneralLedgerAccounts');
    for (const a of accounts) {
      await w.raw(
        '<Account>' +
          el('AccountID', a.code) +
          el('AccountDescription', clip(a.name, 256) || a.code) +
          el('GroupingCategory', a.category ? clip(a.category, 256) : 'NA') +
          el('GroupingCode', a.groupingCode ? clip(a.groupingCode, 35) : 'NA') +
          el('AccountType', 'GL') +
          balances(a) +
          '</Account>',
      );
    }
    await w.close('GeneralLedgerAccounts');
  }
  for (const [list, wrapper, item, idElement, kind] of [
    [customers, 'Customers', 'Customer', 'CustomerID', 'C'],
    [suppliers, 'Suppliers', 'Supplier', 'SupplierID', 'S'],
  ] as const) {
    if (!list.length) continue;
    await w.open(wrapper);
    for (const p of list) {
      await w.raw(
        `<${item}>` +
          el('RegistrationNumber', p.organizationNumber) +
          el('Name', clip(p.name, 256) || String(p.id)) +
          (p.addresses ?? []).map(address).join('') +
          el(idElement, String(p.id)) +
          (balancesOf.get(p.id) ?? [])
            .filter((b) => b.kind === kind)
            .map((b) => `<BalanceAccount>${el('AccountID', b.code)}${balances(b)}</BalanceAccount>`)
            .join('') +
          `</${item}>`,
      );
    }
    await w.close(wrapper);
  }
  if (taxCodes.length) {
    let details = '';
    for (const t of taxCodes) {
      const inPeriod = (ratesOf.get(t.id) ?? []).filter((r) => overlaps(r, s.from, s.to));
      const common = {
        description: el('Description', clip(t.name, 256)),
        tail: el('Country', 'NO') + el('StandardTaxCode', STANDARD_TAX_CODE.test(t.standardTaxCode) ? t.standardTaxCode : 'NA') + el('BaseRate', '100'),
      };
      if (!inPeriod.length) details += `<TaxCodeDetails>${el('TaxCode', t.code)}${common.description}${common.tail}</TaxCodeDetails>`;
      // one entry per rate the code had during the period, dated when the rate changed within it
      for (const r of inPeriod) {
        const dated = inPeriod.length > 1;
        details +=
          '<TaxCodeDetails>' +
          el('TaxCode', t.code) +
          (dated ? el('EffectiveDate', r.validFrom) + el('ExpirationDate', r.validTo) : '') +
          common.description +
          el('TaxPercentage', percent(r.rate)) +
          common.tail +
          '</TaxCodeDetails>';
      }
    }
    await w.raw(`<TaxTable><TaxTableEntry>${el('TaxType', 'MVA')}${el('Description', 'Merverdiavgift')}${details}</TaxTableEntry></TaxTable>`);
  }
  if (dimensions.length) {
    await w.open('AnalysisTypeTable');
    for (const d of dimensions) {
      await w.raw(
        '<AnalysisTypeTableEntry>' +
          el('AnalysisType', d.type) +
          el('AnalysisTypeDescription', d.type === 'P' ? 'Prosjekt' : 'Avdeling') +
          el('AnalysisID', String(d.id)) +
          el('AnalysisIDDescription', clip(d.name, 256) || String(d.id)) +
          '</AnalysisTypeTableEntry>',
      );
    }
    await w.close('AnalysisTypeTable');
  }
  await w.close('MasterFiles');

  // GeneralLedgerEntries: the totals first (computed above), then the journal in batches
  await w.raw(
    '<GeneralLedgerEntries>' +
      el('NumberOfEntries', total.entries) +
      el('TotalDebit', total.debit) +
      el('TotalCredit', total.credit) +
      `<Journal>${el('JournalID', 'GL')}${el('Description', 'Hovedbok')}${el('Type', 'GL')}`,
  );
  const currency = company.accountingCurrency;
  let after = { seq: (total.firstSeq ?? 1) - 1, lineId: 0 };
  let open = null as { seq: number; description: string } | null;
  let written = 0;
  for (;;) {
    const batch = await lineBatch(ctx, s, after, batchSize);
    for (const l of batch) {
      if (open?.seq !== l.seq) {
        if (open) await w.raw('</Transaction>');
        const description = transactionDescription(l);
        open = { seq: l.seq, description };
        written++;
        const [year, month] = l.postingDate.split('-');
        await w.raw(
          '<Transaction>' +
            el('TransactionID', String(l.seq)) +
            el('Period', Number(month)) +
            el('PeriodYear', year) +
            el('TransactionDate', l.postingDate) +
            el('SourceID', l.createdById === null ? null : String(l.createdById)) +
            el('VoucherType', l.documentType && clip(l.documentType, 70)) +
            el('VoucherDescription', l.documentType ? VOUCHER_DESCRIPTIONS[l.documentType] : null) +
            el('Description', description) +
            el('SystemEntryDate', l.createdAt) +
            el('GLPostingDate', l.postedAt ?? l.postingDate) +
            el('ModificationDate', l.updatedAt),
        );
      }
      await w.raw(lineXml(l, open.description, currency, ratesOf, customerIds, supplierIds));
    }
    if (batch.length < batchSize) break;
    const last = batch[batch.length - 1]!;
    after = { seq: last.seq, lineId: last.lineId };
  }
  if (open) await w.raw('</Transaction>');
  await w.raw('</Journal></GeneralLedgerEntries></AuditFile>\n');
  await w.finish();
  if (written !== total.entries) {
    // the ledger up to maxSeq is immutable, so this means a bug in one of the two queries
    throw new Error(`SAF-T export of client account ${s.cid}: NumberOfEntries ${total.entries}, but ${written} transactions written`);
  }
  return { fileName: saftFileNameOf(company.organizationNumber, createdAt), numberOfEntries: total.entries, totalDebit: total.debit, totalCredit: total.credit };
}

function transactionDescription(l: LineRow): string {
  const own = l.entryDescription ? clip(l.entryDescription, 256) : '';
  if (own) return own;
  if (l.cancelled === 'C' && l.reversesSeq !== null) return `Annullering av bilag ${l.reversesSeq}`;
  return `Bilag ${l.seq}`;
}

function lineXml(
  l: LineRow,
  transactionDescription: string,
  accountingCurrency: string,
  ratesOf: Map<number, TaxRateRow[]>,
  customerIds: Set<number>,
  supplierIds: Set<number>,
): string {
  const debit = !negative(l.net);
  const foreign = l.currencyCode !== accountingCurrency;
  const side = debit ? 'DebitAmount' : 'CreditAmount';
  let xml = `<Line><RecordID>${l.lineId}</RecordID>${el('AccountID', l.accountCode)}`;
  if (l.projectId !== null) xml += `<Analysis><AnalysisType>P</AnalysisType><AnalysisID>${l.projectId}</AnalysisID></Analysis>`;
  if (l.departmentId !== null) xml += `<Analysis><AnalysisType>A</AnalysisType><AnalysisID>${l.departmentId}</AnalysisID></Analysis>`;
  const ledger = l.partnerId === null ? null : subLedgerOf(l.accountCode);
  if (ledger === 'customer' && customerIds.has(l.partnerId!)) xml += el('CustomerID', String(l.partnerId));
  if (ledger === 'supplier' && supplierIds.has(l.partnerId!)) xml += el('SupplierID', String(l.partnerId));
  xml += el('Description', (l.description && clip(l.description, 256)) || transactionDescription);
  xml += `<${side}>${amount(l.net, foreign ? { code: l.currencyCode, amount: l.netFc, rate: l.exchangeRate } : null)}</${side}>`;
  if (l.taxCodeId !== null && !l.taxLine && l.taxCode !== null) {
    const rate = (ratesOf.get(l.taxCodeId) ?? []).find((r) => covers(r, l.postingDate));
    const tax = l.taxAmount ?? '0.00';
    // the tax on the line's own side; a negative tax amount (a correction) on the other
    const taxSide = debit !== negative(tax) ? 'DebitTaxAmount' : 'CreditTaxAmount';
    xml +=
      '<TaxInformation><TaxType>MVA</TaxType>' +
      el('TaxCode', l.taxCode) +
      el('TaxPercentage', rate ? percent(rate.rate) : null) +
      '<Country>NO</Country>' +
      el('TaxBase', l.taxBase === null ? null : abs(l.taxBase)) +
      `<${taxSide}>${amount(tax, foreign && l.taxAmountFc !== null ? { code: l.currencyCode, amount: l.taxAmountFc } : null)}</${taxSide}>` +
      '</TaxInformation>';
  }
  if (ledger && l.documentNumber) xml += el('ReferenceNumber', clip(l.documentNumber, 35));
  xml += el('Quantity', l.quantity);
  return `${xml}</Line>`;
}

/**
 * The Header's contact person: the client account's first owner (CA), else the requesting user; a
 * name part the user has not given falls back to the e-mail's local part / "Ukjent" (both are
 * mandatory in 1.30).
 */
async function contactPerson(ctx: RequestContext, cid: number): Promise<{ firstName: string; lastName: string; email: string | null }> {
  const owner = await ctx.db.membership.findFirst({
    where: { clientAccountId: cid, role: 'CA' },
    orderBy: { id: 'asc' },
    select: { user: { select: { firstName: true, lastName: true, email: true } } },
  });
  const user = owner?.user ?? (ctx.actor.userId ? await ctx.db.user.findUnique({ where: { id: ctx.actor.userId }, select: { firstName: true, lastName: true, email: true } }) : null);
  const firstName = clip(user?.firstName ?? '', 35) || clip(user?.email.split('@')[0] ?? '', 35) || 'Ukjent';
  const lastName = clip(user?.lastName ?? '', 70) || 'Ukjent';
  const email = user && user.email.length <= 70 ? user.email : null;
  return { firstName, lastName, email };
}
