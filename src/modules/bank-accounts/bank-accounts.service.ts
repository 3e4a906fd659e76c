import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { RequestContext } from '../../shared/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { digitsOnly } from '../../shared/norwegian-ids.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { bankAccountShapes, formatBankAccountNumber } from './bank-accounts.rules.ts';

/** The ledger account an own bank account posts to when none is given (bank deposits). */
export const DEFAULT_BANK_LEDGER_CODE = '1920';
export const DEFAULT_BANK_CURRENCY = 'NOK';

/** The client or a transaction's client: the create function works inside a caller's transaction too. */

type Query = { include?: PrismaNS.BankAccountInclude; select?: PrismaNS.BankAccountSelect };

export interface ListBankAccountsArgs {
  clientAccountId: number;
  businessPartnerId?: number | null;
  /** true: the company's own accounts; false: partners' accounts; null/omitted: both */
  own?: boolean | null;
  /** default true; null lists active and inactive accounts */
  isActive?: boolean | null;
}

export async function listBankAccounts(ctx: RequestContext, args: ListBankAccountsArgs, query: Query = {}) {
  await requireAccount(ctx, args.clientAccountId);
  const where: PrismaNS.BankAccountWhereInput = { clientAccountId: args.clientAccountId };
  if (args.businessPartnerId != null) {
    if (args.own === true) throw ValidationError.field('own', "own accounts have no business partner: do not combine own: true with businessPartnerId");
    where.businessPartnerId = args.businessPartnerId;
  } else if (args.own != null) {
    where.businessPartnerId = args.own ? null : { not: null };
  }
  const isActive = args.isActive === undefined ? true : args.isActive;
  if (isActive !== null) where.isActive = isActive;
  return ctx.db.bankAccount.findMany({ ...query, where, orderBy: { id: 'asc' } });
}

export async function getBankAccount(ctx: RequestContext, id: number, query: Query = {}) {
  return requireOwned(ctx, 'Bank account', await ctx.db.bankAccount.findUnique({ ...query, where: { id } }));
}

export interface BankAccountFields {
  /** null: one of the company's own accounts; otherwise a partner of the same client account */
  businessPartnerId?: number | null;
  name?: string | null;
  /** 11 digits with a mod-11 check digit; "1503.20.12342" and spaces are accepted, digits are stored */
  accountNumber?: string | null;
  /** ISO 9362, upper case */
  bic?: string | null;
  /** ISO 4217 code from the currencies table; NOK when omitted */
  currencyCode?: string | null;
  /**
   * Own accounts only: an active ASSET account of the same client account. Omitted on an own
   * account without one: the account with code 1920. Partners' accounts have none.
   */
  ledgerAccountId?: number | null;
}

export interface CreateBankAccountInput extends BankAccountFields {
  clientAccountId: number;
  accountNumber: string;
}

export interface UpdateBankAccountInput extends BankAccountFields {
  /** accepted only when equal to the account's own: clientAccountId is immutable */
  clientAccountId?: number | null;
  /** true reactivates a deactivated account */
  isActive?: boolean | null;
}

function check<S extends z.ZodType>(schema: S, path: string, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw ValidationError.field(path, result.error.issues[0]?.message ?? 'is invalid');
  return result.data;
}

interface Current {
  id: number;
  businessPartnerId: number | null;
  ledgerAccountId: number | null;
}

/**
 * Checks the fields of a bank account against its client account; `current` is the stored row on
 * update. Returns the columns to write.
 */
