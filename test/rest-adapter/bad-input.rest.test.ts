import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Developers' guide: "Bad input gets a clear 4xx in the documented shape, never a 500" — and never HTML.
describe.each(targets())('bad input on the REST adapter (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  const cases: [string, string, string, unknown?, Record<string, string>?][] = [
    ['a parameter given twice', 'GET', '/api/v2/items?client_account_id=1&client_account_id=2'],
    ['an id beyond 32 bits', 'GET', '/api/v2/items/99999999999999'],
    ['a negative page', 'GET', '/api/v2/items?client_account_id=ACCOUNT&page=-1'],
    ['an exponent in per_page', 'GET', '/api/v2/items?client_account_id=ACCOUNT&per_page=1e3'],
    ['a null body', 'POST', '/api/v2/items', 'null'],
    ['a string body', 'POST', '/api/v2/items', '"item"'],
    ['a text/plain body that is not JSON', 'POST', '/api/v2/items', 'item_no=1', { 'content-type': 'text/plain' }],
    ['a price in exponent notation', 'POST', '/api/v2/items', { client_account_id: 'ACCOUNT', item_no: 'E', sales_unit_id: 1, tax_code_id: 1, price: 1e30 }],
    ['a nested object where an id belongs', 'POST', '/api/v2/items', { client_account_id: { id: 1 }, item_no: 'N', sales_unit_id: 1, tax_code_id: 1 }],
    ['a boolean item_no', 'POST', '/api/v2/items', { client_account_id: 'ACCOUNT', item_no: true, sales_unit_id: 1, tax_code_id: 1 }],
    ['an impossible date', 'POST', '/api/v2/item-collections/1/entries', { quantity: '1', price: '1', unit_id: 1, tax_code_id: 1, recurring_start_date: '2025-02-30' }],
    ['a datetime where a date belongs', 'POST', '/api/v2/item-collections/1/entries', { quantity: '1', price: '1', unit_id: 1, tax_code_id: 1, trial_end_date: '2025-02-01T00:00:00Z' }],
    ['an unknown collection type', 'GET', '/api/v2/item-collections?client_account_id=ACCOUNT&collection_type=BASKET'],
    ['a non-boolean include_used', 'GET', '/api/v2/item-collections/1/entries?include_used=perhaps'],
    ['a body over 1 MB', 'POST', '/api/v2/items', { client_account_id: 'ACCOUNT', item_no: 'BIG', sales_unit_id: 1, tax_code_id: 1, metadata: { blob: 'x'.repeat(1_100_000) } }],
  ];

  it.each(cases)('%s answers a 4xx JSON error {error, status}', async (_name, method, path, body, headers) => {
    const fill = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null).replaceAll('"ACCOUNT"', String(t.account.id)));
    const res = await app.http(method, path.replace('ACCOUNT', String(t.account.id)), {
      token: t.user.token,
      body: typeof body === 'string' ? body : body === undefined ? undefined : fill(body),
      headers,
    });
    expect(res.status, res.text.slice(0, 200)).toBeGreaterThanOrEqual(400);
    expect(res.status, res.text.slice(0, 200)).toBeLessThan(500);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ error: expect.any(String), status: res.status });
  });
});
