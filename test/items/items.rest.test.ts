import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001, "Items and units": GET/POST /items, GET/PUT/DELETE /items/{id}.
// Errors: 400 missing fields or attempt to change client_account_id; 403 no access; 404 not found.
describe.each(targets())('items REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let piece: number;
  let hour: number;
  let vat25: number;
  let vat15: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    piece = await app.seed.unitId('H87');
    hour = await app.seed.unitId('HUR');
    vat25 = await t.taxCode('3');
    vat15 = await t.taxCode('31');
  });
  afterAll(() => app?.close());

  const base = (tenant = t) => ({ client_account_id: tenant.account.id, sales_unit_id: piece, tax_code_id: vat25 });
  const create = (body: Record<string, unknown>, token = t.user.token) => app.http('POST', '/api/v2/items', { token, body });
  const list = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/items?${qs}`, { token });
  let n = 0;
  const newItem = async (extra: Record<string, unknown> = {}, tenant = t) => {
    const res = await create({ ...base(tenant), item_no: `I-${++n}`, ...extra }, tenant.user.token);
    expect(res.status).toBe(201);
    return res.body as { id: number; item_no: string };
  };

  describe('POST /items', () => {
    it('201 with the item: price a decimal string (six decimals), is_active true, item_type ITEM by default', async () => {
      const res = await create({ ...base(), item_no: 'A-1', name: 'Kaffe', price: '149.5', metadata: { color: 'brown', tags: [1, 2] } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        client_account_id: t.account.id,
        item_no: 'A-1',
        name: 'Kaffe',
        item_type: 'ITEM',
        sales_unit_id: piece,
        stock_unit_id: null,
        tax_code_id: vat25,
        price: '149.500000',
        metadata: { color: 'brown', tags: [1, 2] },
        is_active: true,
        autonomy_level: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        created_by_id: t.user.id,
        updated_at: expect.any(String),
        updated_by_id: t.user.id,
      });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });

    it('accepts every optional field: name, item_type, stock_unit_id, price, metadata, autonomy_level', async () => {
      const res = await create({ ...base(), item_no: 'S-1', name: 'Rådgivning', item_type: 'SERVICE', stock_unit_id: hour, price: 1250, autonomy_level: 'DRAFT', metadata: null });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ item_type: 'SERVICE', stock_unit_id: hour, price: '1250.000000', autonomy_level: 'DRAFT', metadata: null });
    });

    it('price keeps exact decimals: 0.1 + 0.2 style values are stored to the sixth decimal', async () => {
      const res = await create({ ...base(), item_no: 'EXACT', price: '1234567890.123456' });
      expect(res.body.price).toBe('1234567890.123456');
    });

    it.each([['item_no'], ['sales_unit_id'], ['tax_code_id'], ['client_account_id']])(
      '400 {error, status} when required field %s is missing',
      async (field) => {
        const body: Record<string, unknown> = { ...base(), item_no: 'MISSING' };
        delete body[field];
        const res = await create(body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
      },
    );

    it.each([
      ['item_no', 123],
      ['price', 'abc'],
      ['price', '1.1234567'],
      ['sales_unit_id', 'x'],
      ['item_type', 'GADGET'],
      ['metadata', [1, 2]],
      ['autonomy_level', 'SOME'],
    ])('400 for a wrong value of %s (%j)', async (field, value) => {
      const res = await create({ ...base(), item_no: `BAD-${field}`, [field]: value });
      expect(res.status).toBe(400);
      expect(res.body.status).toBe(400);
      expect(res.body.error).toContain(field);
    });

    it('400 for an item_no longer than 100 characters and a name longer than 250', async () => {
      expect((await create({ ...base(), item_no: 'x'.repeat(101) })).status).toBe(400);
      expect((await create({ ...base(), item_no: 'LONG', name: 'x'.repeat(251) })).status).toBe(400);
    });

    it('400 for an unknown field in the body', async () => {
      const res = await create({ ...base(), item_no: 'UNK', colour: 'red' });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('colour'), status: 400 } });
    });

    it('400 when item_no is already used in the client account (unique code)', async () => {
      await newItem({ item_no: 'DUP' });
      const res = await create({ ...base(), item_no: 'DUP' });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('item_no');
      // the same code in another client account is fine
      expect((await create({ ...base(other), tax_code_id: await other.taxCode('3'), item_no: 'DUP' }, other.user.token)).status).toBe(201);
    });

    it('400 for a tax code of another client account or a unit that does not exist', async () => {
      expect((await create({ ...base(), item_no: 'TX', tax_code_id: await other.taxCode('3') })).status).toBe(400);
      expect((await create({ ...base(), item_no: 'UN', sales_unit_id: 999999 })).status).toBe(400);
    });

    it('403 when client_account_id is not an eligible account of the caller', async () => {
      const res = await create({ ...base(other), tax_code_id: await other.taxCode('3'), item_no: 'X' });
      expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    });

    it('400 for malformed JSON and for a body that is not an object', async () => {
      const bad = await app.http('POST', '/api/v2/items', { token: t.user.token, body: '{"item_no": ' });
      expect(bad).toMatchObject({ status: 400, body: { error: expect.stringMatching(/JSON/), status: 400 } });
      const arr = await app.http('POST', '/api/v2/items', { token: t.user.token, body: '[1,2]' });
      expect(arr).toMatchObject({ status: 400, body: { status: 400 } });
    });
  });

  describe('GET /items', () => {
    let a: { id: number }, b: { id: number }, inactive: { id: number }, service: { id: number };
    let tenant: Tenant;
    beforeAll(async () => {
      tenant = await app.seed.tenant();
      const tax = await tenant.taxCode('3');
      const mk = async (body: Record<string, unknown>) =>
        (await app.http('POST', '/api/v2/items', { token: tenant.user.token, body: { client_account_id: tenant.account.id, sales_unit_id: piece, tax_code_id: tax, ...body } })).body;
      a = await mk({ item_no: 'B-200', name: 'Alpha kaffe' });
      b = await mk({ item_no: 'A-100', name: 'Bravo te' });
      service = await mk({ item_no: 'C-300', name: 'Charlie kurs', item_type: 'SERVICE' });
      inactive = await mk({ item_no: 'D-400', name: 'Delta gammel' });
      await app.http('DELETE', `/api/v2/items/${inactive.id}`, { token: tenant.user.token });
    });
    const ids = async (qs: string) => {
      const res = await list(`client_account_id=${tenant.account.id}&${qs}`, tenant.user.token);
      expect(res.status).toBe(200);
      return (res.body.data as { id: number }[]).map((i) => i.id);
    };

    it('page envelope {data, meta: {page, pages, per_page, records}}; per_page defaults to 50', async () => {
      const res = await list(`client_account_id=${tenant.account.id}`, tenant.user.token);
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 50, records: 3 });
    });

    it('is_active defaults to true; is_active=false lists inactive items; is_active=null lists all', async () => {
      expect(await ids('')).not.toContain(inactive.id);
      expect(await ids('is_active=false')).toEqual([inactive.id]);
      expect((await ids('is_active=null')).sort()).toEqual([a.id, b.id, service.id, inactive.id].sort());
    });

    it('item_type filters ITEM or SERVICE', async () => {
      expect(await ids('item_type=SERVICE')).toEqual([service.id]);
      expect((await ids('item_type=ITEM')).sort()).toEqual([a.id, b.id].sort());
    });

    it('free_text matches the item number and the description (name), case-insensitively', async () => {
      expect(await ids('free_text=a-100')).toEqual([b.id]);
      expect(await ids('free_text=KAFFE')).toEqual([a.id]);
    });

    it('order_by=description sorts by name; -created_at newest first; default by item_no', async () => {
      expect(await ids('order_by=description')).toEqual([a.id, b.id, service.id]);
      expect(await ids('order_by=-created_at')).toEqual([service.id, b.id, a.id]);
      expect(await ids('')).toEqual([b.id, a.id, service.id]);
    });

    it('page and per_page: page 2 of per_page 2; per_page above 100 is capped at 100', async () => {
      const res = await list(`client_account_id=${tenant.account.id}&page=2&per_page=2`, tenant.user.token);
      expect(res.body.meta).toEqual({ page: 2, pages: 2, per_page: 2, records: 3 });
      expect(res.body.data).toHaveLength(1);
      const capped = await list(`client_account_id=${tenant.account.id}&per_page=500`, tenant.user.token);
      expect(capped.body.meta.per_page).toBe(100);
    });

    it('with=sales_unit,stock_unit,tax_code embeds the relations (comma, semicolon or space separated)', async () => {
      for (const sep of [',', ';', '%20']) {
        const res = await list(`client_account_id=${tenant.account.id}&with=sales_unit${sep}tax_code`, tenant.user.token);
        const item = res.body.data[0];
        expect(item.sales_unit).toMatchObject({ id: piece, un_ece_rec_20_code: 'H87' });
        expect(item.tax_code).toMatchObject({ code: '3', rate: '25.00' });
        expect(item).not.toHaveProperty('stock_unit');
      }
      const none = await list(`client_account_id=${tenant.account.id}`, tenant.user.token);
      expect(none.body.data[0]).not.toHaveProperty('sales_unit');
    });

    it.each([
      ['no client_account_id', ''],
      ['a non-integer client_account_id', 'client_account_id=abc'],
      ['page=0', 'page=0'],
      ['per_page=0', 'per_page=0'],
      ['an unknown with relation', 'with=owner'],
      ['an unknown order_by field', 'order_by=colour'],
      ['order_by=constructor (a name every plain object has)', 'order_by=constructor'],
      ['order_by=__proto__', 'order_by=__proto__'],
      ['order_by=-toString', 'order_by=-toString'],
      ['a bad item_type', 'item_type=GADGET'],
      ['a bad is_active', 'is_active=maybe'],
    ])('400 for %s', async (_name, qs) => {
      const q = qs.startsWith('client_account_id') || qs === '' ? qs : `client_account_id=${tenant.account.id}&${qs}`;
      const res = await list(q, tenant.user.token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String), status: 400 });
    });

    it("403 for another client account's items", async () => {
      const res = await list(`client_account_id=${tenant.account.id}`, t.user.token);
      expect(res).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('GET /items/{id}', () => {
    it('200 with the item; with=stock_unit embeds it (null when unset)', async () => {
      const item = await newItem({ stock_unit_id: hour });
      const res = await app.http('GET', `/api/v2/items/${item.id}?with=stock_unit,sales_unit`, { token: t.user.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: item.id, stock_unit: { id: hour }, sales_unit: { id: piece } });
      const plain = await newItem();
      const res2 = await app.http('GET', `/api/v2/items/${plain.id}?with=stock_unit`, { token: t.user.token });
      expect(res2.body.stock_unit).toBeNull();
    });

    it('404 for an item that does not exist; 400 for a non-numeric id', async () => {
      expect(await app.http('GET', '/api/v2/items/99999999', { token: t.user.token })).toMatchObject({ status: 404, body: { error: 'Item not found', status: 404 } });
      expect((await app.http('GET', '/api/v2/items/abc', { token: t.user.token })).status).toBe(400);
    });

    it("403 for another client account's item", async () => {
      const theirs = await create({ ...base(other), tax_code_id: await other.taxCode('3'), item_no: 'OTHER-1' }, other.user.token);
      expect(theirs.status).toBe(201);
      const res = await app.http('GET', `/api/v2/items/${theirs.body.id}`, { token: t.user.token });
      expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    });
  });

  // issue 29: the shape is checked once, in the service, first: a malformed input answers its shape
  // issues alone (not its unknown references, not a changed client_account_id), before any 403/404.
  describe('a malformed input: 400 with its shape issues only, before references, tenancy and existence', () => {
    const tooLong = 'x'.repeat(500);
    it.each([
      ['POST with unknown units and tax codes', () => create({ client_account_id: t.account.id, item_no: tooLong, sales_unit_id: 99999998, tax_code_id: 99999999 })],
      ['POST for another client account', () => create({ ...base(other), item_no: tooLong })],
      ['PUT of another client account\'s item', async () => {
        const theirs = await newItem({ tax_code_id: await other.taxCode('3') }, other);
        return app.http('PUT', `/api/v2/items/${theirs.id}`, { token: t.user.token, body: { item_no: tooLong, tax_code_id: 99999999, client_account_id: other.account.id + 1000 } });
      }],
      ['PUT changing client_account_id with an unknown tax code', async () => {
        const mine = await newItem();
        return app.http('PUT', `/api/v2/items/${mine.id}`, { token: t.user.token, body: { item_no: tooLong, tax_code_id: 99999999, client_account_id: other.account.id } });
      }],
    ])('%s', async (_case, send) => {
      const res = await send();
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'item_no: must be at most 100 characters', status: 400 });
    });
  });

  describe('PUT /items/{id}', () => {
    it('200 with the changed item; omitted fields keep their value', async () => {
      const item = await newItem({ name: 'Før', price: '10' });
      const res = await app.http('PUT', `/api/v2/items/${item.id}`, { token: t.user.token, body: { name: 'Etter', tax_code_id: vat15 } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: item.id, name: 'Etter', tax_code_id: vat15, price: '10.000000', item_no: item.item_no });
    });

    it('400 when client_account_id would change; the same value is accepted (a GET body can be sent back)', async () => {
      const item = await newItem();
      const moved = await app.http('PUT', `/api/v2/items/${item.id}`, { token: t.user.token, body: { client_account_id: other.account.id } });
      expect(moved).toMatchObject({ status: 400, body: { error: expect.stringContaining('client_account_id'), status: 400 } });
      const got = await app.http('GET', `/api/v2/items/${item.id}`, { token: t.user.token });
      const echoed = await app.http('PUT', `/api/v2/items/${item.id}`, { token: t.user.token, body: { ...got.body, name: 'Echo' } });
      expect(echoed.status).toBe(200);
      expect(echoed.body.name).toBe('Echo');
    });

    it('400 when a required field is set to null', async () => {
      const item = await newItem();
      expect((await app.http('PUT', `/api/v2/items/${item.id}`, { token: t.user.token, body: { sales_unit_id: null } })).status).toBe(400);
    });

    it('404 for a missing item; 403 for another account', async () => {
      expect((await app.http('PUT', '/api/v2/items/99999999', { token: t.user.token, body: { name: 'x' } })).status).toBe(404);
      const o = await app.http('POST', '/api/v2/items', { token: other.user.token, body: { ...base(other), tax_code_id: await other.taxCode('3'), item_no: 'OTHER-2' } });
      expect((await app.http('PUT', `/api/v2/items/${o.body.id}`, { token: t.user.token, body: { name: 'mine' } })).status).toBe(403);
    });
  });

  describe('DELETE /items/{id}', () => {
    it('deactivates: 200 with the item, is_active false; the record is kept', async () => {
      const item = await newItem();
      const res = await app.http('DELETE', `/api/v2/items/${item.id}`, { token: t.user.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: item.id, is_active: false });
      expect((await app.http('GET', `/api/v2/items/${item.id}`, { token: t.user.token })).body.is_active).toBe(false);
    });

    it('404 for a missing item; 403 for another account', async () => {
      expect((await app.http('DELETE', '/api/v2/items/99999999', { token: t.user.token })).status).toBe(404);
      const o = await app.http('POST', '/api/v2/items', { token: other.user.token, body: { ...base(other), tax_code_id: await other.taxCode('3'), item_no: 'OTHER-3' } });
      expect((await app.http('DELETE', `/api/v2/items/${o.body.id}`, { token: t.user.token })).status).toBe(403);
    });
  });

  describe('authentication and scopes (spec 000 "Authentication")', () => {
    it('401 without a token and with an unknown token', async () => {
      const none = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`);
      expect(none).toMatchObject({ status: 401, body: { status: 401 } });
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`, { token: 'rs_nope' })).status).toBe(401);
    });

    it('a token without write can read but gets 403 on POST, PUT and DELETE (insufficient_scope)', async () => {
      const item = await newItem();
      expect((await list(`client_account_id=${t.account.id}`, t.user.readToken)).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', '/api/v2/items', { ...base(), item_no: 'RO' }],
        ['PUT', `/api/v2/items/${item.id}`, { name: 'RO' }],
        ['DELETE', `/api/v2/items/${item.id}`, undefined],
      ] as const) {
        const res = await app.http(method, path, { token: t.user.readToken, body });
        expect(res).toMatchObject({ status: 403, body: { status: 403 } });
        expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
      }
      expect((await app.http('GET', `/api/v2/items/${item.id}`, { token: t.user.token })).body.is_active).toBe(true);
    });
  });
});
