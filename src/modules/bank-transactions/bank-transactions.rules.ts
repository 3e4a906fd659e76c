import { z } from 'zod';
import { Decimal } from '@prisma/client/runtime/client';
import { orderByNames, pageArgs } from '../../shared/pagination.ts';
import { currencyCode, decimal, evenWithIssues, id, optionalText, required } from '../../shared/validation.ts';

/** orderBy names of bankTransactions (snake_case like the REST API; camelCase is accepted too). */
export const BANK_TRANSACTION_ORDER: Record<string, string> = {
  id: 'id',
  booking_date: 'bookingDate',
  value_date: 'valueDate',
  amount: 'amount',
  external_reconciled_amount: 'externalReconciledAmount',
  created_at: 'createdAt',
};

/** spec 001 "Bank transactions": default order booking_date asc, amount asc (then id). */
export const BANK_TRANSACTION_DEFAULT_ORDER = ['booking_date', 'amount'];

/** The relation_type of the journal entries a bank payment posts (their relation_id is the transaction's id). */
export const PAYMENT_RELATION_TYPE = 'bank_transaction';

/** The question an outgoing transaction opens on arrival. */
export const RECEIPT_QUESTION = 'Attach the receipt for this payment';

/** A signed amount in the bank account's currency: Decimal(18, 3), never 0. */
const signedAmount = decimal({ precision: 18, scale: 3 }).refine((d) => !d.isZero(), 'must not be 0 (positive incoming, negative outgoing)');
const rate = decimal({ precision: 18, scale: 6 }).refine((d) => d.isPositive() && !d.isZero(), 'must be greater than 0');
const reference = optionalText(100);

/** What the bank says of a transaction (spec 001 "Detail record"), all optional. */
export const detailInput = z.object({
  transactionType: reference,
  accountName: optionalText(250),
  accountNumber: optionalText(34),
  accountCurrencyCode: currencyCode.nullish(),
  archiveReference: reference,
  structuredReference: reference,
  bankInformation: optionalText(1000),
  amount: decimal({ precision: 18, scale: 3 }).nullish(),
  currencyCode: currencyCode.nullish(),
  description: optionalText(1000),
  bookingDate: z.date().nullish(),
  valueDate: z.date().nullish(),
  invoiceNumber: reference,
  senderName: optionalText(250),
  senderAccount: optionalText(34),
  receiverName: optionalText(250),
  receiverAccount: optionalText(34),
});
export type DetailInput = z.output<typeof detailInput>;

/** The fields of a transaction's create body besides client_account_id (also one transaction of a bank statement). */
const transactionFields = {
  amount: signedAmount,
  currencyCode,
  bookingDate: z.date(required),
  payeeBankAccountId: id.nullish(),
  payorBankAccountId: id.nullish(),
  payeeName: optionalText(250),
  payorName: optionalText(250),
  valueDate: z.date().nullish(),
  memo: optionalText(1000),
  instructedAmount: decimal({ precision: 18, scale: 3 }).nullish(),
  instructedCurrencyCode: currencyCode.nullish(),
  instructedExchangeRate: rate.nullish(),
  exchangeRate: rate.nullish(),
  messageId: reference,
  paymentId: reference,
  instructionId: reference,
  endToEndId: reference,
  bankReference: reference,
  /** the bank's own reference of the entry: unique per bank account (a statement import skips one it has seen) */
  entryReference: reference,
  details: z.array(detailInput).max(100, 'at most 100 detail records').nullish(),
  /** ignored on input (spec 001): read-only fields a client may send back */
  id: z.unknown().optional(),
  externalReconciledAmount: z.unknown().optional(),
};

export const transactionInput = z.object({ clientAccountId: id, ...transactionFields });
export type TransactionInput = z.output<typeof transactionInput>;

/** One transaction of a JSON bank statement: payee (incoming) or payor (outgoing) default to the statement's bank account. */
export const statementTransactionInput = z.object(transactionFields);
export type StatementTransactionInput = z.output<typeof statementTransactionInput>;

/** The most characters of a camt.053 document (the REST body is at most 1 MB anyway). */
export const MAX_CAMT053_LENGTH = 900_000;

