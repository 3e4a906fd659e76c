import { Decimal } from '@prisma/client/runtime/client';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { findPage, pageWindow, toOrderBy, type PageLimits } from '../../shared/pagination.ts';
import type { Reference } from '../../shared/references.ts';
import { formatDate } from '../../shared/scalars.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, Issues, parse, validate, type Args, type Path } from '../../shared/validation.ts';
import {
  BANK_TRANSACTION_DEFAULT_ORDER,
  BANK_TRANSACTION_ORDER,
  balanceMismatch,
  bankTransactionRules as rules,
  RECEIPT_QUESTION,
  statementTransactionInput,
  type StatementTransactionInput,
} from './bank-transactions.rules.ts';
import { parseCamt053, type Camt053Statement } from './camt053.ts';

type Query<I, S> = { include?: I; select?: S };
type TransactionQuery = Query<PrismaNS.BankTransactionInclude, PrismaNS.BankTransactionSelect>;
type StatementQuery = Query<PrismaNS.BankStatementInclude, PrismaNS.BankStatementSelect>;
type ExplanationQuery = Query<PrismaNS.BankTransactionStatementInclude, PrismaNS.BankTransactionStatementSelect>;

export const BANK_TRANSACTION_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };
export const BANK_STATEMENT_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

/**
 * Called inside the transaction that stored new bank transactions (POST /bank-transactions, a bank
 * statement import), with the client account: the place for follow-up work that must commit with them,
 * e.g. enqueueing the reconciliation matcher (`reconciliations.match` with `{ clientAccountId }`),
 * which the reconciliations module registers here.
 */
export const afterBankTransactionsArrive: ((tx: RequestContext, clientAccountId: number) => Promise<void>)[] = [];

async function arrived(tx: RequestContext, clientAccountId: number): Promise<void> {
  for (const hook of afterBankTransactionsArrive) await hook(tx, clientAccountId);
}

// ── Reading ──────────────────────────────────────────────────────────────────────────────────────

/**
 * spec 001 "Bank transactions": a client account's transactions, booking date and amount ascending by
 * default. Without include_externally_reconciled, transactions fully booked (external_reconciled_amount
 * equal to amount) are left out: the list is the work still to do.
 */
