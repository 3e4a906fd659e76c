import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { fixed } from '../../shared/scalars.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { Unit } from '../units/units.types.ts';
import { unitById } from '../units/units.service.ts';
import { itemRules as rules } from './items.rules.ts';
import { createItem, deactivateItem, getItem, ITEM_PAGE_LIMITS, listItems, updateItem } from './items.service.ts';

export const ItemType = builder.enumType('ItemType', {
  values: { ITEM: { description: 'Physical product' }, SERVICE: { description: 'Service' } } as const,
});

export const AutonomyLevel = builder.enumType('AutonomyLevel', {
  description: 'How independently automated bookkeeping may act for this record.',
  values: ['NONE', 'DRAFT', 'FULL'] as const,
});

export const Item = builder.prismaObject('Item', {
  ...tenantScoped,
  description: 'A product (ITEM) or service (SERVICE) a client account sells.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    itemNo: t.exposeString('itemNo', { description: 'Unique within the client account, at most 100 characters' }),
    name: t.exposeString('name', { nullable: true }),
    itemType: t.expose('itemType', { type: ItemType }),
    salesUnitId: t.exposeInt('salesUnitId'),
    stockUnitId: t.exposeInt('stockUnitId', { nullable: true }),
    taxCodeId: t.exposeInt('taxCodeId'),
    price: t.field({ type: 'Decimal', resolve: fixed('price', 6) }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    autonomyLevel: t.expose('autonomyLevel', { type: AutonomyLevel, nullable: true, description: 'null: inherit the client account default' }),
    effectiveAutonomyLevel: t.field({
      type: AutonomyLevel,
      description: "The item's autonomy level, or the client account default when it has none",
      select: { clientAccount: { select: { defaultAutonomyLevel: true } } },
      resolve: (item) => item.autonomyLevel ?? item.clientAccount.defaultAutonomyLevel,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (i, _a, ctx) => loadUser(ctx, i.createdById) }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (i, _a, ctx) => loadUser(ctx, i.updatedById) }),
    // units are reference data: from the app's cache, not a relation query each (units.service.ts)
    salesUnit: t.field({ type: Unit, resolve: (item, _a, ctx) => unitById(ctx, item.salesUnitId) }),
    stockUnit: t.field({ type: Unit, nullable: true, resolve: (item, _a, ctx) => (item.stockUnitId === null ? null : unitById(ctx, item.stockUnitId)) }),
    taxCode: t.relation('taxCode'),
  }),
});

const ItemPage = pageType('ItemPage', Item);

// Field rules (lengths, decimals, JSON objects) are the arguments' schemas in items.rules.ts.

const itemFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  name: t.string(),
  itemType: t.field({ type: ItemType }),
  stockUnitId: t.int(),
  price: t.field({ type: 'Decimal', description: 'Unit price, at most 6 decimals' }),
  metadata: t.field({ type: 'JSON', description: 'Arbitrary JSON object, or null' }),
  autonomyLevel: t.field({ type: AutonomyLevel, description: 'null: inherit the client account default' }),
});

const CreateItemInput = builder.inputType('CreateItemInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    itemNo: t.string({ required: true }),
    salesUnitId: t.int({ required: true }),
    taxCodeId: t.int({ required: true }),
    ...itemFields(t),
  }),
});

const UpdateItemInput = builder.inputType('UpdateItemInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    itemNo: t.string(),
    salesUnitId: t.int(),
    taxCodeId: t.int(),
    isActive: t.boolean({ description: 'true reactivates a deactivated item' }),
    ...itemFields(t),
  }),
});

builder.queryFields((t) => ({

  items: t.field({
    type: ItemPage,
    extensions: pageCost(ITEM_PAGE_LIMITS),
    description: 'Items of a client account (page-based; per_page 50 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      itemType: t.arg({ type: ItemType }),
      isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all items' }),
      freeText: t.arg.string({ description: 'Matches item number and name (description), case-insensitive' }),
      orderBy: t.arg.stringList({ description: 'Field names, - for descending: item_no, name/description, item_type, price, created_at, updated_at, id' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listItems(ctx, args, nodesQuery(ctx, info)),
  }),
  item: t.prismaField({
    nullable: true,
    type: 'Item',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getItem(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createItem: t.prismaField({
    type: 'Item',
    args: { input: t.arg({ type: CreateItemInput, required: true }) },
    resolve: (query, _root, args, ctx) => createItem(ctx, args, query),
  }),
  updateItem: t.prismaField({
    type: 'Item',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateItemInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateItem(ctx, args, query),
  }),
  deactivateItem: t.prismaField({
    type: 'Item',
    description: 'Deactivates the item (REST DELETE /items/{id}); the record is kept.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => deactivateItem(ctx, args, query),
  }),
}));
