import type { Db } from '../../db/database.ts';
import { ADVISORY_LOCKS } from '../../shared/advisory-locks.ts';

import type { ChangeAction } from './changes.rules.ts';

/**
 * What a write records: ids only, the client reads the record itself. The published tables record
 * their inserts, updates and deletes themselves (the trigger of CHANGE_SOURCES, changes.rules.ts);
 * recordChange is for a change no table write expresses.
 */
export interface ChangeInput {
  clientAccountId: number;
  /** `<resource>.<action>` in snake_case, e.g. journal_entry.posted; defaults to `<resource>.<action>` */
  type?: string;
  /** the record's kind in snake_case, e.g. journal_entry */
  resource: string;
  resourceId: string | number;
  action: ChangeAction;
  actorId?: number | null;
}

/** A sequenced change, as the feed, webhooks and subscriptions see it. */
export interface Change {
  id: bigint;
  position: bigint;
  occurredAt: Date;
  clientAccountId: number;
  type: string;
  resource: string;
  resourceId: string;
  action: ChangeAction;
  actorId: number | null;
}

function row(input: ChangeInput): unknown[] {
  return [
    input.clientAccountId,
    input.type ?? `${input.resource}.${input.action}`,
    input.resource,
    String(input.resourceId),
    input.action,
    input.actorId || null, // the system actor (0) is no user
  ];
}

/**
 * Records changes in the caller's transaction (the transactional outbox): they commit with the
 * write or not at all. One INSERT for the batch; no read. Call it with the transaction client.
 */
export async function recordChanges(tx: Db, inputs: readonly ChangeInput[]): Promise<void> {
  if (inputs.length === 0) return;
  const values: string[] = [];
  const args: unknown[] = [];
  for (const input of inputs) {
    const r = row(input);
    const base = args.length;
    values.push(`($${base + 1}::int, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}::int)`);
    args.push(...r);
  }
  await tx.$executeRawUnsafe(
    `INSERT INTO changes (client_account_id, type, resource, resource_id, action, actor_id) VALUES ${values.join(', ')}`,
    ...args,
  );
}

/** Records one change in the caller's transaction (see recordChanges). */
export function recordChange(tx: Db, input: ChangeInput): Promise<void> {
  return recordChanges(tx, [input]);
}

/**
 * Called with every batch the sequencer has just positioned (after its transaction committed), in
 * position order: webhooks enqueue their deliveries, subscriptions are notified. A hook's failure is
 * its own: it is logged by the caller of sequenceChanges and does not undo the positions.
 */
export const afterChangesSequenced: Array<(db: Db, changes: Change[]) => Promise<void>> = [];

/** at most this many rows per sequencer run; a backlog is worked off by the next runs */
const SEQUENCE_BATCH = 5000;

interface ChangeRow {
  id: bigint;
  position: bigint;
  occurred_at: Date;
  client_account_id: number;
  type: string;
  resource: string;
  resource_id: string;
  action: ChangeAction;
  actor_id: number | null;
}

export function toChange(r: ChangeRow): Change {
  return {
    id: BigInt(r.id),
    position: BigInt(r.position),
    occurredAt: r.occurred_at,
    clientAccountId: r.client_account_id,
    type: r.type,
    resource: r.resource,
    resourceId: r.resource_id,
    action: r.action,
    actorId: r.actor_id,
  };
}

/**
 * Gives every committed, unsequenced change the next position, and returns them in position order.
 *
 * Commit order: a row this statement sees is committed (READ COMMITTED shows committed rows only),
 * and its position is drawn after that commit, from one sequence, by one sequencer at a time (a
 * transaction-scoped advisory lock). A transaction still running is not seen now and gets later
 * positions when it has committed; so positions only grow in the order changes became visible, and
 * a reader that has seen position p will never later find a new change below p. Within one run,
 * rows are ordered by (txid, id): a transaction's changes stay together, in the order it wrote them.
 */
export async function sequenceChanges(db: Db): Promise<Change[]> {
  // cheap check first: nothing to do is the common case of a feed read
  const pending = await db.$queryRawUnsafe<{ n: boolean }[]>('SELECT EXISTS (SELECT 1 FROM changes WHERE position IS NULL) AS n');
  if (!pending[0]?.n) return [];
  const run = async (tx: Db): Promise<Change[]> => {
    // a statement of its own: the UPDATE's snapshot, taken after the lock, sees the previous run's positions
    await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock($1::int, 0)', ADVISORY_LOCKS.changeSequencer);
    const rows = await tx.$queryRawUnsafe<ChangeRow[]>(
      `WITH next AS (
         SELECT id, txid FROM changes WHERE position IS NULL ORDER BY txid, id LIMIT $1
       ), numbered AS (
         SELECT id, nextval('changes_position_seq') AS position FROM (SELECT id FROM next ORDER BY txid, id) o
       )
       UPDATE changes c SET position = numbered.position FROM numbered WHERE c.id = numbered.id
       RETURNING c.id, c.position, c.occurred_at, c.client_account_id, c.type, c.resource, c.resource_id, c.action, c.actor_id`,
      SEQUENCE_BATCH,
    );
    return rows.map(toChange).sort((a, b) => (a.position < b.position ? -1 : 1));
  };
  const changes = '$transaction' in db ? await db.$transaction((tx) => run(tx)) : await run(db);
  for (const hook of afterChangesSequenced) await hook(db, changes);
  return changes;
}
