import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001, "Items and units": GET/POST /items, GET/PUT/DELETE /items/{id}
describe.each(targets())('items REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let piece: number;
  let hour: number;
  let vat25: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    piece = await app.seed.unitId('H87');
    hour = await app.seed.unitId('HUR');
    vat25 = await t.taxCode('3');
  });
  afterAll(() => app?.close());

  const create = (body: Record<string, unknown>, token = t.user.token) => app.http('POST', '/api/v2/items', { token, body });
  const base = () => ({ client_account_id: t.account.id, sales_unit_id: piece, tax_code_id: vat25 });

  it('POST /items: 201 with the item; price as a decimal string with six decimals, is_active true', async () => {
    const res = await create({ ...base(), item_no: 'A-1', name: 'Kaffe', price: '149.5', metadata: { color: 'brown' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      client_account_id: t.account.id,
      item_no: 'A-1',
      name: 'Kaffe',
      item_type: 'ITEM',
      sales_unit_id: piece,
      stock_unit_id: null,
      tax_code_id: vat25,
      price: '149.500000',
      metadata: { color: 'brown' },
      is_active: true,
      autonomy_level: null,
      created_by_id: t.user.id,
    });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it.each([
    ['item_no', { sales_unit_id: 1, tax_code_id: 1 }],
    ['sales_unit_id', { item_no: 'X' }],
    ['tax_code_id', { item_no: 'X' }],
  ])('POST /items: 400 when required field %s is missing', async (field, partial) => {
    const body = { ...base(), item_no: 'MISSING', ...partial } as Record<string, unknown>;
    delete body[field];
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
  });

  it('GET /items: page envelope {data, meta: {page, pages, per_page, records}}', async () => {
    const res = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}&per_page=1`, { token: t.user.token });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 1, pages: res.body.meta.records, per_page: 1, records: res.body.meta.records });
    expect(res.body.data).toHaveLength(1);
    void hour;
  });
});