export async function listBankTransactions(ctx: RequestContext, args: Args<typeof rules.list>, query: TransactionQuery = {}) {
  const { clientAccountId, bankAccountId, fromDate, toDate, includeExternallyReconciled, orderBy, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.BankTransactionWhereInput = { clientAccountId };
  if (bankAccountId != null) where.bankAccountId = bankAccountId;
  if (fromDate || toDate) where.bookingDate = { ...(fromDate ? { gte: fromDate } : {}), ...(toDate ? { lte: toDate } : {}) };
  if (!includeExternallyReconciled) where.NOT = [{ externalReconciledAmount: { equals: ctx.db.bankTransaction.fields.amount } }];
  return findPage(
    pageWindow(window, BANK_TRANSACTION_PAGE_LIMITS),
    (w) => ctx.db.bankTransaction.findMany({ ...query, where, orderBy: toOrderBy(orderBy, BANK_TRANSACTION_ORDER, BANK_TRANSACTION_DEFAULT_ORDER), ...w }),
    () => ctx.db.bankTransaction.count({ where }),
  );
}

export async function getBankTransaction(ctx: RequestContext, { id }: { id: number }, query: TransactionQuery = {}) {
  return requireOwned(ctx, `Bank transaction ${id}`, await ctx.db.bankTransaction.findUnique({ ...query, where: { id } }));
}

/** GET /bank-transactions/{id}/statements: the explanations given for a transaction, oldest first. */
export async function listBankTransactionStatements(ctx: RequestContext, args: Args<typeof rules.statements>, query: ExplanationQuery = {}) {
  const { bankTransactionId } = parse(rules.statements, args);
  await getBankTransaction(ctx, { id: bankTransactionId }, { select: { id: true, clientAccountId: true } });
  return ctx.db.bankTransactionStatement.findMany({ ...query, where: { bankTransactionId }, orderBy: { id: 'asc' } });
}

export async function listBankStatements(ctx: RequestContext, args: Args<typeof rules.statementList>, query: StatementQuery = {}) {
  const { clientAccountId, bankAccountId, ...window } = parse(rules.statementList, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.BankStatementWhereInput = { clientAccountId, ...(bankAccountId != null ? { bankAccountId } : {}) };
  return findPage(
    pageWindow(window, BANK_STATEMENT_PAGE_LIMITS),
    (w) => ctx.db.bankStatement.findMany({ ...query, where, orderBy: [{ fromDate: 'desc' }, { id: 'desc' }], ...w }),
    () => ctx.db.bankStatement.count({ where }),
  );
}

export async function getBankStatement(ctx: RequestContext, { id }: { id: number }, query: StatementQuery = {}) {
  return requireOwned(ctx, `Bank statement ${id}`, await ctx.db.bankStatement.findUnique({ ...query, where: { id } }));
}

// ── Transactions: checked input to rows ──────────────────────────────────────────────────────────

type OwnAccount = { id: number; businessPartnerId: number | null; currencyCode: string };
const ACCOUNT_SELECT = { businessPartnerId: true, currencyCode: true } as const;

/** The references of a transaction's fields: its bank accounts (same client account) and currencies. */
function transactionReferences(t: Partial<StatementTransactionInput> | undefined, at: Path): Reference[] {
  if (!t) return [];
  return [
    { path: [...at, 'payeeBankAccountId'], model: 'bankAccount', id: t.payeeBankAccountId, select: ACCOUNT_SELECT },
    { path: [...at, 'payorBankAccountId'], model: 'bankAccount', id: t.payorBankAccountId, select: ACCOUNT_SELECT },
    { path: [...at, 'currencyCode'], model: 'currency', id: t.currencyCode },
    { path: [...at, 'instructedCurrencyCode'], model: 'currency', id: t.instructedCurrencyCode },
  ];
}

/**
 * spec 001 "Create body": the company's own account is the payee of an incoming (amount > 0) and the
 * payor of an outgoing transaction; it is required, must be a bank account of the client account
 * without a business partner, and the amount is in its currency. Returns the own account's id.
 */
function ownAccountOf(
  t: StatementTransactionInput,
  at: Path,
  found: { get<T>(model: 'bankAccount', id: number | null | undefined): T | undefined },
  issues: Issues,
): number | undefined {
  const field = t.amount.isPositive() ? 'payeeBankAccountId' : 'payorBankAccountId';
  const given = t[field];
  if (given == null) {
    issues.add([...at, field], `is required when amount is ${t.amount.isPositive() ? 'positive (incoming)' : 'negative (outgoing)'}: the company's bank account`);
    return undefined;
  }
  const account = found.get<OwnAccount>('bankAccount', given);
  if (!account) return undefined; // the reference check named it
  if (account.businessPartnerId !== null) {
    issues.add([...at, field], `bank account ${given} belongs to business partner ${account.businessPartnerId}: name one of the company's own bank accounts`);
    return undefined;
  }
  if (account.currencyCode.trim() !== t.currencyCode) {
    issues.add([...at, 'currencyCode'], `must be ${account.currencyCode.trim()}, the currency of bank account ${given} (amounts are in the account's currency)`);
  }
  return given;
}

/** Entry references already stored for a bank account (an import skips them; a create refuses them). */
async function seenReferences(tx: RequestContext, bankAccountId: number, refs: (string | null | undefined)[]): Promise<Map<string, number>> {
  const wanted = [...new Set(refs.filter((r): r is string => !!r))];
  if (!wanted.length) return new Map();
  const rows = await tx.db.bankTransaction.findMany({ where: { bankAccountId, entryReference: { in: wanted } }, select: { id: true, entryReference: true } });
  return new Map(rows.map((r) => [r.entryReference!, r.id]));
}

/** Writes one transaction with its detail records; an outgoing one opens the ATTACH_FILE question. */
async function insertTransaction(
  tx: RequestContext,
  where: { clientAccountId: number; bankAccountId: number; bankStatementId: number | null; statementUuid: string | null },
  t: StatementTransactionInput,
): Promise<number> {
  const { details, id: _id, externalReconciledAmount: _ignored, ...fields } = t;
  const row = await tx.db.bankTransaction.create({
    data: {
      ...fields,
      clientAccountId: where.clientAccountId,
      bankAccountId: where.bankAccountId,
      bankStatementId: where.bankStatementId,
      createdById: auditUserId(tx),
      details: details?.length ? { create: details.map((d) => ({ ...d, statementUuid: where.statementUuid })) } : undefined,
      questions: t.amount.isNegative() ? { create: [{ clientAccountId: where.clientAccountId, questionType: 'ATTACH_FILE', text: RECEIPT_QUESTION }] } : undefined,
    },
    select: { id: true },
  });
  return row.id;
}

// ── Writing ──────────────────────────────────────────────────────────────────────────────────────

/** POST /bank-transactions: one transaction, not on a statement. */
export async function createBankTransaction(ctx: RequestContext, args: Args<typeof rules.create>, query: TransactionQuery = {}) {
  const parsed = parse(rules.create, args);
  const id = await inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    let bankAccountId = 0;
    const { input } = await check(tx, parsed, {
      clientAccountId,
      references: ({ input }) => transactionReferences(input as Partial<StatementTransactionInput>, []),
      check: async ({ input }, found, issues) => {
        bankAccountId = ownAccountOf(input, [], found as never, issues) ?? 0;
        if (bankAccountId && input.entryReference) {
          const seen = (await seenReferences(tx, bankAccountId, [input.entryReference])).get(input.entryReference);
          if (seen) issues.add(['entryReference'], `'${input.entryReference}' is already bank transaction ${seen} of bank account ${bankAccountId}`);
        }
      },
    });
    const { clientAccountId: _c, ...transaction } = input;
    const created = await insertTransaction(tx, { clientAccountId, bankAccountId, bankStatementId: null, statementUuid: null }, transaction);
    await arrived(tx, clientAccountId);
    return created;
  });
  return ctx.db.bankTransaction.findUniqueOrThrow({ ...query, where: { id } });
}

