import { z } from 'zod';
import { Decimal } from '@prisma/client/runtime/client';
import { orderByNames, pageArgs } from '../../shared/pagination.ts';
import { currencyCode, decimal, evenWithIssues, flag, id, immutable, jsonObjectOrNull, optionalText } from '../../shared/validation.ts';
import { osloToday } from '../journal-entries/journal-entries.rules.ts';

// ── Values (spec 001 "Commercial document": "Allowed values … not shown": defined here) ──────────

/** spec 001, voucher "Document types". */
export const DOCUMENT_TYPES = [
  'ARINV', 'ARCRN', 'ARCIN', 'ARPIN', 'ARDEB',
  'APINV', 'APCRN', 'RECPT', 'APCIN', 'APPIN', 'APDEB',
  'PAYSR', 'SALSM', 'VATST', 'VATRP',
  'PRRUN', 'PRPAY', 'PRTAX',
] as const;
export type DocumentTypeCode = (typeof DOCUMENT_TYPES)[number];

/** Sales documents that post a receivable on 1500 (ARCRN reversed). */
export const SALES_TYPES: ReadonlySet<string> = new Set(['ARINV', 'ARCIN', 'ARCRN']);
/** Purchase documents that post a payable on 2400 (APCRN reversed). */
export const PURCHASE_TYPES: ReadonlySet<string> = new Set(['APINV', 'APCIN', 'RECPT', 'APCRN']);
/** Credit notes: their posting is the reverse of an invoice's. */
export const CREDIT_NOTE_TYPES: ReadonlySet<string> = new Set(['ARCRN', 'APCRN']);
/** Types whose finalized documents post a journal entry; proforma and all others post nothing. */
export const POSTING_TYPES: ReadonlySet<string> = new Set([...SALES_TYPES, ...PURCHASE_TYPES]);

export const RECEIVABLE_ACCOUNT = '1500';
export const PAYABLE_ACCOUNT = '2400';
export const DEFAULT_REVENUE_ACCOUNT = '3000';
export const DEFAULT_COST_ACCOUNT = '4000';

/**
 * document_status: DRAFT (may change or be deleted) → FINALIZED (numbered, posted when its type
 * posts) → SENT (its PDF e-mailed to the partner); a finalized or sent document becomes CREDITED
 * when a finalized credit note references it with CREDITS.
 */
export const DOCUMENT_STATUSES = ['DRAFT', 'FINALIZED', 'SENT', 'CREDITED'] as const;

/**
 * payment_status, derived from the reconciliations of the document's receivable/payable line:
 * NOT_APPLICABLE (no posted line: drafts, proforma and other types, cancelled entries), UNPAID
 * (nothing reconciled), PARTLY_PAID, PAID (fully reconciled). A reconciliation never exceeds the
 * line's amount, so there is no overpaid state: an overpayment stays open on the payment's side.
 */
export const PAYMENT_STATUSES = ['NOT_APPLICABLE', 'UNPAID', 'PARTLY_PAID', 'PAID'] as const;

/**
 * reconciliation_type of a reconciliation line: BANK (the counterpart is a bank payment: an entry of
 * a bank transaction or a line on a bank ledger account 19xx), CREDIT_NOTE (the counterpart is a
 * credit note's line, or the line of the invoice a credit note settles), EXCHANGE (an automatic
 * exchange difference), MANUAL (anything else reconciled by hand).
 */
export const RECONCILIATION_TYPES = ['BANK', 'CREDIT_NOTE', 'EXCHANGE', 'MANUAL'] as const;

/** archive_category of an archived document (why it is kept). */
export const ARCHIVE_CATEGORIES = ['ACCOUNTING', 'CONTRACT', 'CORRESPONDENCE', 'OTHER'] as const;

/** document_references reference_type: CREDITS (a credit note's invoice) or an outside reference by number. */
export const REFERENCE_TYPES = ['CREDITS', 'INVOICE', 'ORDER', 'CONTRACT'] as const;

export const PAYMENT_LINE_TYPES = [
  'PRELIMINARY_TAX', 'VAT_SETTLEMENT', 'NATIONAL_INSURANCE_CONTRIBUTION', 'TAX_WITHHOLDING', 'EMPLOYEE_PAYMENT',
  'SUPPLIER_PAYMENT', 'LOAN_PAYMENT', 'INTERNAL_TRANSFER', 'GARNISHMENT',
] as const;

