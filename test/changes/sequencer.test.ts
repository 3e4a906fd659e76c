import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { afterChangesSequenced, deleteExpiredChanges, recordChange, recordChanges, SEQUENCE_BATCH, sequenceChanges } from '../../src/modules/changes/changes.service.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { openTestDatabase, targets } from '../support/harness.ts';

// The outbox and its sequencer on the database itself (the feed over HTTP: changes.rest.test.ts).
describe.each(targets())('change sequencer (%s)', (target) => {
  let db: Database;
  // an account id no seeded tenant has: the sequencer is global, the test filters its own rows
  const account = 900_000_000 + Math.floor(Math.random() * 1_000_000);
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(() => db?.close());

  const positionsOf = async (resourceId: string) =>
    (await db.prisma.$queryRawUnsafe<{ position: bigint | null }[]>('SELECT position FROM changes WHERE client_account_id = $1 AND resource_id = $2', account, resourceId)).map((r) => r.position);

  it('a change is recorded in the writing transaction: a rolled-back write records nothing', async () => {
    await expect(
      db.prisma.$transaction(async (tx) => {
        await recordChange(tx, { clientAccountId: account, resource: 'item', resourceId: 'rolled-back', action: 'created' });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    await sequenceChanges(db.prisma);
    expect(await positionsOf('rolled-back')).toEqual([]);
  });

  it('a committed change gets a position from the sequencer, after every position given before; type defaults to <resource>.<action>', async () => {
    await db.prisma.$transaction((tx) =>
      recordChanges(tx, [
        { clientAccountId: account, resource: 'item', resourceId: 'a', action: 'created', actorId: 7 },
        { clientAccountId: account, type: 'journal_entry.posted', resource: 'journal_entry', resourceId: 'b', action: 'created' },
      ]),
    );
    expect(await positionsOf('a')).toEqual([null]);
    const before = await db.prisma.$queryRawUnsafe<{ max: bigint | null }[]>('SELECT max(position) AS max FROM changes');
    const sequenced = (await sequenceChanges(db.prisma)).filter((c) => c.clientAccountId === account);
    expect(sequenced.map((c) => [c.type, c.resourceId, c.actorId])).toEqual([
      ['item.created', 'a', 7],
      ['journal_entry.posted', 'b', null],
    ]);
    expect(sequenced[0].position).toBeGreaterThan(before[0].max ?? 0n);
    expect(sequenced[1].position).toBeGreaterThan(sequenced[0].position);
    expect(await sequenceChanges(db.prisma)).toEqual([]);
  });

  it('"a caller sees its own writes" behind a backlog larger than one batch: one run positions every committed change, a later write last', async () => {
    // the backlog a full test run (or a busy hour with no reader) leaves: more than one batch of other changes, older than ours
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO changes (client_account_id, type, resource, resource_id, action) SELECT $1::int, 'item.created', 'item', 'backlog-' || g, 'created' FROM generate_series(1, $2::int) g`,
      account,
      SEQUENCE_BATCH + 10,
    );
    await db.prisma.$transaction((tx) => recordChange(tx, { clientAccountId: account, resource: 'item', resourceId: 'mine', action: 'created' }));
    const sequenced = (await sequenceChanges(db.prisma)).filter((c) => c.clientAccountId === account);
    expect(sequenced).toHaveLength(SEQUENCE_BATCH + 11);
    expect(sequenced.at(-1)?.resourceId).toBe('mine');
    const [{ n }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM changes WHERE position IS NULL');
    expect(n).toBe(0);
  });
});

describe.each(targets())('hooks after sequencing (%s)', (target) => {
  let db: Database;
  const account = 700_000_000 + Math.floor(Math.random() * 1_000_000);
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(() => db?.close());

  it('"afterChangesSequenced" gets each sequenced batch; a failing hook neither undoes the positions nor fails the run', async () => {
    const got: string[] = [];
    const failing = async () => {
      throw new Error('receiver down');
    };
    const recording = async (_db: unknown, changes: { clientAccountId: number; resourceId: string }[]) => {
      got.push(...changes.filter((c) => c.clientAccountId === account).map((c) => c.resourceId));
    };
    afterChangesSequenced.push(failing, recording);
    try {
      await db.prisma.$transaction((tx) => recordChange(tx, { clientAccountId: account, resource: 'item', resourceId: 'hooked', action: 'created' }));
      const sequenced = await sequenceChanges(db.prisma, createLogger('silent'));
      expect(sequenced.some((c) => c.resourceId === 'hooked')).toBe(true);
      expect(got).toEqual(['hooked']);
    } finally {
      afterChangesSequenced.splice(afterChangesSequenced.indexOf(failing), 2);
    }
  });
});

describe.each(targets())('change retention (%s)', (target) => {
  let db: Database;
  const account = 800_000_000 + Math.floor(Math.random() * 1_000_000);
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(() => db?.close());

  it('"CHANGE_RETENTION_DAYS (default 35)": the cleanup deletes the changes older than the retention and keeps the rest', async () => {
    await db.prisma.$transaction((tx) =>
      recordChanges(tx, [
        { clientAccountId: account, resource: 'item', resourceId: 'old', action: 'created' },
        { clientAccountId: account, resource: 'item', resourceId: 'recent', action: 'created' },
      ]),
    );
    await sequenceChanges(db.prisma);
    await db.prisma.$executeRawUnsafe(`UPDATE changes SET occurred_at = now() - interval '36 days' WHERE client_account_id = $1 AND resource_id = 'old'`, account);
    await db.prisma.$executeRawUnsafe(`UPDATE changes SET occurred_at = now() - interval '34 days' WHERE client_account_id = $1 AND resource_id = 'recent'`, account);
    expect(await deleteExpiredChanges(db.prisma, 35)).toBeGreaterThanOrEqual(1);
    const left = await db.prisma.$queryRawUnsafe<{ resource_id: string }[]>('SELECT resource_id FROM changes WHERE client_account_id = $1', account);
    expect(left).toEqual([{ resource_id: 'recent' }]);
  });
});
