import { builder } from '../../builder.ts';
import { bookBankTransaction } from './bank-payments.service.ts';

// Booking a bank transaction's payment (spec 001 "Bank transactions": POST
// /bank-transactions/{id}/book): a journal entry and, with reconcile_with_line_ids, its
// reconciliations in one transaction. Here, with the reconciliations it writes, so the bank
// transactions module does not depend on the reconciliations module.

const BookBankTransactionInput = builder.inputType('BookBankTransactionInput', {
  fields: (t) => ({
    bankTransactionId: t.int({ required: true }),
    counterAccountCode: t.string({ description: 'The counter ledger account by code (e.g. 1500, 2400), or counterAccountId' }),
    counterAccountId: t.int(),
    businessPartnerId: t.int({ description: 'The businesspartner dimension of the counter line (required by accounts such as 1500 and 2400)' }),
    amount: t.field({ type: 'Decimal', description: 'Positive, in the transaction’s currency; default what remains unbooked' }),
    description: t.string(),
    date: t.field({ type: 'Date', description: "The posting date; default the transaction's booking date" }),
    reconcileWithLineIds: t.intList({
      description:
        'Open items (journal line ids, e.g. the invoices’ 1500 lines) the payment settles: reconciled with its counter line in the same transaction, each up to what is open on it, in the order given',
    }),
  }),
});

builder.mutationFields((t) => ({
  bookBankTransaction: t.prismaField({
    type: 'BankTransaction',
    description:
      "Books a payment: one posted journal entry between the bank account's ledger account and the counter account for the amount (default: what remains), added to external_reconciled_amount.",
    args: { input: t.arg({ type: BookBankTransactionInput, required: true }) },
    resolve: (query, _root, args, ctx) => bookBankTransaction(ctx, args, query),
  }),
}));
