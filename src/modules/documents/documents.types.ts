import { recordById } from '../../shared/record-by-id.ts';
import { described } from '../../shared/enum-values.ts';
import { builder, storesNothing, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { fixed, fixedOrNull } from '../../shared/scalars.ts';
import type { RequestContext } from '../../shared/context.ts';
import { requestLoader } from '../../shared/loaders.ts';
import { addAuditFields, loadUser, UserRef } from '../users/users.types.ts';
import { ARCHIVE_CATEGORIES, DOCUMENT_ORDER_FIELDS, DOCUMENT_STATUSES, DOCUMENT_TYPES, PAYMENT_LINE_TYPES, PAYMENT_STATUSES, RECONCILIATION_TYPES, REFERENCE_TYPES } from './documents.rules.ts';
import {
  createDocument,
  deleteDocument,
  DOCUMENT_PAGE_LIMITS,
  documentState,
  getDocument,
  listDocuments,
  previewDocument,
  reconciliationLines,
  updateDocument,
  type ReconciliationLine as ReconciliationLineRow,
} from './documents.service.ts';

// spec 001 "Commercial document" and "Documents"

export const DocumentTypeEnum = builder.enumType('DocumentType', {
  description:
    'Document types (spec 001, voucher "Document types"). Receivables: ARINV invoice, ARCRN credit note, ARCIN cash invoice, ARPIN proforma invoice, ARDEB debt collection. Payables: APINV, APCRN, RECPT receipt, APCIN, APPIN, APDEB. Settlement: PAYSR, SALSM, VATST, VATRP. Payroll: PRRUN, PRPAY, PRTAX.',
  values: DOCUMENT_TYPES,
});

export const DocumentStatusEnum = builder.enumType('DocumentStatus', {
  values: described(DOCUMENT_STATUSES, {
    DRAFT: 'Being worked on: may change or be deleted; no number, nothing posted',
    FINALIZED: 'Numbered and, for sales and purchase types, posted; amounts, lines, partner and dates are fixed',
    SENT: 'Finalized and its PDF e-mailed to the business partner (send_document)',
    CREDITED: 'Finalized, and a finalized credit note CREDITS it in full',
  }),
});

export const PaymentStatusEnum = builder.enumType('DocumentPaymentStatus', {
  description: "Read-only, from the reconciliations of the document's receivable (1500) or payable (2400) line",
  values: described(PAYMENT_STATUSES, {
    NOT_APPLICABLE: 'No posted receivable/payable line: drafts, proforma and other types, cancelled entries',
    UNPAID: 'Nothing of the line is reconciled',
    PARTLY_PAID: 'Part of the line is reconciled (open_amount is the rest)',
    PAID: 'The whole line is reconciled',
  }),
});

export const ReconciliationTypeEnum = builder.enumType('DocumentReconciliationType', {
  values: described(RECONCILIATION_TYPES, {
    BANK: 'Settled by a bank payment (a bank transaction\'s entry or a line on a 19xx bank account)',
    CREDIT_NOTE: 'Settled against a credit note (or, on a credit note, against the invoice it credits)',
    EXCHANGE: 'An automatic exchange difference',
    MANUAL: 'Reconciled by hand against any other line',
  }),
});

export const ArchiveCategoryEnum = builder.enumType('ArchiveCategory', {
  description: 'Why an archived document is kept: ACCOUNTING (bookkeeping material), CONTRACT, CORRESPONDENCE, OTHER',
  values: ARCHIVE_CATEGORIES,
});

export const DocumentReferenceTypeEnum = builder.enumType('DocumentReferenceType', {
  description: 'CREDITS: a credit note credits the referenced invoice (settled against it); INVOICE, ORDER, CONTRACT: other documents or outside references by number',
  values: REFERENCE_TYPES,
});

export const PaymentLineTypeEnum = builder.enumType('PaymentLineType', { values: PAYMENT_LINE_TYPES });

/** Document lines (spec 001 "Commercial document", line fields); item collection entries list the lines that consumed them. */
export const DocumentLine = builder.prismaObject('DocumentLine', {
  runScopesOnType: true,
  authScopes: (line) => ({ account: line.document.clientAccountId }),
  include: { document: { select: { clientAccountId: true } } },
  fields: (t) => ({
    id: t.exposeInt('id'),
    document: t.relation('document'),
    documentId: t.exposeInt('documentId'),
    lineId: t.exposeInt('lineId'),
    item: t.relation('item', { nullable: true }),
    itemId: t.exposeInt('itemId', { nullable: true }),
    itemNo: t.exposeString('itemNo', { nullable: true }),
    itemName: t.exposeString('itemName', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    price: t.field({ type: 'Decimal', resolve: fixed('price', 6) }),
    currencyCode: t.exposeString('currencyCode'),
    quantity: t.field({ type: 'Decimal', resolve: fixed('quantity', 6) }),
    unit: t.relation('unit', { nullable: true }),
    unitId: t.exposeInt('unitId', { nullable: true }),
    taxCode: t.relation('taxCode', { nullable: true }),
    taxCodeId: t.exposeInt('taxCodeId', { nullable: true }),
    taxRate: t.field({ type: 'Decimal', nullable: true, description: "The tax code's rate on the document date, percent", resolve: fixedOrNull('taxRate', 2) }),
    taxAmountLc: t.field({ type: 'Decimal', description: 'VAT in the accounting currency, rounded to the øre on the line', resolve: fixed('taxAmountLc', 2) }),
    taxAmountFc: t.field({ type: 'Decimal', description: "VAT in the document's currency", resolve: fixed('taxAmountFc', 2) }),
    totalLc: t.field({ type: 'Decimal', description: 'Net plus VAT, accounting currency', resolve: fixed('totalLc', 2) }),
    totalFc: t.field({ type: 'Decimal', description: "Net plus VAT, document currency", resolve: fixed('totalFc', 2) }),
    account: t.prismaField({ type: 'Account', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'account', p.accountId, query) }),
    accountId: t.exposeInt('accountId', { nullable: true, description: 'The revenue or cost account the line posts to (null: the default for its tax code, 3000 or 4000)' }),
    itemCollectionEntry: t.relation('itemCollectionEntry', { nullable: true }),
    itemCollectionEntryId: t.exposeInt('itemCollectionEntryId', { nullable: true }),
  }),
});

export const DocumentPaymentLine = builder.prismaObject('DocumentPaymentLine', {
  runScopesOnType: true,
  authScopes: (line) => ({ account: line.document.clientAccountId }),
  include: { document: { select: { clientAccountId: true } } },
  fields: (t) => ({
    id: t.exposeInt('id'),
    document: t.relation('document'),
    documentId: t.exposeInt('documentId'),
    lineType: t.expose('lineType', { type: PaymentLineTypeEnum }),
    requestedExecutionDate: t.expose('requestedExecutionDate', { type: 'Date', nullable: true }),
    debtorBusinessPartner: t.prismaField({ type: 'BusinessPartner', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'businessPartner', p.debtorBusinessPartnerId, query) }),
    debtorBusinessPartnerId: t.exposeInt('debtorBusinessPartnerId', { nullable: true }),
    debtorBankAccount: t.prismaField({ type: 'BankAccount', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'bankAccount', p.debtorBankAccountId, query) }),
    debtorBankAccountId: t.exposeInt('debtorBankAccountId', { nullable: true }),
    creditorBusinessPartner: t.prismaField({ type: 'BusinessPartner', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'businessPartner', p.creditorBusinessPartnerId, query) }),
    creditorBusinessPartnerId: t.exposeInt('creditorBusinessPartnerId', { nullable: true }),
    creditorBankAccount: t.prismaField({ type: 'BankAccount', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'bankAccount', p.creditorBankAccountId, query) }),
    creditorBankAccountId: t.exposeInt('creditorBankAccountId', { nullable: true }),
    amount: t.field({ type: 'Decimal', resolve: fixed('amount', 2) }),
    currencyCode: t.exposeString('currencyCode'),
    creditorReference: t.exposeString('creditorReference', { nullable: true }),
  }),
});

