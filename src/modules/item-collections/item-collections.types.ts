import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { fixed } from '../../shared/scalars.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { effectiveRecurringInterval, itemCollectionRules as rules } from './item-collections.rules.ts';
import { Unit } from '../units/units.types.ts';
import { unitById } from '../units/units.service.ts';
import {
  COLLECTION_PAGE_LIMITS,
  createItemCollection,
  createItemCollectionEntry,
  deleteItemCollection,
  deleteItemCollectionEntry,
  getItemCollection,
  getItemCollectionEntry,
  listItemCollectionEntries,
  listItemCollections,
  updateItemCollection,
  updateItemCollectionEntry,
} from './item-collections.service.ts';

// spec 001, "Item collection and entry" and "Item collections"

export const CollectionType = builder.enumType('CollectionType', {
  values: {
    TEMPLATE: { description: 'Reusable recurring-invoice lines' },
    CART: { description: 'Draft selection' },
    ORDER: { description: 'Confirmed order' },
  } as const,
});

export const RecurringTerms = builder.enumType('RecurringTerms', {
  description: 'Whether a recurring entry is invoiced at the start or at the end of each period.',
  values: ['IN_ADVANCE', 'IN_ARREARS'] as const,
});

export const RefundPolicy = builder.enumType('RefundPolicy', {
  values: ['NO_REFUND', 'PRORATED', 'FULL_REFUND'] as const,
});

export const ItemCollection = builder.prismaObject('ItemCollection', {
  ...tenantScoped,
  description: 'A named set of item lines of a client account: a TEMPLATE, a CART or an ORDER.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    name: t.exposeString('name', { nullable: true, description: 'At most 150 characters' }),
    collectionType: t.expose('collectionType', { type: CollectionType }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (c, _a, ctx) => loadUser(ctx, c.createdById) }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (c, _a, ctx) => loadUser(ctx, c.updatedById) }),
    entries: t.relation('entries', { description: 'All entries, used or not, by id', query: { orderBy: { id: 'asc' } } }),
  }),
});

export const ItemCollectionEntry = builder.prismaObject('ItemCollectionEntry', {
  ...tenantScoped,
  description: 'One line of an item collection.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    itemCollectionId: t.exposeInt('itemCollectionId', { description: 'Immutable after creation' }),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: "The collection's client account" }),
    itemId: t.exposeInt('itemId', { nullable: true }),
    description: t.exposeString('description', { nullable: true, description: 'At most 1000 characters' }),
    quantity: t.field({ type: 'Decimal', resolve: fixed('quantity', 6) }),
    price: t.field({ type: 'Decimal', resolve: fixed('price', 6) }),
    currencyCode: t.exposeString('currencyCode', { nullable: true, description: 'ISO 4217' }),
    unitId: t.exposeInt('unitId'),
    taxCodeId: t.exposeInt('taxCodeId'),
    businessPartnerId: t.exposeInt('businessPartnerId', { nullable: true }),
    projectId: t.exposeInt('projectId', { nullable: true }),
    recurringStartDate: t.expose('recurringStartDate', { type: 'Date', nullable: true }),
    recurringEndDate: t.expose('recurringEndDate', { type: 'Date', nullable: true }),
    recurringTerms: t.expose('recurringTerms', { type: RecurringTerms, nullable: true }),
    recurringInterval: t.exposeInt('recurringInterval', {
      nullable: true,
      description: 'Months between invoices (1 monthly, 3 quarterly, 6 half-yearly, 12 yearly) as stored; null means 1',
    }),
    effectiveRecurringInterval: t.int({
      description: 'recurringInterval, or 1 when it is null',
      resolve: (e) => effectiveRecurringInterval(e.recurringInterval),
    }),
    refundPolicy: t.expose('refundPolicy', { type: RefundPolicy, nullable: true }),
    trialEndDate: t.expose('trialEndDate', { type: 'Date', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.createdById) }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.updatedById) }),
    itemCollection: t.relation('itemCollection'),
    item: t.relation('item', { nullable: true }),
    unit: t.field({ type: Unit, resolve: (e, _a, ctx) => unitById(ctx, e.unitId) }),
    taxCode: t.relation('taxCode', { description: 'REST: tax_code_details' }),
    businessPartner: t.relation('businessPartner', { nullable: true }),
    project: t.relation('project', { nullable: true }),
    documentLines: t.relation('documentLines', {
      description: 'Document lines that consumed the entry; an entry with any is "used"',
      // the query cost's assumed length: one line per document that used the entry, a year of monthly invoices for a recurring one
      extensions: listCost(12),
      query: { orderBy: { id: 'asc' } },
    }),
  }),
});

const ItemCollectionPage = pageType('ItemCollectionPage', ItemCollection);
const ItemCollectionEntryPage = pageType('ItemCollectionEntryPage', ItemCollectionEntry);

// Field rules (lengths, decimals, the recurring period) are the arguments' schemas in item-collections.rules.ts.

const CreateItemCollectionInput = builder.inputType('CreateItemCollectionInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    collectionType: t.field({ type: CollectionType, required: true }),
    name: t.string(),
  }),
});

const UpdateItemCollectionInput = builder.inputType('UpdateItemCollectionInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    collectionType: t.field({ type: CollectionType }),
    name: t.string(),
  }),
});

