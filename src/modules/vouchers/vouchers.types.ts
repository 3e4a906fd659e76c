import { recordById } from '../../shared/record-by-id.ts';
import { addAuditFields, loadUser, UserRef } from '../users/users.types.ts';
import type { JournalEntry as PrismaJournalEntry, Task as PrismaTask, VoucherStatement as PrismaVoucherStatement } from '../../generated/prisma/client.ts';
import { builder, tenantScoped } from '../../builder.ts';
import type { RequestContext } from '../../shared/context.ts';
import { requestLoader } from '../../shared/loaders.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { FileRecord, pageImages, PageImage, signedUrl } from '../files/files.types.ts';
import { JournalEntry } from '../journal-entries/journal-entries.types.ts';
import { Task } from '../tasks/tasks.types.ts';
import { MAX_MERGE_SOURCES, PAYMENT_METHODS, SOURCE_ACTIONS, VOUCHER_PAGE_LIMITS, VOUCHER_STATEMENT_PAGE_LIMITS, VOUCHER_STATUSES } from './vouchers.rules.ts';
import {
  createVoucherStatement,
  deleteVoucher,
  getVoucher,
  listVoucherStatements,
  listVouchers,
  mergeVouchers,
  splitVoucher,
  type StatementEffects,
} from './vouchers.service.ts';

export const VoucherStatusEnum = builder.enumType('VoucherStatus', {
  description: 'PENDING (initial, awaiting processing), DRAFT (being worked on, modifiable), ARCHIVED, BOOKED (posted to accounting), DELETED (removed)',
  values: VOUCHER_STATUSES,
});

export const WorkflowStatusEnum = builder.enumType('WorkflowStatus', {
  description: 'Where the voucher pipeline is; FAILED needs manual intervention',
  values: ['IMAGE_PROCESSING', 'STARTING_WORKFLOW', 'CLASSIFICATION', 'DATA_EXTRACTION', 'WAITING_FOR_ANSWER', 'DUPLICATE_CHECK', 'BOOKING', 'CANCELLED', 'FAILED', 'COMPLETED'] as const,
});

export const VoucherPaymentMethodEnum = builder.enumType('VoucherPaymentMethod', {
  description:
    "How a voucher was paid, as its statement says: BANK_TRANSFER (the company's bank account), COMPANY_CARD, PRIVATE_CARD (someone paid privately: an outlay the company owes), CASH, UNPAID",
  values: PAYMENT_METHODS,
});

export const VoucherSourceActionEnum = builder.enumType('VoucherSourceAction', {
  description: 'What happens to the sources of a merge or split: NONE (kept, the default), ARCHIVE (status ARCHIVED, inactive), DELETE (removed as DELETE /vouchers/{id} removes)',
  values: SOURCE_ACTIONS,
});

const VoucherQuestionStatusEnum = builder.enumType('VoucherQuestionStatus', { values: ['OPEN', 'ANSWERED'] as const });

export const VoucherQuestion = builder.prismaObject('VoucherQuestion', {
  ...tenantScoped,
  description: 'A question the voucher pipeline asks a person (workflow_status WAITING_FOR_ANSWER), e.g. whether a suspected duplicate should be kept.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    voucher: t.relation('voucher'),
    voucherId: t.exposeInt('voucherId'),
    questionType: t.exposeString('questionType', { description: 'DUPLICATE, DOCUMENT_TYPE …' }),
    text: t.exposeString('text'),
    status: t.expose('status', { type: VoucherQuestionStatusEnum }),
    answer: t.exposeString('answer', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    answeredAt: t.expose('answeredAt', { type: 'DateTime', nullable: true }),
    answeredBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.answeredById) }),
    answeredById: t.exposeInt('answeredById', { nullable: true }),
  }),
});

