import { recordById } from '../../shared/record-by-id.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { described } from '../../shared/enum-values.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import type { Args } from '../../shared/validation.ts';
import {
  cancelYearlyAccount,
  createAnnualAllocation,
  createYearlyAccountDraft,
  createYearlyAccountSubmission,
  getYearlyAccount,
  listYearlyAccounts,
  previewYearlyAccounts,
  submitYearlyAccount,
  updateYearlyAccountNotes,
  yearlyAccountNotes,
  yearlyAccountPdf,
  type Check,
  type YearlyFigures,
} from './yearly-accounts.service.ts';
import {
  NOTE_BODY_TYPES,
  YEARLY_ACCOUNT_PAGE_LIMITS,
  YEARLY_ACCOUNT_STATUS_DESCRIPTIONS,
  YEARLY_ACCOUNT_STATUSES,
  yearlyAccountRules as rules,
  type FigureLine,
  type Note,
} from './yearly-accounts.rules.ts';

/** Yearly accounts (spec 002 "Yearly account submission", "Yearly accounts"). */
export const YearlyAccountStatusEnum = builder.enumType('YearlyAccountStatus', {
  description: 'Where a yearly account submission is: DRAFT → SUBMITTED → APPROVED or REJECTED (the portal’s assessment); DRAFT or SUBMITTED → CANCELLED',
  values: described(YEARLY_ACCOUNT_STATUSES, YEARLY_ACCOUNT_STATUS_DESCRIPTIONS),
});

export const NoteBodyTypeEnum = builder.enumType('YearlyAccountNoteBodyType', {
  description: 'How a note’s body is written: text (a string) or table ({columns, rows})',
  values: described(NOTE_BODY_TYPES, { text: 'body is a string', table: 'body is {columns: [string], rows: [[string]]}, each row one cell per column' }),
});