/** Sum of amounts, exactly. */
export const sum = (amounts: readonly Decimal[]): Decimal => amounts.reduce((a, b) => a.plus(b), new Decimal(0));

/**
 * spec 001 (bank statements): opening balance + the transactions = closing balance. Null when it
 * holds, else the message naming the difference.
 */
export function balanceMismatch(opening: Decimal, closing: Decimal, amounts: readonly Decimal[]): string | null {
  const expected = opening.plus(sum(amounts));
  if (expected.equals(closing)) return null;
  return `opening_balance ${opening.toFixed(2)} + transactions ${sum(amounts).toFixed(2)} = ${expected.toFixed(2)}, not the closing_balance ${closing.toFixed(2)}: difference ${closing.minus(expected).toFixed(2)}`;
}

/** The amount still to book on a transaction (signed like the amount): amount − external_reconciled_amount. */
export const remainingAmount = (t: { amount: Decimal; externalReconciledAmount: Decimal }): Decimal => t.amount.minus(t.externalReconciledAmount);

/** The inputs of every bank transaction operation (the GraphQL fields' arguments). */
export const bankTransactionRules = {
  list: z.object({
    clientAccountId: id,
    bankAccountId: id.nullish(),
    fromDate: z.date().nullish(),
    toDate: z.date().nullish(),
    includeExternallyReconciled: z.boolean().nullish(),
    orderBy: orderByNames(BANK_TRANSACTION_ORDER),
    ...pageArgs,
  }),
  create: z.object({ input: transactionInput }),
  statements: z.object({ bankTransactionId: id }),
  createStatement: z.object({
    bankTransactionId: id,
    input: z
      .object({
        category: optionalText(100),
        businessPartnerId: id.nullish(),
        voucherId: id.nullish(),
        comment: optionalText(2000),
      })
      .nullish(),
  }),
  importStatement: z.object({
    input: z
      .object({
        clientAccountId: id,
        bankAccountId: id.nullish(),
        fromDate: z.date().nullish(),
        toDate: z.date().nullish(),
        openingBalance: decimal({ precision: 18, scale: 3 }).nullish(),
        closingBalance: decimal({ precision: 18, scale: 3 }).nullish(),
        transactions: z.array(statementTransactionInput).max(10_000, 'at most 10000 transactions').nullish(),
        camt053: z.string().max(MAX_CAMT053_LENGTH, `must be at most ${MAX_CAMT053_LENGTH} characters`).nullish(),
      })
      .superRefine((s, ctx) => {
        const add = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
        if (s.camt053 != null) {
          for (const f of ['fromDate', 'toDate', 'openingBalance', 'closingBalance', 'transactions'] as const) {
            if (s[f] != null) add(f, 'is read from the camt053 document: send one or the other');
          }
          return;
        }
        for (const f of ['bankAccountId', 'fromDate', 'toDate', 'openingBalance', 'closingBalance', 'transactions'] as const) {
          if (s[f] == null) add(f, 'is required (or send a camt053 document)');
        }
        if (s.fromDate instanceof Date && s.toDate instanceof Date && s.fromDate > s.toDate) add('toDate', 'must not be before from_date');
      }, evenWithIssues),
  }),
  statementList: z.object({ clientAccountId: id, bankAccountId: id.nullish(), ...pageArgs }),
  book: z.object({
    input: z
      .object({
        bankTransactionId: id,
        counterAccountId: id.nullish(),
        counterAccountCode: z.string().trim().min(1, 'must not be empty').max(10, 'must be at most 10 characters').nullish(),
        businessPartnerId: id.nullish(),
        amount: decimal({ precision: 18, scale: 3 })
          .refine((d) => d.isPositive() && !d.isZero(), 'must be greater than 0 (the side follows the transaction’s sign)')
          .nullish(),
        description: optionalText(1000),
        date: z.date().nullish(),
        /** open items the payment settles, reconciled with its counter line in the same transaction */
        reconcileWithLineIds: z.array(id).max(100, 'at most 100 open items').nullish(),
      })
      .superRefine((b, ctx) => {
        if (b.counterAccountId == null && b.counterAccountCode == null) ctx.addIssue({ code: 'custom', path: ['counterAccountCode'], message: 'counterAccountCode (or counterAccountId) is required' });
      }, evenWithIssues),
  }),
};
