import { recordById } from '../../shared/record-by-id.ts';
import { CANCELLATION_FLAGS } from '../journal-entries/journal-entries.rules.ts';
import { builder, wireSpelled } from '../../builder.ts';
import { formatFixed, type Decimal } from '../../shared/scalars.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { cursorArgs, pageType } from '../../shared/page-type.ts';
import { LineDimension } from '../journal-entries/journal-entries.types.ts';
import { typeOfKind, type DimensionKind } from '../journal-entries/dimensions.ts';
import { DimensionType } from '../ledger-accounts/ledger-accounts.types.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import type { Grouping } from './grouping.ts';
import { LEDGER_PAGE_LIMITS, SUB_LEDGER_ACCOUNTS, type SubLedger } from './reports.rules.ts';
import {
  balanceSheet,
  generalLedger,
  incomeStatement,
  subLedger,
  trialBalance,
  type BalanceSheetRow,
  type IncomeStatementRow,
  type LedgerEntry,
  type LedgerGrouping,
  type LedgerRelatedObject,
  type LedgerRow,
  type TrialBalanceRow,
} from './reports.service.ts';

// spec 001 "Reports" as typed GraphQL rows, so a frontend can draw them; the REST routes
// (rest-adapter/routes/reports.ts) select the same fields under the spec's names. Every figure is a
// Decimal string with two decimals (spec 000: "Decimal amounts are returned as strings"); the one
// the spec shows as a number, the balance sheet's balance, is made a JSON number by its REST route.

/** A report figure in the accounting currency: the exact sum, with its two decimals ("5000.00"). */
const kroner = (d: Decimal): string => formatFixed(d, 2);

export const ReportGrouping = builder.objectRef<Grouping>('ReportGrouping').implement({
  description:
    'Where an account sits in the statements (NS 4102): level 1 the statement part (1 Eiendeler, 2 Egenkapital og gjeld, 3-7 Driftsresultat, 80-81 Finansposter, 82-89 Skatt, årsresultat og disponeringer), level 2 the section (10-13 Anleggsmidler, 14-19 Omløpsmidler, 20 Egenkapital, 21-22 Langsiktig gjeld, 23-29 Kortsiktig gjeld, 3 Driftsinntekter, 4-7 Driftskostnader, 80 Finansinntekter, 81 Finanskostnader …), level 3 the two-digit account group.',
  fields: (t) => ({
    level1Code: t.exposeString('level1Code'),
    level1Name: t.exposeString('level1Name'),
    level2Code: t.exposeString('level2Code'),
    level2Name: t.exposeString('level2Name'),
    level3Code: t.exposeString('level3Code'),
    level3Name: t.exposeString('level3Name'),
  }),
});

const ReportAccountFields = builder.interfaceRef<{ grouping: Grouping; accountId: number; accountCode: string; accountName: string }>('ReportAccountRow').implement({
  description: 'A report row about one ledger account.',
  fields: (t) => ({
    grouping: t.field({ type: ReportGrouping, resolve: (r) => r.grouping }),
    account: t.prismaField({
      type: 'Account',
      nullable: true,
      description: 'null on the computed row of the result not yet closed into equity (accountId 0)',
      resolve: (query, r, _a, ctx) => recordById(ctx, 'account', r.accountId || null, query),
    }),
    accountId: t.int({ description: '0 on the computed row of the result not yet closed into equity', resolve: (r) => r.accountId }),
    accountCode: t.string({ resolve: (r) => r.accountCode }),
    accountName: t.string({ resolve: (r) => r.accountName }),
  }),
});

const relationFields = builder.interfaceRef<{ relationType: string | null; relationId: number | null; relationName: string | null }>('ReportRelation').implement({
  description: 'With group_by_dimension: the dimension value of the row (null values: lines without that dimension).',
  fields: (t) => ({
    relationType: t.field({ type: DimensionType, nullable: true, ...wireSpelled, resolve: (r) => (r.relationType ? typeOfKind(r.relationType as DimensionKind) : null) }),
    relationId: t.int({ nullable: true, resolve: (r) => r.relationId }),
    relationName: t.string({ nullable: true, resolve: (r) => r.relationName }),
  }),
});