export const DocumentReference = builder.prismaObject('DocumentReference', {
  runScopesOnType: true,
  authScopes: (r) => ({ account: r.document.clientAccountId }),
  include: { document: { select: { clientAccountId: true } } },
  description: 'A link from a document to another document or an outside reference',
  fields: (t) => ({
    id: t.exposeInt('id'),
    document: t.relation('document'),
    documentId: t.exposeInt('documentId'),
    referenceType: t.field({ type: DocumentReferenceTypeEnum, resolve: (r) => r.referenceType as never }),
    referencedDocument: t.relation('referencedDocument', { nullable: true }),
    referencedDocumentId: t.exposeInt('referencedDocumentId', { nullable: true }),
    referenceNumber: t.exposeString('referenceNumber', { nullable: true }),
  }),
});

export const PaymentRequest = builder.prismaObject('PaymentRequest', {
  ...tenantScoped,
  description: 'A request to pay (part of) a document from a bank account; PENDING and SENT count as pending_payment_amount',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    document: t.relation('document'),
    documentId: t.exposeInt('documentId'),
    bankAccount: t.prismaField({ type: 'BankAccount', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'bankAccount', p.bankAccountId, query) }),
    bankAccountId: t.exposeInt('bankAccountId', { nullable: true }),
    amount: t.field({ type: 'Decimal', resolve: fixed('amount', 2) }),
    currencyCode: t.exposeString('currencyCode'),
    requestedExecutionDate: t.expose('requestedExecutionDate', { type: 'Date', nullable: true }),
    status: t.exposeString('status', { description: 'PENDING, SENT, EXECUTED, REJECTED or CANCELLED' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
  }),
});

