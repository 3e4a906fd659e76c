import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { Decimal, formatDate, inCurrency } from '../../shared/scalars.ts';
import type { RequestContext } from '../../shared/context.ts';
import { requireAccount } from '../../shared/tenancy.ts';
import { parse } from '../../shared/validation.ts';
import { ValidationError } from '../../shared/errors.ts';
import { findPage, pageWindow, type Page, type PageWindow } from '../../shared/pagination.ts';
import { DIMENSION_KIND_NAMES, DIMENSION_KINDS, type DimensionKind } from '../journal-entries/dimensions.ts';
import { toSnake } from '../../shared/naming.ts';
import { containsPattern } from '../../shared/text-search.ts';
import { groupingOf, UNCLOSED_RESULT, type Grouping } from './grouping.ts';
import { BALANCE_ACCOUNT_PATTERN, isBalanceAccount } from '../ledger-accounts/account-classes.ts';
import { balanceAt, incomingOf, movementOf } from './opening-balances.ts';
import {
  LEDGER_PAGE_LIMITS,
  reportRules,
  startOfYear,
  SUB_LEDGER_ACCOUNTS,
  type CodeRange,
  type DimensionFilter,
  type SubLedger,
} from './reports.rules.ts';

// spec 001 "Reports": every figure is aggregated by PostgreSQL (one statement per report, plus one
// for a general-ledger page); JavaScript only attaches the grouping of the few accounts returned.

const sql = PrismaNS.sql;
const empty = PrismaNS.empty;
const join = PrismaNS.join;


/** The dimension column of a wire type, e.g. project → l.project_id (from the fixed table, never from input). */
const dimensionColumn = (type: DimensionKind) => PrismaNS.raw(`l.${toSnake(DIMENSION_KINDS[type].column)}`);

/** Each dimension type's table and naming column, for relation_name. */
const DIMENSION_NAME_SQL: Record<DimensionKind, string> = {
  businesspartner: 'SELECT name FROM business_partners WHERE id = $ID',
  bankacc: 'SELECT COALESCE(name, account_number) FROM bank_accounts WHERE id = $ID',
  project: 'SELECT name FROM projects WHERE id = $ID',
  department: 'SELECT name FROM departments WHERE id = $ID',
  asset: 'SELECT name FROM assets WHERE id = $ID',
  tag: 'SELECT name FROM tags WHERE id = $ID',
  item: 'SELECT COALESCE(name, item_no) FROM items WHERE id = $ID',
};

/** Which lines a report reads, whatever it does with them. */
interface Scope {
  clientAccountId: number;
  includeDrafts: boolean;
  includeCancelled?: boolean;
  dimensions?: readonly DimensionFilter[];
  accountCodes?: readonly CodeRange[];
  /** account codes exactly (the sub-ledgers' control accounts) */
  accountCode?: string;
  taxCodes?: readonly string[] | null;
  freeText?: string | null;
  /** false: only lines not fully reconciled */
  includeReconciled?: boolean;
  businessPartnerId?: number | null;
}

/**
 * The WHERE conditions on `l` (journal_entry_lines) of a scope. Drafts, cancellations and free text
 * on the entry are tested against the client account's few matching entries (anti- and semi-joins),
 * so the aggregate reads the lines alone through the (client_account_id, …) indexes.
 */