export const BalanceSheetRowRef = builder.objectRef<BalanceSheetRow>('BalanceSheetRow').implement({
  description: 'An account of the balance sheet with its balance on the report date (debit − credit: equity and liabilities negative).',
  interfaces: [ReportAccountFields],
  fields: (t) => ({
    balance: t.field({ type: 'Decimal', description: 'Two decimals (REST GET /reports/balance-sheet writes it as a JSON number, digit for digit)', resolve: (r) => kroner(r.balance) }),
  }),
});

export const IncomeStatementRowRef = builder.objectRef<IncomeStatementRow>('IncomeStatementRow').implement({
  description: 'A result account (classes 3-8) with its movement (debit − credit) per calendar month.',
  interfaces: [ReportAccountFields, relationFields],
  fields: (t) => ({
    periodDebitMovements: t.field({
      type: 'JSON',
      description: 'The movement per month as an object keyed "1" (January) to "12", all twelve always present (decimal strings with two decimals)',
      resolve: (r) => Object.fromEntries(r.months.map((m, i) => [String(i + 1), kroner(m)])),
    }),
    monthlyDebitMovements: t.field({ type: ['Decimal'], description: 'The same twelve figures as a list, January first', resolve: (r) => r.months.map(kroner) }),
  }),
});

export const TrialBalanceRowRef = builder.objectRef<TrialBalanceRow>('TrialBalanceRow').implement({
  description: 'An account (and dimension value) of the trial balance: outgoing balance = incoming balance + debit − credit.',
  interfaces: [ReportAccountFields, relationFields],
  fields: (t) => ({
    incomingBalance: t.field({ type: 'Decimal', resolve: (r) => kroner(r.incomingBalance) }),
    debit: t.field({ type: 'Decimal', resolve: (r) => kroner(r.debit) }),
    credit: t.field({ type: 'Decimal', resolve: (r) => kroner(r.credit) }),
    outgoingBalance: t.field({ type: 'Decimal', resolve: (r) => kroner(r.outgoingBalance) }),
  }),
});

const LedgerGroupingRef = builder.objectRef<LedgerGrouping>('GeneralLedgerGrouping').implement({
  description: "The row's account: incoming balance on date_from, the movement of the selected lines (all pages) and the outgoing balance.",
  fields: (t) => ({
    level1Code: t.exposeString('level1Code', { description: 'The account code' }),
    level1Name: t.exposeString('level1Name', { description: 'The account name' }),
    incomingBalance: t.field({ type: 'Decimal', resolve: (g) => kroner(g.incomingBalance) }),
    outgoingBalance: t.field({ type: 'Decimal', resolve: (g) => kroner(g.outgoingBalance) }),
    movement: t.field({ type: 'Decimal', resolve: (g) => kroner(g.movement) }),
  }),
});

const LedgerPartnerRef = builder.objectRef<{ id: number; name: string }>('GeneralLedgerBusinessPartner').implement({
  fields: (t) => ({ id: t.exposeInt('id'), name: t.exposeString('name') }),
});

const LedgerRelatedObjectRef = builder.objectRef<LedgerRelatedObject>('GeneralLedgerRelatedObject').implement({
  description: 'The commercial document the journal entry books (relation_type document).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    documentNumber: t.exposeString('documentNumber', { nullable: true }),
    documentDate: t.expose('documentDate', { type: 'Date' }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    paymentRef: t.exposeString('paymentRef', { nullable: true, description: 'The KID' }),
    documentType: t.exposeString('documentType'),
    businessPartner: t.field({ type: LedgerPartnerRef, nullable: true, resolve: (d) => d.businessPartner }),
  }),
});

