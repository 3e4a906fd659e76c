import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { changeListenerOf, MAX_SUBSCRIPTIONS_PER_CALLER } from '../../src/modules/changes/changes.listener.ts';
import { subscriptionTimings } from '../../src/modules/changes/changes.subscription.ts';
import { forgetCachedSessions } from '../../src/http/session-cache.ts';
import { openTestDatabase, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { subscribeSse, type SseSubscription } from '../support/sse.ts';

const SUBSCRIPTION = `subscription Changes($id: Int!, $types: [String!], $after: String) {
  changes(clientAccountId: $id, types: $types, after: $after) { id occurredAt clientAccountId type resource resourceId action actorId }
}`;

interface Change {
  id: string;
  type: string;
  resource: string;
  resourceId: string;
  action: string;
  clientAccountId: number;
  actorId: number | null;
}

/** until `check` holds (the server notices a closed stream a moment after the client closed it) */
async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('not within time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Issue 32, "Subscriptions": subscription { changes(clientAccountId, types) } over server-sent events,
// fed across processes by LISTEN/NOTIFY, with the feed's tenancy; "a subscription receives a change
// within a second".
describe.each(targets())('change feed subscriptions (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let piece: number;
  let vat25: number;
  const open: SseSubscription[] = [];

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    piece = await app.seed.unitId('H87');
    vat25 = await t.taxCode('3');
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await app?.close();
  });

  const subscribe = async (tenant: Tenant, variables: Record<string, unknown> = {}, options: { token?: string; method?: 'GET' | 'POST'; url?: string } = {}) => {
    const s = await subscribeSse<{ changes: Change }>(options.url ?? app.url, {
      token: 'token' in options ? options.token : tenant.user.token,
      query: SUBSCRIPTION,
      variables: { id: tenant.account.id, ...variables },
      method: options.method,
    });
    open.push(s);
    return s;
  };
  let n = 0;
  const newItem = async (via: TestApp = app) => {
    const res = await via.http('POST', '/api/v2/items', { token: t.user.token, body: { client_account_id: t.account.id, sales_unit_id: piece, tax_code_id: vat25, item_no: `S-${++n}` } });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };

  it('"a subscription receives a change within a second": a REST write reaches the subscriber over SSE within 1 s, with the feed\'s fields', async () => {
    const s = await subscribe(t);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const id = await newItem();
    const written = performance.now();
    await s.waitFor(1, 1000);
    expect(s.events[0].at - written).toBeLessThan(1000);
    expect(s.events[0].result).toEqual({
      data: { changes: { id: expect.stringMatching(/^\d+$/), occurredAt: expect.any(String), clientAccountId: t.account.id, type: 'item.created', resource: 'item', resourceId: String(id), action: 'created', actorId: t.user.id } },
    });
    // the next ones follow in commit order, each within a second
    const more = [await newItem(), await newItem()];
    await s.waitFor(3, 1000);
    expect(s.events.slice(1).map((e) => e.result.data!.changes.resourceId)).toEqual(more.map(String));
    s.close();
  });

  it('starts now: changes committed before the subscription are not sent; with `after` (a cursor of the feed) what came since is sent first', async () => {
    let cursor = '';
    for (let more = true; more; ) {
      const page = await app.http('GET', `/api/v2/changes?client_account_id=${t.account.id}&limit=100${cursor ? `&after=${cursor}` : ''}`, { token: t.user.token });
      expect(page.status).toBe(200);
      [cursor, more] = [page.body.pagination.nextCursor, page.body.pagination.hasMore];
    }
    const before = await newItem();
    const fromNow = await subscribe(t);
    const since = await subscribe(t, { after: cursor });
    await since.waitFor(1, 1000);
    expect(since.events[0].result.data!.changes.resourceId).toBe(String(before));
    const after = await newItem();
    await fromNow.waitFor(1, 1000);
    await since.waitFor(2, 1000);
    expect(fromNow.events.map((e) => e.result.data!.changes.resourceId)).toEqual([String(after)]);
    expect(since.events.map((e) => e.result.data!.changes.resourceId)).toEqual([String(before), String(after)]);
    fromNow.close();
    since.close();
  });

  it('types filter: only the types asked for are sent (the feed\'s own filter)', async () => {
    const s = await subscribe(t, { types: ['item.updated'] });
    const id = await newItem();
    expect((await app.http('PUT', `/api/v2/items/${id}`, { token: t.user.token, body: { name: 'Endret' } })).status).toBe(200);
    await s.waitFor(1, 1000);
    await new Promise((r) => setTimeout(r, 200)); // nothing else follows
    expect(s.events.map((e) => [e.result.data!.changes.type, e.result.data!.changes.resourceId])).toEqual([['item.updated', String(id)]]);
    s.close();
    const bad = await subscribe(t, { types: ['item.nope'] });
    expect(bad.status).toBe(400);
    await bad.ended;
    expect(bad.events[0].result.errors?.[0].extensions.code).toBe('common.validation_error');
  });

  it('"another tenant sees nothing": another tenant\'s token is refused 403 (common.forbidden) and the stream ends; its own subscription gets none of this tenant\'s changes', async () => {
    const foreign = await subscribe(t, {}, { token: other.user.token });
    expect(foreign.status).toBe(403);
    await foreign.ended;
    expect(foreign.events.map((e) => e.result.errors?.[0].extensions.code)).toEqual(['common.forbidden']);
    expect(foreign.events[0].result.data ?? null).toBeNull();
    const own = await subscribe(other);
    const mine = await subscribe(t);
    await newItem();
    await mine.waitFor(1, 1000);
    await new Promise((r) => setTimeout(r, 200));
    expect(own.events).toEqual([]);
    own.close();
    mine.close();
  });

  it('authentication as on every GraphQL operation: no token is 401 (common.unauthenticated); a read-only token may subscribe; over GET too (as GraphiQL sends it)', async () => {
    const anonymous = await subscribe(t, {}, { token: undefined });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    await anonymous.ended;
    expect(anonymous.events[0].result.errors?.[0].extensions.code).toBe('common.unauthenticated');
    const reader = await subscribe(t, {}, { token: t.user.readToken, method: 'GET' });
    expect(reader.status).toBe(200);
    const id = await newItem();
    await reader.waitFor(1, 1000);
    expect(reader.events[0].result.data!.changes.resourceId).toBe(String(id));
    reader.close();
  });

  it('open subscriptions hold no admission slot: a user with more of them than its share still gets answers', async () => {
    const streams = await Promise.all(Array.from({ length: app.config.admission.perKey + 2 }, () => subscribe(t)));
    await eventually(() => changeListenerOf(app.db.prisma).subscribers >= streams.length);
    const res = await app.http('GET', `/api/v2/changes?client_account_id=${t.account.id}`, { token: t.user.token });
    expect(res.status).toBe(200);
    expect(app.admission.stats().keys[`user:${t.user.id}`]?.active ?? 0).toBe(0);
    for (const s of streams) s.close();
  });

  it(`at most ${MAX_SUBSCRIPTIONS_PER_CALLER} subscriptions of one caller at once: the next is 429 (common.rate_limited); closing one makes room`, async () => {
    const u = await app.seed.tenant();
    const streams = await Promise.all(Array.from({ length: MAX_SUBSCRIPTIONS_PER_CALLER }, () => subscribe(u)));
    const refused = await subscribe(u);
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '30']);
    await refused.ended;
    expect(refused.events[0].result.errors?.[0].extensions.code).toBe('common.rate_limited');
    expect(streams.every((s) => s.events.length === 0)).toBe(true);
    streams[0].close();
    await eventually(() => changeListenerOf(app.db.prisma).subscribers < MAX_SUBSCRIPTIONS_PER_CALLER);
    const room = await subscribe(u);
    const other = await subscribe(t); // another caller was never limited by u's streams
    expect([room.status, other.status]).toEqual([200, 200]);
    await new Promise((r) => setTimeout(r, 100));
    expect(room.events).toEqual([]);
    for (const s of [...streams, room, other]) s.close();
  });

  it('access is checked again while the stream lasts: a member removed from the account gets 403 (common.forbidden) as the last event, and the stream ends', async () => {
    const u = await app.seed.tenant();
    subscriptionTimings.recheckMs = 0;
    try {
      const s = await subscribe(u);
      // the removal is itself a change of the account (membership.deleted): it wakes the subscriber
      await app.db.prisma.membership.deleteMany({ where: { userId: u.user.id, clientAccountId: u.account.id } });
      await s.ended;
      // a read whose check ran just before the removal committed may still bring the removal itself
      expect(s.events.at(-1)!.result.errors?.[0].extensions.code).toBe('common.forbidden');
      expect(s.events.slice(0, -1).map((e) => e.result.data!.changes.type)).toEqual(s.events.length > 1 ? ['membership.deleted'] : []);
    } finally {
      subscriptionTimings.recheckMs = 60_000;
    }
  });

  it('the token is checked again too: a stream whose session was signed out gets 401 (common.unauthenticated) as its last event, and no change after', async () => {
    const u = await app.seed.tenant();
    subscriptionTimings.recheckMs = 0;
    try {
      const s = await subscribe(u);
      await app.db.prisma.session.deleteMany({ where: { userId: u.user.id } });
      forgetCachedSessions(u.user.id); // as signing out does (another process's cache forgets within SESSION_CACHE_SECONDS)
      // a write of the account (its change recorded by the outbox) wakes the subscriber: the check runs before the read
      await app.db.prisma.businessPartner.create({ data: { clientAccountId: u.account.id, name: 'Wakes the stream' } });
      await s.ended;
      expect(s.events).toHaveLength(1);
      expect(s.events[0]!.result.errors?.[0].extensions.code).toBe('common.unauthenticated');
      expect(s.events[0]!.result.errors?.[0].message).toMatch(/expired or was revoked/);
    } finally {
      subscriptionTimings.recheckMs = 60_000;
    }
  });

  it('a disconnect frees the listener: the subscriber is unregistered, and the LISTEN ends with the process\'s last subscriber', async () => {
    const listener = changeListenerOf(app.db.prisma);
    for (const s of open) s.close();
    await eventually(() => listener.subscribers === 0);
    const s = await subscribe(t);
    await eventually(() => listener.subscribers === 1 && listener.isListening);
    s.close();
    await eventually(() => listener.subscribers === 0 && !listener.isListening);
    // and the next subscriber listens again
    const again = await subscribe(t);
    const id = await newItem();
    await again.waitFor(1, 1000);
    expect(again.events[0].result.data!.changes.resourceId).toBe(String(id));
    again.close();
    await eventually(() => listener.subscribers === 0 && !listener.isListening);
  });

  // Another process on the same PostgreSQL database: its own pool and its own listener (PGlite is one process's).
  describe.runIf(target === 'postgres')('across processes', () => {
    let second: Database;
    let secondApp: TestApp;
    beforeAll(async () => {
      second = await openTestDatabase('postgres');
      secondApp = await startTestApp(target, { database: second });
    });
    afterAll(async () => {
      await secondApp?.close();
      await second?.close();
    });

    it('"fed across processes by LISTEN/NOTIFY": a write through another instance (its own connections) reaches this one\'s subscriber within a second, and the reverse', async () => {
      const here = await subscribe(t);
      const there = await subscribe(t, {}, { url: secondApp.url });
      const id = await newItem(secondApp);
      const written = performance.now();
      await here.waitFor(1, 1000);
      await there.waitFor(1, 1000);
      expect(here.events[0].at - written).toBeLessThan(1000);
      expect(here.events[0].result.data!.changes.resourceId).toBe(String(id));
      expect(there.events[0].result.data!.changes.resourceId).toBe(String(id));
      const back = await newItem(app);
      await there.waitFor(2, 1000);
      expect(there.events[1].result.data!.changes.resourceId).toBe(String(back));
      here.close();
      there.close();
    });

    it('the LISTEN connection cut by the server is opened again, and a change written meanwhile still arrives', async () => {
      const s = await subscribe(t);
      const admin = new pg.Client({ connectionString: second.connectionString });
      await admin.connect();
      try {
        const cut = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'regnskap changes listener' AND datname = current_database()`);
        expect(cut.rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
      const id = await newItem(secondApp);
      await s.waitFor(1, 3000);
      expect(s.events[0].result.data!.changes.resourceId).toBe(String(id));
      await eventually(() => changeListenerOf(app.db.prisma).isListening);
      const next = await newItem(secondApp);
      await s.waitFor(2, 1000);
      expect(s.events[1].result.data!.changes.resourceId).toBe(String(next));
      s.close();
    });

    it('a change written by a plain SQL session (no app code at all: the outbox trigger) reaches the subscriber within a second', async () => {
      const s = await subscribe(t);
      const client = new pg.Client({ connectionString: second.connectionString });
      await client.connect();
      try {
        await client.query('UPDATE items SET name = $1 WHERE id = $2', ['Fra SQL', await newItem(secondApp)]);
      } finally {
        await client.end();
      }
      await s.waitFor(2, 1000);
      expect(s.events.map((e) => e.result.data!.changes.type)).toEqual(['item.created', 'item.updated']);
      s.close();
    });
  });
});