export const YearlyAccountSubmission = builder.prismaObject('YearlyAccountSubmission', {
  ...tenantScoped,
  description: 'A yearly account (årsregnskap) of a client account for a reporting year, filed through the government portal.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    reportingYear: t.exposeInt('reportingYear'),
    fromDate: t.expose('fromDate', { type: 'Date' }),
    toDate: t.expose('toDate', { type: 'Date' }),
    status: t.expose('status', { type: YearlyAccountStatusEnum }),
    portalInstanceId: t.exposeString('portalInstanceId', { nullable: true, description: 'The portal’s filing instance, set when submitted' }),
    mainFormId: t.exposeString('mainFormId', { nullable: true, description: 'The portal’s main form (RR-0002 Årsregnskap in the sandbox), set when submitted' }),
    subFormId: t.exposeString('subFormId', { nullable: true, description: 'The portal’s notes sub-form (RR-0002-N in the sandbox), set when submitted' }),
    submittedAt: t.expose('submittedAt', { type: 'DateTime', nullable: true }),
    errorMessage: t.exposeString('errorMessage', { nullable: true, description: 'The authority’s reason when REJECTED' }),
    findings: t.expose('findings', { type: 'JSON', nullable: true, description: 'The portal’s validation findings of the submission ([{severity, code, message, path}])' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const YearlyAccountPage = pageType('YearlyAccountSubmissionPage', YearlyAccountSubmission);

export const YearlyAccountNote = builder.objectRef<Note>('YearlyAccountNote').implement({
  description: 'A note to the yearly accounts: body is a string (body_type text) or {columns, rows} (body_type table).',
  fields: (t) => ({
    noteNumber: t.exposeInt('noteNumber'),
    key: t.exposeString('key', { description: 'What the note is about: accounting_principles, employees, fixed_assets, equity, receivables, loans_to_shareholders, going_concern, or a key of your own' }),
    title: t.exposeString('title'),
    bodyType: t.field({ type: NoteBodyTypeEnum, resolve: (n) => n.bodyType }),
    body: t.field({ type: 'JSON', resolve: (n) => n.body }),
    footerText: t.string({ nullable: true, resolve: (n) => n.footerText ?? null }),
  }),
});

const FigureLineRef = builder.objectRef<FigureLine>('YearlyAccountFigure').implement({
  description: 'A line of the income statement or balance sheet: this year and the previous year, decimal strings to the øre.',
  fields: (t) => ({
    key: t.exposeString('key'),
    label: t.exposeString('label'),
    amount: t.field({ type: 'Decimal', resolve: (l) => l.amount.toFixed(2) }),
    previousAmount: t.field({ type: 'Decimal', resolve: (l) => l.previousAmount.toFixed(2) }),
    isSum: t.exposeBoolean('isSum', { description: 'A subtotal or total' }),
  }),
});

const CheckRef = builder.objectRef<Check>('YearlyAccountCheck').implement({
  fields: (t) => ({
    key: t.exposeString('key'),
    passed: t.exposeBoolean('passed'),
    severity: t.exposeString('severity', { description: 'error (the portal refuses the filing) or warning' }),
    message: t.exposeString('message'),
  }),
});

const Preview = builder.objectRef<YearlyFigures>('YearlyAccountPreview').implement({
  description: 'The small-enterprise yearly accounts of a period with the previous year’s figures, computed from the posted ledger.',
  fields: (t) => ({
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    reportingYear: t.exposeInt('reportingYear'),
    fromDate: t.expose('fromDate', { type: 'Date' }),
    toDate: t.expose('toDate', { type: 'Date' }),
    incomeStatement: t.field({ type: [FigureLineRef], description: 'Resultatregnskap down to arsresultat (incomes and costs positive, results signed), then its allocation (overføringer og disponeringer, 88–89) summing to it', resolve: (p) => p.incomeStatement }),
    balanceSheet: t.field({ type: [FigureLineRef], description: 'Balanse at to_date (previous: the day before from_date): the line items (NS 4102 ranges), each section’s sum (is_sum) after its items', resolve: (p) => p.balanceSheet }),
    checks: t.field({ type: [CheckRef], resolve: (p) => p.checks }),
    notes: t.field({ type: [YearlyAccountNote], description: 'The notes a draft would be generated with', resolve: (p) => p.notes }),
  }),
});

const YearlyAccountFile = builder.objectRef<{ fileName: string; contentType: string; contentBase64: string }>('YearlyAccountFile').implement({
  description: 'The yearly accounts as a PDF (REST: the file itself).',
  fields: (t) => ({
    fileName: t.exposeString('fileName', { description: 'arsregnskap-{year}-{organization number}.pdf' }),
    contentType: t.exposeString('contentType'),
    contentBase64: t.exposeString('contentBase64', { description: 'The PDF, base64' }),
  }),
});

const YearlyAccountInput = builder.inputType('CreateYearlyAccountInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    reportingYear: t.int({ required: true }),
    fromDate: t.field({ type: 'Date', description: 'Default 1 January of reporting_year' }),
    toDate: t.field({ type: 'Date', description: 'Default 31 December of reporting_year' }),
  }),
});

const NoteInput = builder.inputType('YearlyAccountNoteInput', {
  fields: (t) => ({
    noteNumber: t.int({ required: true }),
    key: t.string({ required: true, description: 'lower-case letters, digits and _' }),
    title: t.string({ required: true }),
    bodyType: t.field({ type: NoteBodyTypeEnum, required: true }),
    body: t.field({ type: 'JSON', required: true, description: 'a string (text) or {columns: [string], rows: [[string]]} (table)' }),
    footerText: t.string(),
  }),
});

const AllocationLineInput = builder.inputType('AnnualAllocationLineInput', {
  fields: (t) => ({
    accountCode: t.string({ required: true }),
    debit: t.field({ type: 'Decimal', required: true }),
    credit: t.field({ type: 'Decimal', required: true }),
  }),
});

const AllocationInput = builder.inputType('CreateAnnualAllocationInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    reportingYear: t.int({ required: true }),
    lines: t.field({ type: [AllocationLineInput], required: true, description: 'At least 2, balanced; each a debit or a credit' }),
    description: t.string({ description: 'Default "Årsavslutning {year}: disponering av årsresultat"' }),
  }),
});

