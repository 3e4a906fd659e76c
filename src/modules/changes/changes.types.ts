import { builder, tenantScoped } from '../../builder.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { CHANGE_PAGE_LIMITS, listChanges, type Change, type ChangeFeedPage } from './changes.service.ts';

/** The change feed (src/modules/changes/README.md): GET /changes and the changes query share this field. */
export const ChangeRef = builder.objectRef<Change>('Change').implement({
  ...tenantScoped,
  description: 'One change of a client account\'s data: ids only, the client reads the record itself. A delete is a tombstone carrying the id.',
  fields: (t) => ({
    id: t.string({ description: 'The change, as a decimal string (a 64-bit number)', resolve: (c) => String(c.id) }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', description: 'When the writing transaction made the change' }),
    clientAccountId: t.exposeInt('clientAccountId'),
    type: t.exposeString('type', { description: '`<resource>.<action>` or a semantic event (journal_entry.posted); the list is in the README' }),
    resource: t.exposeString('resource', { description: 'The kind of record, snake_case (journal_entry)' }),
    resourceId: t.exposeString('resourceId', { description: 'The id of the record' }),
    action: t.exposeString('action', { description: 'created, updated or deleted' }),
    actorId: t.exposeInt('actorId', { nullable: true, description: 'The user who made it, where the record says (null for deletes and the system)' }),
  }),
});

const ChangePagination = builder.objectRef<ChangeFeedPage['pagination']>('ChangePagination').implement({
  description: "Spec 000's cursor envelope: the next page sends nextCursor as after, the previous page prevCursor as before.",
  fields: (t) => ({
    hasMore: t.exposeBoolean('hasMore', { description: 'More changes follow in the direction read' }),
    nextCursor: t.exposeString('nextCursor', { description: 'Where to read (or poll) on from: after the last change of this page' }),
    prevCursor: t.exposeString('prevCursor', { description: 'Where the previous page ends: before the first change of this page' }),
  }),
});

const ChangeFeed = builder.objectRef<ChangeFeedPage>('ChangeFeed').implement({
  description: 'A window of the change feed, oldest first in commit order.',
  fields: (t) => ({
    nodes: t.field({ type: [ChangeRef], resolve: (p) => p.nodes }),
    pagination: t.field({ type: ChangePagination, resolve: (p) => p.pagination }),
  }),
});

const TYPES_ARG = 'Only these change types (README, "Change types"); all by default';

builder.queryFields((t) => ({
  changes: t.field({
    type: ChangeFeed,
    extensions: pageCost(CHANGE_PAGE_LIMITS, 'limit'),
    description: 'The change feed of a client account, oldest first in commit order (limit 25 by default, at most 100). A cursor older than CHANGE_RETENTION_DAYS is 410 (common code changes.cursor_expired): re-sync.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      types: t.arg.stringList({ description: TYPES_ARG }),
      limit: t.arg.int(),
      after: t.arg.string(),
      before: t.arg.string(),
    },
    resolve: (_root, args, ctx) => listChanges(ctx, args),
  }),
}));
