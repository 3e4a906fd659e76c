import type { z } from 'zod';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ConflictError } from '../../shared/errors.ts';
import type { FoundReferences } from '../../shared/references.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, type Args, type Issues } from '../../shared/validation.ts';
import { bankAccountRules as rules, DEFAULT_BANK_CURRENCY, DEFAULT_BANK_LEDGER_CODE, formatBankAccountNumber } from './bank-accounts.rules.ts';

type Query = { include?: PrismaNS.BankAccountInclude; select?: PrismaNS.BankAccountSelect };

/** The bank accounts of a client account, by id (a short list: not paged). */
export async function listBankAccounts(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, businessPartnerId, own, isActive = true } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.BankAccountWhereInput = { clientAccountId };
  if (businessPartnerId != null) where.businessPartnerId = businessPartnerId;
  else if (own != null) where.businessPartnerId = own ? null : { not: null };
  if (isActive !== null) where.isActive = isActive;
  return ctx.db.bankAccount.findMany({ ...query, where, orderBy: { id: 'asc' } });
}

export async function getBankAccount(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Bank account', await ctx.db.bankAccount.findUnique({ ...query, where: { id } }));
}

/** What a ledger account must be for an own bank account to post to it. */
const LEDGER = { id: true, code: true, accountType: true, isActive: true } as const;
type LedgerRow = { id: number; code: string; accountType: string; isActive: boolean };

interface Stored {
  id: number;
  businessPartnerId: number | null;
  ledgerAccountId: number | null;
}

/**
 * Where the account posts: a partner's account never; an own account to an active asset account of
 * the client account (given, kept, or 1920 by default). Returns the ledger column to write, if any.
 */
async function ledgerColumn(
  tx: RequestContext,
  clientAccountId: number,
  partnerId: number | null,
  given: number | null | undefined,
  stored: Stored | undefined,
  found: FoundReferences,
  issues: Issues,
): Promise<{ ledgerAccountId?: number | null }> {
  const path = ['ledgerAccountId'];
  if (partnerId != null) {
    if (given != null) issues.add(path, "must be omitted for a business partner's bank account (only the company's own accounts post to the ledger)");
    return stored?.ledgerAccountId != null || given === null ? { ledgerAccountId: null } : {};
  }
  if (given === null) {
    issues.add(path, "is required for the company's own bank accounts");
    return {};
  }
  if (given === undefined && stored?.ledgerAccountId != null) return {};
  const ledger =
    given !== undefined
      ? found.get<LedgerRow>('account', given)
      : await tx.db.account.findUnique({ where: { clientAccountId_code: { clientAccountId, code: DEFAULT_BANK_LEDGER_CODE } }, select: LEDGER });
  if (!ledger) {
    // a given account that is missing is already an issue of the reference check
    if (given === undefined) {
      issues.add(path, `is required for the company's own bank accounts (client account ${clientAccountId} has no account ${DEFAULT_BANK_LEDGER_CODE} to default to)`);
    }
    return {};
  }
  if (ledger.accountType !== 'ASSET') {
    issues.add(path, `must be a balance-sheet asset account such as ${DEFAULT_BANK_LEDGER_CODE}; account ${ledger.code} is of type ${ledger.accountType}`);
  } else if (!ledger.isActive) {
    issues.add(path, `ledger account ${ledger.code} is inactive`);
  }
  return { ledgerAccountId: ledger.id };
}

/** A number is registered once per client account (deactivated accounts keep theirs): 409 otherwise. */
async function assertNumberFree(tx: RequestContext, clientAccountId: number, accountNumber: string | undefined, exceptId?: number) {
  if (accountNumber === undefined) return;
  const clash = await tx.db.bankAccount.findUnique({ where: { clientAccountId_accountNumber: { clientAccountId, accountNumber } }, select: { id: true } });
  if (clash && clash.id !== exceptId) {
    throw new ConflictError(
      `Bank account number ${formatBankAccountNumber(accountNumber)} is already registered in client account ${clientAccountId} (bank account ${clash.id})`,
    );
  }
}

/** Checks a parsed create or update against the client account and returns the columns to write. */
async function columns(tx: RequestContext, parsed: z.output<typeof rules.create> | z.output<typeof rules.update>, clientAccountId: number, stored?: Stored) {
  let ledger: { ledgerAccountId?: number | null } = {};
  const { input } = await check(tx, parsed, {
    clientAccountId,
    immutable: stored ? { clientAccountId } : {},
    references: ({ input }) => [
      { path: ['businessPartnerId'], model: 'businessPartner', id: input?.businessPartnerId, select: { isSelf: true } },
      { path: ['ledgerAccountId'], model: 'account', id: input?.ledgerAccountId, select: LEDGER },
      { path: ['currencyCode'], model: 'currency', id: input?.currencyCode },
    ],
    check: async ({ input }, found, issues) => {
      await assertNumberFree(tx, clientAccountId, input.accountNumber, stored?.id);
      if (found.get<{ isSelf: boolean }>('businessPartner', input.businessPartnerId)?.isSelf) {
        issues.add(['businessPartnerId'], "is the company itself: the company's own bank accounts have no business partner (omit it)");
      }
      const partnerId = input.businessPartnerId !== undefined ? input.businessPartnerId : (stored?.businessPartnerId ?? null);
      ledger = await ledgerColumn(tx, clientAccountId, partnerId, input.ledgerAccountId, stored, found, issues);
    },
  });
  const { clientAccountId: _immutable, ledgerAccountId: _checked, currencyCode, ...fields } = input;
  return {
    ...fields,
    ...ledger,
    ...(currencyCode !== undefined || !stored ? { currencyCode: currencyCode ?? DEFAULT_BANK_CURRENCY } : {}),
  };
}

export async function createBankAccount(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const data = await columns(tx, parsed, clientAccountId);
    const user = auditUserId(tx);
    return tx.db.bankAccount.create({
      ...query,
      data: { ...(data as PrismaNS.BankAccountUncheckedCreateInput), clientAccountId, createdById: user, updatedById: user },
    });
  });
}

export async function updateBankAccount(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const stored = await getBankAccount(tx, args);
    const data = await columns(tx, parsed, stored.clientAccountId, stored);
    return tx.db.bankAccount.update({ ...query, where: { id: stored.id }, data: { ...data, updatedById: auditUserId(tx) } });
  });
}

/** Deactivation keeps the record (postings and payments may refer to it); the number stays taken. */
export async function deactivateBankAccount(ctx: RequestContext, args: { id: number }, query: Query = {}) {
  return inTransaction(ctx, async (tx) => {
    await getBankAccount(tx, args);
    return tx.db.bankAccount.update({ ...query, where: { id: args.id }, data: { isActive: false, updatedById: auditUserId(tx) } });
  });
}
