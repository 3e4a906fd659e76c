import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 32: "strictly in commit order, so a client that stores nextCursor never misses or repeats a
// change — including under concurrent writers (the commit order, not the id order)".
describe.each(targets())('change feed commit order (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let piece: number;
  let vat25: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    piece = await app.seed.unitId('H87');
    vat25 = await t.taxCode('3');
  });
  afterAll(() => app?.close());

  let n = 0;
  const postItem = () => app.http('POST', '/api/v2/items', { token: t.user.token, body: { client_account_id: t.account.id, sales_unit_id: piece, tax_code_id: vat25, item_no: `O-${++n}` } });
  /** one poll: every change after `cursor` now, page by page (limit 3: many pages) */
  const poll = async (cursor: string | undefined) => {
    const seen: { id: string; resource_id: string }[] = [];
    for (;;) {
      const res = await app.http('GET', `/api/v2/changes?client_account_id=${t.account.id}&limit=3${cursor ? `&after=${cursor}` : ''}`, { token: t.user.token });
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.pagination.nextCursor;
      if (!res.body.pagination.hasMore) return { seen, cursor: cursor! };
    }
  };

  it('"a client that stores nextCursor never misses or repeats a change under concurrent writers": polling while 30 items are written at once sees each creation exactly once', async () => {
    let { cursor } = await poll(undefined);
    const seen: string[] = [];
    let writing = true;
    const writes = Promise.all(Array.from({ length: 30 }, () => postItem())).finally(() => (writing = false));
    while (writing) {
      const page = await poll(cursor);
      seen.push(...page.seen.map((c) => c.resource_id));
      cursor = page.cursor;
    }
    const created = (await writes).map((r) => {
      expect(r.status).toBe(201);
      return String(r.body.id);
    });
    seen.push(...(await poll(cursor)).seen.map((c) => c.resource_id));
    expect(seen.length).toBe(created.length);
    expect([...seen].sort()).toEqual([...created].sort());
  });

  // Two transactions at once need two connections: PostgreSQL's pool (PGlite runs one at a time).
  it.runIf(target === 'postgres')('"the order is the commit order, not the id order": a change written first but committed last comes after the one committed first, and a reader who read past the first is not skipped past it', async () => {
    let { cursor } = await poll(undefined);
    let commitSlow!: () => void;
    let written!: () => void;
    const slowWritten = new Promise<void>((r) => (written = r));
    const gate = new Promise<void>((r) => (commitSlow = r));
    const slowTx = app.db.prisma.$transaction(async (tx) => {
      const item = await tx.item.create({ data: { clientAccountId: t.account.id, itemNo: 'SLOW', salesUnitId: piece, taxCodeId: vat25 } });
      written();
      await gate;
      return item;
    });
    await slowWritten; // its change has the lower id, uncommitted
    const fast = await postItem();
    expect(fast.status).toBe(201);
    const first = await poll(cursor);
    expect(first.seen.map((c) => c.resource_id)).toEqual([String(fast.body.id)]);
    cursor = first.cursor;
    commitSlow();
    const slow = await slowTx;
    const second = await poll(cursor);
    expect(second.seen.map((c) => c.resource_id)).toEqual([String(slow.id)]);
    expect(BigInt(second.seen[0].id)).toBeLessThan(BigInt(first.seen[0].id)); // written first, listed after
  });
});
