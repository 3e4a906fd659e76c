import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { findPage, pageWindow, toOrderBy, type PageLimits } from '../../shared/pagination.ts';
import { fieldReferences } from '../../shared/references.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { ENTRY_ORDER, itemCollectionRules as rules, RECURRING_PERIOD_MESSAGE, recurringPeriodIsValid } from './item-collections.rules.ts';

/** spec 001 "Item collections": both lists page by 100 at most. */
export const COLLECTION_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

type CollectionQuery = { include?: PrismaNS.ItemCollectionInclude; select?: PrismaNS.ItemCollectionSelect };
type EntryQuery = { include?: PrismaNS.ItemCollectionEntryInclude; select?: PrismaNS.ItemCollectionEntrySelect };

// ---------------------------------------------------------------------------------------------
// Collections
// ---------------------------------------------------------------------------------------------

export async function listItemCollections(ctx: RequestContext, args: Args<typeof rules.list>, query: CollectionQuery = {}) {
  const { clientAccountId, collectionTypes, name, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.ItemCollectionWhereInput = { clientAccountId };
  if (collectionTypes?.length) where.collectionType = { in: collectionTypes };
  if (name?.trim()) where.name = { contains: name.trim(), mode: 'insensitive' };
  return findPage(
    pageWindow(window, COLLECTION_PAGE_LIMITS),
    (w) => ctx.db.itemCollection.findMany({ ...query, where, orderBy: { id: 'asc' }, ...w }),
    () => ctx.db.itemCollection.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getItemCollection(ctx: RequestContext, { id }: { id: number }, query: CollectionQuery = {}) {
  return requireOwned(ctx, 'Item collection', await ctx.db.itemCollection.findUnique({ ...query, where: { id } }));
}

export async function createItemCollection(ctx: RequestContext, args: Args<typeof rules.create>, query: CollectionQuery = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    await requireAccount(tx, args.input.clientAccountId);
    const { input } = await check(tx, parsed);
    const user = auditUserId(tx);
    return tx.db.itemCollection.create({ ...query, data: { ...input, createdById: user, updatedById: user } });
  });
}

export async function updateItemCollection(ctx: RequestContext, args: Args<typeof rules.update>, query: CollectionQuery = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const collection = await getItemCollection(tx, args);
    const { input } = await check(tx, parsed, { immutable: { clientAccountId: collection.clientAccountId } });
    const { clientAccountId: _immutable, ...data } = input;
    return tx.db.itemCollection.update({ ...query, where: { id: collection.id }, data: { ...data, updatedById: auditUserId(tx) } });
  });
}

/** Deletes the collection; the database cascades to its entries. Returns the collection as it was. */
export async function deleteItemCollection(ctx: RequestContext, args: { id: number }, query: CollectionQuery = {}) {
  return inTransaction(ctx, async (tx) => {
    const before = await getItemCollection(tx, args, query);
    await tx.db.itemCollection.delete({ where: { id: args.id } });
    return before;
  });
}

// ---------------------------------------------------------------------------------------------
// Entries
// ---------------------------------------------------------------------------------------------

/** The rows an entry's fields name, all of the collection's client account (units and currencies system-wide). */
const ENTRY_REFERENCES = {
  itemId: 'item',
  unitId: 'unit',
  taxCodeId: 'taxCode',
  businessPartnerId: 'businessPartner',
  projectId: 'project',
  currencyCode: 'currency',
} as const;

export async function listItemCollectionEntries(ctx: RequestContext, args: Args<typeof rules.listEntries>, query: EntryQuery = {}) {
  const { itemCollectionId, itemIds, projectIds, includeUsed, orderBy, ...window } = parse(rules.listEntries, args);
  await getItemCollection(ctx, { id: itemCollectionId });
  const where: PrismaNS.ItemCollectionEntryWhereInput = { itemCollectionId };
  if (itemIds?.length) where.itemId = { in: itemIds };
  if (projectIds?.length) where.projectId = { in: projectIds };
  if (!includeUsed) where.documentLines = { none: {} };
  return findPage(
    pageWindow(window, COLLECTION_PAGE_LIMITS),
    (w) => ctx.db.itemCollectionEntry.findMany({ ...query, where, orderBy: toOrderBy(orderBy, ENTRY_ORDER, ['id']), ...w }),
    () => ctx.db.itemCollectionEntry.count({ where }),
  );
}

/**
 * One entry. With `itemCollectionId` (the REST path /item-collections/{id}/entries/{entry_id}) the
 * collection is checked first (404/403) and an entry of any other collection is 404.
 */
export async function getItemCollectionEntry(
  ctx: RequestContext,
  { id, itemCollectionId }: { id: number; itemCollectionId?: number | null },
  query: EntryQuery = {},
) {
  if (itemCollectionId != null) await getItemCollection(ctx, { id: itemCollectionId });
  const entry = await ctx.db.itemCollectionEntry.findUnique({ ...query, where: { id } });
  if (entry && itemCollectionId != null && entry.itemCollectionId !== itemCollectionId) {
    throw new NotFoundError(`Item collection entry ${id} in item collection ${itemCollectionId}`);
  }
  return requireOwned(ctx, 'Item collection entry', entry);
}

export async function createItemCollectionEntry(ctx: RequestContext, args: Args<typeof rules.createEntry>, query: EntryQuery = {}) {
  const parsed = parse(rules.createEntry, args);
  return inTransaction(ctx, async (tx) => {
    const collection = await getItemCollection(tx, { id: args.input.itemCollectionId });
    const { input } = await check(tx, parsed, {
      clientAccountId: collection.clientAccountId,
      references: ({ input }) => fieldReferences(input, ENTRY_REFERENCES),
    });
    const user = auditUserId(tx);
    return tx.db.itemCollectionEntry.create({
      ...query,
      data: { ...input, clientAccountId: collection.clientAccountId, createdById: user, updatedById: user },
    });
  });
}

export async function updateItemCollectionEntry(ctx: RequestContext, args: Args<typeof rules.updateEntry>, query: EntryQuery = {}) {
  const parsed = parse(rules.updateEntry, args);
  return inTransaction(ctx, async (tx) => {
    const entry = await getItemCollectionEntry(tx, args);
    const { input } = await check(tx, parsed, {
      clientAccountId: entry.clientAccountId,
      immutable: { itemCollectionId: entry.itemCollectionId },
      references: ({ input }) => fieldReferences(input, ENTRY_REFERENCES),
      check: ({ input }, _found, issues) => {
        const start = input.recurringStartDate !== undefined ? input.recurringStartDate : entry.recurringStartDate;
        const end = input.recurringEndDate !== undefined ? input.recurringEndDate : entry.recurringEndDate;
        if (!recurringPeriodIsValid(start, end)) issues.add(['recurringEndDate'], RECURRING_PERIOD_MESSAGE);
      },
    });
    const { itemCollectionId: _immutable, ...data } = input;
    return tx.db.itemCollectionEntry.update({ ...query, where: { id: entry.id }, data: { ...data, updatedById: auditUserId(tx) } });
  });
}

/** Permanently deletes the entry (document lines that consumed it keep their data, unlinked). Returns it as it was. */
export async function deleteItemCollectionEntry(ctx: RequestContext, args: Args<typeof rules.deleteEntry>, query: EntryQuery = {}) {
  const parsed = parse(rules.deleteEntry, args);
  return inTransaction(ctx, async (tx) => {
    const before = await getItemCollectionEntry(tx, parsed, query);
    await tx.db.itemCollectionEntry.delete({ where: { id: before.id } });
    return before;
  });
}
