import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { findPage, pageWindow, toOrderBy, type PageLimits } from '../../shared/pagination.ts';
import { fieldReferences } from '../../shared/references.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, checkUnique, parse, validate, type Args } from '../../shared/validation.ts';
import { ITEM_ORDER, itemRules as rules } from './items.rules.ts';

type Query = { include?: PrismaNS.ItemInclude; select?: PrismaNS.ItemSelect };

/** The rows an item's fields name. */
const REFERENCES = { salesUnitId: 'unit', stockUnitId: 'unit', taxCodeId: 'taxCode' } as const;

export const ITEM_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

export async function listItems(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, itemType, isActive = true, freeText, orderBy, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.ItemWhereInput = { clientAccountId };
  if (itemType) where.itemType = itemType;
  if (isActive !== null) where.isActive = isActive;
  const text = freeText?.trim();
  if (text) where.OR = [{ itemNo: { contains: text, mode: 'insensitive' } }, { name: { contains: text, mode: 'insensitive' } }];
  return findPage(
    pageWindow(window, ITEM_PAGE_LIMITS),
    (w) => ctx.db.item.findMany({ ...query, where, orderBy: toOrderBy(orderBy, ITEM_ORDER, ['item_no']), ...w }),
    () => ctx.db.item.count({ where }),
  );
}

export async function getItem(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Item', await ctx.db.item.findUnique({ ...query, where: { id } }));
}

/** Parsed item fields as columns: a null price stores 0, a null metadata SQL NULL. */
function columns<F extends { price?: PrismaNS.Decimal | null; metadata?: unknown }>({ price, metadata, ...rest }: F) {
  return {
    ...rest,
    ...(price !== undefined ? { price: price ?? 0 } : {}),
    ...(metadata !== undefined ? { metadata: metadata === null ? PrismaNS.DbNull : (metadata as PrismaNS.InputJsonValue) } : {}),
  };
}

export async function createItem(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const { input } = await check(tx, parsed, {
      clientAccountId,
      references: ({ input }) => fieldReferences(input, REFERENCES),
      check: ({ input }, _found, issues) => checkUnique(tx, issues, { model: 'item', what: 'item', clientAccountId, field: 'itemNo', value: input.itemNo }),
    });
    const user = auditUserId(tx);
    return tx.db.item.create({ ...query, data: { ...columns(input), createdById: user, updatedById: user } });
  });
}

export async function updateItem(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const item = await getItem(tx, args);
    const { input } = await check(tx, parsed, {
      clientAccountId: item.clientAccountId,
      immutable: { clientAccountId: item.clientAccountId },
      references: ({ input }) => fieldReferences(input, REFERENCES),
      check: ({ input }, _found, issues) =>
        checkUnique(tx, issues, { model: 'item', what: 'item', clientAccountId: item.clientAccountId, field: 'itemNo', value: input.itemNo, exceptId: item.id }),
    });
    const { clientAccountId: _immutable, ...fields } = input;
    return tx.db.item.update({ ...query, where: { id: item.id }, data: { ...columns(fields), updatedById: auditUserId(tx) } });
  });
}

/** DELETE deactivates: the record is kept (documents and collections may refer to it). */
export async function deactivateItem(ctx: RequestContext, args: { id: number }, query: Query = {}) {
  return inTransaction(ctx, async (tx) => {
    await getItem(tx, args);
    return tx.db.item.update({ ...query, where: { id: args.id }, data: { isActive: false, updatedById: auditUserId(tx) } });
  });
}
