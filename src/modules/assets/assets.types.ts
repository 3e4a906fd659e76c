import { addAuditFields } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { accountRecordFields } from '../../shared/account-record-fields.ts';
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
  }),
});
addAuditFields(Asset);

// Field rules (lengths, dates) are the arguments' schemas in assets.rules.ts.

accountRecordFields(Asset, {
  service: { list: listAssets, get: getAsset, create: createAsset, update: updateAsset },
  pageLimits: ASSET_PAGE_LIMITS,
  list: { description: 'Assets of a client account by name (page-based; perPage 50 by default, at most 100).' },
  input: {
    both: (t) => ({
      description: t.string({ description: 'At most 1000 characters; empty clears it' }),
      acquisitionDate: t.field({ type: 'Date' }),
    }),
    create: (t) => ({ name: t.string({ required: true }) }),
    update: (t) => ({ name: t.string() }),
    updateDescription:
      'Fields to change; omitted fields keep their value, null clears an optional one. clientAccountId may be sent but not changed.',
  },
});
