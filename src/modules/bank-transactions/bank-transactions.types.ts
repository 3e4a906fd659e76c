import { cursorArgs, nodesQuery, pageType, windowArgs } from '../../shared/page-type.ts';
import { wholeList } from '../../shared/pagination.ts';
import { recordById } from '../../shared/record-by-id.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import type { Decimal } from '@prisma/client/runtime/client';
import { CANCELLATION_FLAGS } from '../journal-entries/journal-entries.rules.ts';
import { builder, tenantScoped } from '../../builder.ts';
import type { RequestContext } from '../../shared/context.ts';
import { requestLoader } from '../../shared/loaders.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { fixed, fixedOrNull, inCurrency } from '../../shared/scalars.ts';
import { MAX_CAMT053_LENGTH, PAYMENT_RELATION_TYPE } from './bank-transactions.rules.ts';
import {
  BANK_STATEMENT_PAGE_LIMITS,
  BANK_TRANSACTION_PAGE_LIMITS,
  createBankTransaction,
  createBankTransactionStatement,
  getBankStatement,
  getBankTransaction,
  importBankStatement,
  listBankStatements,
  listBankTransactions,
  listBankTransactionStatements,
} from './bank-transactions.service.ts';

/** The receivables account whose payment lines `receivablePayments` lists (the default chart's 1500). */
const RECEIVABLES_CODE = '1500';

// ── Posted payments, receivable payments, reconciled documents: one query set per request ────────

interface PaymentLine {
  id: number;
  journalEntryId: number;
  postingDate: Date;
  accountId: number;
  accountCode: string;
  debit: Decimal;
  credit: Decimal;
  debitFc: Decimal;
  creditFc: Decimal;
  currencyCode: string;
  businessPartnerId: number | null;
  reconciledAmount: Decimal;
}
interface Payment {
  id: number;
  clientAccountId: number;
  sequenceNumber: number | null;
  isDraft: boolean;
  cancelled: string | null;
  postedAt: Date | null;
  description: string | null;
  lines: PaymentLine[];
}

/** Every journal entry booked against the transactions (relation bank_transaction), drafts included, by id. */
function paymentsOf(ctx: RequestContext, bankTransactionId: number): Promise<Payment[]> {
  return requestLoader<number, Payment[]>(ctx.loaders, 'bankPayments', async (ids) => {
    const entries = await ctx.db.journalEntry.findMany({
      where: { relationType: PAYMENT_RELATION_TYPE, relationId: { in: [...ids] } },
      orderBy: { id: 'asc' },
      select: {
        id: true,
        clientAccountId: true,
        relationId: true,
        sequenceNumber: true,
        isDraft: true,
        cancelled: true,
        postedAt: true,
        description: true,
        lines: {
          orderBy: { lineId: 'asc' },
          select: {
            id: true, journalEntryId: true, postingDate: true, accountId: true, debit: true, credit: true, debitFc: true, creditFc: true,
            currencyCode: true, businessPartnerId: true, reconciledAmount: true, account: { select: { code: true } },
          },
        },
      },
    });
    return ids.map((id) =>
      entries
        .filter((e) => e.relationId === id)
        .map(({ relationId: _r, lines, ...e }) => ({ ...e, lines: lines.map(({ account, ...l }) => ({ ...l, currencyCode: l.currencyCode.trim(), accountCode: account.code })) })),
    );
  }).load(bankTransactionId);
}

interface ReconciledDocument {
  id: number;
  documentType: string;
  documentNumber: string | null;
  documentDate: Date;
}

/**
 * The documents the payments of each transaction settled: committed, undeleted reconciliations with a
 * payment line; their other lines' journal entries that belong to a document (relation_type document).
 */