/** order_by of GET /documents: the public names and the SQL expressions they sort by. */
export const DOCUMENT_ORDER_FIELDS: Record<string, string> = {
  id: 'id',
  document_date: 'document_date',
  due_date: 'due_date',
  document_number: 'document_number',
  document_type: 'document_type',
  gross_amount: 'gross_amount',
  open_amount: 'open_amount',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

export const MAX_ITEM_LINES = 1000;

// ── Pure computations ─────────────────────────────────────────────────────────────────────────────

const round2 = (d: Decimal) => d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

export interface LineAmounts {
  net: Decimal;
  taxAmountFc: Decimal;
  taxAmountLc: Decimal;
  totalFc: Decimal;
  totalLc: Decimal;
  netLc: Decimal;
}

/**
 * One line's amounts, each rounded to the øre on the line (half away from zero): net = price ×
 * quantity, VAT = net × rate, total = net + VAT, in the document's currency (fc) and the accounting
 * currency at the document's exchange rate (lc, VAT and total converted and rounded each).
 */
export function lineAmounts(price: Decimal, quantity: Decimal, ratePercent: Decimal, exchangeRate: Decimal): LineAmounts {
  const net = round2(price.times(quantity));
  const taxAmountFc = round2(net.times(ratePercent).dividedBy(100));
  const totalFc = net.plus(taxAmountFc);
  const netLc = round2(net.times(exchangeRate));
  const taxAmountLc = round2(taxAmountFc.times(exchangeRate));
  return { net, taxAmountFc, taxAmountLc, totalFc, totalLc: netLc.plus(taxAmountLc), netLc };
}

/** net_amount = Σ line nets, gross_amount = net + Σ line VAT (document currency). */
export function documentTotals(lines: readonly { net: Decimal; taxAmountFc: Decimal }[]): { netAmount: Decimal; grossAmount: Decimal; vat: Decimal } {
  let netAmount = new Decimal(0);
  let vat = new Decimal(0);
  for (const l of lines) {
    netAmount = netAmount.plus(l.net);
    vat = vat.plus(l.taxAmountFc);
  }
  return { netAmount, grossAmount: netAmount.plus(vat), vat };
}

/**
 * The amounts a document keeps (spec 001 "gross_amount, net_amount | decimal", document currency).
 * With item lines: the lines' totals, and a sent gross_amount or net_amount must equal them to the
 * øre (an issue naming both figures otherwise). Without lines: the amounts sent; one sent alone, the
 * other is `kept`'s (an update of a document whose lines it does not touch) or else equals it (no
 * VAT); neither sent, `kept`'s or 0.
 */
export function settleAmounts(
  lines: { count: number; netAmount: Decimal; grossAmount: Decimal; currencyCode: string },
  sent: { grossAmount?: Decimal | null; netAmount?: Decimal | null },
  kept: { grossAmount: Decimal; netAmount: Decimal } | null,
  issue: (field: 'grossAmount' | 'netAmount', message: string) => void,
): { netAmount: Decimal; grossAmount: Decimal } {
  const gross = sent.grossAmount ?? null;
  const net = sent.netAmount ?? null;
  if (lines.count > 0) {
    const check = (field: 'grossAmount' | 'netAmount', value: Decimal | null, total: Decimal, name: string) => {
      if (value != null && !value.equals(total)) {
        issue(field, `is ${value.toFixed(2)} ${lines.currencyCode}, but the item lines' ${name} is ${total.toFixed(2)} ${lines.currencyCode}: with item lines it must equal their total (or be left out)`);
      }
    };
    check('grossAmount', gross, lines.grossAmount, 'gross total (net plus VAT)');
    check('netAmount', net, lines.netAmount, 'net total');
    return { netAmount: lines.netAmount, grossAmount: lines.grossAmount };
  }
  const zero = new Decimal(0);
  return {
    grossAmount: gross ?? kept?.grossAmount ?? net ?? zero,
    netAmount: net ?? kept?.netAmount ?? gross ?? zero,
  };
}

/** The VAT account of a rate and direction: output 2700/2701/2702, input 2710/2711/2712 (high, medium, low). */
export function vatAccountFor(direction: 'INPUT' | 'OUTPUT', ratePercent: Decimal): string {
  const band = ratePercent.greaterThanOrEqualTo(25) ? 0 : ratePercent.greaterThanOrEqualTo(15) ? 1 : 2;
  return `${direction === 'OUTPUT' ? '270' : '271'}${band}`;
}

/** Norwegian KID (MOD10, Luhn): the digits plus their check digit. */
export function kidMod10(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

// ── Inputs ────────────────────────────────────────────────────────────────────────────────────────

const money = decimal({ precision: 18, scale: 2 });
const documentType = z.enum(DOCUMENT_TYPES, { error: `must be one of ${DOCUMENT_TYPES.join(', ')}` });

/** A line: what it leaves out comes from its item collection entry, then its item; a line with neither and no price is a text line (price 0). */
const itemLine = z.object({
  lineId: z.number().int('must be a whole number').positive('must be a positive number').nullish(),
  itemId: id.nullish(),
  itemNo: optionalText(100),
  itemName: optionalText(250),
  description: optionalText(1000),
  price: decimal({ precision: 18, scale: 6 }).nullish(),
  quantity: decimal({ precision: 18, scale: 6 }).nullish(),
  unitId: id.nullish(),
  taxCodeId: id.nullish(),
  accountId: id.nullish(),
  itemCollectionEntryId: id.nullish(),
});

const paymentLine = z.object({
  lineType: z.enum(PAYMENT_LINE_TYPES, { error: `must be one of ${PAYMENT_LINE_TYPES.join(', ')}` }),
  requestedExecutionDate: z.date().nullish(),
  debtorBusinessPartnerId: id.nullish(),
  debtorBankAccountId: id.nullish(),
  creditorBusinessPartnerId: id.nullish(),
  creditorBankAccountId: id.nullish(),
  amount: money,
  currencyCode: currencyCode.nullish(),
  creditorReference: optionalText(100),
});

const reference = z
  .object({
    referenceType: z.enum(REFERENCE_TYPES, { error: `must be one of ${REFERENCE_TYPES.join(', ')}` }),
    referencedDocumentId: id.nullish(),
    referenceNumber: optionalText(100),
  })
  .superRefine((r, ctx) => {
    if (r.referencedDocumentId == null && r.referenceNumber == null) ctx.addIssue({ code: 'custom', path: ['referencedDocumentId'], message: 'referenced_document_id or reference_number is required' });
    if (r.referenceType === 'CREDITS' && r.referencedDocumentId == null) ctx.addIssue({ code: 'custom', path: ['referencedDocumentId'], message: 'is required for a CREDITS reference' });
  }, evenWithIssues);

/** The fields a document's body may carry (create, update and preview share them). */
const documentFields = {
  businessPartnerId: id.nullish(),
  payorId: id.nullish(),
  collectorId: id.nullish(),
  dueDate: z.date().nullish(),
  periodStart: z.date().nullish(),
  periodEnd: z.date().nullish(),
  periodDescription: optionalText(250),
  documentNumber: optionalText(100),
  documentUuid: z.string().trim().uuid('must be a UUID').nullish(),
  documentDescription: optionalText(1000),
  buyerReference: optionalText(250),
  orderReference: optionalText(250),
  note: optionalText(5000),
  collectionCaseNumber: optionalText(100),
  collectionSeverity: optionalText(50),
  paymentMeans: optionalText(50),
  paymentRef: optionalText(100),
  paymentCardNumber: optionalText(30),
  /**
   * spec 001 "gross_amount, net_amount | decimal": writable. Without item lines they are the
   * document's amounts (VAT is their difference); with lines they must equal the lines' totals.
   */
  grossAmount: money.nullish(),
  netAmount: money.nullish(),
  lateFeeAmount: money.nullish(),
  interestAmount: money.nullish(),
  bankAccountId: id.nullish(),
  voucherId: id.nullish(),
  currencyCode: currencyCode.nullish(),
  exchangeRate: decimal({ precision: 18, scale: 6 }).refine((d) => d.greaterThan(0), 'must be greater than 0').nullish(),
  isDraft: flag,
  isImported: flag,
  isActive: flag,
  isArchived: flag,
  archiveCategory: z.enum(ARCHIVE_CATEGORIES, { error: `must be one of ${ARCHIVE_CATEGORIES.join(', ')}` }).nullish(),
  sendDocument: flag,
  structuredData: jsonObjectOrNull,
  itemLines: z.array(itemLine).max(MAX_ITEM_LINES, `a document has at most ${MAX_ITEM_LINES} item lines`).nullish(),
  paymentLines: z.array(paymentLine).max(100, 'a document has at most 100 payment lines').nullish(),
  documentReferences: z.array(reference).max(100, 'a document has at most 100 references').nullish(),
};

/** A period ends on or after its start. (A due date before the document date is a supplier's to make: accepted.) */
function periodRule(d: { periodStart?: Date | null; periodEnd?: Date | null }, ctx: z.RefinementCtx) {
  if (d.periodStart instanceof Date && d.periodEnd instanceof Date && d.periodEnd < d.periodStart) ctx.addIssue({ code: 'custom', path: ['periodEnd'], message: 'must not be before period_start' });
}

/** document_date: today in Norway unless given (the spec does not make it required). */
const createInput = z
  .object({ clientAccountId: id, documentType, ...documentFields, documentDate: z.date().nullish().transform((v) => v ?? osloToday()) })
  .superRefine(periodRule, evenWithIssues);

/**
 * Fields a finalized document keeps: its amounts, lines, partner, dates, type and currency are
 * what was posted and numbered (correct them with a credit note); the rest may change.
 */
export const FINALIZED_LOCKED_FIELDS = [
  'documentType', 'businessPartnerId', 'documentDate', 'dueDate', 'documentNumber', 'currencyCode', 'exchangeRate', 'itemLines', 'grossAmount', 'netAmount', 'voucherId', 'paymentRef', 'bankAccountId',
] as const;

const booleanFilter = z.boolean().nullish();

/** order_by: fields of DOCUMENT_ORDER_FIELDS, as every list takes them (parseOrder: `-field`, `field:desc`, `field desc`). */
const orderBy = orderByNames(DOCUMENT_ORDER_FIELDS);

/** The inputs of every document operation (the GraphQL fields' arguments). */
export const documentRules = {
  list: z.object({
    clientAccountId: id,
    businessPartnerId: id.nullish(),
    fromDocumentDate: z.date().nullish(),
    toDocumentDate: z.date().nullish(),
    documentDate: z.date().nullish(),
    dueDate: z.date().nullish(),
    documentType: z.array(documentType).max(DOCUMENT_TYPES.length).nullish(),
    documentStatus: z.array(z.enum(DOCUMENT_STATUSES)).max(DOCUMENT_STATUSES.length).nullish(),
    documentNumber: z.string().max(100, 'must be at most 100 characters').nullish(),
    paymentReference: z.string().max(100, 'must be at most 100 characters').nullish(),
    grossAmount: money.nullish(),
    openAmount: money.nullish(),
    pendingPaymentAmount: money.nullish(),
    paymentStatus: z.array(z.enum(PAYMENT_STATUSES)).max(PAYMENT_STATUSES.length).nullish(),
    isActive: booleanFilter,
    isPayable: booleanFilter,
    isUnpaid: booleanFilter,
    isAvailableForPayment: booleanFilter,
    isBeingPaid: booleanFilter,
    isReconcilable: booleanFilter,
    isUnreconciled: booleanFilter,
    matchBankTransactionId: id.nullish(),
    orderBy,
    ...pageArgs,
  }),
  create: z.object({ input: createInput }),
  update: z.object({
    id,
    /** omitted fields keep their value; item_lines given replace the lines; client_account_id may be sent back but not changed */
    input: z
      .object({
        clientAccountId: immutable,
        ...documentFields,
        documentType: documentType.nullish().transform((v) => v ?? undefined),
        documentDate: z.date().nullish().transform((v) => v ?? undefined),
      })
      .superRefine(periodRule, evenWithIssues),
  }),
};

export type CreateDocumentInput = z.output<typeof createInput>;
export type ItemLineInput = z.output<typeof itemLine>;