function scopeWhere(s: Scope): PrismaNS.Sql {
  const parts: PrismaNS.Sql[] = [sql`l.client_account_id = ${s.clientAccountId}`];
  if (!s.includeDrafts) {
    parts.push(sql`l.journal_entry_id NOT IN (SELECT d.id FROM journal_entries d WHERE d.client_account_id = ${s.clientAccountId} AND d.is_draft)`);
  }
  if (s.includeCancelled === false) {
    parts.push(sql`l.journal_entry_id NOT IN (SELECT c.id FROM journal_entries c WHERE c.client_account_id = ${s.clientAccountId} AND c.cancelled IS NOT NULL)`);
  }
  const byType = new Map<DimensionKind, number[]>();
  for (const d of s.dimensions ?? []) byType.set(d.type, [...(byType.get(d.type) ?? []), d.id]);
  // several ids of one type: any of them; several types: all of them
  for (const [type, ids] of byType) parts.push(sql`${dimensionColumn(type)} IN (${join(ids)})`);
  if (s.accountCodes?.length) {
    const ranges = s.accountCodes.map((r) => sql`(a.code BETWEEN ${r.from} AND ${r.to})`);
    parts.push(sql`l.account_id IN (SELECT a.id FROM accounts a WHERE a.client_account_id = ${s.clientAccountId} AND (${join(ranges, ' OR ')}))`);
  }
  if (s.accountCode) {
    parts.push(sql`l.account_id IN (SELECT a.id FROM accounts a WHERE a.client_account_id = ${s.clientAccountId} AND a.code = ${s.accountCode})`);
  }
  if (s.taxCodes?.length) {
    parts.push(sql`l.tax_code_id IN (SELECT t.id FROM tax_codes t WHERE t.client_account_id = ${s.clientAccountId} AND t.code IN (${join([...s.taxCodes])}))`);
  }
  if (s.freeText) {
    const pattern = containsPattern(s.freeText);
    const number = /^\d{1,9}$/.test(s.freeText) ? Number(s.freeText) : null;
    parts.push(sql`(l.description ILIKE ${pattern} OR l.journal_entry_id IN (
      SELECT f.id FROM journal_entries f WHERE f.client_account_id = ${s.clientAccountId} AND (f.description ILIKE ${pattern} OR f.sequence_number = ${number}::int)))`);
  }
  if (s.includeReconciled === false) parts.push(sql`l.debit + l.credit > l.reconciled_amount`);
  if (s.businessPartnerId) parts.push(sql`l.business_partner_id = ${s.businessPartnerId}`);
  return join(parts, ' AND ');
}

/** A dimension value of a grouped row (relation_type/relation_id/relation_name). */
export interface Relation {
  relationType: DimensionKind | null;
  relationId: number | null;
  relationName: string | null;
}

const NO_RELATION: Relation = { relationType: null, relationId: null, relationName: null };

/** The grouped dimension's column and the SQL naming its value (outer alias t.relation_id). */
function relationSql(type: DimensionKind | null) {
  if (!type) return { select: empty, group: empty, name: sql`NULL::text` };
  const column = dimensionColumn(type);
  return {
    select: sql`, ${column} AS relation_id`,
    group: sql`, ${column}`,
    name: PrismaNS.raw(`(${DIMENSION_NAME_SQL[type].replace('$ID', 't.relation_id')})`),
  };
}

const relationOf = (type: DimensionKind | null, row: { relation_id: number | null; relation_name: string | null }): Relation =>
  type ? { relationType: type, relationId: row.relation_id, relationName: row.relation_name } : NO_RELATION;

export interface AccountRow {
  grouping: Grouping;
  accountId: number;
  accountCode: string;
  accountName: string;
}

const accountRow = (r: { account_id: number; code: string; name: string }): AccountRow => ({
  grouping: groupingOf(r.code),
  accountId: r.account_id,
  accountCode: r.code,
  accountName: r.name,
});

// ── Balance sheet ─────────────────────────────────────────────────────────────────────────────────

export interface BalanceSheetRow extends AccountRow {
  /** debit − credit: assets positive, equity and liabilities negative */
  balance: Decimal;
}


/**
 * spec 001: GET /reports/balance-sheet. Every balance-sheet account (classes 1 and 2) with a non-zero
 * balance on report_date, and the result of the result accounts (classes 3-8) not yet closed into
 * equity as one more row in 20 Egenkapital, so assets = equity + liabilities and the rows net to 0.
 * The balance on report_date is the incoming balance of the next day: on 31 December it includes
 * the opening balance of 1 January (opening-balances.ts).
 */
