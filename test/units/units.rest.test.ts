import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNITS } from '../../src/reference-data/index.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { TestUser } from '../support/seed.ts';

// spec 001, "Items and units": GET /units (order_by, page (1), per_page (100), envelope), GET /units/{id}.
// "Unit: id, symbol, un_ece_rec_20_code, un_ece_rec_21_code (nullable), description. Units are
// system-wide and read-only."
describe.each(targets())('units REST (%s)', (target) => {
  let app: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    app = await startTestApp(target);
    user = await app.seed.user(); // no client account needed: units are system-wide
  });
  afterAll(() => app?.close());

  const get = (path: string) => app.http('GET', `/api/v2${path}`, { token: user.token });

  it('GET /units: envelope with every seeded unit; per_page defaults to 100', async () => {
    const res = await get('/units');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 1, pages: Math.ceil(UNITS.length / 100), per_page: 100, records: UNITS.length });
    expect(res.body.data[0]).toEqual({
      id: expect.any(Number),
      symbol: expect.any(String),
      un_ece_rec_20_code: expect.stringMatching(/^[A-Z0-9]{2,3}$/),
      un_ece_rec_21_code: null,
      description: expect.any(String),
    });
  });

  it('the UN/ECE Rec 20 codes of an invoicing business are there, packages with their Rec 21 code', async () => {
    const codes = new Map<string, { un_ece_rec_21_code: string | null }>((await get('/units')).body.data.map((u: any) => [u.un_ece_rec_20_code, u]));
    for (const code of ['H87', 'EA', 'HUR', 'DAY', 'MON', 'KGM', 'LTR', 'MTR', 'MTK', 'KWH']) expect(codes.has(code), code).toBe(true);
    expect(codes.get('XBX')?.un_ece_rec_21_code).toBe('BX');
  });

  it('order_by and page/per_page: -symbol sorts descending; page 2 of per_page 5', async () => {
    const desc = (await get('/units?order_by=-symbol&per_page=100')).body.data.map((u: any) => u.symbol);
    expect(desc).toEqual([...desc].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
    const page2 = await get('/units?page=2&per_page=5&order_by=id');
    expect(page2.body.meta).toMatchObject({ page: 2, per_page: 5, records: UNITS.length });
    expect(page2.body.data).toHaveLength(5);
  });

  it('GET /units/{id}: one unit; 404 when it does not exist', async () => {
    const first = (await get('/units?per_page=1')).body.data[0];
    expect((await get(`/units/${first.id}`)).body).toEqual(first);
    expect(await get('/units/99999')).toMatchObject({ status: 404, body: { error: 'Unit not found', status: 404 } });
  });

  it('400 for an unknown order_by field or a bad page', async () => {
    expect((await get('/units?order_by=weight')).status).toBe(400);
    expect((await get('/units?page=x')).status).toBe(400);
  });

  it('read-only: POST, PUT and DELETE are not offered (405)', async () => {
    expect((await app.http('POST', '/api/v2/units', { token: user.token, body: { symbol: 'x' } })).status).toBe(405);
    expect((await app.http('DELETE', '/api/v2/units/1', { token: user.token })).status).toBe(405);
  });

  it('401 without a token', async () => {
    expect((await app.http('GET', '/api/v2/units')).status).toBe(401);
  });
});