const StatementEffectsRef = builder.objectRef<StatementEffects>('VoucherStatementEffects').implement({
  description: 'What creating a statement changed besides itself.',
  fields: (t) => ({
    voucherProjectSet: t.exposeBoolean('voucherProjectSet', { description: "The voucher's project_id was set to the statement's project" }),
    draftJournalEntryIds: t.exposeIntList('draftJournalEntryIds', { description: 'Draft journal entries of the voucher whose every line got the project dimension' }),
    postedJournalEntryIdsUnchanged: t.exposeIntList('postedJournalEntryIdsUnchanged', {
      description: 'Posted journal entries of the voucher: immutable, so left as they are (cancel and post again to change their project)',
    }),
    documentIdsPaymentStated: t.exposeIntList('documentIdsPaymentStated', {
      description: 'Documents of the voucher whose stated_payment_status was set to PAID (is_paid true) or cleared (is_paid false)',
    }),
  }),
});

export const VoucherStatement = builder.prismaObject('VoucherStatement', {
  ...tenantScoped,
  description:
    'What a person says about a voucher: purpose, item categories, payment method, payor, project, whether it is paid. The newest is the voucher’s statement.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    voucher: t.relation('voucher'),
    voucherId: t.exposeInt('voucherId'),
    purpose: t.exposeString('purpose', { nullable: true, description: 'The expense purpose in the user’s words' }),
    itemCategories: t.exposeStringList('itemCategories'),
    paymentMethod: t.expose('paymentMethod', { type: VoucherPaymentMethodEnum, nullable: true }),
    payor: t.prismaField({ type: 'BusinessPartner', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'businessPartner', p.payorId, query) }),
    payorId: t.exposeInt('payorId', { nullable: true, description: 'Who paid: a business partner (the employee for PRIVATE_CARD)' }),
    project: t.prismaField({ type: 'Project', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'project', p.projectId, query) }),
    projectId: t.exposeInt('projectId', { nullable: true }),
    isPaid: t.exposeBoolean('isPaid', { nullable: true }),
    comment: t.exposeString('comment', { nullable: true }),
    effects: t.field({
      type: StatementEffectsRef,
      nullable: true,
      description: 'Only in the answer of createVoucherStatement: what it changed (null when read later)',
      resolve: (s) => (s as { effects?: StatementEffects }).effects ?? null,
    }),
  }),
});

// ── Relations without a Prisma relation: one query per request tick for every voucher asked ──────

type VoucherKey = { id: number; clientAccountId: number };
const keyOf = (v: VoucherKey) => `${v.clientAccountId}:${v.id}`;
const splitKeys = (keys: readonly string[]) => keys.map((k) => k.split(':').map(Number) as [number, number]);

/** Journal entries naming the voucher (voucher_id, same client account), oldest first. */
function entriesOfVoucher(ctx: RequestContext, v: VoucherKey) {
  return requestLoader<string, PrismaJournalEntry[]>(ctx.loaders, 'voucherJournalEntries', async (keys) => {
    const pairs = splitKeys(keys);
    const rows = await ctx.db.journalEntry.findMany({ where: { voucherId: { in: pairs.map(([, id]) => id) } }, orderBy: { id: 'asc' } });
    return pairs.map(([account, id]) => rows.filter((r) => r.voucherId === id && r.clientAccountId === account));
  }).load(keyOf(v));
}

/** Tasks about the voucher (relation_type 'voucher'), oldest first. */
function tasksOfVoucher(ctx: RequestContext, v: VoucherKey) {
  return requestLoader<string, PrismaTask[]>(ctx.loaders, 'voucherTasks', async (keys) => {
    const pairs = splitKeys(keys);
    const rows = await ctx.db.task.findMany({ where: { relationType: 'voucher', relationId: { in: pairs.map(([, id]) => id) } }, orderBy: { id: 'asc' } });
    return pairs.map(([account, id]) => rows.filter((r) => r.relationId === id && r.clientAccountId === account));
  }).load(keyOf(v));
}