/**
 * POST /bank-transactions/{id}/statements: a person's explanation of a transaction. It closes every
 * open ATTACH_FILE or STATEMENT question of the transaction, in the same database transaction.
 */
export async function createBankTransactionStatement(ctx: RequestContext, args: Args<typeof rules.createStatement>, query: ExplanationQuery = {}) {
  const parsed = parse(rules.createStatement, args);
  const id = await inTransaction(ctx, async (tx) => {
    const parent = await getBankTransaction(tx, { id: args.bankTransactionId }, { select: { id: true, clientAccountId: true } });
    const { input } = await check(tx, parsed, {
      clientAccountId: parent.clientAccountId,
      references: ({ input }) => [{ path: ['businessPartnerId'], model: 'businessPartner', id: input?.businessPartnerId }],
    });
    const user = auditUserId(tx);
    const row = await tx.db.bankTransactionStatement.create({
      data: { ...(input ?? {}), clientAccountId: parent.clientAccountId, bankTransactionId: parent.id, createdById: user },
      select: { id: true },
    });
    await tx.db.bankTransactionQuestion.updateMany({
      where: { bankTransactionId: parent.id, status: 'OPEN', questionType: { in: ['ATTACH_FILE', 'STATEMENT'] } },
      data: { status: 'CLOSED', closedAt: new Date(), closedById: user },
    });
    return row.id;
  });
  return ctx.db.bankTransactionStatement.findUniqueOrThrow({ ...query, where: { id } });
}

