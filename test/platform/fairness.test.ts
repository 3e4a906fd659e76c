import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/db/fair-queries.ts';
import { REPORT_MEDIA_TYPES } from '../../src/modules/reports/render/index.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { jsonHead, rawRequest } from '../support/raw-http.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 27: "Fair admission per user … one user (or one OAuth client) may hold at most
// REQUEST_CONCURRENCY_PER_USER of the running slots …, with its surplus queued behind other users'
// requests, and expensive operations (query cost above a threshold, file renders, exports) weighted
// accordingly. Under one user's burst, other users' simple requests stay fast."
// The gate's own rules (shares, turns, weights, the overdue heavy request) are tested on a bare
// express app in load-shedding.test.ts; here the real app, on both databases.

describe('database queries in fair turns (FairQueue)', () => {
  it('with every turn taken, the keys waiting are served in turn: one query each, not in arrival order', async () => {
    const queue = new FairQueue(1);
    const order: string[] = [];
    let release!: () => void;
    const first = queue.run('a', () => new Promise<void>((r) => (release = r)));
    const runs = [['a', 1], ['a', 2], ['a', 3], ['b', 1], ['c', 1], ['b', 2]].map(([key, n]) => queue.run(String(key), async () => void order.push(`${key}${n}`)));
    expect(queue.queued).toBe(6);
    release();
    await Promise.all([first, ...runs]);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(queue.queued).toBe(0);
  });

  it('a key with nothing waiting is served before the keys with a backlog: its query waits only for the ones running', async () => {
    const queue = new FairQueue(1);
    const order: string[] = [];
    const holding: (() => void)[] = [];
    const work = (name: string) => () => new Promise<void>((done) => (order.push(name), holding.push(done)));
    /** the running query finishes; the next one starts */
    const advance = async () => {
      holding.shift()!();
      await new Promise((r) => setImmediate(r));
    };
    const runs = ['a0', 'a1', 'a2', 'a3', 'b1', 'b2'].map((name) => queue.run(name[0], work(name)));
    await advance();
    await advance();
    await advance(); // a1, b1 (new keys then) and a2 have run: b is next in the round robin
    runs.push(queue.run('c', work('c1')));
    while (holding.length) await advance();
    await Promise.all(runs);
    expect(order).toEqual(['a0', 'a1', 'b1', 'a2', 'c1', 'b2', 'a3']);
  });

  it.each([
    // handed on at once: b's next query is asked for after the turn went to a's backlog, so b waits for one of a's between each two of its own
    [false, ['a0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3']],
    // handed on a turn of the event loop later: b's next query is there first, as a key with nothing waiting
    [true, ['a0', 'a1', 'b1', 'b2', 'b3', 'a2', 'a3']],
  ])('deferHandOff %s: a light request asking for its queries one after another waits for a heavy key\'s backlog only once when the turn is handed on after its continuation', async (defer, expected) => {
    const queue = new FairQueue(1, defer);
    const order: string[] = [];
    const tick = () => new Promise((r) => setImmediate(r));
    let release!: () => void;
    const a0 = queue.run('a', () => new Promise<void>((r) => (order.push('a0'), (release = r))));
    const backlog = ['a1', 'a2', 'a3'].map((name) => queue.run('a', async () => void order.push(name)));
    // b's request: each query is asked for when the one before it has answered
    const b = (async () => {
      for (const name of ['b1', 'b2', 'b3']) await queue.run('b', async () => void order.push(name));
    })();
    await tick();
    release();
    await Promise.all([a0, ...backlog, b]);
    expect(order).toEqual(expected);
  });

  it('a query that fails gives its turn back', async () => {
    const queue = new FairQueue(1);
    await expect(queue.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run('a', async () => 42)).toBe(42);
  });
});

