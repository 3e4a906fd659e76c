import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { assetRules as rules } from './assets.rules.ts';
import { ASSET_PAGE_LIMITS, createAsset, getAsset, listAssets, updateAsset } from './assets.service.ts';

/** Assets: fixed assets as a posting dimension of journal lines (type `asset`); GraphQL only, spec 001 has no paths for them. */
export const Asset = builder.prismaObject('Asset', {
  ...tenantScoped,
  description: 'A fixed asset of a client account: a dimension journal lines (depreciation, disposals) can be posted to.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    name: t.exposeString('name', { description: 'At most 250 characters' }),
    description: t.exposeString('description', { nullable: true }),
    acquisitionDate: t.expose('acquisitionDate', { type: 'Date', nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.updatedById) }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
  }),
});

const AssetPage = pageType('AssetPage', Asset);

// Field rules (lengths, dates) are the arguments' schemas in assets.rules.ts.

const assetFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  description: t.string({ description: 'At most 1000 characters; empty clears it' }),
  acquisitionDate: t.field({ type: 'Date' }),
});

const CreateAssetInput = builder.inputType('CreateAssetInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    name: t.string({ required: true }),
    ...assetFields(t),
  }),
});

const UpdateAssetInput = builder.inputType('UpdateAssetInput', {
  description: 'Fields to change; omitted fields keep their value, null clears an optional one. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    name: t.string(),
    isActive: t.boolean({ description: 'false deactivates the asset, true reactivates it' }),
    ...assetFields(t),
  }),
});

builder.queryFields((t) => ({

  assets: t.field({
    type: AssetPage,
    extensions: pageCost(ASSET_PAGE_LIMITS),
    description: 'Assets of a client account by name (page-based; perPage 50 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all assets' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listAssets(ctx, args, nodesQuery(ctx, info)),
  }),
  asset: t.prismaField({
    nullable: true,
    type: 'Asset',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getAsset(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createAsset: t.prismaField({
    type: 'Asset',
    args: { input: t.arg({ type: CreateAssetInput, required: true }) },
    resolve: (query, _root, args, ctx) => createAsset(ctx, args, query),
  }),
  updateAsset: t.prismaField({
    type: 'Asset',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateAssetInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateAsset(ctx, args, query),
  }),
}));