/** A statement to write: its account, period and balances, and every transaction it lists. */
interface StatementToWrite {
  clientAccountId: number;
  bankAccountId: number;
  fromDate: Date;
  toDate: Date;
  openingBalance: Decimal;
  closingBalance: Decimal;
  source: 'JSON' | 'CAMT053';
  messageId: string | null;
  transactions: StatementTransactionInput[];
}

/**
 * Writes a checked statement: the transactions whose entry reference the bank account has seen are
 * skipped (a statement imported twice adds nothing twice), the others are stored on the statement.
 */
async function writeStatement(tx: RequestContext, s: StatementToWrite): Promise<{ id: number; imported: number; skipped: number }> {
  const seen = await seenReferences(tx, s.bankAccountId, s.transactions.map((t) => t.entryReference));
  const statement = await tx.db.bankStatement.create({
    data: {
      clientAccountId: s.clientAccountId,
      bankAccountId: s.bankAccountId,
      fromDate: s.fromDate,
      toDate: s.toDate,
      openingBalance: s.openingBalance,
      closingBalance: s.closingBalance,
      source: s.source,
      messageId: s.messageId,
      createdById: auditUserId(tx),
    },
    select: { id: true, statementUuid: true },
  });
  let imported = 0;
  for (const t of s.transactions) {
    if (t.entryReference && seen.has(t.entryReference)) continue;
    const id = await insertTransaction(tx, { clientAccountId: s.clientAccountId, bankAccountId: s.bankAccountId, bankStatementId: statement.id, statementUuid: statement.statementUuid }, t);
    if (t.entryReference) seen.set(t.entryReference, id);
    imported++;
  }
  if (imported) await arrived(tx, s.clientAccountId);
  return { id: statement.id, imported, skipped: s.transactions.length - imported };
}

/** The statement a camt.053 document describes, checked against the client account. */
async function camtStatement(tx: RequestContext, clientAccountId: number, bankAccountId: number | null | undefined, doc: Camt053Statement): Promise<StatementToWrite> {
  const issues = new Issues();
  const account = bankAccountId != null
    ? await tx.db.bankAccount.findFirst({ where: { id: bankAccountId, clientAccountId }, select: { id: true, accountNumber: true, businessPartnerId: true, currencyCode: true } })
    : doc.accountNumber
      ? await tx.db.bankAccount.findFirst({ where: { clientAccountId, accountNumber: doc.accountNumber, businessPartnerId: null }, select: { id: true, accountNumber: true, businessPartnerId: true, currencyCode: true } })
      : null;
  const named = doc.iban ?? doc.accountNumber ?? 'none';
  if (!account) {
    throw ValidationError.field(
      bankAccountId != null ? 'bankAccountId' : 'camt053',
      bankAccountId != null
        ? `bank account ${bankAccountId} does not exist in client account ${clientAccountId}`
        : `the statement's account (${named}) is none of client account ${clientAccountId}'s own bank accounts: register it or give bank_account_id`,
    );
  }
  if (account.businessPartnerId !== null) throw ValidationError.field('bankAccountId', `bank account ${account.id} belongs to a business partner: name one of the company's own`);
  if (bankAccountId != null && doc.accountNumber && doc.accountNumber !== account.accountNumber) {
    throw ValidationError.field('bankAccountId', `bank account ${account.id} is ${account.accountNumber}, but the statement is of account ${named}`);
  }
  const transactions = doc.entries.map((e, i) => {
    const raw = {
      ...e,
      payeeBankAccountId: e.amount.isPositive() ? account.id : null,
      payorBankAccountId: e.amount.isPositive() ? null : account.id,
      details: e.details,
    };
    const parsed = issues.parse(statementTransactionInput, raw, ['camt053', 'entries', i]);
    if (parsed && parsed.currencyCode !== account.currencyCode.trim()) {
      issues.add(['camt053', 'entries', i, 'currencyCode'], `${parsed.currencyCode} is not ${account.currencyCode.trim()}, the currency of bank account ${account.id}`);
    }
    return parsed!;
  });
  const mismatch = balanceMismatch(doc.openingBalance, doc.closingBalance, doc.entries.map((e) => e.amount));
  if (mismatch) issues.add(['camt053'], mismatch);
  issues.throwIfAny();
  const dates = doc.entries.map((e) => e.bookingDate.getTime());
  const fromDate = doc.fromDate ?? (dates.length ? new Date(Math.min(...dates)) : null);
  const toDate = doc.toDate ?? (dates.length ? new Date(Math.max(...dates)) : null);
  if (!fromDate || !toDate) throw ValidationError.field('camt053', 'has no FrToDt and no entries: the period is unknown');
  return {
    clientAccountId,
    bankAccountId: account.id,
    fromDate,
    toDate,
    openingBalance: doc.openingBalance,
    closingBalance: doc.closingBalance,
    source: 'CAMT053',
    messageId: [doc.messageId, doc.statementId].filter(Boolean).join('/').slice(0, 100) || null,
    transactions,
  };
}

