import type { z } from 'zod';
import { Decimal } from '@prisma/client/runtime/client';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { enqueue } from '../../jobs/jobs.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { requestLoader } from '../../shared/loaders.ts';
import { findPage, inIdOrder, orderTerms, pageWindow, type Page, type PageLimits } from '../../shared/pagination.ts';
import type { Reference } from '../../shared/references.ts';
import { formatDate } from '../../shared/scalars.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, Issues, parse, validate, type Args } from '../../shared/validation.ts';
import { isEmailAddress } from '../../shared/email.ts';
import { rateInForce } from '../tax-codes/tax-codes.rules.ts';
import { createJournalEntryInTx } from '../journal-entries/journal-entries.service.ts';
import { reconcileInTx } from '../reconciliations/reconciliations.service.ts';
import {
  CREDIT_NOTE_TYPES,
  DEFAULT_COST_ACCOUNT,
  DEFAULT_REVENUE_ACCOUNT,
  DOCUMENT_ORDER_FIELDS,
  documentRules as rules,
  documentTotals,
  FINALIZED_LOCKED_FIELDS,
  kidMod10,
  lineAmounts,
  PAYABLE_ACCOUNT,
  POSTING_TYPES,
  PURCHASE_TYPES,
  RECEIVABLE_ACCOUNT,
  SALES_TYPES,
  settleAmounts,
  vatAccountFor,
  type CreateDocumentInput,
  type ItemLineInput,
} from './documents.rules.ts';
import { sendDocumentJob } from './documents.job.ts';
import { renderDocumentPdf } from './documents.pdf.ts';
import { loadInvoiceModel, type InvoiceModel } from './documents.pdf-model.ts';

type Query = { include?: PrismaNS.DocumentInclude; select?: PrismaNS.DocumentSelect };

/** spec 001 "Documents": page 1, per_page 100. */
export const DOCUMENT_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

const ZERO = new Decimal(0);

/** Receivable documents (ARINV …): numbered by the service, sent to the customer. */
export const isSalesType = (type: string): boolean => type.startsWith('AR');

// ── Derived payment fields: one SQL expression for filters, ordering and the GraphQL fields ───────

/**
 * Every document of the client account with the fields derived from its posted, non-cancelled
 * journal entry's receivable (1500) or payable (2400) line(s): the line's amount, what of it
 * reconciliations settled (reconciled_amount), and the pending payment requests. The entry is the
 * one the document posted (journal_entry_id) or one tied to it by relation_type 'document'.
 */
const DERIVED = /* SQL */ `
  SELECT x.*,
         CASE WHEN NOT x.has_entry OR x.control_amount = 0 THEN 'NOT_APPLICABLE'
              WHEN x.reconciled = 0 THEN 'UNPAID'
              WHEN x.reconciled >= x.control_amount THEN 'PAID'
              ELSE 'PARTLY_PAID' END AS payment_status,
         (x.has_entry AND x.open_amount > 0 AND x.stated_payment_status IS DISTINCT FROM 'PAID') AS is_unpaid,
         (x.document_type IN ('APINV', 'APCIN', 'RECPT') AND x.open_amount > 0) AS is_payable,
         (x.pending_payment_amount > 0) AS is_being_paid,
         (x.document_type IN ('APINV', 'APCIN', 'RECPT') AND x.open_amount - x.pending_payment_amount > 0 AND x.is_active AND NOT x.is_archived
            AND x.stated_payment_status IS DISTINCT FROM 'PAID') AS is_available_for_payment,
         (x.has_entry AND x.open_amount > 0) AS is_reconcilable,
         (x.has_entry AND x.control_amount > 0 AND x.reconciled = 0) AS is_unreconciled
    FROM (
      SELECT d.id, d.client_account_id, d.business_partner_id, d.document_type, d.document_status, d.document_number, d.payment_ref,
             d.document_date, d.due_date, d.gross_amount, d.is_active, d.is_archived, d.stated_payment_status, d.created_at, d.updated_at,
             COALESCE(c.n, 0) > 0 AS has_entry,
             COALESCE(c.amount, 0) AS control_amount,
             COALESCE(c.reconciled, 0) AS reconciled,
             COALESCE(c.amount - c.reconciled, 0) AS open_amount,
             COALESCE(p.pending, 0) AS pending_payment_amount
        FROM documents d
        LEFT JOIN LATERAL (
          SELECT COUNT(*) AS n, SUM(l.debit + l.credit) AS amount, SUM(l.reconciled_amount) AS reconciled
            FROM journal_entries e
            JOIN journal_entry_lines l ON l.journal_entry_id = e.id
            JOIN accounts a ON a.id = l.account_id
           WHERE e.client_account_id = d.client_account_id AND NOT e.is_draft AND e.cancelled IS NULL
             AND (e.id = d.journal_entry_id OR (e.relation_type = 'document' AND e.relation_id = d.id))
             AND a.code IN ('${RECEIVABLE_ACCOUNT}', '${PAYABLE_ACCOUNT}')
        ) c ON true
        LEFT JOIN LATERAL (
          SELECT SUM(r.amount) AS pending FROM payment_requests r WHERE r.document_id = d.id AND r.status IN ('PENDING', 'SENT')
        ) p ON true
       WHERE %WHERE%
    ) x`;

/**
 * The documents `where` selects (SQL over `documents d`), each with its derived payment fields
 * (payment_status, open_amount, is_unpaid …) as DERIVED computes them: for other modules' queries
 * (the vouchers list filters on its documents' payment_status).
 */
export const derivedDocumentsSql = (where: string): string => DERIVED.replace('%WHERE%', where);

export interface DocumentState {
  openAmount: Decimal;
  pendingPaymentAmount: Decimal;
  paymentStatus: string;
  isUnpaid: boolean;
  isPayable: boolean;
  isBeingPaid: boolean;
  isAvailableForPayment: boolean;
  isReconcilable: boolean;
  isUnreconciled: boolean;
}

type StateRow = {
  id: number;
  open_amount: string;
  pending_payment_amount: string;
  payment_status: string;
  is_unpaid: boolean;
  is_payable: boolean;
  is_being_paid: boolean;
  is_available_for_payment: boolean;
  is_reconcilable: boolean;
  is_unreconciled: boolean;
};

const STATE_COLUMNS = 'id, open_amount::text, pending_payment_amount::text, payment_status, is_unpaid, is_payable, is_being_paid, is_available_for_payment, is_reconcilable, is_unreconciled';

const toState = (r: StateRow): DocumentState => ({
  openAmount: new Decimal(r.open_amount),
  pendingPaymentAmount: new Decimal(r.pending_payment_amount),
  paymentStatus: r.payment_status,
  isUnpaid: r.is_unpaid,
  isPayable: r.is_payable,
  isBeingPaid: r.is_being_paid,
  isAvailableForPayment: r.is_available_for_payment,
  isReconcilable: r.is_reconcilable,
  isUnreconciled: r.is_unreconciled,
});

/** The derived payment fields of a document: one query for every document of a response. */
export function documentState(ctx: RequestContext, id: number): Promise<DocumentState> {
  return requestLoader<number, DocumentState>(ctx.loaders, 'documentState', async (ids) => {
    const rows = await ctx.db.$queryRawUnsafe<StateRow[]>(`SELECT ${STATE_COLUMNS} FROM (${DERIVED.replace('%WHERE%', 'd.id = ANY($1::int[])')}) s`, [...ids]);
    const byId = new Map(rows.map((r) => [r.id, toState(r)]));
    return ids.map((i) => byId.get(i)!);
  }).load(id);
}

