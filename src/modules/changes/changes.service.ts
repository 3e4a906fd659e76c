import type { Db } from '../../db/database.ts';
import { ADVISORY_LOCKS } from '../../shared/advisory-locks.ts';
import type { RequestContext } from '../../shared/context.ts';
import { createLogger, type Logger } from '../../shared/logger.ts';
import { GoneError, ValidationError } from '../../shared/errors.ts';
import type { PageInfo, PageLimits } from '../../shared/pagination.ts';
import { requireAccount } from '../../shared/tenancy.ts';
import { Issues, parse, type Args } from '../../shared/validation.ts';
import { changesArgs, DEFAULT_CHANGE_RETENTION_DAYS, type ChangeAction } from './changes.rules.ts';

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
 * its own: it is logged and does not undo the positions, nor fail the feed read that ran the sequencer
 * (a hook that must not miss a change keeps its own last position and catches up from it).
 */
export const afterChangesSequenced: Array<(db: Db, changes: Change[]) => Promise<void>> = [];

/** at most this many rows per sequencer transaction; a run takes batches until one is short */
export const SEQUENCE_BATCH = 5000;

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
 *
 * A run works in batches of SEQUENCE_BATCH rows, each its own transaction (the lock is held briefly),
 * until a batch comes back short: everything committed before the run is then positioned, so a feed
 * read that runs the sequencer sees its caller's own writes however large the backlog (one batch
 * alone left a reader behind a backlog of other accounts' changes, and the job never caught up with
 * more than a batch a minute). Returns every change it positioned, in position order.
 */
export async function sequenceChanges(db: Db, logger?: Logger): Promise<Change[]> {
  const all: Change[] = [];
  for (;;) {
    const batch = await sequenceBatch(db, logger);
    all.push(...batch);
    if (batch.length < SEQUENCE_BATCH) return all;
  }
}

async function sequenceBatch(db: Db, logger?: Logger): Promise<Change[]> {
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
  // a hook's failure is its own: the positions are committed, and a feed read must not fail for it
  for (const hook of afterChangesSequenced) {
    try {
      if (changes.length) await hook(db, changes);
    } catch (e) {
      (logger ?? createLogger('error')).error({ err: e }, 'a hook after sequencing changes failed; the changes keep their positions');
    }
  }
  return changes;
}

// ── The feed ─────────────────────────────────────────────────────────────────────────────────────

/** GET /changes: `limit` 25 by default, at most 100 (spec 000's cursor envelope). */
export const CHANGE_PAGE_LIMITS: PageLimits = { defaultPerPage: 25, maxPerPage: 100 };

/** How long changes are kept, in days (CHANGE_RETENTION_DAYS, src/config.ts); set by the app at start. */
export const changeRetention = { days: DEFAULT_CHANGE_RETENTION_DAYS };

const DAY_MS = 86_400_000;

/**
 * A feed cursor: the position it stands after (or before) and when it was issued. A cursor issued
 * longer ago than the retention may stand before changes deleted since: 410, re-sync.
 */
interface FeedCursor {
  position: bigint;
  issuedAt: number;
}
const encodeFeedCursor = (c: FeedCursor): string => Buffer.from(`c1:${c.position}:${c.issuedAt}`).toString('base64url');
function decodeFeedCursor(raw: string, field: string): FeedCursor {
  const m = /^c1:(\d{1,18}):(\d{1,15})$/.exec(Buffer.from(raw, 'base64url').toString('latin1'));
  if (!m || raw.length > 64) throw new ValidationError(`${field}: is not a cursor of this feed`, [{ path: [field], message: 'is not a cursor of this feed' }]);
  return { position: BigInt(m[1]), issuedAt: Number(m[2]) };
}

/**
 * A window of the feed: the rows with Relay's edges and pageInfo (the GraphQL connection) and spec
 * 000's cursor envelope (`pagination`, what GET /changes answers). An edge's cursor and the
 * envelope's cursors are the same kind (a position and when it was issued): `endCursor` of a page
 * is its `nextCursor`, `startCursor` its `prevCursor`. `totalCount` is counted only when asked.
 */
export interface ChangeFeedPage {
  nodes: Change[];
  edges: { cursor: string; node: Change }[];
  pageInfo: PageInfo;
  pagination: { hasMore: boolean; nextCursor: string; prevCursor: string };
  totalCount: () => Promise<number>;
}

/**
 * What GET /changes and the changes connection take: the account and types, and the window — spec
 * 000's `limit` with `after` (the next page) or `before` (the previous page), or Relay's
 * `first`/`after` and `last`/`before`, which are the same cursors.
 */
export type ChangeFeedArgs = Args<typeof changesArgs> & {
  limit?: number | null;
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
};

