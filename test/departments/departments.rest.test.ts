import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { postEntry, requireDimension } from '../support/postings.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001, "Departments": GET/POST /departments, GET/PUT/POST/DELETE /departments/{id};
// "Department" fields; "States and transitions". Errors: 400, 403, 404 ({error, status}).
describe.each(targets())('departments REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const create = (body: Record<string, unknown>, token = t.user.token) => app.http('POST', '/api/v2/departments', { token, body });
  const list = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/departments?${qs}`, { token });
  let n = 0;
  const newDepartment = async (extra: Record<string, unknown> = {}, tenant = t) => {
    const res = await create({ client_account_id: tenant.account.id, name: `D-${++n}`, ...extra }, tenant.user.token);
    expect(res.status).toBe(201);
    return res.body as { id: number; name: string; sequence_number: number };
  };
  /** the update of the spec's "PUT or POST /departments/{id}", by either method */
  const UPDATES = ['PUT', 'POST'] as const;

  describe('POST /departments', () => {
    it('"POST /departments — Body: name, client_account_id (both required)": 201 with every spec field', async () => {
      const res = await create({ client_account_id: t.account.id, name: 'Salg' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        client_account_id: t.account.id,
        name: 'Salg',
        sequence_number: expect.any(Number),
        is_active: true,
        autonomy_level: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        created_by_id: t.user.id,
        updated_at: expect.any(String),
        updated_by_id: t.user.id,
      });
    });

    it('"autonomy_level (optional marker of operational independence)": NONE, DRAFT or FULL', async () => {
      for (const level of ['NONE', 'DRAFT', 'FULL']) expect((await create({ client_account_id: t.account.id, name: level, autonomy_level: level })).body.autonomy_level).toBe(level);
      expect(await create({ client_account_id: t.account.id, name: 'X', autonomy_level: 'SOME' })).toMatchObject({ status: 400, body: { error: expect.stringContaining('autonomy_level') } });
    });

    it('"sequence_number (auto, read-only)": 1, 2, 3 … per client account', async () => {
      const tenant = await app.seed.tenant();
      const numbers = [];
      for (const name of ['A', 'B', 'C']) numbers.push((await newDepartment({ name }, tenant)).sequence_number);
      expect(numbers).toEqual([1, 2, 3]);
    });

    it('"Department names need not be unique": the same name twice is 201', async () => {
      const a = await newDepartment({ name: 'Lager' });
      const b = await newDepartment({ name: 'Lager' });
      expect(b.id).not.toBe(a.id);
    });

    it.each([['name'], ['client_account_id']])('"both required": 400 {error, status} when %s is missing', async (field) => {
      const body: Record<string, unknown> = { client_account_id: t.account.id, name: 'Missing' };
      delete body[field];
      expect(await create(body)).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
    });

    it.each([
      ['name', ''],
      ['name', 'x'.repeat(251)],
      ['name', 7],
      ['client_account_id', 0],
    ])('400 for a wrong value of %s (%j)', async (field, value) => {
      expect(await create({ client_account_id: t.account.id, name: 'Bad', [field]: value })).toMatchObject({ status: 400, body: { error: expect.stringContaining(field), status: 400 } });
    });

    it('400 for a read-only field (id, sequence_number, is_active) or an unknown field in the create body', async () => {
      for (const field of ['id', 'sequence_number', 'is_active', 'colour']) {
        expect(await create({ client_account_id: t.account.id, name: 'Y', [field]: 1 })).toMatchObject({ status: 400, body: { error: expect.stringContaining(field) } });
      }
    });

    it('403 when client_account_id is not an eligible account of the caller', async () => {
      expect(await create({ client_account_id: other.account.id, name: 'Not mine' })).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    });
  });

  describe('GET /departments', () => {
    let tenant: Tenant;
    let a: { id: number }, b: { id: number }, inactive: { id: number };
    beforeAll(async () => {
      tenant = await app.seed.tenant();
      a = await newDepartment({ name: 'Alpha' }, tenant);
      b = await newDepartment({ name: 'Bravo' }, tenant);
      inactive = await newDepartment({ name: 'Charlie' }, tenant);
      expect((await app.http('DELETE', `/api/v2/departments/${inactive.id}`, { token: tenant.user.token })).status).toBe(200);
    });
    const ids = async (qs: string) => {
      const res = await list(`client_account_id=${tenant.account.id}&${qs}`, tenant.user.token);
      expect(res.status).toBe(200);
      return (res.body.data as { id: number }[]).map((d) => d.id);
    };

    it('"Page-based lists return {data, meta: {page, pages, per_page, records}}"; per_page (50); by sequence_number', async () => {
      const res = await list(`client_account_id=${tenant.account.id}`, tenant.user.token);
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 50, records: 2 });
      expect(res.body.data.map((d: { id: number }) => d.id)).toEqual([a.id, b.id]);
    });

    it('"is_active (default true; null for all)"', async () => {
      expect(await ids('')).toEqual([a.id, b.id]);
      expect(await ids('is_active=false')).toEqual([inactive.id]);
      expect(await ids('is_active=null')).toEqual([a.id, b.id, inactive.id]);
    });

    it('"page (1), per_page (50)": page 2 of per_page 1; per_page above 100 is capped at 100', async () => {
      const res = await list(`client_account_id=${tenant.account.id}&page=2&per_page=1`, tenant.user.token);
      expect(res.body).toMatchObject({ data: [{ id: b.id }], meta: { page: 2, pages: 2, per_page: 1, records: 2 } });
      expect((await list(`client_account_id=${tenant.account.id}&per_page=101`, tenant.user.token)).body.meta.per_page).toBe(100);
    });

    it('"with (client_account)" embeds {id, unique_name, display_name}', async () => {
      const account = await app.db.prisma.clientAccount.findUniqueOrThrow({ where: { id: tenant.account.id } });
      const res = await list(`client_account_id=${tenant.account.id}&with=client_account`, tenant.user.token);
      expect(res.body.data[0].client_account).toEqual({ id: account.id, unique_name: account.uniqueName, display_name: account.displayName });
      expect((await list(`client_account_id=${tenant.account.id}`, tenant.user.token)).body.data[0]).not.toHaveProperty('client_account');
    });

    it.each([
      ['no client_account_id', ''],
      ['a non-integer client_account_id', 'client_account_id=1.5'],
      ['page=0', 'page=0'],
      ['per_page=-1', 'per_page=-1'],
      ['a bad is_active', 'is_active=maybe'],
      ['an unknown with relation', 'with=projects'],
    ])('400 for %s', async (_name, qs) => {
      const q = qs === '' || qs.startsWith('client_account_id') ? qs : `client_account_id=${tenant.account.id}&${qs}`;
      expect(await list(q, tenant.user.token)).toMatchObject({ status: 400, body: { error: expect.any(String), status: 400 } });
    });

    it("403 for another client account's departments", async () => {
      expect(await list(`client_account_id=${tenant.account.id}`, t.user.token)).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('GET /departments/{id}', () => {
    it('"GET /departments/{id} — Query with": 200 with the department; with=client_account embeds it', async () => {
      const d = await newDepartment({ autonomy_level: 'DRAFT' });
      const res = await app.http('GET', `/api/v2/departments/${d.id}?with=client_account`, { token: t.user.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: d.id, name: d.name, autonomy_level: 'DRAFT', client_account: { id: t.account.id } });
    });

    it('404 {error, status} when missing; 400 for a non-numeric id; 403 for another account', async () => {
      expect(await app.http('GET', '/api/v2/departments/99999999', { token: t.user.token })).toMatchObject({ status: 404, body: { error: 'Department not found', status: 404 } });
      expect((await app.http('GET', '/api/v2/departments/x1', { token: t.user.token })).status).toBe(400);
      const theirs = await newDepartment({}, other);
      expect(await app.http('GET', `/api/v2/departments/${theirs.id}`, { token: t.user.token })).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe.each(UPDATES)('%s /departments/{id}', (method) => {
    const update = (id: number, body: unknown, token = t.user.token) => app.http(method, `/api/v2/departments/${id}`, { token, body });

    it('"Body: name, is_active, autonomy_level (all optional)": only the fields sent change', async () => {
      const d = await newDepartment({ autonomy_level: 'FULL' });
      const renamed = await update(d.id, { name: `${d.name} ny` });
      expect(renamed).toMatchObject({ status: 200, body: { id: d.id, name: `${d.name} ny`, autonomy_level: 'FULL', is_active: true, sequence_number: d.sequence_number } });
      expect((await update(d.id, { autonomy_level: null })).body.autonomy_level).toBeNull();
      expect((await update(d.id, {})).body).toMatchObject({ name: `${d.name} ny`, autonomy_level: null });
    });

    it('"client_account_id immutable": a different value is 400 "cannot be changed"; the same value is accepted', async () => {
      const d = await newDepartment();
      expect(await update(d.id, { client_account_id: other.account.id })).toMatchObject({ status: 400, body: { error: 'client_account_id: cannot be changed', status: 400 } });
      expect((await update(d.id, { client_account_id: t.account.id, name: 'Same account' })).status).toBe(200);
    });

    it('"read-only fields ignored": a GET body (with its relation) sent back is accepted', async () => {
      const d = await newDepartment();
      const got = await app.http('GET', `/api/v2/departments/${d.id}?with=client_account`, { token: t.user.token });
      const res = await update(d.id, { ...got.body, id: 1, sequence_number: 999, created_by_id: 1, name: 'Echo' });
      expect(res).toMatchObject({ status: 200, body: { id: d.id, name: 'Echo', sequence_number: d.sequence_number, created_by_id: t.user.id } });
    });

    it('"inactive → PUT/POST with is_active true → active"', async () => {
      const d = await newDepartment();
      expect((await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: t.user.token })).body.is_active).toBe(false);
      expect(await update(d.id, { is_active: true })).toMatchObject({ status: 200, body: { is_active: true } });
    });

    it('"active → PUT/POST with is_active false → inactive" when nothing is booked on it', async () => {
      const d = await newDepartment();
      expect(await update(d.id, { is_active: false })).toMatchObject({ status: 200, body: { is_active: false } });
    });

    it('400 for a null or empty name, an unknown field; 404 when missing; 403 for another account', async () => {
      const d = await newDepartment();
      expect((await update(d.id, { name: null })).status).toBe(400);
      expect((await update(d.id, { name: ' ' })).status).toBe(400);
      expect(await update(d.id, { colour: 'red' })).toMatchObject({ status: 400, body: { error: expect.stringContaining('colour') } });
      expect(await update(99999999, { name: 'x' })).toMatchObject({ status: 404, body: { status: 404 } });
      const theirs = await newDepartment({}, other);
      expect(await update(theirs.id, { name: 'mine' })).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('DELETE /departments/{id}', () => {
    it('"Deactivates; 200 with the department"; the record is kept', async () => {
      const d = await newDepartment();
      const res = await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: t.user.token });
      expect(res).toMatchObject({ status: 200, body: { id: d.id, name: d.name, is_active: false } });
      expect((await app.http('GET', `/api/v2/departments/${d.id}`, { token: t.user.token })).body.is_active).toBe(false);
    });

    it('deactivating an inactive department again is a no-op: 200, unchanged', async () => {
      const d = await newDepartment();
      const first = await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: t.user.token });
      const again = await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: t.user.token });
      expect(again).toMatchObject({ status: 200, body: first.body });
    });

    it('404 when missing; 403 for another account', async () => {
      expect(await app.http('DELETE', '/api/v2/departments/99999999', { token: t.user.token })).toMatchObject({ status: 404, body: { status: 404 } });
      const theirs = await newDepartment({}, other);
      expect((await app.http('DELETE', `/api/v2/departments/${theirs.id}`, { token: t.user.token })).status).toBe(403);
    });
  });

  // "Project and department: DELETE deactivates when no mandatory-dimension account has a non-zero
  // balance for it; otherwise 400 listing account codes and balances." and "active → PUT/POST with
  // is_active false: same balance validation as DELETE".
  describe('deactivation and balances', () => {
    let tenant: Tenant;
    let acc: Record<'3000' | '4000' | '1920' | '1500', number>;
    beforeAll(async () => {
      tenant = await app.seed.tenant();
      acc = {
        '3000': await tenant.ledgerAccount('3000'),
        '4000': await tenant.ledgerAccount('4000'),
        '1920': await tenant.ledgerAccount('1920'),
        '1500': await tenant.ledgerAccount('1500'),
      };
      await requireDimension(app.db.prisma, acc['3000'], 'DEPARTMENT');
      await requireDimension(app.db.prisma, acc['4000'], 'DEPARTMENT');
      await requireDimension(app.db.prisma, acc['1500'], 'PROJECT');
    });
    const post = (lines: Parameters<typeof postEntry>[2], draft = false) => postEntry(app.db.prisma, tenant.account.id, lines, { draft });
    const mk = () => newDepartment({}, tenant);
    const message = (id: number, list: string) =>
      `Department ${id} cannot be deactivated: accounts with a mandatory department dimension have a non-zero balance for it: ${list}`;

    it('"DELETE … 400 on non-zero balances as for projects": the message lists account codes and balances', async () => {
      const d = await mk();
      await post([{ accountId: acc['1920'], debit: '2000.00' }, { accountId: acc['3000'], credit: '2000.00', departmentId: d.id }]);
      await post([{ accountId: acc['4000'], debit: '750.25', departmentId: d.id }, { accountId: acc['1920'], credit: '750.25', departmentId: d.id }]);
      const res = await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: tenant.user.token });
      expect(res).toMatchObject({ status: 400, body: { error: message(d.id, '3000 -2000.00, 4000 750.25'), status: 400 } });
      expect((await app.http('GET', `/api/v2/departments/${d.id}`, { token: tenant.user.token })).body.is_active).toBe(true);
    });

    it.each(UPDATES)('"active → %s with is_active false: same balance validation as DELETE"', async (method) => {
      const d = await mk();
      await post([{ accountId: acc['1920'], debit: '1.00' }, { accountId: acc['3000'], credit: '1.00', departmentId: d.id }]);
      const res = await app.http(method, `/api/v2/departments/${d.id}`, { token: tenant.user.token, body: { name: 'Renamed', is_active: false } });
      expect(res).toMatchObject({ status: 400, body: { error: message(d.id, '3000 -1.00'), status: 400 } });
      expect((await app.http('GET', `/api/v2/departments/${d.id}`, { token: tenant.user.token })).body).toMatchObject({ name: expect.not.stringMatching('Renamed'), is_active: true });
      // other changes without is_active false are not checked
      expect((await app.http(method, `/api/v2/departments/${d.id}`, { token: tenant.user.token, body: { name: 'Renamed', is_active: true } })).status).toBe(200);
    });

    it('zero balances, drafts, accounts without the department dimension and other departments do not block', async () => {
      const d = await mk();
      const e = await mk();
      await post([{ accountId: acc['1920'], debit: '100.00' }, { accountId: acc['3000'], credit: '100.00', departmentId: d.id }]);
      await post([{ accountId: acc['1920'], credit: '60.00' }, { accountId: acc['3000'], debit: '60.00', departmentId: d.id }]);
      await post([{ accountId: acc['1920'], credit: '40.00' }, { accountId: acc['3000'], debit: '40.00', departmentId: d.id }]);
      await post([{ accountId: acc['1920'], debit: '9.00' }, { accountId: acc['3000'], credit: '9.00', departmentId: d.id }], true);
      await post([{ accountId: acc['1500'], debit: '9.00', departmentId: d.id }, { accountId: acc['1920'], credit: '9.00', departmentId: d.id }]);
      await post([{ accountId: acc['1920'], debit: '5.00' }, { accountId: acc['3000'], credit: '5.00', departmentId: e.id }]);
      expect(await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: tenant.user.token })).toMatchObject({ status: 200, body: { is_active: false } });
      expect((await app.http('DELETE', `/api/v2/departments/${e.id}`, { token: tenant.user.token })).status).toBe(400);
    });

    it('"inactive → PUT/POST with is_active true → active" is never checked, and neither is is_active false on an inactive one', async () => {
      const d = await mk();
      expect((await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: tenant.user.token })).status).toBe(200);
      await post([{ accountId: acc['1920'], debit: '3.00' }, { accountId: acc['3000'], credit: '3.00', departmentId: d.id }]);
      expect((await app.http('PUT', `/api/v2/departments/${d.id}`, { token: tenant.user.token, body: { is_active: false } })).status).toBe(200);
      expect((await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: tenant.user.token })).status).toBe(200);
      expect(await app.http('POST', `/api/v2/departments/${d.id}`, { token: tenant.user.token, body: { is_active: true } })).toMatchObject({ status: 200, body: { is_active: true } });
      expect((await app.http('DELETE', `/api/v2/departments/${d.id}`, { token: tenant.user.token })).status).toBe(400);
    });
  });

  describe('authentication and scopes (spec 000 "Authentication")', () => {
    it('401 without a token', async () => {
      expect(await app.http('GET', `/api/v2/departments?client_account_id=${t.account.id}`)).toMatchObject({ status: 401, body: { status: 401 } });
    });

    it('a token without write can read but gets 403 on POST, PUT, POST {id} and DELETE (insufficient_scope)', async () => {
      const d = await newDepartment();
      expect((await list(`client_account_id=${t.account.id}`, t.user.readToken)).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', '/api/v2/departments', { client_account_id: t.account.id, name: 'RO' }],
        ['PUT', `/api/v2/departments/${d.id}`, { name: 'RO' }],
        ['POST', `/api/v2/departments/${d.id}`, { name: 'RO' }],
        ['DELETE', `/api/v2/departments/${d.id}`, undefined],
      ] as const) {
        const res = await app.http(method, path, { token: t.user.readToken, body });
        expect(res).toMatchObject({ status: 403, body: { status: 403 } });
        expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
      }
    });
  });
});