export const DocumentReconciliationLine = builder.objectRef<ReconciliationLineRow>('DocumentReconciliationLine').implement({
  description: "A reconciliation entry on the document's receivable/payable line (committed, not deleted)",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The reconciliation entry' }),
    document: t.prismaField({ type: 'Document', resolve: (query, p, _a, ctx) => recordById(ctx, 'document', p.documentId, query) as never }),
    documentId: t.exposeInt('documentId'),
    lineId: t.exposeInt('lineId', { description: "The document's journal entry line" }),
    description: t.exposeString('description', { nullable: true, description: "The counterpart's journal entry description" }),
    reconciliationType: t.field({ type: ReconciliationTypeEnum, resolve: (r) => r.reconciliationType as never }),
    amount: t.field({ type: 'Decimal', resolve: fixed('amount', 2) }),
    currencyCode: t.exposeString('currencyCode'),
    transactionDate: t.expose('transactionDate', { type: 'Date', description: 'The reconciliation date' }),
  }),
});

/** The id of a currency by code: one query for every document of a response. */
const currencyIdOf = (ctx: RequestContext, code: string) =>
  requestLoader<string, number | null>(ctx.loaders, 'currencyIdByCode', async (codes) => {
    const rows = await ctx.db.currency.findMany({ where: { code: { in: [...codes] } }, select: { id: true, code: true } });
    const byCode = new Map(rows.map((r) => [r.code.trim(), r.id]));
    return codes.map((c) => byCode.get(c.trim()) ?? null);
  }).load(code);

const state = <K extends keyof Awaited<ReturnType<typeof documentState>>>(key: K) =>
  (d: { id: number }, _a: unknown, ctx: Parameters<typeof documentState>[0]) => documentState(ctx, d.id).then((s) => s[key]);