function documentsOf(ctx: RequestContext, bankTransactionId: number): Promise<ReconciledDocument[]> {
  return requestLoader<number, ReconciledDocument[]>(ctx.loaders, 'bankReconciledDocuments', async (ids) => {
    const payments = await Promise.all(ids.map((id) => paymentsOf(ctx, id)));
    const txOfLine = new Map<number, number>();
    payments.forEach((ps, i) => ps.forEach((p) => p.lines.forEach((l) => txOfLine.set(l.id, ids[i]))));
    if (!txOfLine.size) return ids.map(() => []);
    const alive = { deletedAt: null, isDraft: false };
    const mine = await ctx.db.reconciliationEntry.findMany({
      where: { journalEntryLineId: { in: [...txOfLine.keys()] }, reconciliation: alive },
      select: { reconciliationId: true, journalEntryLineId: true },
    });
    const txsOfReconciliation = new Map<number, Set<number>>();
    for (const m of mine) txsOfReconciliation.set(m.reconciliationId, (txsOfReconciliation.get(m.reconciliationId) ?? new Set()).add(txOfLine.get(m.journalEntryLineId)!));
    const others = await ctx.db.reconciliationEntry.findMany({
      where: { reconciliationId: { in: [...txsOfReconciliation.keys()] }, journalEntryLineId: { notIn: [...txOfLine.keys()] } },
      select: { reconciliationId: true, journalEntryLine: { select: { journalEntry: { select: { relationType: true, relationId: true } } } } },
    });
    const docsOfTx = new Map<number, Set<number>>();
    for (const o of others) {
      const entry = o.journalEntryLine.journalEntry;
      if (entry.relationType !== 'document' || entry.relationId == null) continue;
      for (const tx of txsOfReconciliation.get(o.reconciliationId) ?? []) docsOfTx.set(tx, (docsOfTx.get(tx) ?? new Set()).add(entry.relationId));
    }
    const docIds = [...new Set([...docsOfTx.values()].flatMap((s) => [...s]))];
    const docs = docIds.length
      ? await ctx.db.document.findMany({ where: { id: { in: docIds } }, orderBy: { id: 'asc' }, select: { id: true, documentType: true, documentNumber: true, documentDate: true } })
      : [];
    return ids.map((id) => docs.filter((d) => docsOfTx.get(id)?.has(d.id)));
  }).load(bankTransactionId);
}

// ── Object types ─────────────────────────────────────────────────────────────────────────────────

const PaymentLineRef = builder.objectRef<PaymentLine>('BankPaymentLine').implement({
  description: 'A line of a journal entry booked against a bank transaction (an account entry of its transfer).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    journalEntry: t.prismaField({ type: 'JournalEntry', resolve: (query, p, _a, ctx) => recordById(ctx, 'journalEntry', p.journalEntryId, query) as never }),
    journalEntryId: t.exposeInt('journalEntryId'),
    postingDate: t.expose('postingDate', { type: 'Date' }),
    account: t.prismaField({ type: 'Account', resolve: (query, p, _a, ctx) => recordById(ctx, 'account', p.accountId, query) as never }),
    accountId: t.exposeInt('accountId'),
    accountCode: t.exposeString('accountCode'),
    debit: t.field({ type: 'Decimal', description: 'In the accounting currency', resolve: fixed('debit', 2) }),
    credit: t.field({ type: 'Decimal', description: 'In the accounting currency', resolve: fixed('credit', 2) }),
    debitFc: t.field({ type: 'Decimal', description: 'In the line currency', resolve: fixed('debitFc', 2) }),
    creditFc: t.field({ type: 'Decimal', description: 'In the line currency', resolve: fixed('creditFc', 2) }),
    currencyCode: t.exposeString('currencyCode'),
    businessPartner: t.prismaField({ type: 'BusinessPartner', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'businessPartner', p.businessPartnerId, query) }),
    businessPartnerId: t.exposeInt('businessPartnerId', { nullable: true }),
    reconciledAmount: t.field({ type: 'Decimal', description: 'How much of the line reconciliations have matched', resolve: fixed('reconciledAmount', 2) }),
  }),
});

