import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { CHANGE_SOURCES, UNPUBLISHED_TABLES } from '../../src/modules/changes/changes.rules.ts';
import { onceTargets, openTestDatabase } from '../support/harness.ts';

// The outbox is a trigger per published table (migration *_changes_triggers); the list the code and
// the README know is CHANGE_SOURCES. They must agree, and a new tenant table must choose a side.
describe.each(onceTargets())('change sources (%s)', (target) => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(() => db?.close());

  it('every published table has the outbox trigger with the arguments of CHANGE_SOURCES, and no other table has it', async () => {
    const rows = await db.prisma.$queryRawUnsafe<{ table: string; args: string }[]>(
      `SELECT c.relname AS table, encode(t.tgargs, 'escape') AS args
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE t.tgname = 'changes_outbox' AND c.relnamespace = current_schema()::regnamespace`,
    );
    const actual = Object.fromEntries(rows.map((r) => [r.table, r.args.split('\\000').filter(Boolean)]));
    const expected = Object.fromEntries(Object.entries(CHANGE_SOURCES).map(([t, s]) => [t, [s.resource, ...('events' in s ? s.events : [])]]));
    expect(actual).toEqual(expected);
  });

  it('every table with a client_account_id publishes its changes or is listed in UNPUBLISHED_TABLES with a reason', async () => {
    const rows = await db.prisma.$queryRawUnsafe<{ table: string }[]>(
      `SELECT table_name AS table FROM information_schema.columns WHERE column_name = 'client_account_id' AND table_schema = current_schema()`,
    );
    const neither = rows.map((r) => r.table).filter((t) => !(t in CHANGE_SOURCES) && !(t in UNPUBLISHED_TABLES));
    expect(neither).toEqual([]);
    const both = Object.keys(UNPUBLISHED_TABLES).filter((t) => t in CHANGE_SOURCES);
    expect(both).toEqual([]);
  });
});

// The list lives in the change feed's README, the guide for integrators the top README links to
// (issue 29 moved every module's reference beside its code).
describe('change types in the README', () => {
  it('"one list in the README": every resource and semantic type of CHANGE_SOURCES is named in the README\'s "Change types"', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../src/modules/changes/README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('### Change types');
    expect(start).toBeGreaterThan(-1);
    const section = readme.slice(start, readme.indexOf('\n## ', start));
    const named = new Set([...section.matchAll(/`([a-z_]+(?:\.[a-z_]+)?)`/g)].map((m) => m[1]));
    const missing = Object.values(CHANGE_SOURCES).flatMap((s) => [
      ...(named.has(s.resource) ? [] : [s.resource]),
      ...('events' in s ? s.events.map((e) => `${s.resource}.${e.split(':')[0]}`).filter((t) => !named.has(t)) : []),
    ]);
    expect(missing).toEqual([]);
  });
});
