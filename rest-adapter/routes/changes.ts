import { defineOperations } from '../operation.ts';

// Our extension beyond the spec (README, "Integrations: staying in sync"): the change feed, in spec
// 000's cursor envelope.
export const changeOperations = defineOperations([
  {
    method: 'GET',
    path: '/changes',
    summary:
      "The change feed of a client account (our extension): every write as {id, occurred_at, client_account_id, type, resource, resource_id, action, actor_id}, oldest first in commit order, filtered by types; spec 000's cursor envelope (limit 25 by default, at most 100; nextCursor as after, prevCursor as before). A cursor older than CHANGE_RETENTION_DAYS (35) is 410: re-sync.",
    errors: { 410: 'Cursor expired: the cursor (after or before) is older than CHANGE_RETENTION_DAYS, so changes after it may be deleted. Re-sync: read the lists again, then follow the feed from a new cursor.' },
    document: /* GraphQL */ `
      query ListChanges($clientAccountId: Int!, $types: [String!], $limit: Int, $after: String, $before: String) {
        changes(clientAccountId: $clientAccountId, types: $types, limit: $limit, after: $after, before: $before) {
          data: nodes {
            id
            occurred_at: occurredAt
            client_account_id: clientAccountId
            type
            resource
            resource_id: resourceId
            action
            actor_id: actorId
          }
          pagination { hasMore nextCursor prevCursor }
        }
      }`,
  },
]);