export async function balanceSheet(ctx: RequestContext, args: unknown): Promise<BalanceSheetRow[]> {
  const a = parse(reportRules.balanceSheet, args);
  await requireAccount(ctx, a.clientAccountId);
  const where = scopeWhere({ ...a, includeCancelled: true });
  const rows = await ctx.db.$queryRaw<{ account_id: number; code: string; name: string; balance: string }[]>`
    SELECT t.account_id, a.code, a.name, t.balance::text AS balance
    FROM (SELECT l.account_id, SUM(l.debit - l.credit) AS balance
          FROM journal_entry_lines l
          WHERE ${where} AND ${balanceAt(a.clientAccountId, a.reportDate)}
          GROUP BY l.account_id) t
    JOIN accounts a ON a.id = t.account_id
    WHERE t.balance <> 0
    ORDER BY a.code`;
  const out: BalanceSheetRow[] = [];
  let result = new Decimal(0);
  for (const r of rows) {
    if (isBalanceAccount(r.code)) out.push({ ...accountRow(r), balance: new Decimal(r.balance) });
    else result = result.plus(r.balance);
  }
  if (!result.isZero()) {
    out.push({ grouping: groupingOf(UNCLOSED_RESULT.code), accountId: 0, accountCode: UNCLOSED_RESULT.code, accountName: UNCLOSED_RESULT.name, balance: result });
    out.sort((x, y) => (x.accountCode < y.accountCode ? -1 : x.accountCode > y.accountCode ? 1 : x.accountId - y.accountId));
  }
  return out;
}

// ── Income statement ──────────────────────────────────────────────────────────────────────────────

export interface IncomeStatementRow extends AccountRow, Relation {
  /** debit − credit per calendar month, index 0 = January (income negative) */
  months: Decimal[];
}

/**
 * spec 001: GET /reports/income-statement. The result accounts (classes 3-8) with movements between
 * date_from and date_to, the movement (debit − credit) per calendar month; with group_by_dimension,
 * one row per account and value of that dimension. An opening balance dated date_from is not the
 * period's movement (it holds balance-sheet accounts only, so this changes nothing today: the rule
 * is applied anyway, as everywhere a period's movement is read).
 */
export async function incomeStatement(ctx: RequestContext, args: unknown): Promise<IncomeStatementRow[]> {
  const a = parse(reportRules.incomeStatement, args);
  await requireAccount(ctx, a.clientAccountId);
  const where = scopeWhere({ ...a, includeCancelled: true });
  const rel = relationSql(a.groupByDimension);
  const months = Array.from({ length: 12 }, (_, i) => PrismaNS.raw(`SUM(CASE WHEN EXTRACT(MONTH FROM l.posting_date) = ${i + 1} THEN l.debit - l.credit ELSE 0 END)::text AS m${i + 1}`));
  const rows = await ctx.db.$queryRaw<({ account_id: number; code: string; name: string; relation_id: number | null; relation_name: string | null } & Record<string, string>)[]>`
    SELECT t.*, a.code, a.name, ${rel.name} AS relation_name
    FROM (SELECT l.account_id ${rel.select}, ${join(months)}, COUNT(*) AS n
          FROM journal_entry_lines l
          WHERE ${where} AND ${movementOf(a.clientAccountId, formatDate(a.dateFrom), formatDate(a.dateTo))}
          GROUP BY l.account_id ${rel.group}) t
    JOIN accounts a ON a.id = t.account_id
    WHERE a.code !~ ${BALANCE_ACCOUNT_PATTERN}
    ORDER BY a.code, t.account_id ${a.groupByDimension ? sql`, t.relation_id NULLS FIRST` : empty}`;
  return rows.map((r) => ({
    ...accountRow(r),
    ...relationOf(a.groupByDimension, r),
    months: Array.from({ length: 12 }, (_, i) => new Decimal(r[`m${i + 1}`])),
  }));
}