export const Document = builder.prismaObject('Document', {
  ...tenantScoped,
  description: 'A commercial document: invoice, credit note, receipt, settlement … (spec 001 "Commercial document")',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    businessPartnerId: t.exposeInt('businessPartnerId', { nullable: true }),
    payorId: t.exposeInt('payorId', { nullable: true }),
    collectorId: t.exposeInt('collectorId', { nullable: true }),
    documentDate: t.expose('documentDate', { type: 'Date' }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    periodStart: t.expose('periodStart', { type: 'Date', nullable: true }),
    periodEnd: t.expose('periodEnd', { type: 'Date', nullable: true }),
    periodDescription: t.exposeString('periodDescription', { nullable: true }),
    documentType: t.field({ type: DocumentTypeEnum, resolve: (d) => d.documentType as never }),
    documentStatus: t.field({ type: DocumentStatusEnum, resolve: (d) => d.documentStatus as never }),
    documentNumber: t.exposeString('documentNumber', { nullable: true, description: 'Per client account and type; assigned without gaps when a sales document is finalized' }),
    documentUuid: t.exposeString('documentUuid', { nullable: true }),
    documentDescription: t.exposeString('documentDescription', { nullable: true }),
    buyerReference: t.exposeString('buyerReference', { nullable: true }),
    orderReference: t.exposeString('orderReference', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
    collectionCaseNumber: t.exposeString('collectionCaseNumber', { nullable: true }),
    collectionSeverity: t.exposeString('collectionSeverity', { nullable: true }),
    paymentStatus: t.field({ type: PaymentStatusEnum, description: 'Read-only, reconciliation-driven', resolve: state('paymentStatus') as never }),
    statedPaymentStatus: t.exposeString('statedPaymentStatus', { nullable: true, description: 'Read-only; set by a voucher statement such as mark as paid (PAID)' }),
    paymentMeans: t.exposeString('paymentMeans', { nullable: true }),
    paymentRef: t.exposeString('paymentRef', { nullable: true, description: 'KID or other payment reference; a finalized sales document without one gets a MOD10 KID' }),
    paymentCardNumber: t.exposeString('paymentCardNumber', { nullable: true }),
    grossAmount: t.field({ type: 'Decimal', description: "net_amount plus VAT, document currency: the item lines' total, or as written on a document without lines", resolve: fixed('grossAmount', 2) }),
    netAmount: t.field({ type: 'Decimal', description: "Without VAT, document currency: the sum of the item lines' net amounts, or as written on a document without lines", resolve: fixed('netAmount', 2) }),
    openAmount: t.field({ type: 'Decimal', description: 'Read-only: what of the receivable/payable line is not reconciled (0 without a posted line)', resolve: (d, _a, ctx) => documentState(ctx, d.id).then((s) => s.openAmount.toFixed(2)) }),
    pendingPaymentAmount: t.field({ type: 'Decimal', description: 'Read-only: payment requests PENDING or SENT', resolve: (d, _a, ctx) => documentState(ctx, d.id).then((s) => s.pendingPaymentAmount.toFixed(2)) }),
    lateFeeAmount: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('lateFeeAmount', 2) }),
    interestAmount: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('interestAmount', 2) }),
    bankAccountId: t.exposeInt('bankAccountId', { nullable: true }),
    voucher: t.relation('voucher', { nullable: true }),
    voucherId: t.exposeInt('voucherId', { nullable: true, description: 'The primary voucher file' }),
    currency: t.prismaField({ type: 'Currency', nullable: true, description: 'The currency of currencyCode', resolve: (query, p, _a, ctx) => ctx.db.currency.findUnique({ ...query, where: { code: p.currencyCode } }) }),
    currencyId: t.int({ nullable: true, resolve: (d, _a, ctx) => currencyIdOf(ctx, d.currencyCode) }),
    currencyCode: t.exposeString('currencyCode'),
    exchangeRate: t.field({ type: 'Decimal', resolve: fixed('exchangeRate', 6) }),
    journalEntry: t.prismaField({ type: 'JournalEntry', nullable: true, description: 'The journal entry the document is posted by', resolve: (query, p, _a, ctx) => recordById(ctx, 'journalEntry', p.journalEntryId, query) }),
    journalEntryId: t.exposeInt('journalEntryId', { nullable: true, description: 'The entry a finalized sales or purchase document posted' }),
    isDraft: t.exposeBoolean('isDraft'),
    isImported: t.exposeBoolean('isImported'),
    isActive: t.exposeBoolean('isActive'),
    isArchived: t.exposeBoolean('isArchived'),
    isPayable: t.boolean({ description: 'Read-only: a purchase document (APINV, APCIN, RECPT) with an open amount', resolve: state('isPayable') }),
    isUnpaid: t.boolean({ description: 'Read-only: posted, open amount > 0 and not stated paid', resolve: state('isUnpaid') }),
    isAvailableForPayment: t.boolean({ description: 'Read-only: payable, active, not archived, not stated paid, and open beyond pending payment requests', resolve: state('isAvailableForPayment') }),
    isBeingPaid: t.boolean({ description: 'Read-only: has PENDING or SENT payment requests', resolve: state('isBeingPaid') }),
    isReconcilable: t.boolean({ description: 'Read-only: has a posted receivable/payable line with an open amount', resolve: state('isReconcilable') }),
    isUnreconciled: t.boolean({ description: 'Read-only: has a posted receivable/payable line of which nothing is reconciled', resolve: state('isUnreconciled') }),
    archiveCategory: t.field({ type: ArchiveCategoryEnum, nullable: true, resolve: (d) => d.archiveCategory as never }),
    sendDocument: t.exposeBoolean('sendDocument', { description: 'When set, a sales document is e-mailed to the partner when created or finalized' }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true, description: "When the document's PDF was e-mailed" }),
    createdInApp: t.exposeBoolean('createdInApp'),
    businessPartner: t.relation('businessPartner', { nullable: true }),
    payor: t.relation('payor', { nullable: true }),
    collector: t.relation('collector', { nullable: true }),
    bankAccount: t.relation('bankAccount', { nullable: true }),
    files: t.relation('files', { description: 'Attached files (presigned URLs, one hour)', extensions: listCost(10), query: { orderBy: { id: 'asc' } } }),
    structuredData: t.expose('structuredData', { type: 'JSON', nullable: true }),
    itemLines: t.relation('lines', { query: { orderBy: { lineId: 'asc' } } }),
    paymentLines: t.relation('paymentLines', { extensions: listCost(100), query: { orderBy: { id: 'asc' } } }),
    documentReferences: t.relation('references', { extensions: listCost(100), query: { orderBy: { id: 'asc' } } }),
    paymentRequests: t.relation('paymentRequests', { query: { orderBy: { id: 'asc' } } }),
    reconciliationLines: t.field({ type: [DocumentReconciliationLine], resolve: (d, _a, ctx) => reconciliationLines(ctx, d.id) }),
  }),
});
addAuditFields(Document);