const PaymentTransfer = builder.objectRef<Payment>('BankPaymentTransfer').implement({
  description: 'The money movement of a posted payment: its journal lines (bank account and counter account).',
  fields: (t) => ({ accountEntries: t.field({ type: [PaymentLineRef], extensions: listCost(10), resolve: (p) => p.lines }) }),
});

const PostedPayment = builder.objectRef<Payment>('BankPostedPayment').implement({
  description: "A journal entry booked against a bank transaction (relation_type 'bank_transaction'), drafts included.",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The journal entry' }),
    sequenceNumber: t.exposeInt('sequenceNumber', { nullable: true }),
    isDraft: t.exposeBoolean('isDraft'),
    cancelled: t.exposeString('cancelled', { nullable: true, description: "The spec's string: 'Y' on a cancelled entry, 'C' on the reversal entry that cancels it, else null (typed: isCancelled, isCancellation)" }),
    isCancelled: t.boolean(CANCELLATION_FLAGS.isCancelled),
    isCancellation: t.boolean(CANCELLATION_FLAGS.isCancellation),
    postedAt: t.expose('postedAt', { type: 'DateTime', nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    transfer: t.field({ type: PaymentTransfer, resolve: (p) => p })
  }),
});

const ReconciledDocumentRef = builder.objectRef<ReconciledDocument>('BankReconciledDocument').implement({
  description: "A document (invoice, credit note …) a reconciliation matched with one of the transaction's payments.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    documentType: t.exposeString('documentType'),
    documentNumber: t.exposeString('documentNumber', { nullable: true }),
    documentDate: t.expose('documentDate', { type: 'Date' }),
  }),
});

const QuestionType = builder.enumType('BankQuestionType', { values: ['ATTACH_FILE', 'STATEMENT'] as const });
const QuestionStatus = builder.enumType('BankQuestionStatus', { values: ['OPEN', 'CLOSED'] as const });

builder.prismaObject('BankTransactionQuestion', {
  ...tenantScoped,
  description: 'An open request on a transaction: attach the receipt (ATTACH_FILE) or explain it (STATEMENT). A statement on the transaction closes both.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    bankTransaction: t.relation('bankTransaction'),
    bankTransactionId: t.exposeInt('bankTransactionId'),
    questionType: t.expose('questionType', { type: QuestionType }),
    status: t.expose('status', { type: QuestionStatus }),
    text: t.exposeString('text'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    closedAt: t.expose('closedAt', { type: 'DateTime', nullable: true }),
    closedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.closedById) }),
    closedById: t.exposeInt('closedById', { nullable: true }),
  }),
});

builder.prismaObject('BankTransactionDetail', {
  description: 'What the bank tells about a transaction: one record per camt.053 TxDtls (or as given on create).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    transactionType: t.exposeString('transactionType', { nullable: true }),
    accountName: t.exposeString('accountName', { nullable: true }),
    accountNumber: t.exposeString('accountNumber', { nullable: true }),
    accountCurrencyCode: t.exposeString('accountCurrencyCode', { nullable: true }),
    archiveReference: t.exposeString('archiveReference', { nullable: true }),
    structuredReference: t.exposeString('structuredReference', { nullable: true, description: 'KID or ISO 11649 creditor reference' }),
    bankInformation: t.exposeString('bankInformation', { nullable: true }),
    amount: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('amount', 2) }),
    currencyCode: t.exposeString('currencyCode', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    bookingDate: t.expose('bookingDate', { type: 'Date', nullable: true }),
    valueDate: t.expose('valueDate', { type: 'Date', nullable: true }),
    invoiceNumber: t.exposeString('invoiceNumber', { nullable: true }),
    senderName: t.exposeString('senderName', { nullable: true }),
    senderAccount: t.exposeString('senderAccount', { nullable: true }),
    receiverName: t.exposeString('receiverName', { nullable: true }),
    receiverAccount: t.exposeString('receiverAccount', { nullable: true }),
    transactionUuid: t.exposeString('transactionUuid'),
    statementUuid: t.exposeString('statementUuid', { nullable: true }),
  }),
});