builder.queryFields((t) => ({

  yearlyAccountPreview: t.field({
    type: Preview,
    description: 'The yearly accounts of a period (default the calendar year) from the posted ledger, with the previous year’s figures, the checks and the notes.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      reportingYear: t.arg.int({ required: true }),
      fromDate: t.arg({ type: 'Date' }),
      toDate: t.arg({ type: 'Date' }),
    },
    resolve: (_root, args, ctx) => previewYearlyAccounts(ctx, args),
  }),

  yearlyAccountSubmissions: t.field({
    type: YearlyAccountPage,
    extensions: pageCost(YEARLY_ACCOUNT_PAGE_LIMITS, 'pageSize'),
    description: 'Yearly account submissions of the client accounts given (default every eligible one), newest year first unless orderBy says otherwise.',
    args: {
      clientAccountId: t.arg.intList({ description: 'One or more client accounts (each must be yours); default all you can access' }),
      reportingYear: t.arg.int(),
      status: t.arg({ type: [YearlyAccountStatusEnum] }),
      orderBy: t.arg.stringList({ description: 'Fields id, reporting_year, status, created_at, updated_at, submitted_at; - for descending. Default -reporting_year' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      pageSize: t.arg.int({ description: 'Default 100, at most 1000' }),
    },
    resolve: (_root, args, ctx, info) => listYearlyAccounts(ctx, args, nodesQuery(ctx, info)),
  }),
  yearlyAccountSubmission: t.prismaField({
    nullable: true,
    type: 'YearlyAccountSubmission',
    description: 'One submission; a SUBMITTED one is refreshed from the portal first (APPROVED or REJECTED when assessed).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getYearlyAccount(ctx, args, query),
  }),
  yearlyAccountPdf: t.field({
    nullable: true,
    type: YearlyAccountFile,
    description: 'The yearly accounts PDF: front page, income statement and balance sheet with the previous year, the notes.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => yearlyAccountPdf(ctx, args),
  }),

  yearlyAccountNotes: t.field({
    type: [YearlyAccountNote],
    description: 'The notes of a submission: as stored when edited, else generated from the ledger now.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => yearlyAccountNotes(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createYearlyAccountDraft: t.prismaField({
    type: 'YearlyAccountSubmission',
    description: 'A DRAFT for the year, its notes generated from the ledger (400 when the account has an open submission for the year).',
    args: { input: t.arg({ type: YearlyAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => createYearlyAccountDraft(ctx, args, query),
  }),
  createYearlyAccountSubmission: t.prismaField({
    type: 'YearlyAccountSubmission',
    description: 'Files the year with the portal directly: SUBMITTED. The portal’s error findings are a 400 and nothing is stored.',
    args: { input: t.arg({ type: YearlyAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => createYearlyAccountSubmission(ctx, args, query),
  }),
  submitYearlyAccount: t.prismaField({
    type: 'YearlyAccountSubmission',
    description: 'Files a DRAFT with the portal (its notes as stored or generated): SUBMITTED. Any other status: 400.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => submitYearlyAccount(ctx, args, query),
  }),
  cancelYearlyAccount: t.prismaField({
    type: 'YearlyAccountSubmission',
    description: 'Cancels a DRAFT or SUBMITTED one (at the portal too when it has an instance): CANCELLED. Any other status: 400.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => cancelYearlyAccount(ctx, args, query),
  }),
  updateYearlyAccountNotes: t.field({
    type: [YearlyAccountNote],
    description: 'Replaces the notes of a DRAFT (any other status: 400).',
    args: { id: t.arg.int({ required: true }), notes: t.arg({ type: [NoteInput], required: true }) },
    // a note's body is JSON (unknown to GraphQL): rules.notes checks it is a string or a table
    resolve: (_root, args, ctx) => updateYearlyAccountNotes(ctx, args as Args<typeof rules.notes>),
  }),
  createAnnualAllocation: t.prismaField({
    type: 'JournalEntry',
    description: 'Posts the year’s closing entry (disponering av årsresultat) dated 31 December of the year through the ledger and answers it.',
    args: { input: t.arg({ type: AllocationInput, required: true }) },
    resolve: (query, _root, args, ctx) => createAnnualAllocation(ctx, args, query),
  }),
}));