const DocumentPage = pageType('DocumentPage', Document);

export const DocumentPreview = builder.objectRef<{ fileName: string; contentType: string; contentBase64: string }>('DocumentPreview').implement({
  description: "A document's PDF, made from a create body without saving anything",
  fields: (t) => ({
    fileName: t.exposeString('fileName'),
    contentType: t.exposeString('contentType', { description: 'application/pdf' }),
    contentBase64: t.exposeString('contentBase64', { description: 'The PDF, base64' }),
  }),
});

const ItemLineInput = builder.inputType('DocumentItemLineInput', {
  description: 'A line: an item, an item collection entry (consumed) or free text; what it leaves out comes from the entry, then the item',
  fields: (t) => ({
    lineId: t.int({ description: '1, 2, … by position unless given' }),
    itemId: t.int(),
    itemNo: t.string(),
    itemName: t.string(),
    description: t.string(),
    price: t.field({ type: 'Decimal', description: "The entry's, else the item's; 0 on a line with neither (a text line)" }),
    quantity: t.field({ type: 'Decimal', description: '1 unless given' }),
    unitId: t.int(),
    taxCodeId: t.int(),
    accountId: t.int({ description: 'Revenue or cost account to post to' }),
    itemCollectionEntryId: t.int({ description: 'Consumes the entry (once, unless its collection is a TEMPLATE)' }),
  }),
});