// ── Trial balance ─────────────────────────────────────────────────────────────────────────────────

export interface TrialBalanceRow extends AccountRow, Relation {
  incomingBalance: Decimal;
  debit: Decimal;
  credit: Decimal;
  outgoingBalance: Decimal;
}

/**
 * spec 001: GET /reports/trial-balance. Per account (and dimension value with group_by_dimension):
 * the incoming balance on date_from, the period's debit and credit and the outgoing balance =
 * incoming + debit − credit. A balance-sheet account's incoming balance is everything before
 * date_from and an opening balance dated on it (opening-balances.ts), whose lines are then not the
 * period's debit and credit; a result account's starts at 1 January of date_from's year.
 *
 * "JSON always omits zero-movement accounts": a row without debit or credit in the period is left
 * out, even with an incoming balance, unless includeZeroMovement (the file formats'
 * include_zero_movement, default true there): then every account of the chart is listed.
 * `keepBalances` is for callers inside the service that need every account with something to show,
 * an incoming balance alone included (the yearly accounts' fixed-asset note); no wire argument sets it.
 */
export async function trialBalance(ctx: RequestContext, args: unknown, options: { keepBalances?: boolean } = {}): Promise<TrialBalanceRow[]> {
  const a = parse(reportRules.trialBalance, args);
  await requireAccount(ctx, a.clientAccountId);
  const where = scopeWhere(a);
  const rel = relationSql(a.groupByDimension);
  const [from, to, yearStart] = [formatDate(a.dateFrom), formatDate(a.dateTo), formatDate(startOfYear(a.dateFrom))];
  const incoming = incomingOf(a.clientAccountId, from);
  const rows = await ctx.db.$queryRaw<{ account_id: number; code: string; name: string; relation_id: number | null; relation_name: string | null; before: string; year: string; debit: string; credit: string }[]>`
    SELECT t.*, a.code, a.name, ${rel.name} AS relation_name
    FROM (SELECT l.account_id ${rel.select},
                 SUM(CASE WHEN ${incoming} THEN l.debit - l.credit ELSE 0 END)::text AS before,
                 SUM(CASE WHEN l.posting_date >= ${yearStart}::date AND ${incoming} THEN l.debit - l.credit ELSE 0 END)::text AS year,
                 SUM(CASE WHEN ${incoming} THEN 0 ELSE l.debit END)::text AS debit,
                 SUM(CASE WHEN ${incoming} THEN 0 ELSE l.credit END)::text AS credit
          FROM journal_entry_lines l
          WHERE ${where} AND l.posting_date <= ${to}::date
          GROUP BY l.account_id ${rel.group}) t
    JOIN accounts a ON a.id = t.account_id
    ORDER BY a.code, t.account_id ${a.groupByDimension ? sql`, t.relation_id NULLS FIRST` : empty}`;
  const out: TrialBalanceRow[] = [];
  for (const r of rows) {
    const incoming = new Decimal(isBalanceAccount(r.code) ? r.before : r.year);
    const [debit, credit] = [new Decimal(r.debit), new Decimal(r.credit)];
    const moved = !debit.isZero() || !credit.isZero();
    if (!moved && !a.includeZeroMovement && !(options.keepBalances && !incoming.isZero())) continue;
    out.push({ ...accountRow(r), ...relationOf(a.groupByDimension, r), incomingBalance: incoming, debit, credit, outgoingBalance: incoming.plus(debit).minus(credit) });
  }
  if (a.includeZeroMovement) {
    const shown = new Set(out.map((r) => r.accountId));
    const ranges = a.accountCodes ?? [];
    const chart = await ctx.db.account.findMany({ where: { clientAccountId: a.clientAccountId }, select: { id: true, code: true, name: true }, orderBy: { code: 'asc' } });
    const zero = new Decimal(0);
    for (const acc of chart) {
      if (shown.has(acc.id) || (ranges.length && !ranges.some((r) => acc.code >= r.from && acc.code <= r.to))) continue;
      out.push({ ...accountRow({ account_id: acc.id, code: acc.code, name: acc.name }), ...(a.groupByDimension ? { ...NO_RELATION, relationType: a.groupByDimension } : NO_RELATION), incomingBalance: zero, debit: zero, credit: zero, outgoingBalance: zero });
    }
    out.sort((x, y) => (x.accountCode < y.accountCode ? -1 : x.accountCode > y.accountCode ? 1 : 0));
  }
  return out;
}