const VoucherRef = builder.objectRef<{ id: number }>('BankStatementVoucher').implement({
  description: 'The voucher a statement names; only its id until the voucher module exists.',
  fields: (t) => ({ id: t.exposeInt('id') }),
});

const BankTransactionStatementRef = builder.prismaObject('BankTransactionStatement', {
  ...tenantScoped,
  description: "A person's explanation of a bank transaction (what it was, for whom, which voucher).",
  fields: (t) => ({
    id: t.exposeInt('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    bankTransactionId: t.exposeInt('bankTransactionId'),
    category: t.exposeString('category', { nullable: true }),
    businessPartnerId: t.exposeInt('businessPartnerId', { nullable: true }),
    voucherId: t.exposeInt('voucherId', { nullable: true }),
    comment: t.exposeString('comment', { nullable: true }),
    bankTransaction: t.relation('bankTransaction'),
    businessPartner: t.relation('businessPartner', { nullable: true }),
    voucher: t.field({ type: VoucherRef, nullable: true, description: '{id} of the voucher (null without one)', resolve: (s) => (s.voucherId == null ? null : { id: s.voucherId }) }),
  }),
});

/** An amount of the transaction in its (the bank account's) currency, at that currency's decimals. */
const inOwnCurrency = (key: 'amount' | 'externalReconciledAmount') => (t: { [k in typeof key]: Decimal } & { currencyCode: string }) => inCurrency(t[key], t.currencyCode);

export const BankTransaction = builder.prismaObject('BankTransaction', {
  ...tenantScoped,
  description:
    "A movement on one of the company's bank accounts as the bank reports it: amount signed (positive incoming, negative outgoing) in the bank account's currency.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    bankAccount: t.relation('bankAccount'),
    bankAccountId: t.exposeInt('bankAccountId', { description: "The company's own account: the payee of an incoming, the payor of an outgoing transaction" }),
    bankStatement: t.relation('bankStatement', { nullable: true }),
    bankStatementId: t.exposeInt('bankStatementId', { nullable: true }),
    payeeName: t.exposeString('payeeName', { nullable: true }),
    payeeBankAccount: t.relation('payeeBankAccount', { nullable: true }),
    payeeBankAccountId: t.exposeInt('payeeBankAccountId', { nullable: true }),
    payorName: t.exposeString('payorName', { nullable: true }),
    payorBankAccount: t.relation('payorBankAccount', { nullable: true }),
    payorBankAccountId: t.exposeInt('payorBankAccountId', { nullable: true }),
    messageId: t.exposeString('messageId', { nullable: true }),
    paymentId: t.exposeString('paymentId', { nullable: true }),
    instructionId: t.exposeString('instructionId', { nullable: true }),
    endToEndId: t.exposeString('endToEndId', { nullable: true }),
    bookingDate: t.expose('bookingDate', { type: 'Date' }),
    valueDate: t.expose('valueDate', { type: 'Date', nullable: true }),
    memo: t.exposeString('memo', { nullable: true }),
    instructedAmount: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('instructedAmount', 2) }),
    instructedCurrencyCode: t.string({ nullable: true, resolve: (b) => b.instructedCurrencyCode?.trim() ?? null }),
    instructedExchangeRate: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('instructedExchangeRate', 6) }),
    amount: t.field({ type: 'Decimal', description: 'Signed, in the account currency', resolve: inOwnCurrency('amount') }),
    currencyCode: t.string({ resolve: (b) => b.currencyCode.trim() }),
    exchangeRate: t.field({ type: 'Decimal', nullable: true, description: "To the client's accounting currency", resolve: fixedOrNull('exchangeRate', 6) }),
    bankReference: t.exposeString('bankReference', { nullable: true }),
    entryReference: t.exposeString('entryReference', { nullable: true, description: "The bank's reference of the entry (camt.053 AcctSvcrRef/NtryRef), unique per bank account" }),
    externalReconciledAmount: t.field({
      type: 'Decimal',
      description: 'Read-only: what journal entries have booked against the transaction, signed like amount',
      resolve: inOwnCurrency('externalReconciledAmount'),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    // the query cost estimate's list sizes (a bank entry's details, its questions and explanations,
    // its payments and their documents are a handful; a batch payment's details a few dozen)
    details: t.relation('details', { extensions: listCost(20), query: { orderBy: { id: 'asc' } } }),
    questions: t.relation('questions', { extensions: listCost(5), query: { orderBy: { id: 'asc' } } }),
    statements: t.relation('statements', { extensions: listCost(5), query: { orderBy: { id: 'asc' } } }),
    postedPayments: t.field({
      type: [PostedPayment],
      extensions: listCost(5),
      description: "Every journal entry booked against the transaction (relation_type 'bank_transaction'), drafts included (is_draft), by id",
      resolve: (b, _a, ctx) => paymentsOf(ctx, b.id),
    }),
    receivablePayments: t.field({
      type: [PaymentLineRef],
      extensions: listCost(5),
      description: `The lines of the posted payments on account ${RECEIVABLES_CODE} (trade receivables): what the transaction paid of customers' open items`,
      resolve: async (b, _a, ctx) => (await paymentsOf(ctx, b.id)).filter((p) => !p.isDraft).flatMap((p) => p.lines.filter((l) => l.accountCode === RECEIVABLES_CODE)),
    }),
    reconciledDocuments: t.field({
      type: [ReconciledDocumentRef],
      extensions: listCost(10),
      description: "The documents that committed reconciliations matched with the transaction's payment lines",
      resolve: (b, _a, ctx) => documentsOf(ctx, b.id),
    }),
  }),
});