// ── Reading ───────────────────────────────────────────────────────────────────────────────────────

/** The list's ORDER BY terms: order_by (newest document date first without one), then id (descending with the default). */
function documentOrder(values: readonly string[] | null | undefined): [string, 'ASC' | 'DESC'][] {
  const given = orderTerms(values, DOCUMENT_ORDER_FIELDS, []);
  if (!given.length) return [['document_date', 'DESC'], ['id', 'DESC']];
  const terms = given.map((t): [string, 'ASC' | 'DESC'] => [t.field, t.direction === 'desc' ? 'DESC' : 'ASC']);
  if (!terms.some(([c]) => c === 'id')) terms.push(['id', 'ASC']);
  return terms;
}

/** KIDs and references a bank transaction carries: its bank reference, end-to-end id and its details' structured and archive references. */
async function transactionReferences(ctx: RequestContext, bankTransactionId: number, clientAccountId: number) {
  const tx = await ctx.db.bankTransaction.findUnique({
    where: { id: bankTransactionId },
    select: { clientAccountId: true, amount: true, bankReference: true, endToEndId: true, details: { select: { structuredReference: true, archiveReference: true } } },
  });
  if (!tx || tx.clientAccountId !== clientAccountId) throw ValidationError.field('matchBankTransactionId', `bank transaction ${bankTransactionId} does not exist in client account ${clientAccountId}`);
  const refs = [tx.bankReference, tx.endToEndId, ...tx.details.flatMap((d) => [d.structuredReference, d.archiveReference])].filter((r): r is string => !!r?.trim()).map((r) => r.trim());
  return { amount: tx.amount, refs };
}

/**
 * GET /documents: every filter of spec 001 in one SQL statement over the derived fields (so open
 * amount, payment status and the is_* flags filter and page in the database), then the page's
 * documents with what the caller selected.
 */