// ── General ledger and the sub-ledgers ────────────────────────────────────────────────────────────

export interface LedgerGrouping {
  level1Code: string;
  level1Name: string;
  incomingBalance: Decimal;
  outgoingBalance: Decimal;
  movement: Decimal;
}

export interface LedgerRelatedObject {
  id: number;
  documentNumber: string | null;
  documentDate: Date;
  dueDate: Date | null;
  paymentRef: string | null;
  documentType: string;
  businessPartner: { id: number; name: string } | null;
}

export interface LedgerEntry {
  id: number;
  sequenceNumber: number | null;
  cancelled: string | null;
  isDraft: boolean;
  voucherId: number | null;
  description: string | null;
  relatedObject: LedgerRelatedObject | null;
  createdById: number | null;
}

export interface LedgerRow {
  grouping: LedgerGrouping;
  id: number;
  lineId: number;
  postingDate: Date;
  accountId: number;
  accountCode: string;
  description: string | null;
  debit: string;
  credit: string;
  /** debit − credit in the line's currency */
  debitAmount: string;
  currencyCode: string;
  exchangeRate: string;
  taxCode: string | null;
  taxBaseAmount: string | null;
  taxAmount: string | null;
  reconciledAmount: string;
  dimensions: { type: DimensionKind; id: number }[];
  /** the name of the line's business-partner dimension (the sub-ledger files' partner column) */
  partnerName: string | null;
  journalEntry: LedgerEntry;
}

interface LedgerLineRow {
  id: number;
  line_id: number;
  posting_date: Date;
  account_id: number;
  code: string;
  description: string | null;
  debit: string;
  credit: string;
  debit_amount: string;
  currency_code: string;
  exchange_rate: string;
  tax_code: string | null;
  tax_base_amount: string | null;
  tax_amount: string | null;
  reconciled_amount: string;
  entry_id: number;
  sequence_number: number | null;
  cancelled: string | null;
  is_draft: boolean;
  voucher_id: number | null;
  entry_description: string | null;
  created_by_id: number | null;
  document_id: number | null;
  document_number: string | null;
  document_date: Date | null;
  due_date: Date | null;
  payment_ref: string | null;
  document_type: string | null;
  partner_id: number | null;
  partner_name: string | null;
  dimension_partner_name: string | null;
  [dimension: string]: unknown;
}

interface LedgerGroupRow {
  account_id: number;
  code: string;
  name: string;
  n: bigint | number;
  movement: string;
  before: string;
  year: string;
}

const DIMENSION_SELECT = PrismaNS.raw(DIMENSION_KIND_NAMES.map((k) => `l.${toSnake(DIMENSION_KINDS[k].column)} AS dim_${k}`).join(', '));

/** The accounts a ledger covers, in row order, with their grouping and how many lines each shows. */
interface LedgerAccounts {
  /** in the rows' order (account code, id) */
  accounts: { accountId: number; lines: number; grouping: LedgerGrouping }[];
  records: number;
}

/**
 * The accounts of a ledger (spec 001 general-ledger row's grouping): the incoming balance on
 * date_from (under the scope's dimension, draft and cancellation filters), the movement of every
 * line the filters select (all pages) and the outgoing balance = incoming + movement. An opening
 * balance dated date_from is incoming balance, not lines (opening-balances.ts).
 */
