import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { AutonomyLevel, ItemType } from '../../generated/prisma/enums.ts';
import type { RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { checkDecimal } from '../../shared/decimals.ts';
import { checkedPageWindow, parseOrderBy, type PageSource } from '../../shared/pagination.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import type { Decimal } from '../../shared/scalars.ts';

/** spec 001 "Items and units": order_by names (description orders by the item's name). */
export const ITEM_ORDER: Record<string, string> = {
  id: 'id',
  item_no: 'itemNo',
  name: 'name',
  description: 'name',
  item_type: 'itemType',
  price: 'price',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

export interface ListItemsArgs {
  clientAccountId: number;
  itemType?: ItemType | null;
  /** default true; null lists active and inactive items */
  isActive?: boolean | null;
  freeText?: string | null;
  orderBy?: readonly string[] | null;
  page?: number | null;
  perPage?: number | null;
}

export async function listItems(ctx: RequestContext, args: ListItemsArgs): Promise<PageSource> {
  await requireAccount(ctx, args.clientAccountId);
  const where: PrismaNS.ItemWhereInput = { clientAccountId: args.clientAccountId };
  if (args.itemType) where.itemType = args.itemType;
  const isActive = args.isActive === undefined ? true : args.isActive;
  if (isActive !== null) where.isActive = isActive;
  const text = args.freeText?.trim();
  if (text) {
    where.OR = [{ itemNo: { contains: text, mode: 'insensitive' } }, { name: { contains: text, mode: 'insensitive' } }];
  }
  return {
    where,
    orderBy: parseOrderBy(args.orderBy, ITEM_ORDER, ['item_no']),
    window: checkedPageWindow(args, { defaultPerPage: 50, maxPerPage: 100 }),
  };
}

type Query = { include?: PrismaNS.ItemInclude; select?: PrismaNS.ItemSelect };

export async function getItem(ctx: RequestContext, id: number, query: Query = {}) {
  return requireOwned(ctx, 'Item', await ctx.db.item.findUnique({ ...query, where: { id } }));
}

export interface ItemFields {
  itemNo?: string | null;
  name?: string | null;
  itemType?: ItemType | null;
  salesUnitId?: number | null;
  stockUnitId?: number | null;
  taxCodeId?: number | null;
  price?: Decimal | null;
  metadata?: unknown;
  autonomyLevel?: AutonomyLevel | null;
}

export interface CreateItemInput extends ItemFields {
  clientAccountId: number;
  itemNo: string;
  salesUnitId: number;
  taxCodeId: number;
}

export interface UpdateItemInput extends ItemFields {
  /** accepted only when equal to the item's own: client_account_id is immutable */
  clientAccountId?: number | null;
  isActive?: boolean | null;
}

/** Checks the references and values of an item's fields against its client account. */
async function validate(ctx: RequestContext, clientAccountId: number, f: ItemFields, itemId?: number): Promise<PrismaNS.ItemUncheckedUpdateInput> {
  const data: PrismaNS.ItemUncheckedUpdateInput = {};
  if (f.itemNo !== undefined) {
    const itemNo = f.itemNo?.trim();
    if (!itemNo) throw ValidationError.field('itemNo', 'must not be empty');
    const clash = await ctx.db.item.findUnique({ where: { clientAccountId_itemNo: { clientAccountId, itemNo } }, select: { id: true } });
    if (clash && clash.id !== itemId) throw ValidationError.field('itemNo', `'${itemNo}' is already used by item ${clash.id}`);
    data.itemNo = itemNo;
  }
  if (f.name !== undefined) data.name = f.name;
  if (f.itemType !== undefined) {
    if (f.itemType === null) throw ValidationError.field('itemType', 'must be ITEM or SERVICE');
    data.itemType = f.itemType;
  }
  for (const key of ['salesUnitId', 'stockUnitId'] as const) {
    const id = f[key];
    if (id === undefined) continue;
    if (id === null) {
      if (key === 'salesUnitId') throw ValidationError.field(key, 'is required');
      data[key] = null;
      continue;
    }
    if (!(await ctx.db.unit.findUnique({ where: { id }, select: { id: true } }))) throw ValidationError.field(key, `unit ${id} does not exist`);
    data[key] = id;
  }
  if (f.taxCodeId !== undefined) {
    if (f.taxCodeId === null) throw ValidationError.field('taxCodeId', 'is required');
    const code = await ctx.db.taxCode.findUnique({ where: { id: f.taxCodeId }, select: { clientAccountId: true } });
    if (code?.clientAccountId !== clientAccountId) throw ValidationError.field('taxCodeId', `tax code ${f.taxCodeId} does not exist in client account ${clientAccountId}`);
    data.taxCodeId = f.taxCodeId;
  }
  if (f.price !== undefined) data.price = f.price === null ? 0 : checkDecimal('price', f.price, { precision: 18, scale: 6 });
  if (f.metadata !== undefined) {
    if (f.metadata !== null && (typeof f.metadata !== 'object' || Array.isArray(f.metadata))) {
      throw ValidationError.field('metadata', 'must be a JSON object or null');
    }
    data.metadata = f.metadata === null ? PrismaNS.DbNull : (f.metadata as PrismaNS.InputJsonValue);
  }
  if (f.autonomyLevel !== undefined) data.autonomyLevel = f.autonomyLevel;
  return data;
}

export async function createItem(ctx: RequestContext, input: CreateItemInput, query: Query = {}) {
  await requireAccount(ctx, input.clientAccountId);
  const data = await validate(ctx, input.clientAccountId, input);
  return ctx.db.item.create({
    ...query,
    data: {
      ...(data as PrismaNS.ItemUncheckedCreateInput),
      clientAccountId: input.clientAccountId,
      createdById: ctx.actor.userId,
      updatedById: ctx.actor.userId,
    },
  });
}

export async function updateItem(ctx: RequestContext, id: number, input: UpdateItemInput, query: Query = {}) {
  const item = await getItem(ctx, id);
  if (input.clientAccountId != null && input.clientAccountId !== item.clientAccountId) {
    throw ValidationError.field('clientAccountId', 'cannot be changed');
  }
  const data = await validate(ctx, item.clientAccountId, input, id);
  if (input.isActive != null) data.isActive = input.isActive;
  return ctx.db.item.update({ ...query, where: { id }, data: { ...data, updatedById: ctx.actor.userId } });
}

/** DELETE deactivates: the record is kept (documents and collections may refer to it). */
export async function deactivateItem(ctx: RequestContext, id: number, query: Query = {}) {
  await getItem(ctx, id);
  return ctx.db.item.update({ ...query, where: { id }, data: { isActive: false, updatedById: ctx.actor.userId } });
}