export async function listDocuments(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}): Promise<Page<unknown>> {
  const a = parse(rules.list, args);
  await requireAccount(ctx, a.clientAccountId);
  const params: unknown[] = [a.clientAccountId];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where: string[] = [];
  if (a.businessPartnerId != null) where.push(`business_partner_id = ${p(a.businessPartnerId)}`);
  if (a.fromDocumentDate) where.push(`document_date >= ${p(formatDate(a.fromDocumentDate))}::date`);
  if (a.toDocumentDate) where.push(`document_date <= ${p(formatDate(a.toDocumentDate))}::date`);
  if (a.documentDate) where.push(`document_date = ${p(formatDate(a.documentDate))}::date`);
  if (a.dueDate) where.push(`due_date = ${p(formatDate(a.dueDate))}::date`);
  if (a.documentType?.length) where.push(`document_type = ANY(${p(a.documentType)}::text[])`);
  if (a.documentStatus?.length) where.push(`document_status = ANY(${p(a.documentStatus)}::text[])`);
  if (a.documentNumber?.trim()) where.push(`document_number = ${p(a.documentNumber.trim())}`);
  if (a.paymentReference?.trim()) where.push(`payment_ref = ${p(a.paymentReference.trim())}`);
  if (a.grossAmount) where.push(`gross_amount = ${p(a.grossAmount.toString())}::numeric`);
  if (a.openAmount) where.push(`open_amount = ${p(a.openAmount.toString())}::numeric`);
  if (a.pendingPaymentAmount) where.push(`pending_payment_amount = ${p(a.pendingPaymentAmount.toString())}::numeric`);
  if (a.paymentStatus?.length) where.push(`payment_status = ANY(${p(a.paymentStatus)}::text[])`);
  const flags = {
    isActive: 'is_active',
    isPayable: 'is_payable',
    isUnpaid: 'is_unpaid',
    isAvailableForPayment: 'is_available_for_payment',
    isBeingPaid: 'is_being_paid',
    isReconcilable: 'is_reconcilable',
    isUnreconciled: 'is_unreconciled',
  } as const;
  for (const [arg, column] of Object.entries(flags)) {
    const v = a[arg as keyof typeof flags];
    if (v != null) where.push(v ? column : `NOT ${column}`);
  }
  if (a.matchBankTransactionId != null) {
    const bt = await transactionReferences(ctx, a.matchBankTransactionId, a.clientAccountId);
    // incoming money pays invoices to customers (and refunds of supplier credit notes); outgoing the reverse
    const types = bt.amount.isPositive() ? ['ARINV', 'ARCIN', 'ARDEB', 'APCRN'] : ['APINV', 'APCIN', 'RECPT', 'APDEB', 'ARCRN'];
    const byAmount = `(document_type = ANY(${p(types)}::text[]) AND open_amount = ${p(bt.amount.abs().toString())}::numeric)`;
    const byRef = bt.refs.length ? ` OR payment_ref = ANY(${p(bt.refs)}::text[])` : '';
    where.push(`open_amount > 0 AND (${byAmount}${byRef})`);
  }
  const filtered = `SELECT * FROM (${DERIVED.replace('%WHERE%', 'd.client_account_id = $1')}) s${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const window = pageWindow(a, DOCUMENT_PAGE_LIMITS);
  const order = documentOrder(a.orderBy)
    .map(([c, d]) => `${c} ${d}${c === 'id' ? '' : ' NULLS LAST'}`)
    .join(', ');
  return findPage(
    window,
    async ({ skip, take }) => {
      const ids = await ctx.db.$queryRawUnsafe<{ id: number }[]>(`${filtered} ORDER BY ${order} LIMIT ${take} OFFSET ${skip}`, ...params);
      const rows = ids.length ? await ctx.db.document.findMany({ ...query, where: { id: { in: ids.map((r) => r.id) } } }) : [];
      return inIdOrder(ids, rows as { id: number }[]);
    },
    async () => Number((await ctx.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT COUNT(*) AS n FROM (${filtered}) c`, ...params))[0].n),
    async (id) => {
      const at = await ctx.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT n FROM (SELECT id, row_number() OVER (ORDER BY ${order}) - 1 AS n FROM (${filtered}) f) o WHERE id = $${params.length + 1}`, ...params, id);
      return at.length ? Number(at[0].n) : null;
    },
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getDocument(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, `Document ${id}`, await ctx.db.document.findUnique({ ...query, where: { id } }));
}

/**
 * reconciliation_lines of a document: one per committed, not deleted reconciliation entry on its
 * receivable/payable line, typed by what it was settled with (see RECONCILIATION_TYPES).
 */
export async function reconciliationLines(ctx: RequestContext, documentId: number) {
  return requestLoader<number, ReconciliationLine[]>(ctx.loaders, 'documentReconciliationLines', async (ids) => {
    const rows = await ctx.db.$queryRawUnsafe<
      { id: number; document_id: number; line_id: number; amount: string; currency_code: string; transaction_date: Date; bank: boolean; credit_note: boolean; exchange: boolean; description: string | null }[]
    >(
      `SELECT re.id, d.id AS document_id, l.id AS line_id, (re.debit + re.credit)::text AS amount, l.currency_code, r.reconciliation_date AS transaction_date,
              (r.bank_transaction_id IS NOT NULL OR EXISTS (
                 SELECT 1 FROM reconciliation_entries o JOIN journal_entry_lines ol ON ol.id = o.journal_entry_line_id JOIN journal_entries oe ON oe.id = ol.journal_entry_id
                  JOIN accounts oa ON oa.id = ol.account_id
                 WHERE o.reconciliation_id = r.id AND o.id <> re.id AND (oe.relation_type = 'bank_transaction' OR oa.code LIKE '19%'))) AS bank,
              EXISTS (
                 SELECT 1 FROM reconciliation_entries o JOIN journal_entries oe ON oe.id = o.journal_entry_id
                   JOIN documents od ON (od.journal_entry_id = oe.id OR (oe.relation_type = 'document' AND od.id = oe.relation_id))
                 WHERE o.reconciliation_id = r.id AND o.id <> re.id AND (od.document_type IN ('ARCRN', 'APCRN') OR d.document_type IN ('ARCRN', 'APCRN'))) AS credit_note,
              (r.exchange_entry_id IS NOT NULL AND EXISTS (SELECT 1 FROM reconciliation_entries o WHERE o.reconciliation_id = r.id AND o.journal_entry_id = r.exchange_entry_id AND o.id <> re.id
                 AND NOT EXISTS (SELECT 1 FROM reconciliation_entries q WHERE q.reconciliation_id = r.id AND q.id NOT IN (o.id, re.id)))) AS exchange,
              (SELECT oe.description FROM reconciliation_entries o JOIN journal_entries oe ON oe.id = o.journal_entry_id
                WHERE o.reconciliation_id = r.id AND o.id <> re.id ORDER BY o.id LIMIT 1) AS description
         FROM documents d
         JOIN journal_entries e ON e.client_account_id = d.client_account_id AND NOT e.is_draft
                               AND (e.id = d.journal_entry_id OR (e.relation_type = 'document' AND e.relation_id = d.id))
         JOIN journal_entry_lines l ON l.journal_entry_id = e.id
         JOIN accounts a ON a.id = l.account_id AND a.code IN ('${RECEIVABLE_ACCOUNT}', '${PAYABLE_ACCOUNT}')
         JOIN reconciliation_entries re ON re.journal_entry_line_id = l.id
         JOIN reconciliations r ON r.id = re.reconciliation_id AND NOT r.is_draft AND r.deleted_at IS NULL
        WHERE d.id = ANY($1::int[])
        ORDER BY r.reconciliation_date, re.id`,
      [...ids],
    );
    const out = new Map<number, ReconciliationLine[]>(ids.map((i) => [i, []]));
    for (const r of rows) {
      out.get(r.document_id)!.push({
        id: r.id,
        documentId: r.document_id,
        lineId: r.line_id,
        description: r.description,
        reconciliationType: r.bank ? 'BANK' : r.credit_note ? 'CREDIT_NOTE' : r.exchange ? 'EXCHANGE' : 'MANUAL',
        amount: new Decimal(r.amount),
        currencyCode: r.currency_code.trim(),
        transactionDate: r.transaction_date,
      });
    }
    return ids.map((i) => out.get(i)!);
  }).load(documentId);
}

export interface ReconciliationLine {
  id: number;
  documentId: number;
  lineId: number;
  description: string | null;
  reconciliationType: string;
  amount: Decimal;
  currencyCode: string;
  transactionDate: Date;
}

// ── Lines: from input to rows ─────────────────────────────────────────────────────────────────────

export interface LineRow {
  lineId: number;
  itemId: number | null;
  itemNo: string | null;
  itemName: string | null;
  description: string | null;
  price: Decimal;
  quantity: Decimal;
  currencyCode: string;
  unitId: number | null;
  taxCodeId: number | null;
  taxCode: { code: string; direction: string; name: string } | null;
  taxRate: Decimal | null;
  net: Decimal;
  netLc: Decimal;
  taxAmountFc: Decimal;
  taxAmountLc: Decimal;
  totalFc: Decimal;
  totalLc: Decimal;
  accountId: number | null;
  itemCollectionEntryId: number | null;
  /** the VAT account when no tax code gives the row's VAT (a document without lines; see amountsAsRow) */
  vatAccount?: string;
}

export interface PreparedDocument {
  rows: LineRow[];
  netAmount: Decimal;
  grossAmount: Decimal;
  currencyCode: string;
  exchangeRate: Decimal;
  vatLiable: boolean;
}

type Fields = Partial<CreateDocumentInput> & { documentType: string; documentDate: Date };

/** Every row the input names, for the reference check (one query per model). */
function documentReferences(input: Partial<CreateDocumentInput> | undefined): Reference[] {
  if (!input) return [];
  const refs: Reference[] = [
    { path: ['businessPartnerId'], model: 'businessPartner', id: input.businessPartnerId, select: { email: true } },
    { path: ['payorId'], model: 'businessPartner', id: input.payorId },
    { path: ['collectorId'], model: 'businessPartner', id: input.collectorId },
    { path: ['bankAccountId'], model: 'bankAccount', id: input.bankAccountId },
    { path: ['currencyCode'], model: 'currency', id: input.currencyCode },
  ];
  for (const [i, l] of (input.itemLines ?? []).entries()) {
    if (!l) continue;
    refs.push({ path: ['itemLines', i, 'itemId'], model: 'item', id: l.itemId, select: { itemNo: true, name: true, price: true, salesUnitId: true, taxCodeId: true } });
    refs.push({ path: ['itemLines', i, 'unitId'], model: 'unit', id: l.unitId });
    refs.push({ path: ['itemLines', i, 'taxCodeId'], model: 'taxCode', id: l.taxCodeId });
    refs.push({ path: ['itemLines', i, 'accountId'], model: 'account', id: l.accountId, select: { code: true, isActive: true } });
  }
  for (const [i, l] of (input.paymentLines ?? []).entries()) {
    if (!l) continue;
    refs.push({ path: ['paymentLines', i, 'debtorBusinessPartnerId'], model: 'businessPartner', id: l.debtorBusinessPartnerId });
    refs.push({ path: ['paymentLines', i, 'creditorBusinessPartnerId'], model: 'businessPartner', id: l.creditorBusinessPartnerId });
    refs.push({ path: ['paymentLines', i, 'debtorBankAccountId'], model: 'bankAccount', id: l.debtorBankAccountId });
    refs.push({ path: ['paymentLines', i, 'creditorBankAccountId'], model: 'bankAccount', id: l.creditorBankAccountId });
  }
  return refs;
}

type FoundRefs = { get<T>(model: string, id: string | number | null | undefined): T | undefined };

/**
 * The document's line rows and totals after every rule that needs the database: items and item
 * collection entries fill what a line leaves out; the tax code's rate on the document date gives
 * each line's VAT, rounded to the øre on the line; an entry of a CART or ORDER collection is
 * consumed once (TEMPLATE entries are reusable).
 */
async function prepare(tx: RequestContext, clientAccountId: number, doc: Fields, lines: readonly ItemLineInput[], found: FoundRefs, issues: Issues, documentId?: number): Promise<PreparedDocument> {
  const book = await tx.db.clientAccount.findUniqueOrThrow({ where: { id: clientAccountId }, select: { vatLiable: true, accountingCurrency: true } });
  const accounting = book.accountingCurrency.trim();
  const currencyCode = doc.currencyCode ?? accounting;
  let exchangeRate = doc.exchangeRate ?? new Decimal(1);
  if (currencyCode === accounting && !exchangeRate.equals(1)) issues.add(['exchangeRate'], `must be 1 on a document in the accounting currency ${accounting}`);
  if (currencyCode !== accounting && doc.exchangeRate == null) issues.add(['exchangeRate'], `is required on a document in ${currencyCode}, a foreign currency`);
  if (currencyCode === accounting) exchangeRate = new Decimal(1);

  // item collection entries: the line's defaults, and whether another document consumed them
  const entryIds = [...new Set(lines.flatMap((l) => (l.itemCollectionEntryId != null ? [l.itemCollectionEntryId] : [])))];
  const entries = entryIds.length
    ? await tx.db.itemCollectionEntry.findMany({
        where: { id: { in: entryIds }, clientAccountId },
        include: { itemCollection: { select: { collectionType: true } }, documentLines: { where: documentId ? { documentId: { not: documentId } } : {}, select: { documentId: true }, take: 1 } },
      })
    : [];
  const entryById = new Map(entries.map((e) => [e.id, e]));
  // items named by entries only (not by the line) are needed for their number and name
  const entryItemIds = entries.flatMap((e) => (e.itemId != null ? [e.itemId] : []));
  const extraItems = entryItemIds.length ? await tx.db.item.findMany({ where: { id: { in: entryItemIds }, clientAccountId }, select: { id: true, itemNo: true, name: true, price: true, salesUnitId: true, taxCodeId: true } }) : [];
  const itemById = new Map(extraItems.map((i) => [i.id, i]));

  type ItemRow = { itemNo: string; name: string | null; price: Decimal; salesUnitId: number; taxCodeId: number };
  const resolved = lines.map((l, i) => {
    const at = (f: string) => ['itemLines', i, f];
    const entry = l.itemCollectionEntryId != null ? entryById.get(l.itemCollectionEntryId) : undefined;
    if (l.itemCollectionEntryId != null && !entry) issues.add(at('itemCollectionEntryId'), `item collection entry ${l.itemCollectionEntryId} does not exist in client account ${clientAccountId}`);
    if (entry && entry.itemCollection.collectionType !== 'TEMPLATE' && entry.documentLines.length) {
      issues.add(at('itemCollectionEntryId'), `item collection entry ${entry.id} was consumed by document ${entry.documentLines[0].documentId}`);
    }
    if (entry && lines.some((o, k) => k < i && o.itemCollectionEntryId === entry.id) && entry.itemCollection.collectionType !== 'TEMPLATE') {
      issues.add(at('itemCollectionEntryId'), `item collection entry ${entry.id} is consumed by another line of this document`);
    }
    const itemId = l.itemId ?? entry?.itemId ?? null;
    const item = (l.itemId != null ? found.get<ItemRow>('item', l.itemId) : undefined) ?? (itemId != null ? (itemById.get(itemId) as ItemRow | undefined) : undefined);
    return {
      lineId: l.lineId ?? i + 1,
      itemId,
      itemNo: l.itemNo ?? item?.itemNo ?? null,
      itemName: l.itemName ?? item?.name ?? null,
      description: l.description ?? entry?.description ?? null,
      price: l.price ?? entry?.price ?? item?.price ?? ZERO,
      quantity: l.quantity ?? entry?.quantity ?? new Decimal(1),
      unitId: l.unitId ?? entry?.unitId ?? item?.salesUnitId ?? null,
      taxCodeId: l.taxCodeId ?? entry?.taxCodeId ?? item?.taxCodeId ?? null,
      accountId: l.accountId ?? null,
      itemCollectionEntryId: l.itemCollectionEntryId ?? null,
    };
  });
  const seen = new Set<number>();
  for (const [i, r] of resolved.entries()) {
    if (seen.has(r.lineId)) issues.add(['itemLines', i, 'lineId'], `line_id ${r.lineId} is used by another line of the document`);
    seen.add(r.lineId);
  }

  const taxIds = [...new Set(resolved.flatMap((r) => (r.taxCodeId != null ? [r.taxCodeId] : [])))];
  const taxCodes = taxIds.length
    ? await tx.db.taxCode.findMany({ where: { id: { in: taxIds }, clientAccountId }, select: { id: true, code: true, name: true, direction: true, rates: { select: { ratePercent: true, validFrom: true, validTo: true } } } })
    : [];
  const taxById = new Map(taxCodes.map((t) => [t.id, t]));
  const rows: LineRow[] = resolved.map((r, i) => {
    const tax = r.taxCodeId != null ? taxById.get(r.taxCodeId) : undefined;
    let rate: Decimal | null = null;
    if (r.taxCodeId != null && !tax) {
      if (!issues.has(['itemLines', i, 'taxCodeId'])) issues.add(['itemLines', i, 'taxCodeId'], `tax code ${r.taxCodeId} does not exist in client account ${clientAccountId}`);
    } else if (tax) {
      if (!book.vatLiable && tax.direction !== 'NONE') issues.add(['itemLines', i, 'taxCodeId'], `client account ${clientAccountId} is not VAT-liable: a line may not carry tax code '${tax.code}'`);
      const inForce = rateInForce(tax.rates, doc.documentDate);
      if (!inForce) issues.add(['itemLines', i, 'taxCodeId'], `tax code '${tax.code}' has no rate on ${formatDate(doc.documentDate)}`);
      rate = inForce ? new Decimal(inForce.ratePercent) : null;
    }
    const amounts = lineAmounts(r.price, r.quantity, rate ?? ZERO, exchangeRate);
    return {
      ...r,
      currencyCode,
      taxCode: tax ? { code: tax.code, direction: tax.direction, name: tax.name } : null,
      taxRate: rate,
      net: amounts.net,
      netLc: amounts.netLc,
      taxAmountFc: amounts.taxAmountFc,
      taxAmountLc: amounts.taxAmountLc,
      totalFc: amounts.totalFc,
      totalLc: amounts.totalLc,
    };
  });
  const totals = documentTotals(rows);
  return { rows, netAmount: totals.netAmount, grossAmount: totals.grossAmount, currencyCode, exchangeRate, vatLiable: book.vatLiable };
}

/** Stored lines as line input, so a draft's totals follow a new date, currency or rate. */
function linesAsInput(lines: readonly PrismaNS.DocumentLineGetPayload<object>[]): ItemLineInput[] {
  return lines
    .slice()
    .sort((a, b) => a.lineId - b.lineId)
    .map((l) => ({
      lineId: l.lineId,
      itemId: l.itemId,
      itemNo: l.itemNo,
      itemName: l.itemName,
      description: l.description,
      price: l.price,
      quantity: l.quantity,
      unitId: l.unitId,
      taxCodeId: l.taxCodeId,
      accountId: l.accountId,
      itemCollectionEntryId: l.itemCollectionEntryId,
    }));
}

/** Rules across the document's fields that need the database: partner roles, voucher, references. */
async function checkDocument(tx: RequestContext, clientAccountId: number, doc: Fields, issues: Issues, documentId?: number) {
  if (doc.voucherId != null) {
    const voucher = await tx.db.voucher.findUnique({ where: { id: doc.voucherId }, select: { clientAccountId: true } });
    if (!voucher || voucher.clientAccountId !== clientAccountId) issues.add(['voucherId'], `voucher ${doc.voucherId} does not exist in client account ${clientAccountId}`);
  }
  for (const [i, r] of (doc.documentReferences ?? []).entries()) {
    if (r.referencedDocumentId == null) continue;
    const other = await tx.db.document.findUnique({ where: { id: r.referencedDocumentId }, select: { clientAccountId: true, documentType: true, isDraft: true, businessPartnerId: true } });
    const at = ['documentReferences', i, 'referencedDocumentId'];
    if (!other || other.clientAccountId !== clientAccountId) issues.add(at, `document ${r.referencedDocumentId} does not exist in client account ${clientAccountId}`);
    else if (r.referencedDocumentId === documentId) issues.add(at, 'a document cannot reference itself');
    else if (r.referenceType === 'CREDITS') {
      const credits = doc.documentType === 'ARCRN' ? ['ARINV', 'ARCIN'] : doc.documentType === 'APCRN' ? ['APINV', 'APCIN', 'RECPT'] : [];
      if (!credits.length) issues.add(['documentReferences', i, 'referenceType'], `only a credit note (ARCRN, APCRN) CREDITS another document, not ${doc.documentType}`);
      else if (!credits.includes(other.documentType)) issues.add(at, `a ${doc.documentType} credits ${credits.join(' or ')}, not document ${r.referencedDocumentId} (${other.documentType})`);
      else if (other.isDraft) issues.add(at, `document ${r.referencedDocumentId} is a draft: only a finalized document can be credited`);
      else if (doc.businessPartnerId != null && other.businessPartnerId !== doc.businessPartnerId) issues.add(at, `document ${r.referencedDocumentId} belongs to another business partner`);
    }
  }
  if (doc.documentNumber != null && isSalesType(doc.documentType) && !doc.isImported) {
    issues.add(['documentNumber'], `is assigned when a ${doc.documentType} is finalized (numbered per client account and type without gaps); send it only with is_imported true`);
  }
  if (doc.documentNumber != null) {
    // our own (sales) numbers are unique per type; other numbers are the sender's, so per business partner
    // (two suppliers may both send invoice 1001; the same supplier's 1001 twice is a double registration)
    const sales = isSalesType(doc.documentType);
    const clash = await tx.db.document.findFirst({
      where: {
        clientAccountId,
        documentType: doc.documentType,
        documentNumber: doc.documentNumber,
        ...(sales ? {} : { businessPartnerId: doc.businessPartnerId ?? null }),
        ...(documentId ? { NOT: { id: documentId } } : {}),
      },
      select: { id: true },
    });
    if (clash) issues.add(['documentNumber'], `'${doc.documentNumber}' is already used by ${doc.documentType} document ${clash.id}${sales ? '' : doc.businessPartnerId != null ? ' of the same business partner' : ' without a business partner'}`);
  }
}

/** The document's gross_amount and net_amount: the lines' totals, or the amounts sent (settleAmounts). */
function withAmounts(prepared: PreparedDocument, sent: { grossAmount?: Decimal | null; netAmount?: Decimal | null }, kept: { grossAmount: Decimal; netAmount: Decimal } | null, issues: Issues): PreparedDocument {
  const amounts = settleAmounts(
    { count: prepared.rows.length, netAmount: prepared.netAmount, grossAmount: prepared.grossAmount, currencyCode: prepared.currencyCode },
    sent,
    kept,
    (field, message) => issues.add([field], message),
  );
  return { ...prepared, ...amounts };
}

/** The finalize rules: a posting type needs a partner and a positive total. */
function checkFinalizable(doc: Fields, prepared: PreparedDocument, issues: Issues) {
  if (!POSTING_TYPES.has(doc.documentType)) return;
  if (doc.businessPartnerId == null) issues.add(['businessPartnerId'], `is required to finalize a ${doc.documentType}: its ${SALES_TYPES.has(doc.documentType) ? 'receivable' : 'payable'} is posted with the partner`);
  if (!prepared.grossAmount.isPositive() || prepared.grossAmount.isZero()) {
    issues.add(
      [prepared.rows.length ? 'itemLines' : 'grossAmount'],
      `a ${doc.documentType} needs a positive gross amount to be finalized (it is ${prepared.grossAmount.toFixed(2)}): send item_lines, or gross_amount and net_amount`,
    );
  }
}

// ── Numbering ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The next number of a document type in a client account: a counter row per (account, type) in
 * sequence_counters, locked until the transaction ends, so finalized documents are numbered without
 * gaps in commit order. A new counter starts after the highest numeric number of the type; a number
 * already taken (imported documents) is skipped.
 */
async function nextDocumentNumber(tx: RequestContext, clientAccountId: number, documentType: string): Promise<string> {
  for (;;) {
    const rows = await tx.db.$queryRawUnsafe<{ last_value: number }[]>(
      `INSERT INTO sequence_counters (client_account_id, kind, last_value)
       VALUES ($1, $2, (SELECT COALESCE(MAX(document_number::bigint), 0) + 1 FROM documents
                         WHERE client_account_id = $1 AND document_type = $3 AND document_number ~ '^[0-9]{1,9}$'))
       ON CONFLICT (client_account_id, kind) DO UPDATE SET last_value = sequence_counters.last_value + 1
       RETURNING last_value`,
      clientAccountId,
      `document:${documentType}`,
      documentType,
    );
    const number = String(rows[0].last_value);
    const taken = await tx.db.document.findFirst({ where: { clientAccountId, documentType, documentNumber: number }, select: { id: true } });
    if (!taken) return number;
  }
}

// ── Posting ───────────────────────────────────────────────────────────────────────────────────────

/** The revenue or cost account of a line without its own: a 3xxx (sales) or 4xxx (purchases) account whose default tax code is the line's, else 3000 / 4000. */
async function defaultAccounts(tx: RequestContext, clientAccountId: number, sales: boolean): Promise<Map<number | null, string>> {
  const accounts = await tx.db.account.findMany({
    where: { clientAccountId, isActive: true, code: { startsWith: sales ? '3' : '4' }, defaultTaxCodeId: { not: null } },
    select: { code: true, defaultTaxCodeId: true },
    orderBy: { code: 'asc' },
  });
  const out = new Map<number | null, string>();
  for (const a of accounts) if (!out.has(a.defaultTaxCodeId)) out.set(a.defaultTaxCodeId, a.code);
  out.set(null, sales ? DEFAULT_REVENUE_ACCOUNT : DEFAULT_COST_ACCOUNT);
  return out;
}

const round2 = (d: Decimal) => d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

/**
 * What a document without item lines posts, as one line row (spec 001: gross_amount and net_amount
 * are writable; "VAT is their difference"): the net on the revenue (3xxx) or cost (4xxx) account and
 * the VAT (gross − net) on a VAT account, so the entry balances with the receivable or payable at the
 * gross amount. The tax code is the output (sales) or input (purchases) code of the client account
 * whose rate on the document date gives exactly that VAT on the net, rounded to the øre (the lowest
 * code when several do: 3 before 33, 1 before 81); its VAT account is the rate's (2700 … 2712). When
 * no code does (VAT at mixed rates), the net posts without a tax code and the VAT on the VAT account of
 * the nearest rate band. A client account that is not VAT-liable has no VAT to account for: the whole
 * gross amount is revenue or cost. Amounts in the accounting currency are converted and rounded as a
 * line's are.
 */
async function amountsAsRow(
  tx: RequestContext,
  doc: { clientAccountId: number; documentDate: Date },
  prepared: PreparedDocument,
  sales: boolean,
): Promise<LineRow> {
  const vat = prepared.vatLiable ? prepared.grossAmount.minus(prepared.netAmount) : ZERO;
  const net = prepared.vatLiable ? prepared.netAmount : prepared.grossAmount;
  const direction = sales ? 'OUTPUT' : 'INPUT';
  let tax: { id: number; code: string; name: string; direction: string; rate: Decimal } | undefined;
  if (!vat.isZero()) {
    const codes = await tx.db.taxCode.findMany({
      where: { clientAccountId: doc.clientAccountId, direction },
      select: { id: true, code: true, name: true, direction: true, rates: { select: { ratePercent: true, validFrom: true, validTo: true } } },
    });
    const numeric = (code: string) => (/^\d+$/.test(code) ? Number(code) : Number.MAX_SAFE_INTEGER);
    tax = codes
      .flatMap((c) => {
        const inForce = rateInForce(c.rates, doc.documentDate);
        const rate = inForce ? new Decimal(inForce.ratePercent) : null;
        return rate && !rate.isZero() && round2(net.times(rate).dividedBy(100)).equals(vat) ? [{ id: c.id, code: c.code, name: c.name, direction: c.direction, rate }] : [];
      })
      .sort((a, b) => numeric(a.code) - numeric(b.code) || a.code.localeCompare(b.code))[0];
  }
  // VAT at mixed rates: the account of the standard rate nearest to VAT / net (25, 15 or 12 %)
  const implied = net.isZero() ? new Decimal(25) : vat.dividedBy(net).times(100).abs();
  const band = [25, 15, 12].reduce((best, r) => (implied.minus(r).abs().lessThan(implied.minus(best).abs()) ? r : best), 25);
  const netLc = round2(net.times(prepared.exchangeRate));
  const taxAmountLc = round2(vat.times(prepared.exchangeRate));
  return {
    lineId: 1,
    itemId: null,
    itemNo: null,
    itemName: null,
    description: null,
    price: net,
    quantity: new Decimal(1),
    currencyCode: prepared.currencyCode,
    unitId: null,
    taxCodeId: tax?.id ?? null,
    taxCode: tax ? { code: tax.code, direction: tax.direction, name: tax.name } : null,
    taxRate: tax?.rate ?? null,
    net,
    netLc,
    taxAmountFc: vat,
    taxAmountLc,
    totalFc: net.plus(vat),
    totalLc: netLc.plus(taxAmountLc),
    accountId: null,
    itemCollectionEntryId: null,
    ...(tax || vat.isZero() ? {} : { vatAccount: vatAccountFor(direction, new Decimal(band)) }),
  };
}

/**
 * Posts a finalized sales or purchase document's journal entry through the journal entries service,
 * in the caller's transaction: the receivable (1500) or payable (2400) with the business partner,
 * a revenue or cost line per item line (its account, the item's default or the tax code's account)
 * with the tax code, and a VAT line per line that carries VAT. A credit note posts the reverse.
 */
async function postDocument(
  tx: RequestContext,
  doc: { id: number; clientAccountId: number; documentType: string; documentNumber: string | null; documentDate: Date; businessPartnerId: number; voucherId: number | null },
  prepared: PreparedDocument,
  partnerName: string,
): Promise<number> {
  const sales = SALES_TYPES.has(doc.documentType);
  const credit = CREDIT_NOTE_TYPES.has(doc.documentType);
  // an invoice (sales) credits revenue; a bill debits cost; a credit note the reverse
  const controlOnDebit = sales !== credit;
  // a negative amount (a discount line, a negative VAT) goes on the other side: ledger amounts are never negative
  const side = (amount: Decimal, onDebit: boolean) => (onDebit !== amount.isNegative() ? { debit: amount.abs().toString(), credit: '0' } : { debit: '0', credit: amount.abs().toString() });
  const foreign = prepared.currencyCode !== (await tx.db.clientAccount.findUniqueOrThrow({ where: { id: doc.clientAccountId }, select: { accountingCurrency: true } })).accountingCurrency.trim();
  const fc = (amount: Decimal, onDebit: boolean) =>
    foreign ? { currencyCode: prepared.currencyCode, ...(onDebit !== amount.isNegative() ? { debitFc: amount.abs().toString(), creditFc: '0' } : { debitFc: '0', creditFc: amount.abs().toString() }) } : {};
  const defaults = await defaultAccounts(tx, doc.clientAccountId, sales);
  const rows = prepared.rows.length ? prepared.rows : [await amountsAsRow(tx, doc, prepared, sales)];
  const accountIds = rows.flatMap((r) => (r.accountId != null ? [r.accountId] : []));
  const accountCodes = new Map((await tx.db.account.findMany({ where: { id: { in: accountIds } }, select: { id: true, code: true } })).map((a) => [a.id, a.code]));
  const label = `${doc.documentType === 'ARCRN' || doc.documentType === 'APCRN' ? 'Kreditnota' : sales ? 'Faktura' : 'Leverandørfaktura'} ${doc.documentNumber ?? ''}, ${partnerName}`.trim();
  const grossLc = rows.reduce((s, r) => s.plus(r.totalLc), ZERO);
  const grossFc = rows.reduce((s, r) => s.plus(r.totalFc), ZERO);
  const lines: Record<string, unknown>[] = [
    {
      lineId: 1,
      postingDate: doc.documentDate,
      accountCode: sales ? RECEIVABLE_ACCOUNT : PAYABLE_ACCOUNT,
      description: label,
      ...side(grossLc, controlOnDebit),
      ...fc(grossFc, controlOnDebit),
      dimensions: [{ type: 'businesspartner', id: doc.businessPartnerId }],
    },
  ];
  let next = 2;
  for (const r of rows) {
    if (r.netLc.isZero() && r.taxAmountLc.isZero()) continue;
    const onDebit = !controlOnDebit;
    const lineId = next++;
    const hasTax = r.taxCodeId != null && prepared.vatLiable && r.taxCode?.direction !== 'NONE';
    lines.push({
      lineId,
      postingDate: doc.documentDate,
      ...(r.accountId != null ? { accountCode: accountCodes.get(r.accountId) } : { accountCode: defaults.get(r.taxCodeId) ?? defaults.get(null) }),
      description: [r.itemName ?? r.itemNo, r.description].filter(Boolean).join(': ') || label,
      ...side(r.netLc, onDebit),
      ...fc(r.net, onDebit),
      ...(hasTax ? { taxCodeId: r.taxCodeId } : {}),
      quantity: r.quantity.toString(),
    });
    if ((hasTax || r.vatAccount) && !r.taxAmountLc.isZero()) {
      lines.push({
        lineId: next++,
        postingDate: doc.documentDate,
        accountCode: r.vatAccount ?? vatAccountFor(r.taxCode!.direction === 'INPUT' ? 'INPUT' : 'OUTPUT', r.taxRate ?? ZERO),
        description: `MVA ${r.taxRate ? `${r.taxRate.toFixed(2)} % ` : ''}${label}`,
        ...side(r.taxAmountLc, onDebit),
        ...fc(r.taxAmountFc, onDebit),
        taxLine: true,
        taxForLine: lineId,
      });
    }
  }
  try {
    return await createJournalEntryInTx(tx, {
      input: {
        clientAccountId: doc.clientAccountId,
        description: label,
        voucherId: doc.voucherId,
        relationType: 'document',
        relationId: doc.id,
        isDraft: false,
        lines: lines as never,
      },
    });
  } catch (e) {
    // the entry's issues name its lines; on a document they are the posting's
    if (e instanceof ValidationError) throw new ValidationError(`the document's journal entry cannot be posted: ${e.message}`, e.issues);
    throw e;
  }
}

