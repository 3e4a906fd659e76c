import { builder, tenantScoped } from '../../builder.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { recordById } from '../../shared/record-by-id.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { CHANGE_PAGE_LIMITS, listChanges, type Change, type ChangeFeedPage } from './changes.service.ts';

/** The change feed (src/modules/changes/README.md): GET /changes and the changes query share this field. */
export const ChangeRef = builder.objectRef<Change>('Change').implement({
  ...tenantScoped,
  description: 'One change of a client account\'s data: ids only, the client reads the record itself. A delete is a tombstone carrying the id.',
  fields: (t) => ({
    id: t.string({ description: 'The change, as a decimal string (a 64-bit number)', resolve: (c) => String(c.id) }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', description: 'When the writing transaction made the change' }),
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, c, _a, ctx) => recordById(ctx, 'clientAccount', c.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    type: t.exposeString('type', { description: '`<resource>.<action>` or a semantic event (journal_entry.posted); the list is in the README' }),
    resource: t.exposeString('resource', { description: 'The kind of record, snake_case (journal_entry)' }),
    resourceId: t.exposeString('resourceId', { description: 'The id of the record, of the table `resource` names (read it through that resource\'s query; a deleted one is gone)' }),
    action: t.exposeString('action', { description: 'created, updated or deleted' }),
    actor: t.field({ type: UserRef, nullable: true, description: 'The user who made it, where the record says (null for deletes and the system)', resolve: (c, _a, ctx) => loadUser(ctx, c.actorId) }),
    actorId: t.exposeInt('actorId', { nullable: true, description: 'The user who made it, where the record says (null for deletes and the system)' }),
  }),
});

const ChangePagination = builder.objectRef<ChangeFeedPage['pagination']>('ChangePagination').implement({
  description: "Spec 000's cursor envelope (what GET /changes answers): the next page sends nextCursor as after, the previous page prevCursor as before. Unlike pageInfo's cursors, these are set on an empty page too, so polling keeps its place.",
  fields: (t) => ({
    hasMore: t.exposeBoolean('hasMore', { description: 'More changes follow in the direction read' }),
    nextCursor: t.exposeString('nextCursor', { description: 'Where to read (or poll) on from: after the last change of this page' }),
    prevCursor: t.exposeString('prevCursor', { description: 'Where the previous page ends: before the first change of this page' }),
  }),
});

/** The feed as a Relay connection (every list is one), with spec 000's envelope beside it. */
const ChangeConnection = builder.connectionObject(
  {
    name: 'ChangeConnection',
    type: ChangeRef,
    description: 'A window of the change feed, oldest first in commit order: by first/after or last/before (the same cursors as pagination\'s), or limit with after or before.',
    fields: (t) => ({
      totalCount: t.int({ description: 'Changes of the account (and types) the feed holds now', resolve: (c) => (c as unknown as ChangeFeedPage).totalCount() }),
      pagination: t.field({ type: ChangePagination, resolve: (c) => (c as unknown as ChangeFeedPage).pagination }),
    }),
  },
  { name: 'ChangeEdge' },
);

const TYPES_ARG = 'Only these change types (README, "Change types"); all by default';

builder.queryFields((t) => ({
  changes: t.field({
    type: ChangeConnection,
    extensions: pageCost(CHANGE_PAGE_LIMITS, 'limit'),
    description: 'The change feed of a client account, oldest first in commit order (25 by default, at most 100). A cursor older than CHANGE_RETENTION_DAYS is 410 (common code changes.cursor_expired): re-sync.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      types: t.arg.stringList({ description: TYPES_ARG }),
      first: t.arg.int({ description: 'Relay: the first n changes after `after` (the page size forward; at most 100)' }),
      after: t.arg.string({ description: 'The changes after this cursor: pagination.nextCursor, pageInfo.endCursor or an edge cursor' }),
      last: t.arg.int({ description: 'Relay: the last n changes before `before` (the page size backward; at most 100); without before, the newest' }),
      before: t.arg.string({ description: 'The changes before this cursor: pagination.prevCursor, pageInfo.startCursor or an edge cursor' }),
      limit: t.arg.int({ description: "Spec 000's page size, in either direction (first or last by another name; give one of them)" }),
    },
    resolve: (_root, args, ctx) => listChanges(ctx, args) as never,
  }),
}));
