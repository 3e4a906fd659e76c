import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { DimensionType } from '../../generated/prisma/enums.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import type { Reference } from '../../shared/references.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, checkUnique, parse, validate, type Args } from '../../shared/validation.ts';
import { accountRules as rules, accountStateIssues, sortDimensions } from './ledger-accounts.rules.ts';

type Query = { include?: PrismaNS.AccountInclude; select?: PrismaNS.AccountSelect };

export const ACCOUNT_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 500 };

/** The chart of accounts of a client account, ordered by code (sub-accounts follow their parent). */
export async function listAccounts(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, accountType, isActive = true, codeFrom, codeTo, freeText, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const and: PrismaNS.AccountWhereInput[] = [{ clientAccountId }];
  if (accountType) and.push({ accountType });
  if (isActive !== null) and.push({ isActive });
  const from = codeFrom?.trim();
  if (from) and.push({ code: { gte: from } });
  const to = codeTo?.trim();
  if (to) and.push({ OR: [{ code: { lte: to } }, { code: { startsWith: to } }] });
  const text = freeText?.trim();
  if (text) and.push({ OR: [{ code: { contains: text } }, { name: { contains: text, mode: 'insensitive' } }] });
  const where = { AND: and };
  return findPage(
    pageWindow(window, ACCOUNT_PAGE_LIMITS),
    (w) => ctx.db.account.findMany({ ...query, where, orderBy: [{ code: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.account.count({ where }),
  );
}

export async function getAccount(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Account', await ctx.db.account.findUnique({ ...query, where: { id } }));
}

export async function getAccountByCode(ctx: RequestContext, { clientAccountId, code }: { clientAccountId: number; code: string }, query: Query = {}) {
  await requireAccount(ctx, clientAccountId);
  const account = await ctx.db.account.findUnique({ ...query, where: { clientAccountId_code: { clientAccountId, code: code.trim() } } });
  if (!account) throw new NotFoundError(`Account ${code}`);
  return account;
}

/** The tax codes an account's fields name: the default and each whitelisted code. */
const taxCodeReferences = (input: { defaultTaxCodeId?: number | null; allowedTaxCodeIds?: readonly (number | undefined)[] | null } | undefined): Reference[] => [
  { path: ['defaultTaxCodeId'], model: 'taxCode', id: input?.defaultTaxCodeId },
  ...(input?.allowedTaxCodeIds ?? []).map((id, i) => ({ path: ['allowedTaxCodeIds', i], model: 'taxCode' as const, id })),
];

/** The dimension set and the whitelist as nested writes that replace what is stored. */
function sets(input: { mandatoryDimensions?: DimensionType[] | null; allowedTaxCodeIds?: number[] | null }, replace: boolean) {
  const clear = replace ? { deleteMany: {} } : {};
  return {
    ...(input.mandatoryDimensions != null
      ? { mandatoryDimensions: { ...clear, create: sortDimensions(input.mandatoryDimensions).map((dimensionType) => ({ dimensionType })) } }
      : {}),
    ...(input.allowedTaxCodeIds != null
      ? { allowedTaxCodes: { ...clear, create: [...new Set(input.allowedTaxCodeIds)].map((taxCodeId) => ({ taxCodeId })) } }
      : {}),
  };
}

export async function createAccount(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const { input } = await check(tx, parsed, {
      clientAccountId,
      references: ({ input }) => taxCodeReferences(input),
      check: ({ input }, _found, issues) => checkUnique(tx, issues, { model: 'account', what: 'account', clientAccountId, field: 'code', value: input.code }),
    });
    const { mandatoryDimensions, allowedTaxCodeIds, ...fields } = input;
    return tx.db.account.create({ ...query, data: { ...fields, ...sets({ mandatoryDimensions, allowedTaxCodeIds }, false) } });
  });
}

/** Changes an account; code and client account are immutable. Dimension and whitelist sets are replaced. */
export async function updateAccount(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const whitelist = { allowedTaxCodes: { select: { taxCodeId: true } } } as const;
    const current = await requireOwned(tx, 'Account', await tx.db.account.findUnique({ where: { id: args.id }, include: whitelist }));
    const { input } = await check(tx, parsed, {
      clientAccountId: current.clientAccountId,
      immutable: { clientAccountId: current.clientAccountId, code: current.code },
      references: ({ input }) => taxCodeReferences(input),
      check: ({ input }, _found, issues) => {
        const pick = <K extends keyof typeof input & keyof typeof current>(key: K) => (input[key] !== undefined ? input[key] : current[key]);
        const next = {
          code: current.code,
          accountType: input.accountType ?? current.accountType,
          saftGroupingCategory: pick('saftGroupingCategory'),
          saftGroupingCode: pick('saftGroupingCode'),
          defaultTaxCodeId: pick('defaultTaxCodeId'),
          allowedTaxCodeIds: input.allowedTaxCodeIds ?? current.allowedTaxCodes.map((a) => a.taxCodeId),
        };
        for (const issue of accountStateIssues(next, input.accountType !== undefined)) issues.add(issue.path, issue.message);
      },
    });
    const { mandatoryDimensions, allowedTaxCodeIds, clientAccountId: _owner, code: _code, ...fields } = input;
    return tx.db.account.update({ ...query, where: { id: current.id }, data: { ...fields, ...sets({ mandatoryDimensions, allowedTaxCodeIds }, true) } });
  });
}