/** The receivable/payable line of a posted document's entry. */
async function controlLine(tx: RequestContext, journalEntryId: number) {
  return tx.db.journalEntryLine.findFirst({
    where: { journalEntryId, account: { code: { in: [RECEIVABLE_ACCOUNT, PAYABLE_ACCOUNT] } } },
    select: { id: true, debit: true, credit: true, reconciledAmount: true },
  });
}

/**
 * A finalized credit note that CREDITS an invoice settles it: its receivable/payable line is
 * reconciled with the invoice's for what both still have open, and the invoice is CREDITED when
 * the credit note covers it in full.
 */
async function settleCredited(tx: RequestContext, creditNote: { id: number; clientAccountId: number; documentDate: Date; grossAmount: Decimal }, creditEntryId: number) {
  const refs = await tx.db.documentReference.findMany({ where: { documentId: creditNote.id, referenceType: 'CREDITS', referencedDocumentId: { not: null } }, select: { referencedDocumentId: true } });
  let left = await controlLine(tx, creditEntryId);
  for (const ref of refs) {
    const invoice = await tx.db.document.findUniqueOrThrow({ where: { id: ref.referencedDocumentId! }, select: { id: true, journalEntryId: true, grossAmount: true } });
    if (invoice.journalEntryId != null && left) {
      const invoiceLine = await controlLine(tx, invoice.journalEntryId);
      const creditOpen = left.debit.plus(left.credit).minus(left.reconciledAmount);
      const invoiceOpen = invoiceLine ? invoiceLine.debit.plus(invoiceLine.credit).minus(invoiceLine.reconciledAmount) : ZERO;
      const amount = Decimal.min(creditOpen, invoiceOpen);
      if (invoiceLine && amount.greaterThan(0)) {
        const entry = (line: { id: number; debit: Decimal }) => ({ journalEntryLineId: line.id, ...(line.debit.isZero() ? { credit: amount } : { debit: amount }) });
        await reconcileInTx(tx, { clientAccountId: creditNote.clientAccountId, date: creditNote.documentDate, entryLines: [entry(invoiceLine), entry(left)] });
        left = await controlLine(tx, creditEntryId);
      }
    }
    if (creditNote.grossAmount.greaterThanOrEqualTo(invoice.grossAmount)) {
      await tx.db.document.update({ where: { id: invoice.id }, data: { documentStatus: 'CREDITED', updatedById: auditUserId(tx) } });
    }
  }
}