/** The window's direction and size: 400 naming the argument when they contradict each other. */
function feedWindow(args: ChangeFeedArgs): { backwards: boolean; limit: number } {
  const issues = new Issues();
  const backwards = args.before != null || args.last != null;
  if (args.after != null && args.before != null) issues.add(['before'], 'cannot be combined with after');
  else if (backwards && (args.first != null || args.after != null)) issues.add([args.last != null ? 'last' : 'before'], 'cannot be combined with first/after: read forward (first/after) or backward (last/before)');
  const sizes = (['limit', 'first', 'last'] as const).filter((k) => args[k] != null);
  if (sizes.length > 1) issues.add([sizes[1]], `cannot be combined with ${sizes[0]}: both are the page size`);
  for (const k of sizes) if (!Number.isInteger(args[k]) || args[k]! < 1) issues.add([k], 'must be at least 1');
  issues.throwIfAny();
  const asked = args.limit ?? args.first ?? args.last ?? CHANGE_PAGE_LIMITS.defaultPerPage;
  return { backwards, limit: Math.min(asked, CHANGE_PAGE_LIMITS.maxPerPage) };
}

/**
 * A window of a client account's changes in commit order (position), oldest first: after a cursor
 * (the next page; `nextCursor` of the last page, also when it was empty, is where to poll from) or
 * before one (the previous page; `last` without a cursor: the newest changes). Only sequenced
 * changes are shown, and the sequencer runs first, so a caller sees its own committed writes.
 */
export async function listChanges(ctx: RequestContext, args: ChangeFeedArgs): Promise<ChangeFeedPage> {
  const parsed = parse(changesArgs, args);
  const { backwards, limit } = feedWindow(args);
  const field = args.before != null ? 'before' : 'after';
  const cursor = args.before ?? args.after;
  const at = cursor != null ? decodeFeedCursor(cursor, field) : undefined;
  await requireAccount(ctx, parsed.clientAccountId);
  const now = Date.now();
  if (at && at.issuedAt < now - changeRetention.days * DAY_MS) {
    throw new GoneError(`${field}: the cursor is older than the feed's retention (${changeRetention.days} days): changes after it may be deleted. Re-sync: read the lists again, then follow the feed from a new cursor (GET /changes without after).`, 'changes.cursor_expired');
  }
  await sequenceChanges(ctx.db, ctx.logger);
  const types = parsed.types?.length ? parsed.types : null;
  const rows = await ctx.db.$queryRawUnsafe<ChangeRow[]>(
    `SELECT id, position, occurred_at, client_account_id, type, resource, resource_id, action, actor_id
       FROM changes
      WHERE client_account_id = $1 AND position IS NOT NULL
        AND ($2::bigint IS NULL OR position ${backwards ? '<' : '>'} $2::bigint)
        AND ($3::text[] IS NULL OR type = ANY($3::text[]))
      ORDER BY position ${backwards ? 'DESC' : 'ASC'}
      LIMIT $4`,
    parsed.clientAccountId,
    at?.position ?? null,
    types,
    limit + 1,
  );
  const hasMore = rows.length > limit;
  const nodes = rows.slice(0, limit).map(toChange);
  if (backwards) nodes.reverse();
  const edges = nodes.map((node) => ({ cursor: encodeFeedCursor({ position: node.position, issuedAt: now }), node }));
  const first = nodes[0]?.position;
  const last = nodes.at(-1)?.position;
  // an empty page keeps its place: polling goes on from the same position
  const here = at?.position ?? 0n;
  return {
    nodes,
    edges,
    // the rows on a cursor's other side exist (Relay allows this estimate, as every list gives it)
    pageInfo: {
      hasNextPage: backwards ? at !== undefined : hasMore,
      hasPreviousPage: backwards ? hasMore : at !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    pagination: {
      hasMore,
      nextCursor: encodeFeedCursor({ position: last ?? (backwards ? here - 1n : here), issuedAt: now }),
      prevCursor: encodeFeedCursor({ position: first ?? (backwards ? here : here + 1n), issuedAt: now }),
    },
    totalCount: async () => {
      const [{ n }] = await ctx.db.$queryRawUnsafe<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM changes WHERE client_account_id = $1 AND position IS NOT NULL AND ($2::text[] IS NULL OR type = ANY($2::text[]))',
        parsed.clientAccountId,
        types,
      );
      return n;
    },
  };
}

/**
 * The cursor after a client account's newest change: where a subscription that starts now reads on
 * from (listChanges after it). The same checks as listChanges: the arguments, the caller's account.
 */
export async function changesEnd(ctx: RequestContext, args: Args<typeof changesArgs>): Promise<string> {
  const parsed = parse(changesArgs, args);
  await requireAccount(ctx, parsed.clientAccountId);
  await sequenceChanges(ctx.db, ctx.logger);
  const rows = await ctx.db.$queryRawUnsafe<{ last: bigint | null }[]>('SELECT max(position) AS last FROM changes WHERE client_account_id = $1', parsed.clientAccountId);
  return encodeFeedCursor({ position: rows[0]?.last != null ? BigInt(rows[0].last) : 0n, issuedAt: Date.now() });
}

/** Deletes the changes older than the retention (the cleanup job); returns how many. */
export async function deleteExpiredChanges(db: Db, retentionDays = changeRetention.days): Promise<number> {
  return db.$executeRawUnsafe(`DELETE FROM changes WHERE occurred_at < now() - make_interval(days => $1::int) AND position IS NOT NULL`, retentionDays);
}
