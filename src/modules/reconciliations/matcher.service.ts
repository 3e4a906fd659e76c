import { lockForTransaction } from '../../shared/advisory-locks.ts';
import { Decimal } from '@prisma/client/runtime/client';
import { ConflictError, ValidationError } from '../../shared/errors.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { requireAccount } from '../../shared/tenancy.ts';
import { reconcileInTx } from './reconciliations.service.ts';
import { OPEN_ITEM_SQL, REMAINING_SQL } from './reconciliations.rules.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { matcherRules, matchTransactions, type MatchRule, type MatchTransaction, type OpenItem, type Proposal } from './matcher.rules.ts';

/**
 * The internal automatic matching process (spec 001: "drafts come only from an internal automatic
 * matching process"): reads a client account's unbooked bank transactions and open items, runs the
 * rules of matcher.rules.ts and writes each proposal as a draft reconciliation, MATCHER_CHUNK of them
 * per transaction. Called by the `reconciliations.match` job (after bank transactions arrive) and the
 * `runReconciliationMatcher` mutation. Running it again proposes nothing new.
 */

/** Ledger account codes of open items: customer receivables and supplier payables (default chart). */
export const RECEIVABLES = '1500';
export const PAYABLES = '2400';

export interface WrittenProposal extends Proposal {
  reconciliationId: number;
}

export interface MatcherResult {
  proposed: number;
  proposals: WrittenProposal[];
}

/**
 * Proposals written per database transaction: a run on a large first import writes thousands, and one
 * transaction for all of them would outlast the transaction timeout while holding the lines it read.
 */
export const MATCHER_CHUNK = 100;

export async function runMatcher(ctx: RequestContext, args: Args<typeof matcherRules.run>): Promise<MatcherResult> {
  const { clientAccountId } = parse(matcherRules.run, args);
  await requireAccount(ctx, clientAccountId);
  const read = await inTransaction(ctx, async (tx) => {
    await lockForTransaction(tx, 'matcher', clientAccountId); // matcher runs per account serialised (a job and the mutation at once)
    // read after the lock: what another run proposed or someone reconciled is seen
    const taken = await loadTaken(tx, clientAccountId);
    const transactions = await loadTransactions(tx, clientAccountId);
    const openItems = await loadOpenItems(tx, clientAccountId);
    return { proposals: matchTransactions({ transactions, openItems, taken }), transactions, openItems };
  });
  const bookingDates = new Map(read.transactions.map((t) => [t.id, t.bookingDate]));
  const lines = new Map(read.openItems.map((i) => [i.journalEntryLineId, i]));
  const written: WrittenProposal[] = [];
  for (let at = 0; at < read.proposals.length; at += MATCHER_CHUNK) {
    await inTransaction(ctx, async (tx) => {
      await lockForTransaction(tx, 'matcher', clientAccountId); // matcher runs per account serialised (a job and the mutation at once)
      // a run that wrote between the read and now took these: never two drafts for one transaction or line
      const taken = await loadTaken(tx, clientAccountId);
      const takenTransactions = new Set(taken.transactionIds);
      const takenLines = new Set(taken.lineIds);
      const chunk = read.proposals
        .slice(at, at + MATCHER_CHUNK)
        .filter((p) => !takenTransactions.has(p.bankTransactionId) && p.lines.every((l) => !takenLines.has(l.journalEntryLineId)));
      const open = await lockOpenAmounts(tx, chunk.flatMap((p) => p.lines.map((l) => l.journalEntryLineId)));
      for (const p of chunk) {
        // reconciled or cancelled since it was read (a commit does not wait for the matcher's lock): skipped
        if (!p.lines.every((l) => open.get(l.journalEntryLineId)?.gte(l.amount))) {
          tx.logger.info({ bankTransactionId: p.bankTransactionId }, 'reconciliation matcher skipped a proposal whose line is no longer open');
          continue;
        }
        const reconciliationId = await skipWhenStale(tx, p, () =>
          writeProposal(tx, {
            clientAccountId,
            date: bookingDates.get(p.bankTransactionId)!,
            rule: p.rule,
            bankTransactionId: p.bankTransactionId,
            lines: p.lines.map((l) => {
              const item = lines.get(l.journalEntryLineId)!;
              return { journalEntryLineId: l.journalEntryLineId, journalEntryId: item.journalEntryId, side: item.side, amount: l.amount };
            }),
          }),
        );
        if (reconciliationId !== null) written.push({ ...p, reconciliationId });
      }
    });
  }
  if (written.length) ctx.logger.info({ clientAccountId, proposed: written.length }, 'reconciliation matcher proposed drafts');
  return { proposed: written.length, proposals: written };
}