const BankTransactionPage = pageType('BankTransactionPage', BankTransaction);

export const BankStatement = builder.prismaObject('BankStatement', {
  ...tenantScoped,
  description: 'A statement of one bank account for a period: opening balance + transactions = closing balance.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    bankAccount: t.relation('bankAccount'),
    bankAccountId: t.exposeInt('bankAccountId'),
    fromDate: t.expose('fromDate', { type: 'Date' }),
    toDate: t.expose('toDate', { type: 'Date' }),
    openingBalance: t.field({ type: 'Decimal', resolve: fixed('openingBalance', 2) }),
    closingBalance: t.field({ type: 'Decimal', resolve: fixed('closingBalance', 2) }),
    source: t.exposeString('source', { description: 'JSON or CAMT053' }),
    messageId: t.exposeString('messageId', { nullable: true, description: 'camt.053: GrpHdr/MsgId and Stmt/Id' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    imported: t.int({
      nullable: true,
      description: 'Only in the answer of importBankStatement: the transactions stored by this import (null when read later)',
      resolve: (s) => (s as { imported?: number }).imported ?? null,
    }),
    skipped: t.int({
      nullable: true,
      description: 'Only in the answer of importBankStatement: transactions left out because the bank account already has their entry reference',
      resolve: (s) => (s as { skipped?: number }).skipped ?? null,
    }),
    transactions: t.relation('transactions', { extensions: listCost(1000), description: 'The transactions stored with this statement', query: { orderBy: [{ bookingDate: 'asc' }, { id: 'asc' }] } }),
  }),
});

const BankStatementPage = pageType('BankStatementPage', BankStatement);

// ── Inputs ───────────────────────────────────────────────────────────────────────────────────────

