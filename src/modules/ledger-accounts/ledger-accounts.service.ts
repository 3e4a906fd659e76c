import type { Tx } from '../../db/database.ts';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { AccountType, DimensionType } from '../../generated/prisma/enums.ts';
import type { RequestContext } from '../../shared/context.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { checkedPageWindow, type PageSource } from '../../shared/pagination.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { accountCodeError, isTaxCodeAllowed, saftGroupingError, sortDimensions } from './ledger-accounts.rules.ts';

type Query = { include?: PrismaNS.AccountInclude; select?: PrismaNS.AccountSelect };

export interface ListAccountsArgs {
  clientAccountId: number;
  accountType?: AccountType | null;
  /** default true; null lists active and inactive accounts */
  isActive?: boolean | null;
  /** lowest code, inclusive */
  codeFrom?: string | null;
  /** highest code, inclusive, together with its sub-accounts (codeTo 1999 includes 19990) */
  codeTo?: string | null;
  /** matches code and name, case-insensitive */
  freeText?: string | null;
  page?: number | null;
  perPage?: number | null;
}

/** The chart of accounts of a client account, ordered by code (sub-accounts follow their parent). */
export async function listAccounts(ctx: RequestContext, args: ListAccountsArgs): Promise<PageSource> {
  await requireAccount(ctx, args.clientAccountId);
  const and: PrismaNS.AccountWhereInput[] = [{ clientAccountId: args.clientAccountId }];
  if (args.accountType) and.push({ accountType: args.accountType });
  const isActive = args.isActive === undefined ? true : args.isActive;
  if (isActive !== null) and.push({ isActive });
  const from = args.codeFrom?.trim();
  if (from) and.push({ code: { gte: from } });
  const to = args.codeTo?.trim();
  if (to) and.push({ OR: [{ code: { lte: to } }, { code: { startsWith: to } }] });
  const text = args.freeText?.trim();
  if (text) and.push({ OR: [{ code: { contains: text } }, { name: { contains: text, mode: 'insensitive' } }] });
  return {
    where: { AND: and },
    orderBy: [{ code: 'asc' }, { id: 'asc' }],
    window: checkedPageWindow(args, { defaultPerPage: 100, maxPerPage: 500 }),
  };
}

export async function getAccount(ctx: RequestContext, id: number, query: Query = {}) {
  return requireOwned(ctx, 'Account', await ctx.db.account.findUnique({ ...query, where: { id } }));
}

export async function getAccountByCode(ctx: RequestContext, clientAccountId: number, code: string, query: Query = {}) {
  await requireAccount(ctx, clientAccountId);
  const account = await ctx.db.account.findUnique({ ...query, where: { clientAccountId_code: { clientAccountId, code: code.trim() } } });
  if (!account) throw new NotFoundError(`Account ${code}`);
  return account;
}

interface AccountFields {
  name?: string | null;
  accountType?: AccountType | null;
  saftGroupingCategory?: string | null;
  saftGroupingCode?: string | null;
  defaultTaxCodeId?: number | null;
  isActive?: boolean | null;
  /** replaces the set */
  mandatoryDimensions?: readonly DimensionType[] | null;
  /** replaces the whitelist; empty allows any tax code */
  allowedTaxCodeIds?: readonly number[] | null;
}

export interface CreateAccountInput extends AccountFields {
  clientAccountId: number;
  code: string;
  name: string;
  accountType: AccountType;
}

export interface UpdateAccountInput extends AccountFields {
  /** accepted only when equal to the account's own: immutable */
  clientAccountId?: number | null;
  /** accepted only when equal to the account's own: immutable */
  code?: string | null;
}

/** The tax codes that are not in the client account, of those given. */
async function foreignTaxCodes(tx: Tx, clientAccountId: number, ids: readonly number[]): Promise<number[]> {
  if (!ids.length) return [];
  const found = await tx.taxCode.findMany({ where: { id: { in: [...ids] }, clientAccountId }, select: { id: true } });
  const own = new Set(found.map((t) => t.id));
  return ids.filter((id) => !own.has(id));
}

interface AccountState {
  clientAccountId: number;
  code: string;
  accountType: AccountType;
  saftGroupingCategory: string | null;
  saftGroupingCode: string | null;
  defaultTaxCodeId: number | null;
  allowedTaxCodeIds: number[];
}

/**
 * Checks the account as it will be after the change (`next`): code and type agree, SAF-T grouping is
 * both-or-neither, tax codes belong to the client account, and the default tax code is whitelisted.
 */
async function checkAccount(tx: Tx, next: AccountState, changed: AccountFields): Promise<void> {
  const codeError = accountCodeError(next.code, next.accountType);
  if (codeError) throw ValidationError.field(changed.accountType !== undefined ? 'accountType' : 'code', codeError);
  const saftError = saftGroupingError(next.saftGroupingCategory, next.saftGroupingCode);
  if (saftError) throw ValidationError.field('saftGroupingCode', saftError);
  if (changed.defaultTaxCodeId != null && (await foreignTaxCodes(tx, next.clientAccountId, [changed.defaultTaxCodeId])).length) {
    throw ValidationError.field('defaultTaxCodeId', `tax code ${changed.defaultTaxCodeId} does not exist in client account ${next.clientAccountId}`);
  }
  if (changed.allowedTaxCodeIds) {
    const foreign = await foreignTaxCodes(tx, next.clientAccountId, changed.allowedTaxCodeIds);
    if (foreign.length) {
      throw ValidationError.field('allowedTaxCodeIds', `tax code(s) ${foreign.join(', ')} do not exist in client account ${next.clientAccountId}`);
    }
  }
  const whitelist = { allowedTaxCodes: next.allowedTaxCodeIds.map((taxCodeId) => ({ taxCodeId })) };
  if (!isTaxCodeAllowed(whitelist, next.defaultTaxCodeId)) {
    throw ValidationError.field('defaultTaxCodeId', `the default tax code ${next.defaultTaxCodeId} must be one of the allowed tax codes`);
  }
}

