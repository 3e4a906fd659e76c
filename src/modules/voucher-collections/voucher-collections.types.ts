import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { VOUCHER_COLLECTION_PAGE_LIMITS } from './voucher-collections.rules.ts';
import { createVoucherCollection, getVoucherCollection, listVoucherCollections, updateVoucherCollection } from './voucher-collections.service.ts';

/** Voucher collections (spec 001 "Voucher collection"): a named group of vouchers of one client account. */
export const VoucherCollection = builder.prismaObject('VoucherCollection', {
  ...tenantScoped,
  description: 'A named group of vouchers of a client account.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    name: t.exposeString('name', { nullable: true, description: 'At most 150 characters' }),
    description: t.exposeString('description', { nullable: true, description: 'At most 1000 characters' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.updatedById) }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    vouchers: t.relation('vouchers', {
      extensions: listCost(100),
      description: 'The vouchers in the collection (deleted ones left out), newest first',
      query: { where: { status: { not: 'DELETED' } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
    }),
  }),
});

const VoucherCollectionPage = pageType('VoucherCollectionPage', VoucherCollection);

const CreateVoucherCollectionInput = builder.inputType('CreateVoucherCollectionInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    name: t.string({ description: 'At most 150 characters; empty stores null' }),
    description: t.string({ description: 'At most 1000 characters; empty stores null' }),
  }),
});

const UpdateVoucherCollectionInput = builder.inputType('UpdateVoucherCollectionInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    name: t.string({ description: 'At most 150 characters; empty clears it' }),
    description: t.string({ description: 'At most 1000 characters; empty clears it' }),
  }),
});

builder.queryFields((t) => ({

  voucherCollections: t.field({
    type: VoucherCollectionPage,
    extensions: pageCost(VOUCHER_COLLECTION_PAGE_LIMITS),
    description: 'Voucher collections of a client account, newest first (page-based; per_page 100 by default and at most).',
    args: { clientAccountId: t.arg.int({ required: true }), page: t.arg.int(), perPage: t.arg.int(), ...cursorArgs(t) },
    resolve: (_root, args, ctx, info) => listVoucherCollections(ctx, args, nodesQuery(ctx, info)),
  }),
  voucherCollection: t.prismaField({
    nullable: true,
    type: 'VoucherCollection',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getVoucherCollection(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createVoucherCollection: t.prismaField({
    type: 'VoucherCollection',
    description: 'Creates a voucher collection; created_by_id and updated_by_id are the caller.',
    args: { input: t.arg({ type: CreateVoucherCollectionInput, required: true }) },
    resolve: (query, _root, args, ctx) => createVoucherCollection(ctx, args, query),
  }),
  updateVoucherCollection: t.prismaField({
    type: 'VoucherCollection',
    description: 'Changes the name or description of a voucher collection; its client account cannot change.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateVoucherCollectionInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateVoucherCollection(ctx, args, query),
  }),
}));