/** The newest statement of each voucher. */
function newestStatement(ctx: RequestContext, voucherId: number) {
  return requestLoader<number, PrismaVoucherStatement | null>(ctx.loaders, 'voucherNewestStatement', async (ids) => {
    const rows = await ctx.db.voucherStatement.findMany({
      where: { voucherId: { in: [...ids] } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      distinct: ['voucherId'],
    });
    return ids.map((id) => rows.find((r) => r.voucherId === id) ?? null);
  }).load(voucherId);
}

const FILE = { file: { select: { fileName: true, contentType: true, size: true, pageCount: true } } } as const;

export const Voucher = builder.prismaObject('Voucher', {
  ...tenantScoped,
  description:
    'A voucher: an uploaded file (receipt, invoice, statement) with voucher fields, the evidence journal entries and documents point at. Its URLs are presigned and expire one hour after the response.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    type: t.exposeString('type', { nullable: true, description: 'Document type (ARINV, APINV, RECPT …)' }),
    file: t.relation('file', { type: FileRecord, description: "The voucher's own file" }),
    fileId: t.exposeInt('fileId', { description: "The voucher's own file" }),
    fileName: t.string({ select: FILE, resolve: (v) => v.file.fileName }),
    contentType: t.string({ select: FILE, resolve: (v) => v.file.contentType }),
    channel: t.exposeString('channel', { description: 'How it arrived: upload, email, merge, split' }),
    processingTrack: t.exposeString('processingTrack', { nullable: true }),
    size: t.int({ select: FILE, description: 'Bytes of the file', resolve: (v) => v.file.size }),
    isActive: t.exposeBoolean('isActive'),
    thumbnailUrl: t.string({ nullable: true, description: 'A small image of the first page (presigned, one hour)', resolve: (v, _a, ctx) => signedUrl(ctx, v.fileId, 'thumbnail') }),
    previewUrl: t.string({ nullable: true, description: 'The first page (presigned, one hour)', resolve: (v, _a, ctx) => signedUrl(ctx, v.fileId, 'preview', 1) }),
    downloadUrl: t.string({ nullable: true, description: 'The file, as an attachment (presigned, one hour)', resolve: (v, _a, ctx) => signedUrl(ctx, v.fileId, 'download') }),
    originalUrl: t.string({ nullable: true, description: 'The file as uploaded, inline (presigned, one hour)', resolve: (v, _a, ctx) => signedUrl(ctx, v.fileId, 'original') }),
    pageImages: t.field({
      type: [PageImage],
      select: FILE,
      // most vouchers are a page or a few; the query cost counts ten
      extensions: listCost(10),
      description: 'One presigned page image per page of the file',
      resolve: (v, _a, ctx) => pageImages(ctx, { id: v.fileId, pageCount: v.file.pageCount }),
    }),
    documentDate: t.expose('documentDate', { type: 'Date', nullable: true }),
    status: t.expose('status', { type: VoucherStatusEnum }),
    collectionId: t.exposeInt('collectionId', { nullable: true }),
    projectId: t.exposeInt('projectId', { nullable: true }),
    workflowStatus: t.expose('workflowStatus', { type: WorkflowStatusEnum, nullable: true }),
    attachments: t.relation('attachments', { extensions: listCost(10), description: 'Files attached to the voucher', query: { orderBy: { id: 'asc' } } }),
    journalEntries: t.field({
      type: [JournalEntry],
      extensions: listCost(5),
      description: 'Journal entries with this voucher_id (drafts, posted, cancelled and reversals), oldest first',
      resolve: (v, _a, ctx) => entriesOfVoucher(ctx, v),
    }),
    journalEntry: t.field({
      type: JournalEntry,
      nullable: true,
      description: 'The journal entry booking the voucher: its non-cancelled entry (at most one exists), else null',
      resolve: async (v, _a, ctx) => (await entriesOfVoucher(ctx, v)).find((e) => e.cancelled === null) ?? null,
    }),
    statements: t.relation('statements', { extensions: listCost(10), description: 'Statements about the voucher, newest first', query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] } }),
    statement: t.field({ type: VoucherStatement, nullable: true, description: 'The newest statement', resolve: (v, _a, ctx) => newestStatement(ctx, v.id) }),
    tasks: t.field({ type: [Task], extensions: listCost(10), description: "Tasks about the voucher (relation_type 'voucher')", resolve: (v, _a, ctx) => tasksOfVoucher(ctx, v) }),
    questions: t.relation('questions', { extensions: listCost(10), description: 'Questions of the voucher pipeline', query: { orderBy: { id: 'asc' } } }),
    collection: t.relation('collection', { nullable: true }),
    project: t.relation('project', { nullable: true }),
  }),
});
addAuditFields(Voucher);

