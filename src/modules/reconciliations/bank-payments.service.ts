import { Decimal } from '@prisma/client/runtime/client';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { formatDate } from '../../shared/scalars.ts';
import { parse, type Args } from '../../shared/validation.ts';
import type { journalEntryRules } from '../journal-entries/journal-entries.rules.ts';
import { createJournalEntryInTx } from '../journal-entries/journal-entries.service.ts';
import { bankTransactionRules as rules, PAYMENT_RELATION_TYPE, remainingAmount } from '../bank-transactions/bank-transactions.rules.ts';
import { getBankTransaction } from '../bank-transactions/bank-transactions.service.ts';
import { reconcileInTx, type ReconcileLine } from './reconciliations.service.ts';

/**
 * Booking a payment: one journal entry (relation_type 'bank_transaction', relation_id the
 * transaction) between the bank account's ledger account and a counter account, and the booked
 * amount added to the transaction's external_reconciled_amount — together, in the caller's database
 * transaction. The transaction row is locked (FOR UPDATE) first, so two bookings of one transaction
 * run one after the other and the second sees what the first booked: it can never over-book.
 *
 * - amount: a positive amount in the transaction's currency; default what remains unbooked
 *   (amount − external_reconciled_amount); 400 when nothing remains or the amount exceeds it.
 * - the sides follow the transaction: incoming debits the bank and credits the counter account,
 *   outgoing credits the bank and debits the counter account.
 * - a transaction in a currency other than the accounting currency posts its lines in that currency
 *   at the transaction's exchange_rate (400 without one); the bank line carries the bankacc dimension,
 *   the counter line the businesspartner dimension when given.
 * - every rule of a journal entry applies (active accounts, mandatory dimensions, the lock date).
 *
 * Cancelling such an entry (and releasing the booked amount) is not handled here.
 */
export async function bookPaymentInTx(
  tx: RequestContext,
  args: {
    bankTransactionId: number;
    counterAccountId: number;
    businessPartnerId?: number | null;
    amount?: Decimal | null;
    description?: string | null;
    date?: Date | null;
  },
): Promise<{ journalEntryId: number; counterLineId: number }> {
  return bookPayment(tx, args);
}

async function bookPayment(
  ctx: RequestContext,
  args: {
    bankTransactionId: number;
    counterAccountId?: number | null;
    counterAccountCode?: string | null;
    businessPartnerId?: number | null;
    amount?: Decimal | null;
    description?: string | null;
    date?: Date | null;
  },
): Promise<{ journalEntryId: number; counterLineId: number }> {
  return inTransaction(ctx, async (tx) => {
    // tenancy first (403/404 before any lock), then the lock that serialises bookings of the transaction
    await getBankTransaction(tx, { id: args.bankTransactionId }, { select: { id: true, clientAccountId: true } });
    await tx.db.$queryRawUnsafe('SELECT id FROM bank_transactions WHERE id = $1 FOR UPDATE', args.bankTransactionId);
    const t = await tx.db.bankTransaction.findUniqueOrThrow({
      where: { id: args.bankTransactionId },
      select: {
        id: true,
        clientAccountId: true,
        bankAccountId: true,
        amount: true,
        externalReconciledAmount: true,
        currencyCode: true,
        exchangeRate: true,
        bookingDate: true,
        memo: true,
        payeeName: true,
        payorName: true,
        bankAccount: { select: { ledgerAccountId: true } },
        clientAccount: { select: { accountingCurrency: true } },
      },
    });
    const ledgerAccountId = t.bankAccount.ledgerAccountId;
    if (ledgerAccountId == null) throw ValidationError.field('bankTransactionId', `bank account ${t.bankAccountId} has no ledger account to post to: set its ledger_account_id`);

    const remaining = remainingAmount(t);
    const incoming = t.amount.isPositive();
    if (remaining.isZero() || remaining.isPositive() !== incoming) {
      throw ValidationError.field('bankTransactionId', `bank transaction ${t.id} is fully booked (${t.externalReconciledAmount.toFixed(2)} of ${t.amount.toFixed(2)} ${t.currencyCode.trim()})`);
    }
    const amount = args.amount ?? remaining.abs();
    if (amount.greaterThan(remaining.abs())) {
      throw ValidationError.field('amount', `${amount.toFixed(2)} exceeds what remains to book on bank transaction ${t.id}: ${remaining.abs().toFixed(2)} ${t.currencyCode.trim()}`);
    }

    const currency = t.currencyCode.trim();
    const foreign = currency !== t.clientAccount.accountingCurrency.trim();
    if (foreign && t.exchangeRate == null) {
      throw ValidationError.field('bankTransactionId', `bank transaction ${t.id} is in ${currency}, not the accounting currency: it needs an exchange_rate to be booked`);
    }
    const local = foreign ? amount.times(t.exchangeRate!).toDecimalPlaces(2, Decimal.ROUND_HALF_UP) : amount;
    const zero = new Decimal(0);
    const side = (debit: boolean) => ({
      debit: debit ? local : zero,
      credit: debit ? zero : local,
      ...(foreign ? { currencyCode: currency, exchangeRate: t.exchangeRate, debitFc: debit ? amount : zero, creditFc: debit ? zero : amount } : {}),
    });
    const postingDate = args.date ?? t.bookingDate;
    const counterparty = incoming ? t.payorName : t.payeeName;
    const description = args.description ?? (`${incoming ? 'Innbetaling' : 'Utbetaling'} ${formatDate(t.bookingDate)}${counterparty ? ` ${counterparty}` : ''}`.slice(0, 1000));
    const input: Args<typeof journalEntryRules.create>['input'] = {
      clientAccountId: t.clientAccountId,
      description,
      relationType: PAYMENT_RELATION_TYPE,
      relationId: t.id,
      lines: [
        { lineId: 1, postingDate, accountId: ledgerAccountId, ...side(incoming), dimensions: [{ type: 'bankacc', id: t.bankAccountId }] },
        {
          lineId: 2,
          postingDate,
          ...(args.counterAccountId != null ? { accountId: args.counterAccountId } : {}),
          ...(args.counterAccountCode != null ? { accountCode: args.counterAccountCode } : {}),
          ...side(!incoming),
          dimensions: args.businessPartnerId != null ? [{ type: 'businesspartner', id: args.businessPartnerId }] : [],
        },
      ],
    };
    const journalEntryId = await createJournalEntryInTx(tx, { input });
    const booked = incoming ? amount : amount.negated();
    await tx.db.bankTransaction.update({ where: { id: t.id }, data: { externalReconciledAmount: { increment: booked } }, select: { id: true } });
    const counter = await tx.db.journalEntryLine.findUniqueOrThrow({ where: { journalEntryId_lineId: { journalEntryId, lineId: 2 } }, select: { id: true } });
    return { journalEntryId, counterLineId: counter.id };
  });
}