const BankTransactionDetailInput = builder.inputType('BankTransactionDetailInput', {
  description: 'What the bank tells about the transaction; every field optional.',
  fields: (t) => ({
    transactionType: t.string(),
    accountName: t.string(),
    accountNumber: t.string(),
    accountCurrencyCode: t.string(),
    archiveReference: t.string(),
    structuredReference: t.string({ description: 'KID or ISO 11649 creditor reference' }),
    bankInformation: t.string(),
    amount: t.field({ type: 'Decimal' }),
    currencyCode: t.string(),
    description: t.string(),
    bookingDate: t.field({ type: 'Date' }),
    valueDate: t.field({ type: 'Date' }),
    invoiceNumber: t.string(),
    senderName: t.string(),
    senderAccount: t.string(),
    receiverName: t.string(),
    receiverAccount: t.string(),
  }),
});

const transactionFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0], ownAccount: string) => ({
  amount: t.field({ type: 'Decimal', required: true, description: 'Signed, in the bank account’s currency: positive incoming, negative outgoing; not 0' }),
  currencyCode: t.string({ required: true, description: "ISO 4217; the bank account's currency" }),
  bookingDate: t.field({ type: 'Date', required: true }),
  payeeBankAccountId: t.int({ description: `Incoming: ${ownAccount}` }),
  payorBankAccountId: t.int({ description: `Outgoing: ${ownAccount}` }),
  payeeName: t.string({ description: 'Outgoing: whom the company paid' }),
  payorName: t.string({ description: 'Incoming: who paid the company' }),
  valueDate: t.field({ type: 'Date' }),
  memo: t.string(),
  instructedAmount: t.field({ type: 'Decimal' }),
  instructedCurrencyCode: t.string(),
  instructedExchangeRate: t.field({ type: 'Decimal' }),
  exchangeRate: t.field({ type: 'Decimal', description: "To the client's accounting currency; needed to book a transaction in another currency" }),
  messageId: t.string(),
  paymentId: t.string(),
  instructionId: t.string(),
  endToEndId: t.string(),
  bankReference: t.string(),
  entryReference: t.string({ description: "The bank's reference of the entry: unique per bank account (a repeated one is 400 here, skipped by a statement import)" }),
  details: t.field({ type: [BankTransactionDetailInput], description: 'Detail records to store with the transaction (none when omitted); not in the create answer' }),
  id: t.int({ description: 'Ignored (read-only)' }),
  externalReconciledAmount: t.field({ type: 'Decimal', description: 'Ignored (read-only)' }),
});

const CreateBankTransactionInput = builder.inputType('CreateBankTransactionInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    ...transactionFields(t, "required: one of the company's own bank accounts in the client account (stored as bank_account_id); may name a partner's account otherwise"),
  }),
});

const BankStatementTransactionInput = builder.inputType('BankStatementTransactionInput', {
  description: "A transaction of a bank statement: the create body without client_account_id; the company's side defaults to the statement's bank account.",
  fields: (t) => transactionFields(t, "the statement's bank_account_id (the default); may name a partner's account otherwise"),
});

const CreateBankTransactionStatementInput = builder.inputType('CreateBankTransactionStatementInput', {
  description: 'Every field optional ({} is a statement without fields).',
  fields: (t) => ({
    category: t.string(),
    businessPartnerId: t.int({ description: 'A partner of the same client account' }),
    voucherId: t.int(),
    comment: t.string(),
  }),
});

const ImportBankStatementInput = builder.inputType('ImportBankStatementInput', {
  description:
    'A bank statement as JSON (bankAccountId, fromDate, toDate, openingBalance, closingBalance, transactions) or as a camt.053 document (camt053, bankAccountId optional: found by the statement’s account number).',
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    bankAccountId: t.int({ description: "One of the company's own bank accounts; with camt053 optional (the statement's IBAN/BBAN finds it)" }),
    fromDate: t.field({ type: 'Date' }),
    toDate: t.field({ type: 'Date' }),
    openingBalance: t.field({ type: 'Decimal' }),
    closingBalance: t.field({ type: 'Decimal', description: 'Must equal opening_balance + the sum of the transactions’ amounts' }),
    transactions: t.field({ type: [BankStatementTransactionInput] }),
    camt053: t.string({ description: `An ISO 20022 camt.053.001.02 or .08 document with one statement (at most ${MAX_CAMT053_LENGTH} characters)` }),
  }),
});

