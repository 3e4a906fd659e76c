import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { tagRules as rules } from './tags.rules.ts';
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
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.updatedById) }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
  }),
});

const TagPage = pageType('TagPage', Tag);

// Field rules (lengths, the unique name) are the arguments' schemas in tags.rules.ts and the service.

const CreateTagInput = builder.inputType('CreateTagInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    name: t.string({ required: true, description: 'Unique within the client account' }),
  }),
});

const UpdateTagInput = builder.inputType('UpdateTagInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    name: t.string({ description: 'Unique within the client account' }),
    isActive: t.boolean({ description: 'false deactivates the tag, true reactivates it' }),
  }),
});

builder.queryFields((t) => ({

  tags: t.field({
    type: TagPage,
    extensions: pageCost(TAG_PAGE_LIMITS),
    description: 'Tags of a client account by name (page-based; perPage 50 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all tags' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listTags(ctx, args, nodesQuery(ctx, info)),
  }),
  tag: t.prismaField({
    nullable: true,
    type: 'Tag',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getTag(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createTag: t.prismaField({
    type: 'Tag',
    args: { input: t.arg({ type: CreateTagInput, required: true }) },
    resolve: (query, _root, args, ctx) => createTag(ctx, args, query),
  }),
  updateTag: t.prismaField({
    type: 'Tag',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateTagInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateTag(ctx, args, query),
  }),
}));