/**
 * What finalizing does, in the operation's transaction: the number (sales types always, others when
 * none was given), a KID for a sales document without a payment reference, the journal entry of a
 * posting type, a credit note's settlement, and the e-mail when send_document is set.
 */
async function finalize(tx: RequestContext, id: number, prepared: PreparedDocument) {
  const doc = await tx.db.document.findUniqueOrThrow({ where: { id }, include: { businessPartner: { select: { name: true, email: true } } } });
  const documentNumber = doc.documentNumber ?? (await nextDocumentNumber(tx, doc.clientAccountId, doc.documentType));
  // KID: the client account's id and the document number, MOD10 (so a bank payment can name the document)
  const paymentRef = doc.paymentRef ?? (isSalesType(doc.documentType) && /^\d+$/.test(documentNumber) ? kidMod10(`${doc.clientAccountId}`.padStart(4, '0') + documentNumber.padStart(7, '0')) : null);
  let journalEntryId: number | null = null;
  if (POSTING_TYPES.has(doc.documentType)) {
    journalEntryId = await postDocument(tx, { ...doc, documentNumber, businessPartnerId: doc.businessPartnerId! }, prepared, doc.businessPartner?.name ?? '');
  }
  await tx.db.document.update({ where: { id }, data: { documentNumber, paymentRef, journalEntryId, isDraft: false, documentStatus: 'FINALIZED' } });
  if (journalEntryId != null && CREDIT_NOTE_TYPES.has(doc.documentType)) await settleCredited(tx, doc, journalEntryId);
  if (doc.sendDocument && isSalesType(doc.documentType)) await queueSending(tx, doc);
}

