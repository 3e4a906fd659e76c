import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { inTransaction, systemContext } from '../../src/shared/context.ts';
import { toWireError } from '../../src/http/error-renderer.ts';
import { pino } from 'pino';

// Hardening: "Statuses that change under concurrency … A unique or foreign-key violation must map to
// the same answer the pre-check gives."

describe.each(targets())('answers do not depend on timing (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let vat: number;
  let piece: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    vat = await t.taxCode('3');
    piece = await app.seed.unitId('H87');
  });
  afterAll(() => app?.close());

  const api = (method: string, path: string, body?: unknown) => app.http(method, `/api/v2${path}`, { token: t.user.token, body });
  const item = (itemNo: string) => ({ client_account_id: t.account.id, item_no: itemNo, name: 'Vare', sales_unit_id: piece, tax_code_id: vat });

  it('50 concurrent creates with one item_no: one 201, every other one the same 400 naming item_no as a sequential duplicate gets', async () => {
    const first = await api('POST', '/items', item('SEQ-1'));
    expect(first.status).toBe(201);
    const sequential = await api('POST', '/items', item('SEQ-1'));
    expect(sequential).toMatchObject({ status: 400, body: { error: `item_no: 'SEQ-1' is already used by item ${first.body.id}`, status: 400 } });

    const answers = await Promise.all(Array.from({ length: 50 }, () => api('POST', '/items', item('RACE-1'))));
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    const others = answers.filter((r) => r.status !== 201);
    expect(others.map((r) => r.status)).toEqual(Array(49).fill(400));
    for (const r of others) expect(r.body).toEqual({ error: `item_no: 'RACE-1' is already used by item ${created[0].body.id}`, status: 400 });
  });

  // PGlite has one connection: transactions never overlap there, so the race exists on PostgreSQL only.
  it.runIf(target === 'postgres')('a create whose check ran before a concurrent insert committed: 400 naming item_no, not 409', async () => {
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    const other = app.db.prisma.$transaction(async (tx) => {
      const row = await tx.item.create({ data: { clientAccountId: t.account.id, itemNo: 'RACE-2', name: 'Vare', salesUnitId: piece, taxCodeId: vat } });
      await held;
      return row;
    });
    const answer = api('POST', '/items', item('RACE-2'));
    // The request's check saw no RACE-2 (uncommitted); its insert now waits on the unique index.
    for (let waiting = 0; waiting === 0; ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const [row] = await app.db.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      waiting = row.n;
    }
    commit();
    const winner = await other;
    expect(await answer).toMatchObject({ status: 400, body: { error: `item_no: 'RACE-2' is already used by item ${winner.id}`, status: 400 } });
  });

  it('creating an entry while its collection is deleted: 201 or 404, never "A referenced record does not exist"', async () => {
    const itemId = (await api('POST', '/items', item('ENTRY-1'))).body.id as number;
    const statuses = new Set<number>();
    for (let round = 0; round < 8; round++) {
      const collection = (await api('POST', '/item-collections', { client_account_id: t.account.id, collection_type: 'CART', name: `Kurv ${round}` })).body.id as number;
      const entry = () => api('POST', `/item-collections/${collection}/entries`, { item_collection_id: collection, item_id: itemId, quantity: 1, price: 10, tax_code_id: vat, unit_id: piece });
      const remove = app.http('POST', '/graphql', { token: t.user.token, body: { query: `mutation { deleteItemCollection(id: ${collection}) { id } }` } });
      const answers = await Promise.all([entry(), entry(), remove, entry(), entry()]);
      const deleted = answers[2];
      expect(deleted.status).toBe(200);
      expect(deleted.body.errors).toBeUndefined();
      for (const r of [answers[0], answers[1], answers[3], answers[4]]) {
        statuses.add(r.status);
        if (r.status !== 201) expect(r).toMatchObject({ status: 404, body: { error: expect.stringMatching(/not found/i), status: 404 } });
      }
    }
    expect([...statuses].every((s) => s === 201 || s === 404)).toBe(true);
  });

  it('a transaction that lost a race (P2002/P2003) runs again, so its own checks give the answer', async () => {
    const ctx = systemContext(app.db.prisma);
    let runs = 0;
    const result = await inTransaction(ctx, async () => {
      runs++;
      if (runs === 1) throw Object.assign(new Error('Unique constraint failed'), { code: 'P2002' });
      if (runs === 2) throw Object.assign(new Error('Foreign key constraint violated'), { code: 'P2003' });
      return 'checked again';
    });
    expect({ runs, result }).toEqual({ runs: 3, result: 'checked again' });
  });

  it('a transaction failing for any other reason runs once', async () => {
    const ctx = systemContext(app.db.prisma);
    let runs = 0;
    await expect(
      inTransaction(ctx, async () => {
        runs++;
        throw Object.assign(new Error('Value too long'), { code: 'P2000' });
      }),
    ).rejects.toThrow('Value too long');
    expect(runs).toBe(1);
  });

  it("a transaction queued behind another one for longer than Prisma's default 2 s wait runs, it is not a 500 (a loaded PGlite, or a busy pool)", async () => {
    // PGlite runs one transaction at a time: this one holds it for 3 s (on PostgreSQL the other does not wait)
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const other = app.db.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      started();
      await new Promise((resolve) => setTimeout(resolve, 3000));
    });
    await holding;
    const queued = inTransaction(systemContext(app.db.prisma), async (tx) => (await tx.db.$queryRaw<{ one: number }[]>`SELECT 1 AS one`)[0].one);
    await other;
    expect(await queued).toBe(1);
  });

  it('a transaction past its time is rolled back (P2028), nothing written, and logged as a warning', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const ctx = systemContext(app.db.prisma, { logger });
    const name = `Timed out ${Date.now()}`;
    const error = await inTransaction(
      ctx,
      async (tx) => {
        await tx.db.tag.create({ data: { clientAccountId: t.account.id, name } });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.db.$queryRaw`SELECT 1`;
      },
      { timeoutMs: 100 },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'P2028' });
    expect(await app.db.prisma.tag.count({ where: { clientAccountId: t.account.id, name } })).toBe(0);
    expect(lines.map((l) => JSON.parse(l).msg)).toContain('a transaction could not start or finish in time (answered 503)');
  });

  it('a transaction that could not start or finish in time (P2028) is a 503 with Retry-After that says nothing was written, not a 500', () => {
    const wire = toWireError(Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' }));
    expect(wire).toMatchObject({ status: 503, code: 'common.unavailable', headers: { 'Retry-After': '1' }, message: expect.stringContaining('nothing was written') });
  });
});