/**
 * The open amounts of the proposed lines, read again and held (FOR SHARE) until the drafts are written:
 * a line reconciled or cancelled since the first read shows it, and none can change before the commit.
 */
async function lockOpenAmounts(tx: RequestContext, lineIds: number[]): Promise<Map<number, Decimal>> {
  if (!lineIds.length) return new Map();
  const rows = await tx.db.$queryRawUnsafe<{ id: number; remaining: Decimal | string }[]>(
    `SELECT l.id, ${REMAINING_SQL} AS remaining
       FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
      WHERE l.id = ANY($1::int[]) AND ${OPEN_ITEM_SQL}
      ORDER BY l.id
        FOR SHARE OF l, e`,
    lineIds,
  );
  return new Map(rows.map((r) => [r.id, new Decimal(r.remaining.toString())]));
}

/**
 * A proposal whose line was reconciled or cancelled after the matcher read it is refused by the
 * reconciliation service's checks (before it writes anything): it is skipped, not an error of the run.
 */
async function skipWhenStale(tx: RequestContext, p: Proposal, write: () => Promise<number>): Promise<number | null> {
  try {
    return await write();
  } catch (e) {
    if (!(e instanceof ValidationError || e instanceof ConflictError)) throw e;
    tx.logger.info({ bankTransactionId: p.bankTransactionId, err: e.message }, 'reconciliation matcher skipped a stale proposal');
    return null;
  }
}

// The reads below are flat, one statement each: Prisma loads sibling relations of one query
// concurrently, which a transaction's single connection can only queue (pg warns about it).

/** Bank transactions and journal lines already in a non-deleted draft: the rules leave them alone. */
async function loadTaken(tx: RequestContext, clientAccountId: number) {
  const draft = { clientAccountId, isDraft: true, deletedAt: null };
  const drafts = await tx.db.reconciliation.findMany({ where: { ...draft, bankTransactionId: { not: null } }, select: { bankTransactionId: true } });
  const entries = await tx.db.reconciliationEntry.findMany({ where: { reconciliation: draft }, select: { journalEntryLineId: true } });
  return { transactionIds: drafts.map((d) => d.bankTransactionId!), lineIds: entries.map((e) => e.journalEntryLineId) };
}

/**
 * The client account's bank transactions not yet fully booked (amount ≠ external_reconciled_amount),
 * with what identifies the other party: the payor of an incoming, the payee of an outgoing one, as the
 * transaction and its details name them. In the accounting currency only (open items' remaining amounts
 * are in it). Four statements (the currency, transactions, details, their bank accounts).
 */
async function loadTransactions(tx: RequestContext, clientAccountId: number): Promise<MatchTransaction[]> {
  const { accountingCurrency } = await tx.db.clientAccount.findUniqueOrThrow({ where: { id: clientAccountId }, select: { accountingCurrency: true } });
  const rows = (
    await tx.db.bankTransaction.findMany({
      // open items' remaining amounts are in the accounting currency: only such payments compare with them
      where: { clientAccountId, currencyCode: accountingCurrency, amount: { not: 0 } },
      orderBy: { id: 'asc' },
      select: {
        id: true,
        bookingDate: true,
        amount: true,
        externalReconciledAmount: true,
        currencyCode: true,
        payorName: true,
        payorBankAccountId: true,
        payeeName: true,
        payeeBankAccountId: true,
        memo: true,
      },
    })
  ).filter((r) => !r.amount.eq(r.externalReconciledAmount));
  if (!rows.length) return [];
  const details = await tx.db.bankTransactionDetail.findMany({
    where: { bankTransactionId: { in: rows.map((r) => r.id) } },
    orderBy: { id: 'asc' },
    select: {
      bankTransactionId: true,
      structuredReference: true,
      description: true,
      bankInformation: true,
      invoiceNumber: true,
      senderName: true,
      senderAccount: true,
      receiverName: true,
      receiverAccount: true,
    },
  });
  const accountIds = [...new Set(rows.flatMap((r) => [r.payorBankAccountId, r.payeeBankAccountId]).filter((v): v is number => v !== null))];
  const accounts = new Map(
    accountIds.length
      ? (await tx.db.bankAccount.findMany({ where: { id: { in: accountIds } }, select: { id: true, accountNumber: true } })).map((a) => [a.id, a.accountNumber])
      : [],
  );
  const detailsOf = new Map<number, typeof details>();
  for (const d of details) detailsOf.set(d.bankTransactionId, [...(detailsOf.get(d.bankTransactionId) ?? []), d]);
  const pick = (values: (string | null | undefined)[]) => values.find((v) => v && v.trim())?.trim() ?? null;
  return rows.map((r) => {
    const incoming = r.amount.gt(0);
    const ds = detailsOf.get(r.id) ?? [];
    const account = (id: number | null) => (id === null ? null : accounts.get(id));
    return {
      id: r.id,
      bookingDate: r.bookingDate,
      amount: r.amount,
      remaining: r.amount.sub(r.externalReconciledAmount),
      currencyCode: r.currencyCode,
      counterpartyName: incoming ? pick([r.payorName, ...ds.map((d) => d.senderName)]) : pick([r.payeeName, ...ds.map((d) => d.receiverName)]),
      counterpartyAccount: incoming
        ? pick([account(r.payorBankAccountId), ...ds.map((d) => d.senderAccount)])
        : pick([account(r.payeeBankAccountId), ...ds.map((d) => d.receiverAccount)]),
      structuredReferences: ds.flatMap((d) => (d.structuredReference ? [d.structuredReference] : [])),
      text: [r.memo, ...ds.flatMap((d) => [d.description, d.bankInformation, d.invoiceNumber])].filter(Boolean).join('\n'),
    };
  });
}