/** send_document: the PDF is e-mailed by a job enqueued in the operation's transaction; the partner needs an e-mail address (400). */
async function queueSending(tx: RequestContext, doc: { id: number; businessPartner: { name: string; email: string | null } | null }) {
  const email = doc.businessPartner?.email?.trim();
  if (!doc.businessPartner) throw ValidationError.field('sendDocument', 'the document has no business partner to send it to');
  if (!email || !isEmailAddress(email)) throw ValidationError.field('sendDocument', `business partner '${doc.businessPartner.name}' has no e-mail address to send the document to`);
  await enqueue(tx, sendDocumentJob, { documentId: doc.id, userId: auditUserId(tx) });
}

// ── Writing ───────────────────────────────────────────────────────────────────────────────────────

/** The rows of a document's own tables (lines, payment lines, references) for its id. */
function lineData(documentId: number, rows: readonly LineRow[]): PrismaNS.DocumentLineCreateManyInput[] {
  return rows.map((r) => ({
    documentId,
    lineId: r.lineId,
    itemId: r.itemId,
    itemNo: r.itemNo,
    itemName: r.itemName,
    description: r.description,
    price: r.price,
    currencyCode: r.currencyCode,
    quantity: r.quantity,
    unitId: r.unitId,
    taxCodeId: r.taxCodeId,
    taxRate: r.taxRate,
    taxAmountLc: r.taxAmountLc,
    taxAmountFc: r.taxAmountFc,
    totalLc: r.totalLc,
    totalFc: r.totalFc,
    accountId: r.accountId,
    itemCollectionEntryId: r.itemCollectionEntryId,
  }));
}