/**
 * POST /bank-statements: a statement of one bank account with its transactions, as JSON or as a
 * camt.053 document, all in one database transaction (nothing is written when anything is wrong).
 * opening_balance + the transactions' amounts must equal closing_balance.
 */
export async function importBankStatement(ctx: RequestContext, args: Args<typeof rules.importStatement>, query: StatementQuery = {}) {
  const parsed = parse(rules.importStatement, args);
  const result = await inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const first = parsed.input;
    if (first.camt053 != null) return writeStatement(tx, await camtStatement(tx, clientAccountId, first.bankAccountId, parseCamt053(first.camt053)));

    let statement: StatementToWrite | undefined;
    await check(tx, parsed, {
      clientAccountId,
      references: ({ input }) => [
        { path: ['bankAccountId'], model: 'bankAccount', id: input?.bankAccountId, select: ACCOUNT_SELECT },
        ...(input?.transactions ?? []).flatMap((t, i) => transactionReferences(t as Partial<StatementTransactionInput>, ['transactions', i])),
      ],
      check: ({ input }, found, issues) => {
        const bankAccountId = input.bankAccountId!;
        const account = found.get<OwnAccount>('bankAccount', bankAccountId);
        if (account && account.businessPartnerId !== null) issues.add(['bankAccountId'], `bank account ${bankAccountId} belongs to business partner ${account.businessPartnerId}: name one of the company's own`);
        const transactions = input.transactions!.map((t, i) => {
          const at = ['transactions', i];
          const own = t.amount.isPositive() ? 'payeeBankAccountId' : 'payorBankAccountId';
          const filled = { ...t, [own]: t[own] ?? bankAccountId };
          if (filled[own] !== bankAccountId) issues.add([...at, own], `must be the statement's bank_account_id ${bankAccountId} (or omitted)`);
          else if (account) ownAccountOf(filled, at, { get: (<T>() => account as T) as never }, issues);
          if (t.bookingDate < input.fromDate! || t.bookingDate > input.toDate!) {
            issues.add([...at, 'bookingDate'], `${formatDate(t.bookingDate)} is outside the statement's period ${formatDate(input.fromDate!)} – ${formatDate(input.toDate!)}`);
          }
          return filled;
        });
        const mismatch = balanceMismatch(input.openingBalance!, input.closingBalance!, transactions.map((t) => t.amount));
        if (mismatch) issues.add(['closingBalance'], mismatch);
        statement = {
          clientAccountId,
          bankAccountId,
          fromDate: input.fromDate!,
          toDate: input.toDate!,
          openingBalance: input.openingBalance!,
          closingBalance: input.closingBalance!,
          source: 'JSON',
          messageId: null,
          transactions,
        };
      },
    });
    return writeStatement(tx, statement!);
  });
  const row = await ctx.db.bankStatement.findUniqueOrThrow({ ...query, where: { id: result.id } });
  return Object.assign(row, { imported: result.imported, skipped: result.skipped });
}