const PaymentLineInput = builder.inputType('DocumentPaymentLineInput', {
  fields: (t) => ({
    lineType: t.field({ type: PaymentLineTypeEnum, required: true }),
    requestedExecutionDate: t.field({ type: 'Date' }),
    debtorBusinessPartnerId: t.int(),
    debtorBankAccountId: t.int(),
    creditorBusinessPartnerId: t.int(),
    creditorBankAccountId: t.int(),
    amount: t.field({ type: 'Decimal', required: true }),
    currencyCode: t.string(),
    creditorReference: t.string(),
  }),
});

const ReferenceInput = builder.inputType('DocumentReferenceInput', {
  fields: (t) => ({
    referenceType: t.field({ type: DocumentReferenceTypeEnum, required: true }),
    referencedDocumentId: t.int(),
    referenceNumber: t.string(),
  }),
});

type InputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];
const documentInputFields = (t: InputFields, create: boolean) => ({
  businessPartnerId: t.int(),
  payorId: t.int(),
  collectorId: t.int(),
  documentDate: t.field({ type: 'Date', description: create ? 'Today (Europe/Oslo) unless given' : undefined }),
  dueDate: t.field({ type: 'Date' }),
  periodStart: t.field({ type: 'Date' }),
  periodEnd: t.field({ type: 'Date' }),
  periodDescription: t.string(),
  documentNumber: t.string({ description: 'Only for non-sales types, or with is_imported: sales documents are numbered when finalized' }),
  documentUuid: t.string(),
  documentDescription: t.string(),
  buyerReference: t.string(),
  orderReference: t.string(),
  note: t.string(),
  collectionCaseNumber: t.string(),
  collectionSeverity: t.string(),
  paymentMeans: t.string(),
  paymentRef: t.string({ description: 'KID; a finalized sales document without one gets a MOD10 KID' }),
  paymentCardNumber: t.string(),
  grossAmount: t.field({
    type: 'Decimal',
    description:
      "Document currency. Without item lines: the document's gross amount (net_amount alone: the same, no VAT). With item lines: must equal their total (net plus VAT) to the øre, else 400",
  }),
  netAmount: t.field({
    type: 'Decimal',
    description: "Document currency. Without item lines: the document's net amount, VAT being gross_amount − net_amount (gross_amount alone: the same). With item lines: must equal their net total, else 400",
  }),
  lateFeeAmount: t.field({ type: 'Decimal' }),
  interestAmount: t.field({ type: 'Decimal' }),
  bankAccountId: t.int(),
  voucherId: t.int(),
  currencyCode: t.string({ description: 'The accounting currency unless given' }),
  exchangeRate: t.field({ type: 'Decimal', description: 'Required for a foreign currency' }),
  isDraft: t.boolean({ description: create ? 'false (the default) finalizes: numbers, posts and sends' : 'false finalizes a draft' }),
  isImported: t.boolean(),
  isActive: t.boolean(),
  isArchived: t.boolean(),
  archiveCategory: t.field({ type: ArchiveCategoryEnum }),
  sendDocument: t.boolean({ description: 'E-mail a sales document to the business partner when it is finalized' }),
  structuredData: t.field({ type: 'JSON' }),
  itemLines: t.field({ type: [ItemLineInput], description: create ? undefined : 'Replaces the lines (drafts only)' }),
  paymentLines: t.field({ type: [PaymentLineInput], description: create ? undefined : 'Replaces the payment lines' }),
  documentReferences: t.field({ type: [ReferenceInput], description: create ? undefined : 'Replaces the references' }),
});