async function ledgerAccounts(ctx: RequestContext, scope: Scope, range: { dateFrom: Date; dateTo: Date }): Promise<LedgerAccounts> {
  await requireAccount(ctx, scope.clientAccountId);
  const where = scopeWhere(scope);
  const [from, to, yearStart] = [formatDate(range.dateFrom), formatDate(range.dateTo), formatDate(startOfYear(range.dateFrom))];
  const period = movementOf(scope.clientAccountId, from, to);
  const incoming = incomingOf(scope.clientAccountId, from);
  const balances = sql`SUM(CASE WHEN ${incoming} THEN l.debit - l.credit ELSE 0 END) AS before,
                       SUM(CASE WHEN l.posting_date >= ${yearStart}::date AND ${incoming} THEN l.debit - l.credit ELSE 0 END) AS year`;
  // what only selects lines to show (text, tax codes, reconciliation) does not touch the incoming
  // balance: without such filters one pass over the lines gives both, with them a second one counts
  const selectsLines = !!(scope.freeText || scope.taxCodes?.length || scope.includeReconciled === false);
  const groups = selectsLines
    ? await ctx.db.$queryRaw<LedgerGroupRow[]>`
        SELECT t.account_id, a.code, a.name, COALESCE(m.n, 0) AS n, COALESCE(m.movement, 0)::text AS movement, t.before::text AS before, t.year::text AS year
        FROM (SELECT l.account_id, ${balances}
              FROM journal_entry_lines l WHERE ${scopeWhere({ ...scope, freeText: null, taxCodes: null, includeReconciled: true })} AND l.posting_date <= ${to}::date
              GROUP BY l.account_id) t
        JOIN accounts a ON a.id = t.account_id
        LEFT JOIN (SELECT l.account_id, COUNT(*) AS n, SUM(l.debit - l.credit) AS movement
                   FROM journal_entry_lines l WHERE ${where} AND ${period} GROUP BY l.account_id) m ON m.account_id = t.account_id
        ORDER BY a.code, a.id`
    : await ctx.db.$queryRaw<LedgerGroupRow[]>`
        SELECT t.account_id, a.code, a.name, t.n, t.movement::text AS movement, t.before::text AS before, t.year::text AS year
        FROM (SELECT l.account_id, ${balances},
                     COUNT(*) FILTER (WHERE NOT ${incoming}) AS n,
                     SUM(CASE WHEN ${incoming} THEN 0 ELSE l.debit - l.credit END) AS movement
              FROM journal_entry_lines l WHERE ${where} AND l.posting_date <= ${to}::date
              GROUP BY l.account_id) t
        JOIN accounts a ON a.id = t.account_id
        ORDER BY a.code, a.id`;
  let records = 0;
  const accounts = groups.map((g) => {
    records += Number(g.n);
    const incomingBalance = new Decimal(isBalanceAccount(g.code) ? g.before : g.year);
    const movement = new Decimal(g.movement);
    return { accountId: g.account_id, lines: Number(g.n), grouping: { level1Code: g.code, level1Name: g.name, incomingBalance, movement, outgoingBalance: incomingBalance.plus(movement) } };
  });
  return { accounts, records };
}

/**
 * The lines `offset` to `offset + limit` of a ledger (ordered by account code, posting date, voucher
 * number and line), each with its account's grouping. Only the accounts those rows come from are
 * read and sorted.
 */