async function resolveFields(
  prisma: Db,
  clientAccountId: number,
  f: BankAccountFields,
  current?: Current,
): Promise<PrismaNS.BankAccountUncheckedUpdateInput> {
  const data: PrismaNS.BankAccountUncheckedUpdateInput = {};
  if (f.accountNumber !== undefined) {
    const accountNumber = digitsOnly(check(bankAccountShapes.accountNumber, 'accountNumber', f.accountNumber).trim());
    const clash = await prisma.bankAccount.findUnique({
      where: { clientAccountId_accountNumber: { clientAccountId, accountNumber } },
      select: { id: true },
    });
    if (clash && clash.id !== current?.id) {
      throw new ConflictError(
        `Bank account number ${formatBankAccountNumber(accountNumber)} is already registered in client account ${clientAccountId} (bank account ${clash.id})`,
      );
    }
    data.accountNumber = accountNumber;
  }
  if (f.name !== undefined) data.name = check(bankAccountShapes.name, 'name', f.name) || null;
  if (f.bic !== undefined) data.bic = check(bankAccountShapes.bic, 'bic', f.bic) || null;
  if (f.currencyCode !== undefined || !current) {
    const code = (check(bankAccountShapes.currencyCode, 'currencyCode', f.currencyCode) || DEFAULT_BANK_CURRENCY).toUpperCase();
    if (!(await prisma.currency.findUnique({ where: { code }, select: { id: true } }))) {
      throw ValidationError.field('currencyCode', `unknown currency '${code}'`);
    }
    data.currencyCode = code;
  }

  const partnerId = f.businessPartnerId !== undefined ? f.businessPartnerId : (current?.businessPartnerId ?? null);
  if (f.businessPartnerId != null) {
    const partner = await prisma.businessPartner.findUnique({
      where: { id: f.businessPartnerId },
      select: { clientAccountId: true, isSelf: true },
    });
    if (partner?.clientAccountId !== clientAccountId) {
      throw ValidationError.field('businessPartnerId', `business partner ${f.businessPartnerId} does not exist in client account ${clientAccountId}`);
    }
    if (partner.isSelf) {
      throw ValidationError.field('businessPartnerId', "is the company itself: the company's own bank accounts have no business partner (omit it)");
    }
  }
  if (f.businessPartnerId !== undefined) data.businessPartnerId = partnerId;

  if (partnerId != null) {
    // A partner's account: the company does not post to it.
    if (f.ledgerAccountId != null) {
      throw ValidationError.field('ledgerAccountId', "must be omitted for a business partner's bank account (only the company's own accounts post to the ledger)");
    }
    if (current?.ledgerAccountId != null || f.ledgerAccountId === null) data.ledgerAccountId = null;
    return data;
  }

  // One of the company's own accounts: it needs an asset account to post to.
  if (f.ledgerAccountId === null) throw ValidationError.field('ledgerAccountId', "is required for the company's own bank accounts");
  let ledgerAccountId = f.ledgerAccountId;
  if (ledgerAccountId === undefined) {
    if (current?.ledgerAccountId != null) return data;
    const fallback = await prisma.account.findUnique({
      where: { clientAccountId_code: { clientAccountId, code: DEFAULT_BANK_LEDGER_CODE } },
      select: { id: true },
    });
    if (!fallback) {
      throw ValidationError.field(
        'ledgerAccountId',
        `is required for the company's own bank accounts (client account ${clientAccountId} has no account ${DEFAULT_BANK_LEDGER_CODE} to default to)`,
      );
    }
    ledgerAccountId = fallback.id;
  }
  const ledger = await prisma.account.findUnique({
    where: { id: ledgerAccountId },
    select: { clientAccountId: true, code: true, accountType: true, isActive: true },
  });
  if (ledger?.clientAccountId !== clientAccountId) {
    throw ValidationError.field('ledgerAccountId', `ledger account ${ledgerAccountId} does not exist in client account ${clientAccountId}`);
  }
  if (ledger.accountType !== 'ASSET') {
    throw ValidationError.field(
      'ledgerAccountId',
      `must be a balance-sheet asset account such as ${DEFAULT_BANK_LEDGER_CODE}; account ${ledger.code} is of type ${ledger.accountType}`,
    );
  }
  if (!ledger.isActive) throw ValidationError.field('ledgerAccountId', `ledger account ${ledger.code} is inactive`);
  data.ledgerAccountId = ledgerAccountId;
  return data;
}

/**
 * Creates a bank account. No tenancy check: for trusted callers (admin CLI, seeds) and for
 * `createBankAccountAs`, which checks the actor's access first.
 */
export async function createBankAccount(prisma: Db, input: CreateBankAccountInput, options: { query?: Query; actorUserId?: number } = {}) {
  if (!(await prisma.clientAccount.findUnique({ where: { id: input.clientAccountId }, select: { id: true } }))) {
    throw new NotFoundError(`Client account ${input.clientAccountId}`);
  }
  if (input.accountNumber == null) throw ValidationError.field('accountNumber', 'is required');
  const data = await resolveFields(prisma, input.clientAccountId, input);
  return prisma.bankAccount.create({
    ...options.query,
    data: {
      ...(data as PrismaNS.BankAccountUncheckedCreateInput),
      clientAccountId: input.clientAccountId,
      createdById: options.actorUserId ?? null,
      updatedById: options.actorUserId ?? null,
    },
  });
}

/** createBankAccount on behalf of the request's actor (403 for an account they cannot access). */
export async function createBankAccountAs(ctx: RequestContext, input: CreateBankAccountInput, query: Query = {}) {
  await requireAccount(ctx, input.clientAccountId);
  return createBankAccount(ctx.db, input, { query, actorUserId: ctx.actor.userId });
}

export async function updateBankAccount(ctx: RequestContext, id: number, input: UpdateBankAccountInput, query: Query = {}) {
  const account = await getBankAccount(ctx, id);
  if (input.clientAccountId != null && input.clientAccountId !== account.clientAccountId) {
    throw ValidationError.field('clientAccountId', 'cannot be changed');
  }
  if (input.accountNumber === null) throw ValidationError.field('accountNumber', 'is required');
  const data = await resolveFields(ctx.db, account.clientAccountId, input, account);
  if (input.isActive != null) data.isActive = input.isActive;
  return ctx.db.bankAccount.update({ ...query, where: { id }, data: { ...data, updatedById: ctx.actor.userId } });
}

/** Deactivation keeps the record (postings and payments may refer to it); the number stays taken. */
export async function deactivateBankAccount(ctx: RequestContext, id: number, query: Query = {}) {
  await getBankAccount(ctx, id);
  return ctx.db.bankAccount.update({ ...query, where: { id }, data: { isActive: false, updatedById: ctx.actor.userId } });
}