const LedgerEntryRef = builder.objectRef<LedgerEntry>('GeneralLedgerEntry').implement({
  description: 'The journal entry of a general-ledger row.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    sequenceNumber: t.exposeInt('sequenceNumber', { nullable: true }),
    cancelled: t.exposeString('cancelled', { nullable: true, description: "The spec's string: 'Y' on a cancelled entry, 'C' on the reversal entry that cancels it, else null (typed: isCancelled, isCancellation)" }),
    isCancelled: t.boolean(CANCELLATION_FLAGS.isCancelled),
    isCancellation: t.boolean(CANCELLATION_FLAGS.isCancellation),
    isDraft: t.exposeBoolean('isDraft'),
    voucher: t.prismaField({ type: 'Voucher', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'voucher', p.voucherId, query) }),
    voucherId: t.exposeInt('voucherId', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    relatedObject: t.field({ type: LedgerRelatedObjectRef, nullable: true, resolve: (e) => e.relatedObject }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.createdById) }),
  }),
});

export const GeneralLedgerRowRef = builder.objectRef<LedgerRow>('GeneralLedgerRow').implement({
  description: 'A journal line in the general ledger (or a sub-ledger), with its account grouping and its journal entry.',
  fields: (t) => ({
    grouping: t.field({ type: LedgerGroupingRef, resolve: (r) => r.grouping }),
    id: t.exposeInt('id'),
    lineId: t.exposeInt('lineId'),
    postingDate: t.expose('postingDate', { type: 'Date' }),
    account: t.prismaField({ type: 'Account', resolve: (query, p, _a, ctx) => recordById(ctx, 'account', p.accountId, query) as never }),
    accountId: t.exposeInt('accountId'),
    accountCode: t.exposeString('accountCode'),
    description: t.exposeString('description', { nullable: true }),
    debit: t.field({ type: 'Decimal', resolve: (r) => r.debit }),
    credit: t.field({ type: 'Decimal', resolve: (r) => r.credit }),
    debitAmount: t.field({ type: 'Decimal', description: "debit − credit in the line's currency", resolve: (r) => r.debitAmount }),
    currencyCode: t.exposeString('currencyCode'),
    exchangeRate: t.field({ type: 'Decimal', resolve: (r) => r.exchangeRate }),
    taxCode: t.exposeString('taxCode', { nullable: true }),
    taxBaseAmount: t.field({ type: 'Decimal', nullable: true, resolve: (r) => r.taxBaseAmount }),
    taxAmount: t.field({ type: 'Decimal', nullable: true, resolve: (r) => r.taxAmount }),
    reconciledAmount: t.field({ type: 'Decimal', resolve: (r) => r.reconciledAmount }),
    dimensions: t.field({ type: [LineDimension], extensions: listCost(7), resolve: (r) => r.dimensions }),
    journalEntry: t.field({ type: LedgerEntryRef, resolve: (r) => r.journalEntry }),
  }),
});

const GeneralLedgerPage = pageType('GeneralLedgerPage', GeneralLedgerRowRef);

const filterArgs = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0]) => ({
  clientAccountId: t.arg.int({ required: true }),
  dimensions: t.arg.stringList({ description: 'type:id pairs (project:12, businesspartner:7): lines with all the types given, any id of a type' }),
  includeDrafts: t.arg.boolean({ description: 'default false' }),
});

const ledgerArgs = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0]) => ({
  freeText: t.arg.string({ description: "Lines whose or whose entry's description contains it, or the entry with that voucher number" }),
  includeReconciled: t.arg.boolean({ description: 'default true; false: only lines not fully reconciled' }),
  includeCancelled: t.arg.boolean({ description: 'default true; false leaves out cancelled entries and their reversals' }),
  ...cursorArgs(t),
  page: t.arg.int({ description: 'default 1' }),
  perPage: t.arg.int({ description: `default ${LEDGER_PAGE_LIMITS.defaultPerPage}, at most ${LEDGER_PAGE_LIMITS.maxPerPage}` }),
});