type TransactionQuery = { include?: PrismaNS.BankTransactionInclude; select?: PrismaNS.BankTransactionSelect };

/** GraphQL bookBankTransaction: books a payment and answers the transaction as it is after. */
export async function bookBankTransaction(ctx: RequestContext, args: Args<typeof rules.book>, query: TransactionQuery = {}) {
  const { input } = parse(rules.book, args);
  await inTransaction(ctx, async (tx) => {
    const { journalEntryId, counterLineId } = await bookPayment(tx, input);
    if (input.reconcileWithLineIds?.length) await settleOpenItems(tx, journalEntryId, counterLineId, input.reconcileWithLineIds);
  });
  return ctx.db.bankTransaction.findUniqueOrThrow({ ...query, where: { id: input.bankTransactionId } });
}

/**
 * Reconciles a just-booked payment's counter line with the open items it settles: the payment is
 * spread over the items in the order given, each taking at most what is open on it (in the items'
 * currency, the payment's); the payment's line takes what the items took. Every reconciliation rule
 * applies (posted, not cancelled lines of the client account, the balance, the implied rate).
 */
async function settleOpenItems(tx: RequestContext, journalEntryId: number, counterLineId: number, lineIds: readonly number[]): Promise<void> {
  const counter = await tx.db.journalEntryLine.findUniqueOrThrow({ where: { id: counterLineId }, select: { debitFc: true, creditFc: true, postingDate: true, clientAccountId: true } });
  const items = await tx.db.journalEntryLine.findMany({
    where: { id: { in: [...lineIds] }, clientAccountId: counter.clientAccountId },
    select: { id: true, debitFc: true, creditFc: true, reconciledAmountFc: true },
  });
  const byId = new Map(items.map((l) => [l.id, l]));
  let left = counter.debitFc.plus(counter.creditFc);
  const entryLines: ReconcileLine[] = [];
  for (const [i, id] of lineIds.entries()) {
    const item = byId.get(id);
    // an unknown line goes to the reconciliation as it is, which answers the 400 naming it
    if (!item) {
      entryLines.push({ journalEntryLineId: id });
      continue;
    }
    const open = item.debitFc.plus(item.creditFc).minus(item.reconciledAmountFc);
    const take = Decimal.min(open, left);
    if (take.isZero() || take.isNegative()) throw ValidationError.field(['reconcileWithLineIds', String(i)], `journal entry line ${id}: nothing of the payment is left for it (or nothing of it is open)`);
    left = left.minus(take);
    entryLines.push(item.debitFc.isZero() ? { journalEntryLineId: id, creditFc: take } : { journalEntryLineId: id, debitFc: take });
  }
  const paid = counter.debitFc.plus(counter.creditFc).minus(left);
  entryLines.unshift(counter.debitFc.isZero() ? { journalEntryLineId: counterLineId, journalEntryId, creditFc: paid } : { journalEntryLineId: counterLineId, journalEntryId, debitFc: paid });
  await reconcileInTx(tx, { clientAccountId: counter.clientAccountId, date: counter.postingDate, entryLines });
}