async function writeChildren(tx: RequestContext, documentId: number, input: Partial<CreateDocumentInput>, prepared: PreparedDocument | null, replace: boolean) {
  if (prepared && (input.itemLines !== undefined || replace)) {
    await tx.db.documentLine.deleteMany({ where: { documentId } });
    if (prepared.rows.length) await tx.db.documentLine.createMany({ data: lineData(documentId, prepared.rows) });
  }
  if (input.paymentLines !== undefined) {
    await tx.db.documentPaymentLine.deleteMany({ where: { documentId } });
    const currency = prepared?.currencyCode ?? 'NOK';
    if (input.paymentLines?.length) await tx.db.documentPaymentLine.createMany({ data: input.paymentLines.map((l) => ({ ...l, currencyCode: l.currencyCode ?? currency, documentId })) });
  }
  if (input.documentReferences !== undefined) {
    await tx.db.documentReference.deleteMany({ where: { documentId } });
    if (input.documentReferences?.length) await tx.db.documentReference.createMany({ data: input.documentReferences.map((r) => ({ ...r, documentId })) });
  }
}

/** The scalar columns of the input (relations and lines apart). */
function columns(input: Partial<CreateDocumentInput>) {
  // gross_amount and net_amount are settled with the lines (settleAmounts) and written from PreparedDocument
  const { itemLines: _l, paymentLines: _p, documentReferences: _r, structuredData, isDraft: _d, grossAmount: _g, netAmount: _n, ...rest } = input as Partial<CreateDocumentInput> & { clientAccountId?: unknown };
  delete (rest as { clientAccountId?: unknown }).clientAccountId;
  return { ...rest, ...(structuredData !== undefined ? { structuredData: structuredData === null ? (null as never) : (structuredData as PrismaNS.InputJsonValue) } : {}) };
}

