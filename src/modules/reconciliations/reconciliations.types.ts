import { cursorArgs, nodesQuery, pageType, windowArgs } from '../../shared/page-type.ts';
import { wholeList } from '../../shared/pagination.ts';
import { recordById } from '../../shared/record-by-id.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { fixed, formatFixed, inCurrency } from '../../shared/scalars.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { JournalEntryLine } from '../journal-entries/journal-entries.types.ts';
import { openAmounts } from './reconciliations.rules.ts';
import {
  commitReconciliation,
  createReconciliation,
  deleteReconciliation,
  getReconciliation,
  listOpenItems,
  listReconciliations,
  RECONCILIATION_PAGE_LIMITS,
} from './reconciliations.service.ts';

export const ReconciliationEntry = builder.prismaObject('ReconciliationEntry', {
  description: "One journal line's part in a reconciliation, on the line's own side, in the accounting currency and in the line's currency (_fc).",
  fields: (t) => ({
    id: t.exposeInt('id'),
    reconciliation: t.relation('reconciliation'),
    reconciliationId: t.exposeInt('reconciliationId'),
    journalEntry: t.prismaField({ type: 'JournalEntry', resolve: (query, p, _a, ctx) => recordById(ctx, 'journalEntry', p.journalEntryId, query) as never }),
    journalEntryId: t.exposeInt('journalEntryId'),
    journalEntryLineId: t.exposeInt('journalEntryLineId'),
    debit: t.field({ type: 'Decimal', resolve: fixed('debit', 2) }),
    credit: t.field({ type: 'Decimal', resolve: fixed('credit', 2) }),
    debitFc: t.field({ type: 'Decimal', description: "In the line's currency", select: { journalEntryLine: { select: { currencyCode: true } } }, resolve: (e) => inCurrency(e.debitFc, e.journalEntryLine.currencyCode) }),
    creditFc: t.field({ type: 'Decimal', description: "In the line's currency", select: { journalEntryLine: { select: { currencyCode: true } } }, resolve: (e) => inCurrency(e.creditFc, e.journalEntryLine.currencyCode) }),
    exchangeRate: t.field({ type: 'Decimal', description: "The rate given, or the line's (information: the line's implied rate governs the amounts)", resolve: fixed('exchangeRate', 6) }),
    journalEntryLine: t.relation('journalEntryLine'),
  }),
});

export const Reconciliation = builder.prismaObject('Reconciliation', {
  ...tenantScoped,
  description:
    'Journal lines (open items) matched against each other, netting to zero in the accounting currency. Committed ones are numbered and move the lines’ reconciled amounts; drafts are the automatic matcher’s proposals.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    sequenceNumber: t.exposeInt('sequenceNumber', { nullable: true, description: '1, 2, 3 … per client account in commit order; null while draft' }),
    reconciliationDate: t.expose('reconciliationDate', { type: 'Date' }),
    isDraft: t.exposeBoolean('isDraft', { description: 'true: an unapproved proposal of the automatic matcher; false: committed' }),
    isDeleted: t.boolean({ description: 'Computed from deletedAt', resolve: (r) => r.deletedAt !== null }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true }),
    deletedById: t.exposeInt('deletedById', { nullable: true }),
    exchangeEntry: t.relation('exchangeEntry', { nullable: true }),
    exchangeEntryId: t.exposeInt('exchangeEntryId', {
      nullable: true,
      description: 'The exchange gain/loss journal entry posted automatically on commit (entries in one foreign currency, unbalanced only in the accounting currency)',
    }),
    matchRule: t.exposeString('matchRule', { nullable: true, description: 'On a proposal: the matcher rule that found it (KID, AMOUNT, SUM)' }),
    bankTransaction: t.relation('bankTransaction', { nullable: true }),
    bankTransactionId: t.exposeInt('bankTransactionId', { nullable: true, description: 'On a proposal: the bank transaction it is about' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    deletedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.deletedById) }),
    entries: t.relation('entries', { query: { orderBy: { id: 'asc' } } }),
  }),
});

const ReconciliationPage = pageType('ReconciliationPage', Reconciliation);

builder.prismaObjectFields(JournalEntryLine, (t) => ({
  remainingAmount: t.field({
    type: 'Decimal',
    description: 'What is not yet reconciled of the line, in the accounting currency (its debit or credit less reconciledAmount)',
    select: { debit: true, credit: true, debitFc: true, creditFc: true, reconciledAmount: true, reconciledAmountFc: true, currencyCode: true, exchangeRate: true, id: true, journalEntryId: true },
    resolve: (l) => formatFixed(openAmounts(l).remaining, 2),
  }),
  remainingAmountFc: t.field({
    type: 'Decimal',
    description: "What is not yet reconciled of the line, in the line's currency",
    select: { debit: true, credit: true, debitFc: true, creditFc: true, reconciledAmount: true, reconciledAmountFc: true, currencyCode: true, exchangeRate: true, id: true, journalEntryId: true },
    resolve: (l) => inCurrency(openAmounts(l).remainingFc, l.currencyCode),
  }),
  reconciliationEntries: t.relation('reconciliationEntries', { description: 'The reconciliations this line takes part in (their entries), drafts and deleted ones included' }),
}));

