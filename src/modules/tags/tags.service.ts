import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, checkUnique, parse, validate, type Args } from '../../shared/validation.ts';
import { tagRules as rules } from './tags.rules.ts';

type Query = { include?: PrismaNS.TagInclude; select?: PrismaNS.TagSelect };

export const TAG_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

export async function listTags(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, isActive = true, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.TagWhereInput = { clientAccountId };
  if (isActive !== null) where.isActive = isActive;
  return findPage(
    pageWindow(window, TAG_PAGE_LIMITS),
    (w) => ctx.db.tag.findMany({ ...query, where, orderBy: [{ name: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.tag.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getTag(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Tag', await ctx.db.tag.findUnique({ ...query, where: { id } }));
}

/** Tag names are unique within a client account. */
const uniqueName = (clientAccountId: number, name: string | undefined, exceptId?: number) =>
  ({ model: 'tag', what: 'tag', clientAccountId, field: 'name', value: name, exceptId }) as const;

export async function createTag(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const { input } = await check(tx, parsed, {
      check: ({ input }, _found, issues) => checkUnique(tx, issues, uniqueName(clientAccountId, input.name)),
    });
    const user = auditUserId(tx);
    return tx.db.tag.create({ ...query, data: { ...input, createdById: user, updatedById: user } });
  });
}

/** Only the fields sent change; isActive false deactivates the tag, true reactivates it. */
export async function updateTag(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const tag = await getTag(tx, args);
    const { input } = await check(tx, parsed, {
      immutable: { clientAccountId: tag.clientAccountId },
      check: ({ input }, _found, issues) => checkUnique(tx, issues, uniqueName(tag.clientAccountId, input.name, tag.id)),
    });
    const { clientAccountId: _immutable, ...fields } = input;
    return tx.db.tag.update({ ...query, where: { id: tag.id }, data: { ...fields, updatedById: auditUserId(tx) } });
  });
}