async function ledgerLines(ctx: RequestContext, scope: Scope, range: { dateFrom: Date; dateTo: Date }, of: LedgerAccounts, offset: number, limit: number): Promise<LedgerRow[]> {
  const where = scopeWhere(scope);
  const period = movementOf(scope.clientAccountId, formatDate(range.dateFrom), formatDate(range.dateTo));
  const covered: number[] = [];
  let before = 0;
  let skip = 0;
  for (const a of of.accounts) {
    if (before + a.lines > offset && before < offset + limit && a.lines > 0) {
      if (!covered.length) skip = offset - before;
      covered.push(a.accountId);
    }
    before += a.lines;
  }
  if (!covered.length) return [];
  const lines = await ctx.db.$queryRaw<LedgerLineRow[]>`
      SELECT l.id, l.line_id, l.posting_date, l.account_id, a.code, l.description, l.debit::text AS debit, l.credit::text AS credit,
             (l.debit_fc - l.credit_fc)::text AS debit_amount, l.currency_code, l.exchange_rate::text AS exchange_rate,
             tc.code AS tax_code, l.tax_base_amount::text AS tax_base_amount, l.tax_amount::text AS tax_amount,
             l.reconciled_amount::text AS reconciled_amount, ${DIMENSION_SELECT}, dbp.name AS dimension_partner_name,
             e.id AS entry_id, e.sequence_number, e.cancelled, e.is_draft, e.voucher_id, e.description AS entry_description, e.created_by_id,
             d.id AS document_id, d.document_number, d.document_date, d.due_date, d.payment_ref, d.document_type, bp.id AS partner_id, bp.name AS partner_name
      FROM journal_entry_lines l
      JOIN accounts a ON a.id = l.account_id
      JOIN journal_entries e ON e.id = l.journal_entry_id
      LEFT JOIN tax_codes tc ON tc.id = l.tax_code_id
      LEFT JOIN documents d ON e.relation_type = 'document' AND d.id = e.relation_id AND d.client_account_id = e.client_account_id
      LEFT JOIN business_partners bp ON bp.id = d.business_partner_id
      LEFT JOIN business_partners dbp ON dbp.id = l.business_partner_id
      WHERE ${where} AND ${period} AND l.account_id IN (${join(covered)})
      ORDER BY a.code, a.id, l.posting_date, e.sequence_number NULLS LAST, e.id, l.line_id
      LIMIT ${limit} OFFSET ${skip}`;
  const byAccount = new Map(of.accounts.map((a) => [a.accountId, a.grouping]));
  return lines.map((l): LedgerRow => ({
    grouping: byAccount.get(l.account_id)!,
    id: l.id,
    lineId: l.line_id,
    postingDate: l.posting_date,
    accountId: l.account_id,
    accountCode: l.code,
    description: l.description,
    debit: l.debit,
    credit: l.credit,
    debitAmount: inCurrency(new Decimal(l.debit_amount), l.currency_code),
    currencyCode: l.currency_code,
    exchangeRate: l.exchange_rate,
    taxCode: l.tax_code,
    taxBaseAmount: l.tax_base_amount,
    taxAmount: l.tax_amount,
    reconciledAmount: l.reconciled_amount,
    dimensions: DIMENSION_KIND_NAMES.filter((k) => l[`dim_${k}`] != null).map((k) => ({ type: k, id: Number(l[`dim_${k}`]) })),
    partnerName: l.dimension_partner_name,
    journalEntry: {
      id: l.entry_id,
      sequenceNumber: l.sequence_number,
      cancelled: l.cancelled,
      isDraft: l.is_draft,
      voucherId: l.voucher_id,
      description: l.entry_description,
      createdById: l.created_by_id,
      relatedObject:
        l.document_id === null
          ? null
          : {
              id: l.document_id,
              documentNumber: l.document_number,
              documentDate: l.document_date!,
              dueDate: l.due_date,
              paymentRef: l.payment_ref,
              documentType: l.document_type!,
              businessPartner: l.partner_id === null ? null : { id: l.partner_id, name: l.partner_name! },
            },
    },
  }));
}

/** One window of a ledger (spec 001 general-ledger row): by page, or after/before a line's cursor. */
async function ledger(ctx: RequestContext, scope: Scope, range: { dateFrom: Date; dateTo: Date }, window: PageWindow): Promise<Page<LedgerRow>> {
  const of = await ledgerAccounts(ctx, scope, range);
  return findPage(
    window,
    ({ skip, take }) => ledgerLines(ctx, scope, range, of, skip, take),
    async () => of.records,
    (id) => ledgerPosition(ctx, scope, range, of, Number(id)),
  );
}