// ── Fields ───────────────────────────────────────────────────────────────────────────────────────

/** bankTransactionStatements: a bounded list read whole, answered as a connection as every list. */
const BankTransactionStatementList = pageType('BankTransactionStatementPage', BankTransactionStatementRef);

builder.queryFields((t) => ({

  bankTransactions: t.field({
    type: BankTransactionPage,
    extensions: pageCost(BANK_TRANSACTION_PAGE_LIMITS),
    description:
      'Bank transactions of a client account, booking date then amount ascending by default, page-based. Fully booked transactions (external_reconciled_amount equal to amount) are left out unless includeExternallyReconciled is true.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      bankAccountId: t.arg.int(),
      fromDate: t.arg({ type: 'Date', description: 'Booking date on or after' }),
      toDate: t.arg({ type: 'Date', description: 'Booking date on or before' }),
      includeExternallyReconciled: t.arg.boolean({ defaultValue: false, description: 'false (the default) leaves out transactions whose external_reconciled_amount equals their amount' }),
      orderBy: t.arg.stringList({ description: 'booking_date, value_date, amount, external_reconciled_amount, created_at, id; prefix - for descending' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int({ description: '50 by default, at most 100' }),
    },
    resolve: (_root, args, ctx, info) => listBankTransactions(ctx, args, nodesQuery(ctx, info)),
  }),
  bankTransaction: t.prismaField({
    nullable: true,
    type: 'BankTransaction',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getBankTransaction(ctx, args, query),
  }),

  bankTransactionStatements: t.field({
    type: BankTransactionStatementList,
    description: 'The statements (explanations) of a bank transaction, oldest first.',
    args: { bankTransactionId: t.arg.int({ required: true }), ...windowArgs(t) },
    resolve: (_root, args, ctx, info) => wholeList(args, (filters) => listBankTransactionStatements(ctx, filters, nodesQuery(ctx, info))),
  }),

  bankStatements: t.field({
    type: BankStatementPage,
    extensions: pageCost(BANK_STATEMENT_PAGE_LIMITS),
    description: 'Bank statements of a client account, newest period first.',
    args: { clientAccountId: t.arg.int({ required: true }), bankAccountId: t.arg.int(), page: t.arg.int(), perPage: t.arg.int(), ...cursorArgs(t) },
    resolve: (_root, args, ctx, info) => listBankStatements(ctx, args, nodesQuery(ctx, info)),
  }),
  bankStatement: t.prismaField({
    nullable: true,
    type: 'BankStatement',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getBankStatement(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createBankTransaction: t.prismaField({
    type: 'BankTransaction',
    description: 'Creates a bank transaction (not on a statement). An outgoing one opens an ATTACH_FILE question (attach the receipt).',
    args: { input: t.arg({ type: CreateBankTransactionInput, required: true }) },
    resolve: (query, _root, args, ctx) => createBankTransaction(ctx, args, query),
  }),
  createBankTransactionStatement: t.prismaField({
    type: 'BankTransactionStatement',
    description: 'Explains a bank transaction; closes its open ATTACH_FILE and STATEMENT questions.',
    args: { bankTransactionId: t.arg.int({ required: true }), input: t.arg({ type: CreateBankTransactionStatementInput }) },
    resolve: (query, _root, args, ctx) => createBankTransactionStatement(ctx, args, query),
  }),
  importBankStatement: t.prismaField({
    type: 'BankStatement',
    description:
      'Imports a bank statement (JSON or camt.053) in one transaction: the balances must add up; transactions whose entry reference the account has seen are skipped (imported/skipped say how many).',
    args: { input: t.arg({ type: ImportBankStatementInput, required: true }) },
    resolve: (query, _root, args, ctx) => importBankStatement(ctx, args, query),
  }),
}));