const trimmedOrNull = (s: string | null | undefined): string | null => s?.trim() || null;

function requireName(name: string | null | undefined): string {
  const n = name?.trim();
  if (!n) throw ValidationError.field('name', 'must not be empty');
  if (n.length > 250) throw ValidationError.field('name', 'must be at most 250 characters');
  return n;
}

export async function createAccount(ctx: RequestContext, input: CreateAccountInput, query: Query = {}) {
  await requireAccount(ctx, input.clientAccountId);
  const code = input.code.trim();
  const allowed = [...new Set(input.allowedTaxCodeIds ?? [])];
  const next: AccountState = {
    clientAccountId: input.clientAccountId,
    code,
    accountType: input.accountType,
    saftGroupingCategory: trimmedOrNull(input.saftGroupingCategory),
    saftGroupingCode: trimmedOrNull(input.saftGroupingCode),
    defaultTaxCodeId: input.defaultTaxCodeId ?? null,
    allowedTaxCodeIds: allowed,
  };
  const name = requireName(input.name);
  return ctx.db.$transaction(async (tx) => {
    await checkAccount(tx, next, { ...input, allowedTaxCodeIds: allowed });
    const clash = await tx.account.findUnique({ where: { clientAccountId_code: { clientAccountId: input.clientAccountId, code } }, select: { id: true } });
    if (clash) throw ValidationError.field('code', `'${code}' is already used by account ${clash.id}`);
    return tx.account.create({
      ...query,
      data: {
        clientAccountId: next.clientAccountId,
        code,
        name,
        accountType: next.accountType,
        saftGroupingCategory: next.saftGroupingCategory,
        saftGroupingCode: next.saftGroupingCode,
        defaultTaxCodeId: next.defaultTaxCodeId,
        isActive: input.isActive ?? true,
        mandatoryDimensions: { create: sortDimensions(input.mandatoryDimensions ?? []).map((dimensionType) => ({ dimensionType })) },
        allowedTaxCodes: { create: allowed.map((taxCodeId) => ({ taxCodeId })) },
      },
    });
  });
}

/** Changes an account; code and client account are immutable. Dimension and whitelist sets are replaced. */
export async function updateAccount(ctx: RequestContext, id: number, input: UpdateAccountInput, query: Query = {}) {
  const current = await getAccount(ctx, id);
  if (input.clientAccountId != null && input.clientAccountId !== current.clientAccountId) {
    throw ValidationError.field('clientAccountId', 'cannot be changed');
  }
  if (input.code != null && input.code.trim() !== current.code) throw ValidationError.field('code', 'cannot be changed');
  for (const key of ['accountType', 'isActive'] as const) {
    if (input[key] === null) throw ValidationError.field(key, 'must not be null');
  }

  const data: PrismaNS.AccountUncheckedUpdateInput = {};
  if (input.name !== undefined) data.name = requireName(input.name);
  if (input.accountType != null) data.accountType = input.accountType;
  if (input.isActive != null) data.isActive = input.isActive;
  if (input.saftGroupingCategory !== undefined) data.saftGroupingCategory = trimmedOrNull(input.saftGroupingCategory);
  if (input.saftGroupingCode !== undefined) data.saftGroupingCode = trimmedOrNull(input.saftGroupingCode);
  if (input.defaultTaxCodeId !== undefined) data.defaultTaxCodeId = input.defaultTaxCodeId;
  const allowed = input.allowedTaxCodeIds == null ? null : [...new Set(input.allowedTaxCodeIds)];
  if (input.mandatoryDimensions != null) {
    data.mandatoryDimensions = {
      deleteMany: {},
      create: sortDimensions(input.mandatoryDimensions).map((dimensionType) => ({ dimensionType })),
    };
  }
  if (allowed) data.allowedTaxCodes = { deleteMany: {}, create: allowed.map((taxCodeId) => ({ taxCodeId })) };

  return ctx.db.$transaction(async (tx) => {
    // Re-read inside the transaction: the whitelist check needs the state the write will change.
    const now = await tx.account.findUniqueOrThrow({ where: { id }, include: { allowedTaxCodes: { select: { taxCodeId: true } } } });
    const next: AccountState = {
      clientAccountId: now.clientAccountId,
      code: now.code,
      accountType: (data.accountType as AccountType | undefined) ?? now.accountType,
      saftGroupingCategory: input.saftGroupingCategory !== undefined ? (data.saftGroupingCategory as string | null) : now.saftGroupingCategory,
      saftGroupingCode: input.saftGroupingCode !== undefined ? (data.saftGroupingCode as string | null) : now.saftGroupingCode,
      defaultTaxCodeId: input.defaultTaxCodeId !== undefined ? input.defaultTaxCodeId : now.defaultTaxCodeId,
      allowedTaxCodeIds: allowed ?? now.allowedTaxCodes.map((a) => a.taxCodeId),
    };
    await checkAccount(tx, next, { ...input, allowedTaxCodeIds: allowed });
    return tx.account.update({ ...query, where: { id }, data });
  });
}