describe.each(targets())('fair admission on the wire (%s)', (target) => {
  let app: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    // three slots, two of them one user's at most; a /graphql query costing more than 50 weighs 2
    // (its cost ÷ 50, capped at the share); a weighted request waits 2 s at most
    app = await startTestApp(target, {
      env: { REQUEST_CONCURRENCY: '3', REQUEST_CONCURRENCY_PER_USER: '2', GRAPHQL_HEAVY_COST: '50', REQUEST_QUEUE_TIMEOUT_MS: '2000' },
    });
    [a, b] = await Promise.all([app.seed.tenant(), app.seed.tenant()]);
    // a token's first request is admitted under its address; from then on under its user
    for (const t of [a, b]) expect((await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`, { token: t.user.token })).status).toBe(200);
  });
  afterAll(() => app?.close());

  const userKey = (t: Tenant) => `user:${t.user.id}`;
  const stats = (t: Tenant) => app.admission.stats().keys[userKey(t)];
  const until = async (check: () => boolean) => {
    for (const end = Date.now() + 5000; !check(); ) {
      if (Date.now() > end) throw new Error(`timed out; admission: ${JSON.stringify(app.admission.stats())}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  /**
   * A request of `t` that stays at work until released: POST /api/v2/items whose body's last byte is
   * held back (the JSON parser waits for it, the request holds its slot). release() sends it: 201.
   */
  async function atWork(t: Tenant, itemNo: string) {
    const before = stats(t)?.active ?? 0;
    const piece = await app.seed.unitId('H87');
    const body = JSON.stringify({ client_account_id: t.account.id, item_no: itemNo, name: 'Vare', sales_unit_id: piece, tax_code_id: await t.taxCode('3') });
    const req = rawRequest(app.url, jsonHead('POST', '/api/v2/items', Buffer.byteLength(body), { Authorization: `Bearer ${t.user.token}` }) + body.slice(0, -1));
    await until(() => (stats(t)?.active ?? 0) === before + 1);
    return {
      async release() {
        req.send(body.slice(-1));
        const res = await req.response();
        req.socket.destroy();
        return res.status;
      },
    };
  }

  const listOf = (t: Tenant) => app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`, { token: t.user.token });

  it('one user’s burst beyond its share is queued while another user’s request starts at once', async () => {
    const held = [await atWork(a, 'F-1'), await atWork(a, 'F-2')];
    let surplusDone = false;
    const surplus = listOf(a).then((res) => ((surplusDone = true), res));
    await until(() => stats(a)?.queued === 1);
    expect(stats(a)).toEqual({ active: 2, queued: 1 });
    // the third slot is free: b's request starts at once (in arrival order it would wait behind a's)
    const other = await listOf(b);
    expect(other.status).toBe(200);
    expect(surplusDone).toBe(false);
    expect(stats(a)).toEqual({ active: 2, queued: 1 });
    expect(await Promise.all(held.map((h) => h.release()))).toEqual([201, 201]);
    expect((await surplus).status).toBe(200);
  });

  it('a /graphql query costing more than GRAPHQL_HEAVY_COST waits until it holds its weight of its user’s share; others’ light requests pass it', async () => {
    const held = await atWork(a, 'F-3');
    // cost 1 + 100 = 101 → weight 3, capped at the share of 2: it needs both of a's slots
    const heavy = app.gql(a.user.token, `{ items(clientAccountId: ${a.account.id}, perPage: 100) { nodes { id } } }`);
    await until(() => stats(a)?.queued === 1);
    expect(stats(a)).toEqual({ active: 1, queued: 1 });
    expect((await listOf(b)).status).toBe(200);
    expect(await held.release()).toBe(201);
    const answer = await heavy;
    expect(answer.errors).toBeUndefined();
    expect(answer.data.items.nodes.length).toBeGreaterThan(0);
  });

  it('a light /graphql query holds one slot: it starts beside a request of its user at work', async () => {
    const held = await atWork(a, 'F-4');
    const light = await app.gql(a.user.token, `{ items(clientAccountId: ${a.account.id}, perPage: 10) { nodes { id } } }`);
    expect(light.errors).toBeUndefined();
    expect(await held.release()).toBe(201);
  });

  it('a heavy /graphql query whose turn does not come within REQUEST_QUEUE_TIMEOUT_MS: 503 common.unavailable with Retry-After, nothing run', async () => {
    const held = await atWork(a, 'F-5');
    const res = await app.http('POST', '/graphql', { token: a.user.token, body: { query: `{ items(clientAccountId: ${a.account.id}, perPage: 100) { nodes { id } } }` } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.body).toEqual({ errors: [{ message: 'The server is busy (no turn for a request of weight 2 within 2000 ms); retry after 2 s', extensions: { code: 'common.unavailable' } }] });
    expect(await held.release()).toBe(201);
  });

  it('a report rendered as a file (HEAVY_WEIGHT, from its operation-table entry) waits for its weight; as JSON it holds one slot', async () => {
    const held = await atWork(a, 'F-6');
    const path = `/api/v2/reports/trial-balance?client_account_id=${a.account.id}&date_from=2026-01-01&date_to=2026-03-31`;
    const json = await app.http('GET', path, { token: a.user.token });
    expect(json.status).toBe(200);
    const file = fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${a.user.token}`, accept: REPORT_MEDIA_TYPES.xlsx } });
    await until(() => stats(a)?.queued === 1);
    expect((await listOf(b)).status).toBe(200);
    expect(await held.release()).toBe(201);
    const res = await file;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(REPORT_MEDIA_TYPES.xlsx);
    await res.arrayBuffer();
  });

  it('MCP: graphql_query with a costly document waits for its weight as /graphql does', async () => {
    const held = await atWork(a, 'F-7');
    const call = (name: string, args: Record<string, unknown>) =>
      app.http('POST', '/mcp', {
        token: a.user.token,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      });
    const heavy = call('graphql_query', { query: `{ items(clientAccountId: ${a.account.id}, perPage: 100) { nodes { id } } }` });
    await until(() => stats(a)?.queued === 1);
    expect(await held.release()).toBe(201);
    const res = await heavy;
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeFalsy();
    expect(JSON.parse(res.body.result.content[0].text).data.items.nodes.length).toBeGreaterThan(0);
  });

  it('a transaction’s queries never wait for a turn behind a query that waits for the transaction (no deadlock on PGlite’s one connection)', async () => {
    const prisma = app.db.prisma;
    const started = Date.now();
    const outside = await prisma.$transaction(async (tx) => {
      await tx.unit.count();
      const query = prisma.unit.count(); // on PGlite: waits for the transaction to end, holding the queue's one turn
      await new Promise((r) => setTimeout(r, 50));
      expect(await tx.unit.count()).toBeGreaterThan(0);
      return { query };
    });
    expect(await outside.query).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