interface OpenItemRow {
  id: number;
  journal_entry_id: number;
  code: string;
  debit: Decimal | string;
  credit: Decimal | string;
  remaining: Decimal | string;
  currency_code: string;
  posting_date: Date;
  business_partner_id: number;
  partner_name: string;
  partner_accounts: string[] | null;
  document_number: string | null;
}

/**
 * Open items in one statement: posted lines on receivables and payables with a business partner, on
 * an entry that is neither cancelled nor a reversal, with an unreconciled amount; with the partner's
 * name and bank accounts and the document number of the entry's document.
 */
async function loadOpenItems(tx: RequestContext, clientAccountId: number): Promise<OpenItem[]> {
  const rows = await tx.db.$queryRawUnsafe<OpenItemRow[]>(
    `SELECT l.id, l.journal_entry_id, a.code, l.debit, l.credit,
            ${REMAINING_SQL} AS remaining,
            l.currency_code, l.posting_date, l.business_partner_id, bp.name AS partner_name,
            (SELECT array_agg(ba.account_number ORDER BY ba.id) FROM bank_accounts ba WHERE ba.business_partner_id = bp.id) AS partner_accounts,
            d.document_number
       FROM journal_entry_lines l
       JOIN journal_entries e ON e.id = l.journal_entry_id
       JOIN accounts a ON a.id = l.account_id
       JOIN business_partners bp ON bp.id = l.business_partner_id
       LEFT JOIN documents d ON e.relation_type = 'document' AND d.id = e.relation_id AND d.client_account_id = e.client_account_id
      WHERE l.client_account_id = $1
        AND a.code IN ($2, $3)
        AND ${OPEN_ITEM_SQL}
      ORDER BY l.posting_date, l.id`,
    clientAccountId,
    RECEIVABLES,
    PAYABLES,
  );
  return rows.map((r) => {
    const debit = new Decimal(r.debit.toString());
    const credit = new Decimal(r.credit.toString());
    return {
      journalEntryLineId: r.id,
      journalEntryId: r.journal_entry_id,
      kind: r.code === RECEIVABLES ? 'receivable' : 'payable',
      side: debit.gte(credit) ? 'debit' : 'credit',
      remaining: new Decimal(r.remaining.toString()),
      currencyCode: r.currency_code,
      postingDate: new Date(r.posting_date),
      partnerId: r.business_partner_id,
      partnerName: r.partner_name,
      partnerAccounts: r.partner_accounts ?? [],
      documentNumber: r.document_number,
    };
  });
}

export interface DraftProposal {
  clientAccountId: number;
  date: Date;
  rule: MatchRule;
  bankTransactionId: number;
  lines: { journalEntryLineId: number; journalEntryId: number; side: 'debit' | 'credit'; amount: Decimal }[];
}

/**
 * Writes one proposal as a draft reconciliation through the reconciliation service, with its rules:
 * no sequence number, nothing moved (the lines' reconciled amounts change only when a person
 * commits it, which books the payment too). Each entry is on its line's own side, in the accounting
 * currency (the matcher only matches lines in the transaction's currency).
 */
export function writeProposal(tx: RequestContext, proposal: DraftProposal): Promise<number> {
  return reconcileInTx(
    tx,
    {
      clientAccountId: proposal.clientAccountId,
      date: proposal.date,
      entryLines: proposal.lines.map((l) => ({ journalEntryLineId: l.journalEntryLineId, journalEntryId: l.journalEntryId, [l.side]: l.amount })),
    },
    { isDraft: true, matchRule: proposal.rule, bankTransactionId: proposal.bankTransactionId },
  );
}
