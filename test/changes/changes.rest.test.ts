import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

interface WireChange {
  id: string;
  occurred_at: string;
  client_account_id: number;
  type: string;
  resource: string;
  resource_id: string;
  action: string;
  actor_id: number | null;
}

// Our extension (issue 32, README "Integrations: staying in sync"): GET /changes, spec 000's cursor
// envelope over the transactional outbox.
describe.each(targets())('change feed REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let piece: number;
  let vat25: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    piece = await app.seed.unitId('H87');
    vat25 = await t.taxCode('3');
  });
  afterAll(() => app?.close());

  const feed = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/changes?${qs}`, { token });
  let n = 0;
  const newItem = async (tenant = t) => {
    const taxCodeId = tenant === t ? vat25 : await tenant.taxCode('3');
    const res = await app.http('POST', '/api/v2/items', { token: tenant.user.token, body: { client_account_id: tenant.account.id, sales_unit_id: piece, tax_code_id: taxCodeId, item_no: `C-${++n}` } });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  /** every change of the account after `cursor`, following nextCursor page by page */
  const follow = async (tenant: Tenant, cursor: string | undefined, limit = 100) => {
    const seen: WireChange[] = [];
    for (;;) {
      const res = await feed(`client_account_id=${tenant.account.id}&limit=${limit}${cursor ? `&after=${cursor}` : ''}`, tenant.user.token);
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.pagination.nextCursor;
      if (!res.body.pagination.hasMore) return { seen, cursor: cursor! };
    }
  };

  const line = (account_code: string, debit: string | number, credit: string | number) => ({ posting_date: '2026-03-15', account_code, debit, credit });

  it('"every write records one change in its transaction": an item created, updated and deleted (DELETE deactivates it: an update) is item.created, item.updated, item.updated, oldest first', async () => {
    const start = (await follow(t, undefined)).cursor;
    const id = await newItem();
    expect((await app.http('PUT', `/api/v2/items/${id}`, { token: t.user.token, body: { name: 'Endret' } })).status).toBe(200);
    expect((await app.http('DELETE', `/api/v2/items/${id}`, { token: t.user.token })).status).toBeLessThan(300);
    const { seen } = await follow(t, start);
    expect(seen.map((c) => [c.type, c.resource, c.resource_id, c.action])).toEqual([
      ['item.created', 'item', String(id), 'created'],
      ['item.updated', 'item', String(id), 'updated'],
      ['item.updated', 'item', String(id), 'updated'],
    ]);
    expect(seen[0]).toEqual({ id: expect.stringMatching(/^\d+$/), occurred_at: expect.any(String), client_account_id: t.account.id, type: 'item.created', resource: 'item', resource_id: String(id), action: 'created', actor_id: t.user.id });
    expect(BigInt(seen[1].id)).toBeGreaterThan(BigInt(seen[0].id));
  });

  it('"a delete is a tombstone carrying the id": a deleted draft journal entry is journal_entry.deleted with its id', async () => {
    const start = (await follow(t, undefined)).cursor;
    const draft = await app.http('POST', '/api/v2/journal-entries/', { token: t.user.token, body: { client_account_id: t.account.id, is_draft: true, lines: [line('1920', 10, 0), line('3000', 0, 10)] } });
    expect(draft.status).toBe(201);
    expect((await app.http('DELETE', `/api/v2/journal-entries/${draft.body.id}`, { token: t.user.token })).status).toBe(200);
    const { seen } = await follow(t, start);
    expect(seen.filter((c) => c.resource === 'journal_entry').map((c) => [c.type, c.resource_id, c.action])).toEqual([
      ['journal_entry.created', String(draft.body.id), 'created'],
      ['journal_entry.deleted', String(draft.body.id), 'deleted'],
    ]);
  });

  it('"journal_entry.posted" for a posted entry, "journal_entry.cancelled" for its cancellation and journal_entry.posted for the reversal', async () => {
    const start = (await follow(t, undefined)).cursor;
    const posted = await app.http('POST', '/api/v2/journal-entries/', { token: t.user.token, body: { client_account_id: t.account.id, lines: [line('1920', 10, 0), line('3000', 0, 10)] } });
    expect(posted.status).toBe(201);
    const cancelled = await app.http('PATCH', `/api/v2/journal-entries/${posted.body.id}`, { token: t.user.token, body: { cancelled: 'Y', cancellation_reason: 'Feil' } });
    expect(cancelled.status).toBe(200);
    const { seen } = await follow(t, start);
    expect(seen.filter((c) => c.resource === 'journal_entry').map((c) => [c.type, c.resource_id])).toEqual([
      ['journal_entry.posted', String(posted.body.id)],
      ['journal_entry.posted', String(cancelled.body.cancellation_entry_id)],
      ['journal_entry.cancelled', String(posted.body.id)],
    ]);
  });

  it('"limit default 25, max 100; next page sends nextCursor as after, previous page sends prevCursor as before": pages walk the feed without gap or repeat, both ways', async () => {
    const tenant = await app.seed.tenant();
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push(await newItem(tenant));
    const first = await feed(`client_account_id=${tenant.account.id}&types=item.created&limit=3`, tenant.user.token);
    expect(first.body.data.map((c: WireChange) => Number(c.resource_id))).toEqual(ids.slice(0, 3));
    expect(first.body.pagination).toEqual({ hasMore: true, nextCursor: expect.any(String), prevCursor: expect.any(String) });
    const second = await feed(`client_account_id=${tenant.account.id}&types=item.created&limit=3&after=${first.body.pagination.nextCursor}`, tenant.user.token);
    expect(second.body.data.map((c: WireChange) => Number(c.resource_id))).toEqual(ids.slice(3, 6));
    const back = await feed(`client_account_id=${tenant.account.id}&types=item.created&limit=3&before=${second.body.pagination.prevCursor}`, tenant.user.token);
    expect(back.body.data).toEqual(first.body.data);
    const third = await feed(`client_account_id=${tenant.account.id}&types=item.created&limit=3&after=${second.body.pagination.nextCursor}`, tenant.user.token);
    expect(third.body.data.map((c: WireChange) => Number(c.resource_id))).toEqual(ids.slice(6));
    expect(third.body.pagination.hasMore).toBe(false);
    // an empty page keeps its place: polling on from its nextCursor sees the next write
    const empty = await feed(`client_account_id=${tenant.account.id}&after=${third.body.pagination.nextCursor}`, tenant.user.token);
    expect(empty.body.data.filter((c: WireChange) => c.type === 'item.created')).toEqual([]);
    const later = await newItem(tenant);
    const polled = await follow(tenant, empty.body.pagination.nextCursor);
    expect(polled.seen.map((c) => [c.type, Number(c.resource_id)])).toEqual([['item.created', later]]);
    expect((await feed(`client_account_id=${tenant.account.id}`, tenant.user.token)).body.data.length).toBeLessThanOrEqual(25);
    const big = await feed(`client_account_id=${tenant.account.id}&limit=1000`, tenant.user.token);
    expect(big.status).toBe(200);
  });

  it('"GraphQL changes (a connection) comes from the same operation": edges with cursors, nodes, pageInfo and totalCount; first/after and last/before walk the same window as REST; actor and clientAccount are objects', async () => {
    const tenant = await app.seed.tenant();
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await newItem(tenant));
    const q = `query($id: Int!, $first: Int, $after: String, $last: Int, $before: String, $limit: Int) {
      changes(clientAccountId: $id, types: ["item.created"], first: $first, after: $after, last: $last, before: $before, limit: $limit) {
        edges { cursor node { resourceId } }
        nodes { resourceId type actorId actor { id } clientAccount { id } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        totalCount
        pagination { hasMore nextCursor prevCursor }
      }
    }`;
    const page = async (vars: Record<string, unknown>) => {
      const res = await app.gql(tenant.user.token, q, { id: tenant.account.id, ...vars });
      expect(res.errors).toBeUndefined();
      return res.data!.changes;
    };
    const first = await page({ first: 3 });
    expect(first.nodes.map((c: { resourceId: string }) => Number(c.resourceId))).toEqual(ids.slice(0, 3));
    expect(first.edges.map((e: { node: { resourceId: string } }) => Number(e.node.resourceId))).toEqual(ids.slice(0, 3));
    expect(first.nodes[0]).toMatchObject({ type: 'item.created', actorId: tenant.user.id, actor: { id: tenant.user.id }, clientAccount: { id: tenant.account.id } });
    expect(first.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: first.edges[0].cursor, endCursor: first.edges[2].cursor });
    expect(first.totalCount).toBe(4);
    // the REST page of the same size is the same window, and its cursors are the connection's
    const rest = await feed(`client_account_id=${tenant.account.id}&types=item.created&limit=3`, tenant.user.token);
    expect(rest.body.data.map((c: WireChange) => c.resource_id)).toEqual(first.nodes.map((c: { resourceId: string }) => c.resourceId));
    const next = await page({ first: 3, after: first.pageInfo.endCursor });
    expect(next.nodes.map((c: { resourceId: string }) => Number(c.resourceId))).toEqual(ids.slice(3));
    expect(next.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect((await page({ limit: 3, after: first.pagination.nextCursor })).nodes).toEqual(next.nodes);
    const back = await page({ last: 2, before: next.pageInfo.startCursor });
    expect(back.nodes.map((c: { resourceId: string }) => Number(c.resourceId))).toEqual(ids.slice(1, 3));
    expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const newest = await page({ last: 1 });
    expect(newest.nodes.map((c: { resourceId: string }) => Number(c.resourceId))).toEqual(ids.slice(3));
    // a window asked two ways is a 400 naming the argument
    for (const vars of [{ first: 1, last: 1 }, { first: 1, before: first.pagination.prevCursor }, { last: 1, after: first.pagination.nextCursor }, { first: 2, limit: 2 }, { first: 0 }, { last: -1 }]) {
      const res = await app.gql(tenant.user.token, q, { id: tenant.account.id, ...vars });
      expect(res.errors?.[0].extensions, JSON.stringify(vars)).toMatchObject({ code: 'common.validation_error' });
    }
  });

  it('"403 for another account": the feed of an account the caller cannot reach is forbidden, on REST and GraphQL', async () => {
    await newItem(other);
    const res = await feed(`client_account_id=${other.account.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.stringContaining(`client account ${other.account.id}`), status: 403 });
    const gql = await app.gql(t.user.token, `{ changes(clientAccountId: ${other.account.id}) { nodes { id } } }`);
    expect(gql.errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    const mine = await follow(t, undefined);
    expect(mine.seen.every((c) => c.client_account_id === t.account.id)).toBe(true);
  });

  it('"a cursor older than the retention is 410 with a message saying to re-sync"', async () => {
    const now = await feed(`client_account_id=${t.account.id}`);
    const [, position] = Buffer.from(now.body.pagination.nextCursor, 'base64url').toString().split(':');
    const old = Buffer.from(`c1:${position}:${Date.now() - 36 * 86_400_000}`).toString('base64url');
    const res = await feed(`client_account_id=${t.account.id}&after=${old}`);
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: expect.stringMatching(/retention \(35 days\).*Re-sync/), status: 410 });
    const fresh = Buffer.from(`c1:${position}:${Date.now() - 34 * 86_400_000}`).toString('base64url');
    expect((await feed(`client_account_id=${t.account.id}&after=${fresh}`)).status).toBe(200);
  });

  it('bad input is a 400 naming the parameter: an unknown type, a foreign cursor, after with before, limit 0', async () => {
    const huge = Buffer.from(`c1:${'9'.repeat(19)}:${Date.now()}`).toString('base64url'); // past bigint
    const cases = [`types=item.exploded`, `after=abc`, `after=${'x'.repeat(80)}`, `after=${huge}`, `before=${huge}`, `limit=0`, `limit=-5`, `client_account_id=-1`];
    for (const qs of cases) {
      const res = await feed(`client_account_id=${t.account.id}&${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.body, qs).toEqual({ error: expect.any(String), status: 400 });
    }
    const c = (await feed(`client_account_id=${t.account.id}`)).body.pagination.nextCursor;
    expect((await feed(`client_account_id=${t.account.id}&after=${c}&before=${c}`)).status).toBe(400);
  });

  it('"a rolled-back write records nothing": an item inserted in a transaction that then fails leaves no change', async () => {
    const start = (await follow(t, undefined)).cursor;
    await expect(
      app.db.prisma.$transaction(async (tx) => {
        await tx.item.create({ data: { clientAccountId: t.account.id, itemNo: 'ROLLBACK', salesUnitId: piece, taxCodeId: vat25 } });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await follow(t, start)).seen).toEqual([]);
  });
});
