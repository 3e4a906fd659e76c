import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { CollectionType, RecurringTerms, RefundPolicy } from '../../generated/prisma/enums.ts';
import type { RequestContext } from '../../shared/context.ts';
import { checkDecimal } from '../../shared/decimals.ts';
import { NotFoundError, ValidationError, type FieldIssue } from '../../shared/errors.ts';
import { checkedPageWindow, parseOrderBy, type PageSource } from '../../shared/pagination.ts';
import type { Decimal } from '../../shared/scalars.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { MAX_RECURRING_INTERVAL, MIN_RECURRING_INTERVAL, recurringPeriodIsValid } from './item-collections.rules.ts';

/** quantity and price are Decimal(18, 6) columns: values must fit exactly. */
const AMOUNT = { precision: 18, scale: 6 } as const;

/** spec 001 "Item collections": both lists page by 100 at most. */
const PAGE_LIMITS = { defaultPerPage: 100, maxPerPage: 100 } as const;

type CollectionQuery = { include?: PrismaNS.ItemCollectionInclude; select?: PrismaNS.ItemCollectionSelect };
type EntryQuery = { include?: PrismaNS.ItemCollectionEntryInclude; select?: PrismaNS.ItemCollectionEntrySelect };

// ---------------------------------------------------------------------------------------------
// Collections
// ---------------------------------------------------------------------------------------------

export interface ListItemCollectionsArgs {
  clientAccountId: number;
  /** any of these types (IN); empty or absent: all */
  collectionTypes?: readonly CollectionType[] | null;
  /** case-insensitive substring of the name */
  name?: string | null;
  page?: number | null;
  perPage?: number | null;
}