const ReconciliationEntryInput = builder.inputType('ReconciliationEntryInput', {
  description: "One journal line's part. Amounts omitted altogether: the line's own debit or credit. Give the side of the line (a debit line takes debit/debitFc).",
  fields: (t) => ({
    journalEntryLineId: t.int({ required: true }),
    journalEntryId: t.int({ description: "Default: the line's entry (must be it when given)" }),
    debit: t.field({ type: 'Decimal', description: 'Accounting currency' }),
    credit: t.field({ type: 'Decimal', description: 'Accounting currency' }),
    debitFc: t.field({ type: 'Decimal', description: "In the line's currency; the other amount is derived at the line's implied rate" }),
    creditFc: t.field({ type: 'Decimal' }),
    exchangeRate: t.field({ type: 'Decimal', description: "Default: the line's rate" }),
  }),
});

const CreateReconciliationInput = builder.inputType('CreateReconciliationInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    date: t.field({ type: 'Date', required: true, description: 'The reconciliation date (also the date of an automatic exchange entry)' }),
    entryLines: t.field({ type: [ReconciliationEntryInput], required: true, description: 'At least two, each journal line once' }),
    isDraft: t.boolean({ description: 'Cannot be set: only false (or nothing) is accepted; drafts come from the automatic matching process' }),
  }),
});

/** openItems: a bounded list read whole, answered as a connection as every list. */
const JournalEntryLineList = pageType('JournalEntryLinePage', JournalEntryLine);

builder.queryFields((t) => ({

  reconciliations: t.field({
    type: ReconciliationPage,
    extensions: pageCost(RECONCILIATION_PAGE_LIMITS),
    description: 'Reconciliations of a client account by id. Pages count from 0. isDeleted false (default) lists live ones, true only deleted ones; isDraft omitted lists both.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      dateFrom: t.arg({ type: 'Date', description: 'reconciliation_date on or after' }),
      dateTo: t.arg({ type: 'Date', description: 'reconciliation_date on or before' }),
      journalEntryLineId: t.arg.int(),
      journalEntryId: t.arg.int(),
      isDraft: t.arg.boolean(),
      isDeleted: t.arg.boolean({ defaultValue: false }),
      ...cursorArgs(t),
      page: t.arg.int({ description: 'From 0 (the first page); default 0' }),
      perPage: t.arg.int({ description: 'Default and at most 100' }),
    },
    resolve: (_root, args, ctx, info) => listReconciliations(ctx, args, nodesQuery(ctx, info)),
  }),
  reconciliation: t.prismaField({
    nullable: true,
    type: 'Reconciliation',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getReconciliation(ctx, args, query),
  }),

  openItems: t.field({
    type: JournalEntryLineList,
    description:
      'Open items: posted, not cancelled lines with an amount not yet reconciled (remainingAmount), by posting date; of one account (id or code), one business partner, up to a date.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      accountId: t.arg.int(),
      accountCode: t.arg.string(),
      businessPartnerId: t.arg.int(),
      dateTo: t.arg({ type: 'Date' }),
      ...windowArgs(t),
    },
    resolve: (_root, args, ctx, info) => wholeList(args, (filters) => listOpenItems(ctx, filters, nodesQuery(ctx, info))),
  }),
}));

builder.mutationFields((t) => ({
  createReconciliation: t.prismaField({
    type: 'Reconciliation',
    description: 'Creates a committed reconciliation (numbered; the lines’ reconciled amounts move; an exchange difference in one foreign currency is posted automatically).',
    args: { input: t.arg({ type: CreateReconciliationInput, required: true }) },
    resolve: (query, _root, args, ctx) => createReconciliation(ctx, args, query),
  }),
  commitReconciliation: t.prismaField({
    type: 'Reconciliation',
    description: 'Commits a draft (isDraft must be false). A committed one: no change. Deleted: 409. A stale draft (a line cancelled or reconciled elsewhere) is deleted: 409.',
    args: { id: t.arg.int({ required: true }), isDraft: t.arg.boolean({ required: true, description: 'false' }) },
    resolve: (query, _root, args, ctx) => commitReconciliation(ctx, args, query),
  }),
  deleteReconciliation: t.boolean({
    description: 'A draft is removed; a committed one is soft-deleted and its amounts released (its automatic exchange entry cancelled). Again: no change.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => deleteReconciliation(ctx, args),
  }),
}));