export const CreateDocumentInput = builder.inputType('CreateDocumentInput', {
  fields: (t) => ({ clientAccountId: t.int({ required: true }), documentType: t.field({ type: DocumentTypeEnum, required: true }), ...documentInputFields(t, true) }),
});

const UpdateDocumentInput = builder.inputType('UpdateDocumentInput', {
  description:
    'Fields to change; omitted fields keep their value. A finalized document keeps its type, partner, dates, number, currency, rate, lines, amounts, voucher, KID and bank account (400: credit it instead).',
  fields: (t) => ({ clientAccountId: t.int({ description: 'Immutable' }), documentType: t.field({ type: DocumentTypeEnum }), ...documentInputFields(t, false) }),
});

builder.queryFields((t) => ({

  documents: t.field({
    type: DocumentPage,
    extensions: pageCost(DOCUMENT_PAGE_LIMITS),
    description: 'Documents of a client account, document_date descending unless orderBy (page-based; per_page 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      businessPartnerId: t.arg.int(),
      fromDocumentDate: t.arg({ type: 'Date', description: 'Inclusive' }),
      toDocumentDate: t.arg({ type: 'Date', description: 'Inclusive' }),
      documentDate: t.arg({ type: 'Date' }),
      dueDate: t.arg({ type: 'Date' }),
      documentType: t.arg({ type: [DocumentTypeEnum] }),
      documentStatus: t.arg({ type: [DocumentStatusEnum] }),
      documentNumber: t.arg.string(),
      paymentReference: t.arg.string({ description: 'payment_ref, exactly' }),
      grossAmount: t.arg({ type: 'Decimal' }),
      openAmount: t.arg({ type: 'Decimal' }),
      pendingPaymentAmount: t.arg({ type: 'Decimal' }),
      paymentStatus: t.arg({ type: [PaymentStatusEnum] }),
      isActive: t.arg.boolean(),
      isPayable: t.arg.boolean(),
      isUnpaid: t.arg.boolean(),
      isAvailableForPayment: t.arg.boolean(),
      isBeingPaid: t.arg.boolean(),
      isReconcilable: t.arg.boolean(),
      isUnreconciled: t.arg.boolean(),
      matchBankTransactionId: t.arg.int({
        description:
          'Open documents that bank transaction could pay: open amount equal to its amount in the right direction (incoming pays sales invoices, outgoing purchase invoices), or payment_ref equal to its KID/reference',
      }),
      orderBy: t.arg.stringList({ description: `${Object.keys(DOCUMENT_ORDER_FIELDS).join(', ')}; field, field:asc, field:desc or -field` }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listDocuments(ctx, args, nodesQuery(ctx, info)) as never,
  }),
  document: t.prismaField({
    nullable: true,
    type: 'Document',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getDocument(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  previewDocument: t.field({
    ...storesNothing,
    type: DocumentPreview,
    description:
      'The PDF of a document as createDocument would make it; nothing is saved (REST POST /documents/preview answers the PDF itself). A mutation as its REST POST is: it needs the write scope.',
    args: { input: t.arg({ type: CreateDocumentInput, required: true }) },
    resolve: (_root, args, ctx) => previewDocument(ctx, args as never),
  }),
  createDocument: t.prismaField({
    type: 'Document',
    description: 'Creates a document: a draft (isDraft true) or finalized (numbered, posted for sales and purchase types, sent with sendDocument) in one transaction.',
    args: { input: t.arg({ type: CreateDocumentInput, required: true }) },
    resolve: (query, _root, args, ctx) => createDocument(ctx, args as never, query),
  }),
  updateDocument: t.prismaField({
    type: 'Document',
    description: 'Updates the fields sent (REST PUT and PATCH); isDraft false finalizes a draft.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateDocumentInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateDocument(ctx, args as never, query),
  }),
  deleteDocument: t.boolean({
    description: 'Deletes a draft; a finalized document is a 400 (credit it instead).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => deleteDocument(ctx, args),
  }),
}));