const VoucherPage = pageType('VoucherPage', Voucher);
const VoucherStatementPage = pageType('VoucherStatementPage', VoucherStatement);

const MergeVouchersInput = builder.inputType('MergeVouchersInput', {
  fields: (t) => ({
    voucherIds: t.intList({ required: true, description: `At least 2, at most ${MAX_MERGE_SOURCES} vouchers of one client account; their order is the page order` }),
    sourceAction: t.field({ type: VoucherSourceActionEnum, description: 'NONE (default), ARCHIVE or DELETE' }),
  }),
});

const SplitVoucherInput = builder.inputType('SplitVoucherInput', {
  fields: (t) => ({
    voucherId: t.int({ required: true, description: 'A PDF voucher of at least 2 pages' }),
    pageRanges: t.field({
      type: [t.listRef('Int', { required: true })],
      required: true,
      description: 'At least 2 pairs [start_page, end_page], 1-based and inclusive, within the PDF and not overlapping; one new voucher per pair',
    }),
    sourceAction: t.field({ type: VoucherSourceActionEnum, description: 'NONE (default), ARCHIVE or DELETE' }),
  }),
});

const CreateVoucherStatementInput = builder.inputType('CreateVoucherStatementInput', {
  description: 'At least one field.',
  fields: (t) => ({
    purpose: t.string({ description: 'The expense purpose, at most 1000 characters' }),
    itemCategories: t.stringList({ description: 'At most 20 categories of at most 100 characters' }),
    paymentMethod: t.field({ type: VoucherPaymentMethodEnum }),
    payorId: t.int({ description: 'A business partner of the client account: who paid' }),
    projectId: t.int({
      description: "An active project of the client account: set on the voucher and on every line of its draft journal entries (posted entries are immutable and left as they are)",
    }),
    isPaid: t.boolean({ description: "true states the voucher's documents PAID (stated_payment_status); false clears that" }),
    comment: t.string({ description: 'At most 2000 characters' }),
  }),
});