/** Validates a create (or preview) body and computes its lines; nothing is written. */
async function checkedCreate(tx: RequestContext, parsed: z.output<typeof rules.create>) {
  const clientAccountId = parsed.input.clientAccountId;
  await requireAccount(tx, clientAccountId);
  let prepared: PreparedDocument | undefined;
  const { input } = await check(tx, parsed, {
    clientAccountId,
    references: (d) => documentReferences((d as { input?: Partial<CreateDocumentInput> }).input),
    check: async ({ input }, found, issues) => {
      const doc = input as Fields;
      await checkDocument(tx, clientAccountId, doc, issues);
      prepared = withAmounts(await prepare(tx, clientAccountId, doc, input.itemLines ?? [], found as FoundRefs, issues), input, null, issues);
      if (input.isDraft === false || input.isDraft === undefined) checkFinalizable(doc, prepared, issues);
    },
  });
  return { input, prepared: prepared! };
}

/**
 * POST /documents: a draft (is_draft true) or a finalized document (the default, false): numbered,
 * posted and sent (send_document) in the same transaction.
 */
export async function createDocument(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  const id = await inTransaction(ctx, async (tx) => {
    const { input, prepared } = await checkedCreate(tx, parsed);
    const user = auditUserId(tx);
    const created = await tx.db.document.create({
      data: {
        ...columns(input),
        clientAccountId: input.clientAccountId,
        documentType: input.documentType,
        documentDate: input.documentDate,
        currencyCode: prepared.currencyCode,
        exchangeRate: prepared.exchangeRate,
        netAmount: prepared.netAmount,
        grossAmount: prepared.grossAmount,
        isDraft: true,
        documentStatus: 'DRAFT',
        createdInApp: !input.isImported,
        createdById: user,
        updatedById: user,
      } as PrismaNS.DocumentUncheckedCreateInput,
      select: { id: true },
    });
    await writeChildren(tx, created.id, input, prepared, true);
    if (input.isDraft !== true) await finalize(tx, created.id, prepared);
    return created.id;
  });
  return ctx.db.document.findUniqueOrThrow({ ...query, where: { id } });
}

/** POST /documents/preview: the document's PDF from a create body, nothing saved. */
export async function previewDocument(ctx: RequestContext, args: Args<typeof rules.create>) {
  const parsed = parse(rules.create, args);
  // a transaction only for one consistent read; it is rolled back by throwing nothing and writing nothing
  const model = await inTransaction(ctx, async (tx) => {
    const { input, prepared } = await checkedCreate(tx, parsed);
    return loadInvoiceModel(tx, { ...input, ...prepared, documentNumber: input.documentNumber ?? null, paymentRef: input.paymentRef ?? null, isDraft: true }, prepared.rows);
  });
  const pdf = await renderDocumentPdf(model, { preview: true });
  return { fileName: previewFileName(model), contentType: 'application/pdf', contentBase64: pdf.toString('base64') };
}

const previewFileName = (m: InvoiceModel) => `${m.title.toLowerCase()}-${m.documentNumber ?? 'utkast'}.pdf`.replace(/[^a-z0-9æøå._-]/gi, '-');

/** Compares a sent value with the stored one (dates by day, decimals by value, text trimmed). */
function unchanged(sent: unknown, stored: unknown): boolean {
  if (sent === undefined) return true;
  if (sent instanceof Date && stored instanceof Date) return formatDate(sent) === formatDate(stored);
  if (sent instanceof Decimal && stored instanceof Decimal) return sent.equals(stored);
  if (typeof sent === 'string' && typeof stored === 'string') return sent.trim() === stored.trim();
  return (sent ?? null) === (stored ?? null);
}

/**
 * PUT and PATCH /documents/{id}: the fields sent change. A draft may change anything (item_lines
 * given replace its lines; totals follow); is_draft false finalizes it. A finalized document keeps
 * what was numbered and posted (FINALIZED_LOCKED_FIELDS, its lines): 400 "credit it instead"; its
 * note, descriptions, references, archive flags and send_document may change.
 */
export async function updateDocument(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  const id = await inTransaction(ctx, async (tx) => {
    const current = await tx.db.document.findUnique({ where: { id: args.id }, include: { lines: true, businessPartner: { select: { name: true, email: true } } } });
    await requireOwned(tx, `Document ${args.id}`, current);
    const stored = current!;
    let prepared: PreparedDocument | null = null;
    const { input } = await check(tx, parsed, {
      clientAccountId: stored.clientAccountId,
      immutable: { clientAccountId: stored.clientAccountId },
      references: (d) => documentReferences((d as { input?: Partial<CreateDocumentInput> }).input),
      check: async ({ input }, found, issues) => {
        const merged = { ...stored, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) } as unknown as Fields;
        if (!stored.isDraft) {
          for (const field of FINALIZED_LOCKED_FIELDS) {
            const sent = (input as Record<string, unknown>)[field];
            if (field === 'itemLines' ? sent !== undefined : !unchanged(sent, (stored as Record<string, unknown>)[field])) {
              issues.add([field], `cannot be changed on finalized ${stored.documentType} ${stored.documentNumber ?? stored.id}: it was numbered and posted; credit it instead`);
            }
          }
          if (input.isDraft === true) issues.add(['isDraft'], `finalized ${stored.documentType} ${stored.documentNumber ?? stored.id} cannot become a draft again; credit it instead`);
          if (input.documentReferences !== undefined) await checkDocument(tx, stored.clientAccountId, { ...merged, documentNumber: null }, issues, stored.id);
          return;
        }
        // the number is checked when it is sent, or (numbers from outside being unique per partner) when the partner changes
        const numberChanges = input.documentNumber !== undefined || (input.businessPartnerId !== undefined && !isSalesType(merged.documentType));
        await checkDocument(tx, stored.clientAccountId, { ...merged, documentNumber: numberChanges ? merged.documentNumber : null }, issues, stored.id);
        const lines = input.itemLines ?? linesAsInput(stored.lines);
        // a line-less draft keeps the amounts it has unless they are sent (or item_lines are: then as on create)
        const kept = input.itemLines == null ? { grossAmount: stored.grossAmount, netAmount: stored.netAmount } : null;
        prepared = withAmounts(await prepare(tx, stored.clientAccountId, merged, lines, found as FoundRefs, issues, stored.id), input, kept, issues);
        if (input.isDraft === false) checkFinalizable(merged, prepared, issues);
      },
    });
    const data: Record<string, unknown> = { ...columns(input as Partial<CreateDocumentInput>), updatedById: auditUserId(tx) };
    if (prepared) {
      const p = prepared as PreparedDocument;
      Object.assign(data, { currencyCode: p.currencyCode, exchangeRate: p.exchangeRate, netAmount: p.netAmount, grossAmount: p.grossAmount });
    }
    await tx.db.document.update({ where: { id: stored.id }, data: data as PrismaNS.DocumentUncheckedUpdateInput });
    await writeChildren(tx, stored.id, input as Partial<CreateDocumentInput>, prepared, prepared !== null);
    if (stored.isDraft && input.isDraft === false) await finalize(tx, stored.id, prepared!);
    else if (!stored.isDraft && input.sendDocument === true && stored.sentAt == null && isSalesType(stored.documentType)) await queueSending(tx, stored);
    return stored.id;
  });
  return ctx.db.document.findUniqueOrThrow({ ...query, where: { id } });
}

/** DELETE /documents/{id}: a draft is removed (its lines with it); a finalized document is a 400 — credit it instead. */
export async function deleteDocument(ctx: RequestContext, { id }: { id: number }): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    const doc = await getDocument(tx, { id });
    if (!doc.isDraft) {
      throw ValidationError.field('id', `document ${id} is finalized (${doc.documentType} ${doc.documentNumber ?? ''}); only drafts can be deleted: credit it instead`.replace(' )', ')'));
    }
    await tx.db.document.delete({ where: { id } });
    return true;
  });
}