/** The 0-based row of a line in the ledger now: the lines of the accounts before its own, then its place in its account. */
async function ledgerPosition(ctx: RequestContext, scope: Scope, range: { dateFrom: Date; dateTo: Date }, of: LedgerAccounts, id: number): Promise<number | null> {
  const period = movementOf(scope.clientAccountId, formatDate(range.dateFrom), formatDate(range.dateTo));
  const [row] = await ctx.db.$queryRaw<{ account_id: number; n: bigint }[]>`
      SELECT account_id, n FROM (
        SELECT l.id, l.account_id, row_number() OVER (ORDER BY l.posting_date, e.sequence_number NULLS LAST, e.id, l.line_id) - 1 AS n
        FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
        WHERE ${scopeWhere(scope)} AND ${period} AND l.account_id = (SELECT account_id FROM journal_entry_lines WHERE id = ${id})) o
      WHERE id = ${id}`;
  if (!row) return null;
  let before = 0;
  for (const a of of.accounts) {
    if (a.accountId === row.account_id) return before + Number(row.n);
    before += a.lines;
  }
  return null;
}

/** Lines a report file holds at most: a larger ledger is refused (400), the JSON pages still list it. */
export const LEDGER_FILE_MAX_LINES = 200_000;
/** Lines read per statement when a file reads a whole ledger. */
const LEDGER_FILE_BATCH = 5_000;

/** Every line of a ledger, as a report file reads it: its accounts first, then the lines in batches. */
export interface LedgerFile {
  records: number;
  /** the lines in row order, read LEDGER_FILE_BATCH at a time */
  batches: AsyncIterable<LedgerRow[]>;
}

function ledgerFile(ctx: RequestContext, scope: Scope, range: { dateFrom: Date; dateTo: Date }, of: LedgerAccounts): LedgerFile {
  if (of.records > LEDGER_FILE_MAX_LINES) {
    throw new ValidationError(`the period has ${of.records} ledger lines; a file holds at most ${LEDGER_FILE_MAX_LINES}: narrow the period or the accounts (account_codes), or read the JSON pages`);
  }
  return {
    records: of.records,
    batches: (async function* () {
      for (let offset = 0; offset < of.records; offset += LEDGER_FILE_BATCH) yield await ledgerLines(ctx, scope, range, of, offset, LEDGER_FILE_BATCH);
    })(),
  };
}

/** spec 001: GET /reports/general-ledger. */
export async function generalLedger(ctx: RequestContext, args: unknown): Promise<Page<LedgerRow>> {
  const a = parse(reportRules.generalLedger, args);
  return ledger(ctx, a, a, pageWindow(a, LEDGER_PAGE_LIMITS));
}

/** The general ledger of the whole period (every page), for its files. */
export async function generalLedgerFile(ctx: RequestContext, args: unknown): Promise<LedgerFile> {
  const a = parse(reportRules.generalLedger, args);
  return ledgerFile(ctx, a, a, await ledgerAccounts(ctx, a, a));
}

/** spec 001: GET /reports/accounts-payable (account 2400) and /reports/accounts-receivable (1500). */
export async function subLedger(ctx: RequestContext, which: SubLedger, args: unknown): Promise<Page<LedgerRow>> {
  const a = parse(reportRules.subLedger, args);
  return ledger(ctx, { ...a, accountCode: SUB_LEDGER_ACCOUNTS[which] }, a, pageWindow(a, LEDGER_PAGE_LIMITS));
}

/** A sub-ledger of the whole period (every page), for its files. */
export async function subLedgerFile(ctx: RequestContext, which: SubLedger, args: unknown): Promise<LedgerFile> {
  const a = parse(reportRules.subLedger, args);
  const scope = { ...a, accountCode: SUB_LEDGER_ACCOUNTS[which] };
  return ledgerFile(ctx, scope, a, await ledgerAccounts(ctx, scope, a));
}
