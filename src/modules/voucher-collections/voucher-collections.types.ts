import { addAuditFields } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { accountRecordFields } from '../../shared/account-record-fields.ts';
import { listCost } from '../../shared/query-limits.ts';
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
    vouchers: t.relation('vouchers', {
      extensions: listCost(100),
      description: 'The vouchers in the collection (deleted ones left out), newest first',
      query: { where: { status: { not: 'DELETED' } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
    }),
  }),
});
addAuditFields(VoucherCollection);

accountRecordFields(VoucherCollection, {
  service: { list: listVoucherCollections, get: getVoucherCollection, create: createVoucherCollection, update: updateVoucherCollection },
  pageLimits: VOUCHER_COLLECTION_PAGE_LIMITS,
  isActive: false,
  list: { description: 'Voucher collections of a client account, newest first (page-based; per_page 100 by default and at most).' },
  input: {
    create: (t) => ({
      name: t.string({ description: 'At most 150 characters; empty stores null' }),
      description: t.string({ description: 'At most 1000 characters; empty stores null' }),
    }),
    update: (t) => ({
      name: t.string({ description: 'At most 150 characters; empty clears it' }),
      description: t.string({ description: 'At most 1000 characters; empty clears it' }),
    }),
  },
  descriptions: {
    create: 'Creates a voucher collection; created_by_id and updated_by_id are the caller.',
    update: 'Changes the name or description of a voucher collection; its client account cannot change.',
  },
});