/** accountsPayable (2400) and accountsReceivable (1500): the general-ledger rows of one control account. */
const subLedgerField = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0], which: SubLedger) =>
  t.field({
    type: GeneralLedgerPage,
    extensions: pageCost(LEDGER_PAGE_LIMITS),
    description: `The accounts ${which} sub-ledger: lines on account ${SUB_LEDGER_ACCOUNTS[which]} between date_from and date_to (both required).`,
    args: {
      clientAccountId: t.arg.int({ required: true }),
      businessPartnerId: t.arg.int(),
      dateFrom: t.arg({ type: 'Date' }),
      dateTo: t.arg({ type: 'Date' }),
      includeDrafts: t.arg.boolean({ description: 'default false' }),
      ...ledgerArgs(t),
    },
    resolve: (_root, args, ctx) => subLedger(ctx, which, args),
  });

builder.queryFields((t) => ({

  balanceSheet: t.field({
    type: [BalanceSheetRowRef],
    extensions: listCost(300),
    description: 'The balance sheet on report_date (default today): balance-sheet accounts with a balance, and the result not yet closed into equity; the rows net to zero.',
    args: { ...filterArgs(t), reportDate: t.arg({ type: 'Date' }) },
    resolve: (_root, args, ctx) => balanceSheet(ctx, args),
  }),

  incomeStatement: t.field({
    type: [IncomeStatementRowRef],
    extensions: listCost(300),
    description: 'The result accounts with their movement per month between date_from (default 1 January of the year of date_to) and date_to (default today).',
    args: {
      ...filterArgs(t),
      dateFrom: t.arg({ type: 'Date' }),
      dateTo: t.arg({ type: 'Date' }),
      freeText: t.arg.string(),
      groupByDimension: t.arg({ type: DimensionType, description: 'Any type but EMPLOYEE (spelled as the spec on REST and in MCP tools: businesspartner, bankacc, project, department, asset, tag, item)' }),
    },
    resolve: (_root, args, ctx) => incomeStatement(ctx, args),
  }),

  trialBalance: t.field({
    type: [TrialBalanceRowRef],
    extensions: listCost(300),
    description:
      'The trial balance between date_from and date_to (both required). An account without debit or credit in the period is left out, even when it carries an incoming balance (spec 001: "JSON always omits zero-movement accounts"), unless includeZeroMovement.',
    args: {
      ...filterArgs(t),
      dateFrom: t.arg({ type: 'Date' }),
      dateTo: t.arg({ type: 'Date' }),
      accountCodes: t.arg.stringList({ description: 'Account codes or ranges (3000-3999)' }),
      includeCancelled: t.arg.boolean({ description: 'default true' }),
      includeZeroMovement: t.arg.boolean({ description: 'default false; true lists every account of the chart, also those without movement (what the REST files show by default; the REST JSON never does)' }),
      freeText: t.arg.string(),
      groupByDimension: t.arg({ type: DimensionType, description: 'Any type but EMPLOYEE (spelled as the spec on REST and in MCP tools: businesspartner, bankacc, project, department, asset, tag, item)' }),
    },
    resolve: (_root, args, ctx) => trialBalance(ctx, args),
  }),

  generalLedger: t.field({
    type: GeneralLedgerPage,
    extensions: pageCost(LEDGER_PAGE_LIMITS),
    description: 'The general ledger between date_from (default 1 January of the year of date_to) and date_to (default today), by account, date and voucher number.',
    args: {
      ...filterArgs(t),
      ...ledgerArgs(t),
      dateFrom: t.arg({ type: 'Date' }),
      dateTo: t.arg({ type: 'Date' }),
      accountCodes: t.arg.stringList({ description: 'Account codes or ranges (3000-3999)' }),
      taxCodes: t.arg.stringList(),
    },
    resolve: (_root, args, ctx) => generalLedger(ctx, args),
  }),
  accountsPayable: subLedgerField(t, 'payable'),
  accountsReceivable: subLedgerField(t, 'receivable'),
}));