export async function listItemCollections(ctx: RequestContext, args: ListItemCollectionsArgs): Promise<PageSource> {
  await requireAccount(ctx, args.clientAccountId);
  const where: PrismaNS.ItemCollectionWhereInput = { clientAccountId: args.clientAccountId };
  if (args.collectionTypes?.length) where.collectionType = { in: [...args.collectionTypes] };
  const name = args.name?.trim();
  if (name) where.name = { contains: name, mode: 'insensitive' };
  return { where, orderBy: [{ id: 'asc' }], window: checkedPageWindow(args, PAGE_LIMITS) };
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getItemCollection(ctx: RequestContext, id: number, query: CollectionQuery = {}) {
  return requireOwned(ctx, 'Item collection', await ctx.db.itemCollection.findUnique({ ...query, where: { id } }));
}

export interface CreateItemCollectionInput {
  clientAccountId: number;
  collectionType: CollectionType;
  name?: string | null;
}

export interface UpdateItemCollectionInput {
  /** accepted only when equal to the collection's own: entries copy it, so it never changes */
  clientAccountId?: number | null;
  collectionType?: CollectionType | null;
  name?: string | null;
}

export async function createItemCollection(ctx: RequestContext, input: CreateItemCollectionInput, query: CollectionQuery = {}) {
  await requireAccount(ctx, input.clientAccountId);
  return ctx.db.itemCollection.create({
    ...query,
    data: {
      clientAccountId: input.clientAccountId,
      collectionType: input.collectionType,
      name: input.name ?? null,
      createdById: ctx.actor.userId,
      updatedById: ctx.actor.userId,
    },
  });
}

export async function updateItemCollection(ctx: RequestContext, id: number, input: UpdateItemCollectionInput, query: CollectionQuery = {}) {
  const collection = await getItemCollection(ctx, id);
  if (input.clientAccountId != null && input.clientAccountId !== collection.clientAccountId) {
    throw ValidationError.field('clientAccountId', 'cannot be changed');
  }
  const data: PrismaNS.ItemCollectionUncheckedUpdateInput = { updatedById: ctx.actor.userId };
  if (input.collectionType === null) throw ValidationError.field('collectionType', 'must be TEMPLATE, CART or ORDER');
  if (input.collectionType !== undefined) data.collectionType = input.collectionType;
  if (input.name !== undefined) data.name = input.name;
  return ctx.db.itemCollection.update({ ...query, where: { id }, data });
}

/** Deletes the collection; the database cascades to its entries. Returns the collection as it was. */
export async function deleteItemCollection(ctx: RequestContext, id: number, query: CollectionQuery = {}) {
  await getItemCollection(ctx, id);
  return ctx.db.$transaction(async (tx) => {
    const before = await tx.itemCollection.findUnique({ ...query, where: { id } });
    if (!before) throw new NotFoundError('Item collection');
    await tx.itemCollection.delete({ where: { id } });
    return before;
  });
}

// ---------------------------------------------------------------------------------------------
// Entries
// ---------------------------------------------------------------------------------------------

/** order_by names of GET /item-collections/{id}/entries (snake_case, - for descending). */
export const ENTRY_ORDER: Record<string, string> = {
  id: 'id',
  item_id: 'itemId',
  description: 'description',
  quantity: 'quantity',
  price: 'price',
  currency_code: 'currencyCode',
  unit_id: 'unitId',
  tax_code_id: 'taxCodeId',
  business_partner_id: 'businessPartnerId',
  project_id: 'projectId',
  recurring_start_date: 'recurringStartDate',
  recurring_end_date: 'recurringEndDate',
  recurring_interval: 'recurringInterval',
  trial_end_date: 'trialEndDate',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

export interface ListItemCollectionEntriesArgs {
  itemCollectionId: number;
  itemIds?: readonly number[] | null;
  projectIds?: readonly number[] | null;
  /** false (default): leave out entries that a document line has consumed */
  includeUsed?: boolean | null;
  orderBy?: readonly string[] | null;
  page?: number | null;
  perPage?: number | null;
}

export async function listItemCollectionEntries(ctx: RequestContext, args: ListItemCollectionEntriesArgs): Promise<PageSource> {
  await getItemCollection(ctx, args.itemCollectionId);
  const where: PrismaNS.ItemCollectionEntryWhereInput = { itemCollectionId: args.itemCollectionId };
  if (args.itemIds?.length) where.itemId = { in: [...args.itemIds] };
  if (args.projectIds?.length) where.projectId = { in: [...args.projectIds] };
  if (!args.includeUsed) where.documentLines = { none: {} };
  return {
    where,
    orderBy: parseOrderBy(args.orderBy, ENTRY_ORDER, ['id']),
    window: checkedPageWindow(args, PAGE_LIMITS),
  };
}

/**
 * One entry. With `within.itemCollectionId` (the REST path /item-collections/{id}/entries/{entry_id})
 * the collection is checked first (404/403) and an entry of any other collection is 404.
 */
export async function getItemCollectionEntry(
  ctx: RequestContext,
  id: number,
  query: EntryQuery = {},
  within: { itemCollectionId?: number | null } = {},
) {
  const collectionId = within.itemCollectionId;
  if (collectionId != null) await getItemCollection(ctx, collectionId);
  const entry = await ctx.db.itemCollectionEntry.findUnique({ ...query, where: { id } });
  if (entry && collectionId != null && entry.itemCollectionId !== collectionId) {
    throw new NotFoundError(`Item collection entry ${id} in item collection ${collectionId}`);
  }
  return requireOwned(ctx, 'Item collection entry', entry);
}

export interface ItemCollectionEntryFields {
  itemId?: number | null;
  description?: string | null;
  quantity?: Decimal | null;
  price?: Decimal | null;
  currencyCode?: string | null;
  unitId?: number | null;
  taxCodeId?: number | null;
  businessPartnerId?: number | null;
  projectId?: number | null;
  recurringStartDate?: Date | null;
  recurringEndDate?: Date | null;
  recurringTerms?: RecurringTerms | null;
  recurringInterval?: number | null;
  refundPolicy?: RefundPolicy | null;
  trialEndDate?: Date | null;
}

export interface CreateItemCollectionEntryInput extends ItemCollectionEntryFields {
  itemCollectionId: number;
  quantity: Decimal;
  price: Decimal;
  unitId: number;
  taxCodeId: number;
}

export interface UpdateItemCollectionEntryInput extends ItemCollectionEntryFields {
  /** accepted only when equal to the entry's own: item_collection_id is immutable */
  itemCollectionId?: number | null;
}

type EntryData = PrismaNS.ItemCollectionEntryUncheckedUpdateInput;

/**
 * Checks an entry's fields against the collection's client account and turns them into column
 * values. Every problem is reported at once, each naming its field.
 */
async function validateEntry(
  ctx: RequestContext,
  clientAccountId: number,
  f: ItemCollectionEntryFields,
  existing?: { recurringStartDate: Date | null; recurringEndDate: Date | null },
): Promise<EntryData> {
  const data: EntryData = {};
  const issues: FieldIssue[] = [];
  const fail = (path: string, message: string) => issues.push({ path: [path], message });

  for (const key of ['quantity', 'price'] as const) {
    const v = f[key];
    if (v === undefined) continue;
    if (v === null) {
      fail(key, 'is required');
      continue;
    }
    try {
      data[key] = checkDecimal(key, v, AMOUNT);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      issues.push(...e.issues);
    }
  }

  // references owned by the client account (a row of another account reads as missing)
  const owned = async (
    key: 'itemId' | 'taxCodeId' | 'businessPartnerId' | 'projectId',
    what: string,
    find: (id: number) => Promise<{ clientAccountId: number } | null>,
    required: boolean,
  ) => {
    const id = f[key];
    if (id === undefined) return;
    if (id === null) {
      if (required) fail(key, 'is required');
      else (data as Record<string, unknown>)[key] = null;
      return;
    }
    const row = await find(id);
    if (row?.clientAccountId !== clientAccountId) fail(key, `${what} ${id} does not exist in client account ${clientAccountId}`);
    else data[key] = id;
  };
  const sel = { select: { clientAccountId: true } } as const;
  await Promise.all([
    owned('itemId', 'item', (id) => ctx.db.item.findUnique({ ...sel, where: { id } }), false),
    owned('taxCodeId', 'tax code', (id) => ctx.db.taxCode.findUnique({ ...sel, where: { id } }), true),
    owned('businessPartnerId', 'business partner', (id) => ctx.db.businessPartner.findUnique({ ...sel, where: { id } }), false),
    owned('projectId', 'project', (id) => ctx.db.project.findUnique({ ...sel, where: { id } }), false),
    (async () => {
      if (f.unitId === undefined) return;
      if (f.unitId === null) return fail('unitId', 'is required');
      const unit = await ctx.db.unit.findUnique({ where: { id: f.unitId }, select: { id: true } });
      if (!unit) fail('unitId', `unit ${f.unitId} does not exist`);
      else data.unitId = f.unitId;
    })(),
    (async () => {
      if (f.currencyCode === undefined) return;
      if (f.currencyCode === null) {
        data.currencyCode = null;
        return;
      }
      const code = f.currencyCode.trim().toUpperCase();
      const currency = /^[A-Z]{3}$/.test(code) && (await ctx.db.currency.findUnique({ where: { code }, select: { id: true } }));
      if (!currency) fail('currencyCode', `unknown ISO 4217 currency '${f.currencyCode}'`);
      else data.currencyCode = code;
    })(),
  ]);

  if (f.description !== undefined) {
    if (f.description !== null && f.description.length > 1000) fail('description', 'must be at most 1000 characters');
    else data.description = f.description;
  }
  if (f.recurringInterval !== undefined) {
    const n = f.recurringInterval;
    if (n !== null && (!Number.isInteger(n) || n < MIN_RECURRING_INTERVAL || n > MAX_RECURRING_INTERVAL)) {
      fail('recurringInterval', `must be a whole number of months from ${MIN_RECURRING_INTERVAL} to ${MAX_RECURRING_INTERVAL}`);
    } else data.recurringInterval = n;
  }
  for (const key of ['recurringStartDate', 'recurringEndDate', 'trialEndDate', 'recurringTerms', 'refundPolicy'] as const) {
    if (f[key] !== undefined) (data as Record<string, unknown>)[key] = f[key];
  }
  const start = f.recurringStartDate !== undefined ? f.recurringStartDate : existing?.recurringStartDate;
  const end = f.recurringEndDate !== undefined ? f.recurringEndDate : existing?.recurringEndDate;
  if (!recurringPeriodIsValid(start, end)) fail('recurringEndDate', 'must not be before the recurring start date');

  if (issues.length) {
    throw new ValidationError(issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), issues);
  }
  return data;
}

export async function createItemCollectionEntry(ctx: RequestContext, input: CreateItemCollectionEntryInput, query: EntryQuery = {}) {
  const collection = await getItemCollection(ctx, input.itemCollectionId);
  const data = await validateEntry(ctx, collection.clientAccountId, input);
  return ctx.db.itemCollectionEntry.create({
    ...query,
    data: {
      ...(data as PrismaNS.ItemCollectionEntryUncheckedCreateInput),
      itemCollectionId: collection.id,
      clientAccountId: collection.clientAccountId,
      createdById: ctx.actor.userId,
      updatedById: ctx.actor.userId,
    },
  });
}

export async function updateItemCollectionEntry(
  ctx: RequestContext,
  id: number,
  input: UpdateItemCollectionEntryInput,
  query: EntryQuery = {},
  within: { itemCollectionId?: number | null } = {},
) {
  const entry = await getItemCollectionEntry(ctx, id, {}, within);
  if (input.itemCollectionId != null && input.itemCollectionId !== entry.itemCollectionId) {
    throw ValidationError.field('itemCollectionId', 'cannot be changed');
  }
  const data = await validateEntry(ctx, entry.clientAccountId, input, entry);
  return ctx.db.itemCollectionEntry.update({ ...query, where: { id }, data: { ...data, updatedById: ctx.actor.userId } });
}

/** Permanently deletes the entry (document lines that consumed it keep their data, unlinked). */
export async function deleteItemCollectionEntry(
  ctx: RequestContext,
  id: number,
  query: EntryQuery = {},
  within: { itemCollectionId?: number | null } = {},
) {
  await getItemCollectionEntry(ctx, id, {}, within);
  return ctx.db.$transaction(async (tx) => {
    const before = await tx.itemCollectionEntry.findUnique({ ...query, where: { id } });
    if (!before) throw new NotFoundError('Item collection entry');
    await tx.itemCollectionEntry.delete({ where: { id } });
    return before;
  });
}
