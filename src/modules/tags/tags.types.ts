import { addAuditFields } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { accountRecordFields } from '../../shared/account-record-fields.ts';
import { createTag, getTag, listTags, TAG_PAGE_LIMITS, updateTag } from './tags.service.ts';

/** Tags: free labels as a posting dimension of journal lines (type `tag`); GraphQL only, spec 001 has no paths for them. */
export const Tag = builder.prismaObject('Tag', {
  ...tenantScoped,
  description: 'A free label of a client account: a dimension journal lines can be posted to.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    name: t.exposeString('name', { description: 'Unique within the client account, at most 100 characters' }),
    isActive: t.exposeBoolean('isActive'),
  }),
});
addAuditFields(Tag);

// Field rules (lengths, the unique name) are the arguments' schemas in tags.rules.ts and the service.

accountRecordFields(Tag, {
  service: { list: listTags, get: getTag, create: createTag, update: updateTag },
  pageLimits: TAG_PAGE_LIMITS,
  list: { description: 'Tags of a client account by name (page-based; perPage 50 by default, at most 100).' },
  input: {
    create: (t) => ({ name: t.string({ required: true, description: 'Unique within the client account' }) }),
    update: (t) => ({ name: t.string({ description: 'Unique within the client account' }) }),
  },
});