builder.queryFields((t) => ({

  vouchers: t.field({
    type: VoucherPage,
    extensions: pageCost(VOUCHER_PAGE_LIMITS),
    description:
      "Vouchers of the caller's client accounts (or those named), newest first unless orderBy says otherwise; similarTo ranks by similarity to a voucher's content. DELETED vouchers only when status names DELETED.",
    args: {
      clientAccountIds: t.arg.intList({ description: "Default: every client account of the caller's" }),
      status: t.arg({ type: [VoucherStatusEnum], description: 'Default: every status but DELETED' }),
      documentTypes: t.arg.stringList({ description: "The voucher's type or a document's document_type" }),
      documentStatuses: t.arg.stringList({ description: 'document_status of a document of the voucher' }),
      paymentStatuses: t.arg.stringList({ description: 'A document of the voucher has this payment_status (NOT_APPLICABLE, UNPAID, PARTLY_PAID, PAID: derived from its reconciliations, as on GET /documents)' }),
      businessPartnerIds: t.arg.intList({ description: 'business_partner_id of a document of the voucher' }),
      collectionIds: t.arg.intList(),
      projectIds: t.arg.intList(),
      accountCodes: t.arg.stringList({ description: "A line of the voucher's (or its documents') non-cancelled journal entries on one of these ledger accounts" }),
      taxCodes: t.arg.stringList({ description: 'A line of those entries with one of these tax codes' }),
      documentDateFrom: t.arg({ type: 'Date', description: "The voucher's document date on or after" }),
      documentDateTo: t.arg({ type: 'Date' }),
      dueDateFrom: t.arg({ type: 'Date', description: 'A document of the voucher due on or after' }),
      dueDateTo: t.arg({ type: 'Date' }),
      postingDateFrom: t.arg({ type: 'Date', description: 'A line of the voucher’s non-cancelled journal entries posted on or after' }),
      postingDateTo: t.arg({ type: 'Date' }),
      freeText: t.arg.string({ description: 'Part of the file name, the extracted text, a statement’s purpose or comment, a document’s number, description or partner name, or an entry’s description' }),
      similarTo: t.arg.int({ description: 'A voucher with an embedding: the others ordered by cosine similarity to it, most similar first (it is left out)' }),
      hasProject: t.arg.boolean(),
      hasCollection: t.arg.boolean(),
      hasJournalEntry: t.arg.boolean({ description: 'Has a non-cancelled journal entry (draft or posted)' }),
      hasDocument: t.arg.boolean(),
      hasAttachment: t.arg.boolean(),
      orderBy: t.arg.string({ description: "'field asc|desc', several separated by commas; fields: id, created_at, updated_at, document_date, file_name, size, status, type. Default 'created_at desc'" }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int({ description: '100 by default, at most 1000' }),
    },
    resolve: (_root, args, ctx, info) => listVouchers(ctx, args, nodesQuery(ctx, info)),
  }),
  voucher: t.prismaField({
    nullable: true,
    type: 'Voucher',
    description: 'One voucher (404 when deleted).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getVoucher(ctx, args, query),
  }),

  voucherStatements: t.field({
    type: VoucherStatementPage,
    extensions: pageCost(VOUCHER_STATEMENT_PAGE_LIMITS),
    description: 'The statements of a voucher, newest first (per_page 100 by default and at most).',
    args: { voucherId: t.arg.int({ required: true }), page: t.arg.int(), perPage: t.arg.int(), ...cursorArgs(t) },
    resolve: (_root, args, ctx, info) => listVoucherStatements(ctx, args, nodesQuery(ctx, info)),
  }),
}));

builder.mutationFields((t) => ({
  deleteVoucher: t.boolean({
    description:
      'Removes a voucher (status DELETED, no longer found or listed; record and file kept as evidence) with its draft journal entries and draft documents. Refused (400) while it has a posted, non-cancelled journal entry or document, or a receivable document created in the app.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => deleteVoucher(ctx, args),
  }),
  mergeVouchers: t.prismaField({
    type: 'Voucher',
    description:
      'Combines the PDFs and images (JPEG, PNG) of vouchers of one client account, in the order given, into one new PDF voucher (channel merge, status DRAFT); other files become its attachments.',
    args: { input: t.arg({ type: MergeVouchersInput, required: true }) },
    resolve: (query, _root, args, ctx) => mergeVouchers(ctx, args, query),
  }),
  splitVoucher: t.prismaField({
    type: ['Voucher'],
    description: "Splits a PDF voucher into one new PDF voucher per page range (channel split, status DRAFT); every statement of the source is copied to each, in its order.",
    args: { input: t.arg({ type: SplitVoucherInput, required: true }) },
    resolve: (query, _root, args, ctx) => splitVoucher(ctx, args, query),
  }),
  createVoucherStatement: t.prismaField({
    type: 'VoucherStatement',
    description:
      'States something about a voucher. A project is set on the voucher and on every line of its draft journal entries (posted entries are immutable and left alone; effects lists both); is_paid states its documents PAID.',
    args: { voucherId: t.arg.int({ required: true }), input: t.arg({ type: CreateVoucherStatementInput, required: true }) },
    resolve: (query, _root, args, ctx) => createVoucherStatement(ctx, args, query),
  }),
}));
