import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupExpired } from '../../src/modules/oauth/cleanup.ts';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Idempotency-Key on every REST write and GraphQL mutation (Stripe's idempotent requests, the IETF
// httpapi Idempotency-Key draft): the first answer is stored per user and key for 24 hours and
// replayed with Idempotent-Replayed: true; another request with the key → 422; while the first
// runs → 409; a malformed key → 400.
describe.each(targets())('Idempotency-Key on the app (%s)', (target) => {
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
  const uniqueKey = () => `key-${Date.now()}-${++n}`;
  const itemBody = (itemNo: string, tenant = t) => ({ client_account_id: tenant.account.id, sales_unit_id: piece, tax_code_id: vat25, item_no: itemNo });
  const post = (path: string, body: unknown, key: string | undefined, token = t.user.token) =>
    app.http('POST', path, { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const itemCount = (itemNo: string, tenant = t) => app.db.prisma.item.count({ where: { clientAccountId: tenant.account.id, itemNo } });
  const keyRows = (userId: number) => app.db.prisma.idempotencyKey.findMany({ where: { userId } });

  /** The second answer repeats the first byte for byte, marked as a replay. */
  const expectReplay = (first: HttpResult, second: HttpResult) => {
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.status).toBe(first.status);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
  };

  describe('REST writes', () => {
    it('"replayed for a repeat": the same POST again answers the stored 201 byte for byte with Idempotent-Replayed: true; one item is created', async () => {
      const key = uniqueKey();
      const first = await post('/api/v2/items', itemBody('IDEM-1'), key);
      expect(first.status).toBe(201);
      const second = await post('/api/v2/items', itemBody('IDEM-1'), key);
      expectReplay(first, second);
      expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(await itemCount('IDEM-1')).toBe(1);
    });

    it('without the header a write runs as usual every time (the second POST is a duplicate item_no, 400) and nothing is stored', async () => {
      const u = await app.seed.user();
      await app.seed.grantRole({ userId: u.id, clientAccountId: t.account.id, role: 'CA' });
      expect((await post('/api/v2/items', itemBody('PLAIN-1'), undefined, u.token)).status).toBe(201);
      const again = await post('/api/v2/items', itemBody('PLAIN-1'), undefined, u.token);
      expect(again.status).toBe(400);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(await keyRows(u.id)).toEqual([]);
    });

    it('a PUT and a body-less DELETE are replayed too', async () => {
      const { id } = (await post('/api/v2/items', itemBody('IDEM-PUT'), undefined)).body;
      const key = uniqueKey();
      const put = () => app.http('PUT', `/api/v2/items/${id}`, { token: t.user.token, body: { name: 'Once' }, headers: { 'idempotency-key': key } });
      const first = await put();
      expect(first.status).toBe(200);
      expectReplay(first, await put());

      const delKey = uniqueKey();
      const del = () => app.http('DELETE', `/api/v2/items/${id}`, { token: t.user.token, headers: { 'idempotency-key': delKey } });
      const gone = await del();
      expect(gone.status).toBeLessThan(300);
      expectReplay(gone, await del());
    });

    it('a 4xx answer is stored and replayed as well: the same request would get the same answer', async () => {
      const key = uniqueKey();
      const { item_no: _, ...withoutItemNo } = itemBody('x');
      const first = await post('/api/v2/items', withoutItemNo, key);
      expect(first.status).toBe(400);
      expectReplay(first, await post('/api/v2/items', withoutItemNo, key));
    });

    it('a GET ignores the header: nothing is stored, nothing replayed, even for a malformed key', async () => {
      const u = await app.seed.user();
      for (const key of ['get-key', 'get-key', '']) {
        const res = await app.http('GET', '/api/v2/units', { token: u.token, headers: { 'idempotency-key': key } });
        expect(res.status).toBe(200);
        expect(res.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(await keyRows(u.id)).toEqual([]);
    });
  });

  describe('"the same key with a different request → 422"', () => {
    it.each([
      ['a different body', '/api/v2/items', { name: 'other' }],
      ['a different query string', '/api/v2/items?with=sales_unit', {}],
      ['a different path', '/api/v2/item-collections', {}],
    ])('%s → 422 naming the header; the first answer stays stored', async (_what, path, extra) => {
      const key = uniqueKey();
      const itemNo = `MISMATCH-${n}`;
      const first = await post('/api/v2/items', itemBody(itemNo), key);
      expect(first.status).toBe(201);
      const other = await post(path, { ...itemBody(itemNo), ...extra }, key);
      expect(other.status).toBe(422);
      expect(other.body).toEqual({ error: expect.stringContaining('Idempotency-Key'), status: 422 });
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      expectReplay(first, await post('/api/v2/items', itemBody(itemNo), key));
      expect(await itemCount(itemNo)).toBe(1);
    });

    it('the same key with another method on the same path → 422', async () => {
      const { id } = (await post('/api/v2/items', itemBody('METHOD-1'), undefined)).body;
      const key = uniqueKey();
      expect((await app.http('PUT', `/api/v2/items/${id}`, { token: t.user.token, body: {}, headers: { 'idempotency-key': key } })).status).toBe(200);
      expect((await app.http('DELETE', `/api/v2/items/${id}`, { token: t.user.token, headers: { 'idempotency-key': key } })).status).toBe(422);
    });
  });

  describe('"a repeat while the first is still running → 409"', () => {
    it('a row held in the running state (its lock not lapsed) → 409 with Retry-After; nothing runs', async () => {
      const key = uniqueKey();
      const first = await post('/api/v2/items', itemBody('RUNNING-1'), key);
      expect(first.status).toBe(201);
      // put the stored key back into the running state of the first request, as if it still ran
      await app.db.prisma.$executeRaw`
        UPDATE idempotency_keys SET response_status = NULL, response_body = NULL, lock_token = gen_random_uuid(), locked_until = now() + interval '1 minute'
        WHERE user_id = ${t.user.id} AND key = ${key}`;
      const res = await post('/api/v2/items', itemBody('RUNNING-1'), key);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: expect.stringContaining('still being processed'), status: 409 });
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await itemCount('RUNNING-1')).toBe(1);
    });

    it('two identical requests at once create one item: the other is a 409 or the replay', async () => {
      const key = uniqueKey();
      const both = await Promise.all([0, 1].map(() => post('/api/v2/items', itemBody('RACE-1'), key)));
      const statuses = both.map((r) => r.status).sort();
      expect([[201, 201], [201, 409]]).toContainEqual(statuses);
      expect(await itemCount('RACE-1')).toBe(1);
    });
  });

  describe('"Idempotency-Key: 1–255 printable ASCII characters; otherwise 400 naming the header"', () => {
    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a tab inside', 'a\tb'],
      ['a non-ASCII letter', 'nøkkel'],
    ])('%s → 400 {error naming Idempotency-Key, status: 400}; nothing runs', async (_what, key) => {
      const itemNo = `BADKEY-${++n}`;
      const res = await post('/api/v2/items', itemBody(itemNo), key);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining('Idempotency-Key'), status: 400 });
      expect(await itemCount(itemNo)).toBe(0);
    });

    it.each([
      ['one character', '1'],
      ['255 characters', 'k'.repeat(255)],
      ['spaces and punctuation inside', 'order 42: "retry" ~!'],
    ])('%s is a valid key', async (_what, key) => {
      const itemNo = `GOODKEY-${++n}`;
      const u = await app.seed.user();
      await app.seed.grantRole({ userId: u.id, clientAccountId: t.account.id, role: 'CA' });
      const first = await post('/api/v2/items', itemBody(itemNo), key, u.token);
      expect(first.status).toBe(201);
      expectReplay(first, await post('/api/v2/items', itemBody(itemNo), key, u.token));
    });
  });

  it('"stored per user": two users may use the same key for different requests', async () => {
    const other = await app.seed.tenant();
    const otherVat = await other.taxCode('3');
    const key = uniqueKey();
    const mine = await post('/api/v2/items', itemBody('SHARED-KEY'), key);
    const theirs = await post('/api/v2/items', { ...itemBody('SHARED-KEY-2', other), tax_code_id: otherVat }, key, other.user.token);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.client_account_id).toBe(other.account.id);
  });

  describe('GraphQL', () => {
    const CREATE = 'mutation Create($input: CreateItemInput!) { createItem(input: $input) { id itemNo price } }';
    const gql = (body: unknown, key?: string, token = t.user.token) => post('/graphql', body, key, token);
    const input = (itemNo: string) => ({ clientAccountId: t.account.id, salesUnitId: piece, taxCodeId: vat25, itemNo });

    it('"a GraphQL mutation replayed": the same mutation again answers the stored body byte for byte; one item', async () => {
      const key = uniqueKey();
      const body = { query: CREATE, variables: { input: input('GQL-1') }, operationName: 'Create' };
      const first = await gql(body, key);
      expect(first.status).toBe(200);
      expect(first.body.data.createItem.itemNo).toBe('GQL-1');
      expectReplay(first, await gql(body, key));
      expect(await itemCount('GQL-1')).toBe(1);
    });

    it('the mutation with other variables and the same key → 422', async () => {
      const key = uniqueKey();
      expect((await gql({ query: CREATE, variables: { input: input('GQL-2') } }, key)).status).toBe(200);
      const res = await gql({ query: CREATE, variables: { input: input('GQL-3') } }, key);
      expect(res.status).toBe(422);
      expect(await itemCount('GQL-3')).toBe(0);
    });

    it('the selected operation decides: a document holding a query and a mutation is a write only when the mutation is selected', async () => {
      const u = await app.seed.user();
      await app.seed.grantRole({ userId: u.id, clientAccountId: t.account.id, role: 'CA' });
      const doc = `query Me { me { scopes } } ${CREATE}`;
      const asQuery = await gql({ query: doc, operationName: 'Me' }, 'doc-key', u.token);
      expect(asQuery.status).toBe(200);
      expect(await keyRows(u.id)).toEqual([]);
      const first = await gql({ query: doc, operationName: 'Create', variables: { input: input('GQL-DOC') } }, 'doc-key', u.token);
      expect(first.body.data.createItem.itemNo).toBe('GQL-DOC');
      expectReplay(first, await gql({ query: doc, operationName: 'Create', variables: { input: input('GQL-DOC') } }, 'doc-key', u.token));
    });

    it('"a GraphQL query ignores the header": each query runs, nothing is stored, a malformed key is no error', async () => {
      const u = await app.seed.user();
      for (const key of ['query-key', 'query-key', 'k'.repeat(300)]) {
        const res = await gql({ query: '{ me { user { email } } }' }, key, u.token);
        expect(res.status).toBe(200);
        expect(res.body.data.me.user.email).toBe(u.email);
        expect(res.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(await keyRows(u.id)).toEqual([]);
    });

    it('a mutation sent as application/graphql or as a form is recognised as well', async () => {
      const mutation = (itemNo: string) =>
        `mutation { createItem(input: { clientAccountId: ${t.account.id}, salesUnitId: ${piece}, taxCodeId: ${vat25}, itemNo: "${itemNo}" }) { itemNo } }`;
      const send = (contentType: string, body: string, key: string) =>
        app.http('POST', '/graphql', { token: t.user.token, body, headers: { 'content-type': contentType, 'idempotency-key': key } });
      for (const [contentType, body] of [
        ['application/graphql', mutation('GQL-TEXT')],
        ['application/x-www-form-urlencoded', new URLSearchParams({ query: mutation('GQL-FORM') }).toString()],
      ]) {
        const key = uniqueKey();
        const first = await send(contentType, body, key);
        expect(first.status, contentType).toBe(200);
        expect(first.body.errors, contentType).toBeUndefined();
        expectReplay(first, await send(contentType, body, key));
      }
      expect(await itemCount('GQL-TEXT')).toBe(1);
      expect(await itemCount('GQL-FORM')).toBe(1);
    });

    it('a mutation refused for the missing write scope (403) is not stored: the same key works once the token allows it', async () => {
      const key = uniqueKey();
      const body = { query: CREATE, variables: { input: input('GQL-SCOPE') } };
      const refused = await gql(body, key, t.user.readToken);
      expect(refused.status).toBe(403);
      const allowed = await gql(body, key);
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('idempotent-replayed')).toBeNull();
      expect(allowed.body.data.createItem.itemNo).toBe('GQL-SCOPE');
    });
  });

  describe('expiry', () => {
    it('"stored for 24 hours": the answer expires 24 hours after it was stored', async () => {
      const key = uniqueKey();
      await post('/api/v2/items', itemBody('TTL-1'), key);
      const [row] = await app.db.prisma.$queryRaw<{ hours: number }[]>`
        SELECT extract(epoch FROM expires_at - now()) / 3600 AS hours FROM idempotency_keys WHERE user_id = ${t.user.id} AND key = ${key}`;
      expect(Number(row.hours)).toBeGreaterThan(23.9);
      expect(Number(row.hours)).toBeLessThanOrEqual(24);
    });

    it('an expired key runs the request afresh, and the cleanup deletes expired keys only', async () => {
      const [expired, live] = [uniqueKey(), uniqueKey()];
      const { id } = (await post('/api/v2/items', itemBody('TTL-2'), undefined)).body;
      const put = (key: string, name: string) => app.http('PUT', `/api/v2/items/${id}`, { token: t.user.token, body: { name }, headers: { 'idempotency-key': key } });
      const first = await put(expired, 'first');
      await put(live, 'live');
      await app.db.prisma.$executeRaw`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE user_id = ${t.user.id} AND key = ${expired}`;

      const again = await put(expired, 'first');
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(again.body.updated_at).not.toBe(first.body.updated_at);
      expect((await put(live, 'live')).headers.get('idempotent-replayed')).toBe('true');

      await app.db.prisma.$executeRaw`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE user_id = ${t.user.id} AND key = ${expired}`;
      const deleted = await cleanupExpired(app.db.prisma);
      expect(deleted.idempotencyKeys).toBeGreaterThanOrEqual(1);
      const left = (await keyRows(t.user.id)).map((r) => r.key);
      expect(left).not.toContain(expired);
      expect(left).toContain(live);
    });
  });
});
