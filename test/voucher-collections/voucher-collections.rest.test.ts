import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { voucherFactory } from '../support/vouchers.ts';

// spec 001 "Voucher collection": id, created_at, created_by_id, updated_at, updated_by_id,
// client_account_id (immutable), name (max 150), description (max 1000); relation `vouchers`.
// "Voucher collections": GET (client_account_id required, page, per_page, with=vouchers), POST, PUT;
// "created_by_id and updated_by_id come from the caller".
describe.each(targets())('voucher collections REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(async () => {
    await app?.close();
  });

  const create = (body: unknown, token = t.user.token) => app.http('POST', '/api/v2/voucher-collections', { token, body });
  const update = (id: number, body: unknown, token = t.user.token) => app.http('PUT', `/api/v2/voucher-collections/${id}`, { token, body });
  const list = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/voucher-collections?${qs}`, { token });

  it('POST: 201 with the collection, every field; created_by_id and updated_by_id are the caller', async () => {
    const res = await create({ client_account_id: t.account.id, name: 'Reise Bergen', description: 'Kvitteringer fra turen' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      created_at: expect.any(String),
      created_by_id: t.user.id,
      updated_at: expect.any(String),
      updated_by_id: t.user.id,
      client_account_id: t.account.id,
      name: 'Reise Bergen',
      description: 'Kvitteringer fra turen',
    });
  });

  it('POST: name and description are optional', async () => {
    const res = await create({ client_account_id: t.account.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: null, description: null });
  });

  it.each<[string, Record<string, unknown>, RegExp, number]>([
    ['client_account_id missing', { name: 'x' }, /client_account_id/, 400],
    ['name over 150 characters', { name: 'x'.repeat(151) }, /name/, 400],
    ['description over 1000 characters', { description: 'x'.repeat(1001) }, /description/, 400],
    ['an unknown field', { vouchers: [] }, /vouchers: is not a known field/, 400],
  ])('POST: %s is %i', async (_name, body, message, status) => {
    const res = await create({ client_account_id: t.account.id, ...body, ...(_name.startsWith('client_account_id') ? { client_account_id: undefined } : {}) });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.stringMatching(message), status });
  });

  it('POST: 403 for another client account and for a read-only token', async () => {
    expect((await create({ client_account_id: other.account.id, name: 'x' })).status).toBe(403);
    expect((await create({ client_account_id: t.account.id, name: 'x' }, t.user.readToken)).status).toBe(403);
  });

  it('PUT: name and description change, updated_by_id is the caller; client_account_id may be sent back unchanged', async () => {
    const made = (await create({ client_account_id: t.account.id, name: 'Før', description: 'gammel' })).body;
    const editor = await app.seed.user();
    await app.seed.grantRole({ userId: editor.id, clientAccountId: t.account.id, role: 'CA' });
    const res = await update(made.id, { ...made, name: 'Etter', description: '' }, editor.token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: made.id, name: 'Etter', description: null, created_by_id: t.user.id, updated_by_id: editor.id, client_account_id: t.account.id });
    const partial = await update(made.id, { description: 'ny' });
    expect(partial.body).toMatchObject({ name: 'Etter', description: 'ny' });
  });

  it('PUT: "client_account_id cannot change" (400); 403 for another account’s collection; 404 for none', async () => {
    const made = (await create({ client_account_id: t.account.id, name: 'Fast' })).body;
    const res = await update(made.id, { client_account_id: other.account.id, name: 'Flytt' });
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('client_account_id'), status: 400 } });
    expect((await app.db.prisma.voucherCollection.findUniqueOrThrow({ where: { id: made.id } })).name).toBe('Fast');
    const theirs = (await create({ client_account_id: other.account.id, name: 'Deres' }, other.user.token)).body;
    expect((await update(theirs.id, { name: 'x' })).status).toBe(403);
    expect((await update(99999999, { name: 'x' })).status).toBe(404);
  });

  it('GET: the account’s collections, newest first, paged; with=vouchers embeds their (not deleted) vouchers', async () => {
    const tenant = await app.seed.tenant();
    const ids = [];
    for (const name of ['A', 'B', 'C']) ids.push((await create({ client_account_id: tenant.account.id, name }, tenant.user.token)).body.id);
    const make = voucherFactory(app);
    const inA = await make.voucher(tenant, { data: { collectionId: ids[0] } });
    await make.voucher(tenant, { data: { collectionId: ids[0], status: 'DELETED' } });
    const res = await list(`client_account_id=${tenant.account.id}`, tenant.user.token);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: any) => c.name)).toEqual(['C', 'B', 'A']);
    expect(res.body.meta).toEqual({ records: 3, per_page: 100, page: 1, pages: 1 });
    expect(res.body.data[0]).not.toHaveProperty('vouchers');
    const withVouchers = await list(`client_account_id=${tenant.account.id}&with=vouchers&per_page=1&page=3`, tenant.user.token);
    expect(withVouchers.body.meta).toEqual({ records: 3, per_page: 1, page: 3, pages: 3 });
    expect(withVouchers.body.data[0].vouchers.map((v: any) => [v.id, v.collection_id])).toEqual([[inA.id, ids[0]]]);
  });

  it('GET: client_account_id is required (400); another account is 403', async () => {
    expect(await list('')).toMatchObject({ status: 400, body: { error: expect.stringContaining('client_account_id'), status: 400 } });
    expect((await list(`client_account_id=${other.account.id}`)).status).toBe(403);
  });
});