/** The optional fields of an entry, shared by create and update. */
const entryFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  itemId: t.int({ description: 'An item of the client account of the collection' }),
  description: t.string(),
  currencyCode: t.string({ description: 'ISO 4217, e.g. NOK' }),
  businessPartnerId: t.int(),
  projectId: t.int(),
  recurringStartDate: t.field({ type: 'Date' }),
  recurringEndDate: t.field({ type: 'Date', description: 'Not before recurringStartDate' }),
  recurringTerms: t.field({ type: RecurringTerms }),
  recurringInterval: t.int({ description: 'Months (1 monthly, 3 quarterly, 6 half-yearly, 12 yearly, or any other whole number from 1); null (stored) means 1' }),
  refundPolicy: t.field({ type: RefundPolicy }),
  trialEndDate: t.field({ type: 'Date' }),
});

const CreateItemCollectionEntryInput = builder.inputType('CreateItemCollectionEntryInput', {
  fields: (t) => ({
    itemCollectionId: t.int({ required: true }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'At most 6 decimals' }),
    price: t.field({ type: 'Decimal', required: true, description: 'Unit price, at most 6 decimals' }),
    unitId: t.int({ required: true }),
    taxCodeId: t.int({ required: true }),
    ...entryFields(t),
  }),
});

const UpdateItemCollectionEntryInput = builder.inputType('UpdateItemCollectionEntryInput', {
  description: 'Fields to change; omitted fields keep their value; null clears an optional field. itemCollectionId may be sent but not changed.',
  fields: (t) => ({
    itemCollectionId: t.int({ description: 'Immutable: a different value is rejected' }),
    quantity: t.field({ type: 'Decimal' }),
    price: t.field({ type: 'Decimal' }),
    unitId: t.int(),
    taxCodeId: t.int(),
    ...entryFields(t),
  }),
});

builder.queryFields((t) => ({

  itemCollections: t.field({
    type: ItemCollectionPage,
    extensions: pageCost(COLLECTION_PAGE_LIMITS),
    description: 'Item collections of a client account, by id (page-based; per_page 100 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      collectionTypes: t.arg({ type: [CollectionType], description: 'Any of these types' }),
      name: t.arg.string({ description: 'Part of the name, case-insensitive' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listItemCollections(ctx, args, nodesQuery(ctx, info)),
  }),
  itemCollection: t.prismaField({
    nullable: true,
    type: 'ItemCollection',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getItemCollection(ctx, args, query),
  }),

  itemCollectionEntries: t.field({
    type: ItemCollectionEntryPage,
    extensions: pageCost(COLLECTION_PAGE_LIMITS),
    description: 'Entries of an item collection (page-based; per_page 100 by default, at most 100).',
    args: {
      itemCollectionId: t.arg.int({ required: true }),
      itemIds: t.arg.intList({ description: 'Entries of any of these items' }),
      projectIds: t.arg.intList({ description: 'Entries of any of these projects' }),
      includeUsed: t.arg.boolean({
        defaultValue: false,
        description: 'Also list entries a document line has consumed (left out by default)',
      }),
      orderBy: t.arg.stringList({
        description: 'Field names, - for descending: id, item_id, description, quantity, price, currency_code, unit_id, tax_code_id, ' +
          'business_partner_id, project_id, recurring_start_date, recurring_end_date, recurring_interval, trial_end_date, created_at, updated_at',
      }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listItemCollectionEntries(ctx, args, nodesQuery(ctx, info)),
  }),
  itemCollectionEntry: t.prismaField({
    nullable: true,
    type: 'ItemCollectionEntry',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getItemCollectionEntry(ctx, args, query),
  }),
}));

const withinArg = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) =>
  t.arg.int({ description: 'When given, the entry must belong to this collection (404 otherwise), as in the REST path' });

builder.mutationFields((t) => ({
  createItemCollection: t.prismaField({
    type: 'ItemCollection',
    args: { input: t.arg({ type: CreateItemCollectionInput, required: true }) },
    resolve: (query, _root, args, ctx) => createItemCollection(ctx, args, query),
  }),
  updateItemCollection: t.prismaField({
    type: 'ItemCollection',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateItemCollectionInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateItemCollection(ctx, args, query),
  }),
  deleteItemCollection: t.prismaField({
    type: 'ItemCollection',
    description: 'Deletes the collection and all its entries; returns the collection as it was.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => deleteItemCollection(ctx, args, query),
  }),
  createItemCollectionEntry: t.prismaField({
    type: 'ItemCollectionEntry',
    args: { input: t.arg({ type: CreateItemCollectionEntryInput, required: true }) },
    resolve: (query, _root, args, ctx) => createItemCollectionEntry(ctx, args, query),
  }),
  updateItemCollectionEntry: t.prismaField({
    type: 'ItemCollectionEntry',
    args: {
      id: t.arg.int({ required: true }),
      itemCollectionId: withinArg(t),
      input: t.arg({ type: UpdateItemCollectionEntryInput, required: true }),
    },
    resolve: (query, _root, args, ctx) => updateItemCollectionEntry(ctx, args, query),
  }),
  deleteItemCollectionEntry: t.prismaField({
    type: 'ItemCollectionEntry',
    description: 'Permanently deletes the entry; returns it as it was.',
    args: { id: t.arg.int({ required: true }), itemCollectionId: withinArg(t) },
    resolve: (query, _root, args, ctx) => deleteItemCollectionEntry(ctx, args, query),
  }),
}));
