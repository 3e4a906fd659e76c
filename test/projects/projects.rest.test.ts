import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { postEntry, requireDimension } from '../support/postings.ts';
import type { Tenant } from '../support/seed.ts';

// spec 001, "Projects": GET/POST /projects, GET/PUT/DELETE /projects/{id}; "Project" fields;
// "States and transitions" (DELETE deactivates unless a mandatory-dimension account has a balance).
describe.each(targets())('projects REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const create = (body: Record<string, unknown>, token = t.user.token) => app.http('POST', '/api/v2/projects', { token, body });
  const list = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/projects?${qs}`, { token });
  let n = 0;
  const newProject = async (extra: Record<string, unknown> = {}, tenant = t) => {
    const res = await create({ client_account_id: tenant.account.id, name: `P-${++n}`, ...extra }, tenant.user.token);
    expect(res.status).toBe(201);
    return res.body as { id: number; name: string; sequence_number: number };
  };

  describe('POST /projects', () => {
    it('"POST /projects — Create": 201 with the project, every spec field, is_active true', async () => {
      const res = await create({ client_account_id: t.account.id, name: 'Kontorbygg', description: 'Nytt kontor' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        client_account_id: t.account.id,
        sequence_number: expect.any(Number),
        name: 'Kontorbygg',
        description: 'Nytt kontor',
        is_active: true,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        created_by_id: t.user.id,
        updated_at: expect.any(String),
        updated_by_id: t.user.id,
      });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });

    it('"sequence_number (auto-assigned)": 1, 2, 3 … per client account; a sent one is not a known field', async () => {
      const tenant = await app.seed.tenant();
      const numbers = [];
      for (const name of ['A', 'B', 'C']) numbers.push((await newProject({ name }, tenant)).sequence_number);
      expect(numbers).toEqual([1, 2, 3]);
      expect((await newProject({ name: 'Other account' }, other)).sequence_number).toBe(1);
      const sent = await create({ client_account_id: tenant.account.id, name: 'D', sequence_number: 99 }, tenant.user.token);
      expect(sent).toMatchObject({ status: 400, body: { error: expect.stringContaining('sequence_number'), status: 400 } });
    });

    it('"sequence_number (auto-assigned)": concurrent creations get distinct numbers', async () => {
      const tenant = await app.seed.tenant();
      const made = await Promise.all(Array.from({ length: 5 }, (_, i) => create({ client_account_id: tenant.account.id, name: `C-${i}` }, tenant.user.token)));
      expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
      expect(made.map((r) => r.body.sequence_number).sort()).toEqual([1, 2, 3, 4, 5]);
    });

    it('description is optional (null), and empty text stores null', async () => {
      expect((await newProject()).sequence_number).toBeGreaterThan(0);
      const res = await create({ client_account_id: t.account.id, name: 'No description', description: '' });
      expect(res.body.description).toBeNull();
    });

    it.each([['name'], ['client_account_id']])('400 {error, status} when required field %s is missing', async (field) => {
      const body: Record<string, unknown> = { client_account_id: t.account.id, name: 'Missing' };
      delete body[field];
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it.each([
      ['name', ''],
      ['name', '   '],
      ['name', 'x'.repeat(251)],
      ['name', 12],
      ['description', 'x'.repeat(1001)],
      ['client_account_id', 'abc'],
    ])('400 for a wrong value of %s (%j)', async (field, value) => {
      const res = await create({ client_account_id: t.account.id, name: 'Bad', [field]: value });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
    });

    it('"name (unique within a client account)": 400 naming the clash; the same name in another account is fine', async () => {
      const first = await newProject({ name: 'Duplikat' });
      const res = await create({ client_account_id: t.account.id, name: 'Duplikat' });
      expect(res).toMatchObject({ status: 400, body: { error: `name: 'Duplikat' is already used by project ${first.id}`, status: 400 } });
      expect((await create({ client_account_id: other.account.id, name: 'Duplikat' }, other.user.token)).status).toBe(201);
    });

    it('"client_account_id must be one of the caller\'s eligible client accounts; otherwise 403"', async () => {
      const res = await create({ client_account_id: other.account.id, name: 'Not mine' });
      expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    });

    it('400 for an unknown field and for malformed JSON', async () => {
      expect(await create({ client_account_id: t.account.id, name: 'U', colour: 'red' })).toMatchObject({ status: 400, body: { error: expect.stringContaining('colour') } });
      expect((await app.http('POST', '/api/v2/projects', { token: t.user.token, body: '{"name": ' })).status).toBe(400);
    });
  });

  describe('GET /projects', () => {
    let tenant: Tenant;
    let alpha: { id: number }, bravo: { id: number }, charlie: { id: number }, inactive: { id: number };
    beforeAll(async () => {
      tenant = await app.seed.tenant();
      alpha = await newProject({ name: 'Alpha bygg' }, tenant);
      bravo = await newProject({ name: 'Bravo vei' }, tenant);
      charlie = await newProject({ name: 'Charlie BYGG' }, tenant);
      inactive = await newProject({ name: 'Delta bygg' }, tenant);
      expect((await app.http('DELETE', `/api/v2/projects/${inactive.id}`, { token: tenant.user.token })).status).toBe(200);
    });
    const ids = async (qs: string) => {
      const res = await list(`client_account_id=${tenant.account.id}&${qs}`, tenant.user.token);
      expect(res.status).toBe(200);
      return (res.body.data as { id: number }[]).map((p) => p.id);
    };

    it('"Page-based lists return {data, meta: {page, pages, per_page, records}}"; per_page (50); ordered by sequence_number', async () => {
      const res = await list(`client_account_id=${tenant.account.id}`, tenant.user.token);
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 50, records: 3 });
      expect(res.body.data.map((p: { id: number }) => p.id)).toEqual([alpha.id, bravo.id, charlie.id]);
    });

    it('"is_active (default true)": false lists the inactive ones, null lists all', async () => {
      expect(await ids('')).not.toContain(inactive.id);
      expect(await ids('is_active=true')).toEqual([alpha.id, bravo.id, charlie.id]);
      expect(await ids('is_active=false')).toEqual([inactive.id]);
      expect(await ids('is_active=null')).toEqual([alpha.id, bravo.id, charlie.id, inactive.id]);
    });

    it('"name (search)": part of the name, case-insensitive', async () => {
      expect(await ids('name=bygg')).toEqual([alpha.id, charlie.id]);
      expect(await ids('name=VEI')).toEqual([bravo.id]);
      expect(await ids('name=bygg&is_active=null')).toEqual([alpha.id, charlie.id, inactive.id]);
      expect(await ids('name=nothing')).toEqual([]);
    });

    it('"page (1), per_page (50)": page 2 of per_page 2; per_page above 100 is capped at 100', async () => {
      const res = await list(`client_account_id=${tenant.account.id}&page=2&per_page=2`, tenant.user.token);
      expect(res.body).toMatchObject({ data: [{ id: charlie.id }], meta: { page: 2, pages: 2, per_page: 2, records: 3 } });
      expect((await list(`client_account_id=${tenant.account.id}&per_page=500`, tenant.user.token)).body.meta.per_page).toBe(100);
    });

    it('with=client_account embeds {id, unique_name, display_name}; without it the relation is absent', async () => {
      const res = await list(`client_account_id=${tenant.account.id}&with=client_account`, tenant.user.token);
      const account = await app.db.prisma.clientAccount.findUniqueOrThrow({ where: { id: tenant.account.id } });
      expect(res.body.data[0].client_account).toEqual({ id: account.id, unique_name: account.uniqueName, display_name: account.displayName });
      expect((await list(`client_account_id=${tenant.account.id}`, tenant.user.token)).body.data[0]).not.toHaveProperty('client_account');
    });

    it.each([
      ['"client_account_id (required)" missing', ''],
      ['a non-integer client_account_id', 'client_account_id=abc'],
      ['page=0', 'page=0'],
      ['per_page=0', 'per_page=0'],
      ['a bad is_active', 'is_active=maybe'],
      ['an unknown with relation', 'with=owner'],
      ['a name search of more than 200 characters', `name=${'x'.repeat(201)}`],
    ])('400 for %s', async (_name, qs) => {
      const q = qs === '' || qs.startsWith('client_account_id') ? qs : `client_account_id=${tenant.account.id}&${qs}`;
      const res = await list(q, tenant.user.token);
      expect(res).toMatchObject({ status: 400, body: { error: expect.any(String), status: 400 } });
    });

    it("403 for another client account's projects", async () => {
      expect(await list(`client_account_id=${tenant.account.id}`, t.user.token)).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('GET /projects/{id}', () => {
    it('"GET /projects/{id} — One project"; with=client_account embeds the account', async () => {
      const p = await newProject({ description: 'D' });
      const res = await app.http('GET', `/api/v2/projects/${p.id}?with=client_account`, { token: t.user.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: p.id, name: p.name, description: 'D', client_account: { id: t.account.id } });
    });

    it('404 {error, status} for a project that does not exist; 400 for a non-numeric id; 403 for another account', async () => {
      expect(await app.http('GET', '/api/v2/projects/99999999', { token: t.user.token })).toMatchObject({ status: 404, body: { error: 'Project not found', status: 404 } });
      expect((await app.http('GET', '/api/v2/projects/abc', { token: t.user.token })).status).toBe(400);
      const theirs = await newProject({}, other);
      expect(await app.http('GET', `/api/v2/projects/${theirs.id}`, { token: t.user.token })).toMatchObject({ status: 403, body: { status: 403 } });
    });
  });

  describe('PUT /projects/{id}', () => {
    it('"PUT /projects/{id} — Update": 200; only the fields sent change', async () => {
      const p = await newProject({ description: 'Før' });
      const res = await app.http('PUT', `/api/v2/projects/${p.id}`, { token: t.user.token, body: { name: `${p.name} ny` } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: p.id, name: `${p.name} ny`, description: 'Før', sequence_number: p.sequence_number, is_active: true });
      const cleared = await app.http('PUT', `/api/v2/projects/${p.id}`, { token: t.user.token, body: { description: null } });
      expect(cleared.body.description).toBeNull();
    });

    it('client_account_id is immutable: a different value is 400 "cannot be changed"; a GET body sent back is accepted (read-only fields ignored)', async () => {
      const p = await newProject();
      const moved = await app.http('PUT', `/api/v2/projects/${p.id}`, { token: t.user.token, body: { client_account_id: other.account.id } });
      expect(moved).toMatchObject({ status: 400, body: { error: 'client_account_id: cannot be changed', status: 400 } });
      const got = await app.http('GET', `/api/v2/projects/${p.id}?with=client_account`, { token: t.user.token });
      const echoed = await app.http('PUT', `/api/v2/projects/${p.id}`, { token: t.user.token, body: { ...got.body, sequence_number: 999, name: `${p.name} echo` } });
      expect(echoed.status).toBe(200);
      expect(echoed.body).toMatchObject({ name: `${p.name} echo`, sequence_number: p.sequence_number });
    });

    it('"name (unique within a client account)": renaming to a used name is 400 naming the clash; keeping its own name is fine', async () => {
      const a = await newProject();
      const b = await newProject();
      const res = await app.http('PUT', `/api/v2/projects/${b.id}`, { token: t.user.token, body: { name: a.name } });
      expect(res).toMatchObject({ status: 400, body: { error: `name: '${a.name}' is already used by project ${a.id}`, status: 400 } });
      expect((await app.http('PUT', `/api/v2/projects/${b.id}`, { token: t.user.token, body: { name: b.name } })).status).toBe(200);
    });

    it('is_active true reactivates a deactivated project; is_active false deactivates it', async () => {
      const p = await newProject();
      expect((await app.http('PUT', `/api/v2/projects/${p.id}`, { token: t.user.token, body: { is_active: false } })).body.is_active).toBe(false);
      expect((await app.http('PUT', `/api/v2/projects/${p.id}`, { token: t.user.token, body: { is_active: true } })).body.is_active).toBe(true);
    });

    it('400 when name is set to null or empty; 404 for a missing project; 403 for another account', async () => {
      const p = await newProject();
      expect((await app.http('PUT', `/api/v2/projects/${p.id}`, { token: t.user.token, body: { name: null } })).status).toBe(400);
      expect((await app.http('PUT', `/api/v2/projects/${p.id}`, { token: t.user.token, body: { name: '' } })).status).toBe(400);
      expect((await app.http('PUT', '/api/v2/projects/99999999', { token: t.user.token, body: { name: 'x' } })).status).toBe(404);
      const theirs = await newProject({}, other);
      expect((await app.http('PUT', `/api/v2/projects/${theirs.id}`, { token: t.user.token, body: { name: 'mine' } })).status).toBe(403);
    });
  });

  describe('DELETE /projects/{id}', () => {
    it('"DELETE /projects/{id} — Deactivate": 200 with the project, is_active false; the record is kept', async () => {
      const p = await newProject();
      const res = await app.http('DELETE', `/api/v2/projects/${p.id}`, { token: t.user.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: p.id, name: p.name, is_active: false });
      expect((await app.http('GET', `/api/v2/projects/${p.id}`, { token: t.user.token })).body.is_active).toBe(false);
    });

    it('deactivating an inactive project again is a no-op: 200, unchanged', async () => {
      const p = await newProject();
      const first = await app.http('DELETE', `/api/v2/projects/${p.id}`, { token: t.user.token });
      const again = await app.http('DELETE', `/api/v2/projects/${p.id}`, { token: t.user.token });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    });

    it('404 for a missing project; 403 for another account', async () => {
      expect(await app.http('DELETE', '/api/v2/projects/99999999', { token: t.user.token })).toMatchObject({ status: 404, body: { status: 404 } });
      const theirs = await newProject({}, other);
      expect((await app.http('DELETE', `/api/v2/projects/${theirs.id}`, { token: t.user.token })).status).toBe(403);
    });
  });

  // "Project and department: DELETE deactivates when no mandatory-dimension account has a non-zero
  // balance for it; otherwise 400 listing account codes and balances."
  describe('deactivation and balances', () => {
    let tenant: Tenant;
    let acc: Record<'1500' | '2400' | '1920' | '3000', number>;
    beforeAll(async () => {
      tenant = await app.seed.tenant();
      acc = {
        '1500': await tenant.ledgerAccount('1500'),
        '2400': await tenant.ledgerAccount('2400'),
        '1920': await tenant.ledgerAccount('1920'),
        '3000': await tenant.ledgerAccount('3000'),
      };
      await requireDimension(app.db.prisma, acc['1500'], 'PROJECT');
      await requireDimension(app.db.prisma, acc['2400'], 'PROJECT');
      await requireDimension(app.db.prisma, acc['3000'], 'DEPARTMENT');
    });
    const post = (lines: Parameters<typeof postEntry>[2], draft = false) => postEntry(app.db.prisma, tenant.account.id, lines, { draft });
    const del = (id: number) => app.http('DELETE', `/api/v2/projects/${id}`, { token: tenant.user.token });

    it('"400 with message listing account codes and balances when a mandatory-dimension account has a non-zero balance for the project"', async () => {
      const p = await newProject({}, tenant);
      await post([{ accountId: acc['1500'], debit: '1250.00', projectId: p.id }, { accountId: acc['1920'], credit: '1250.00', projectId: p.id }]);
      await post([{ accountId: acc['1920'], debit: '300.00' }, { accountId: acc['2400'], credit: '300.00', projectId: p.id }]);
      const res = await del(p.id);
      expect(res).toEqual(
        expect.objectContaining({
          status: 400,
          body: {
            error: `Project ${p.id} cannot be deactivated: accounts with a mandatory project dimension have a non-zero balance for it: 1500 1250.00, 2400 -300.00`,
            status: 400,
          },
        }),
      );
      expect((await app.http('GET', `/api/v2/projects/${p.id}`, { token: tenant.user.token })).body.is_active).toBe(true);
    });

    it('PUT is_active false on an active project is checked the same way', async () => {
      const p = await newProject({}, tenant);
      await post([{ accountId: acc['1500'], debit: '10.50', projectId: p.id }, { accountId: acc['1920'], credit: '10.50' }]);
      const res = await app.http('PUT', `/api/v2/projects/${p.id}`, { token: tenant.user.token, body: { is_active: false } });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('1500 10.50'), status: 400 } });
    });

    it('a balance that has come back to zero, draft entries, accounts without the project dimension and other projects do not block', async () => {
      const p = await newProject({}, tenant);
      const q = await newProject({}, tenant);
      await post([{ accountId: acc['1500'], debit: '500.00', projectId: p.id }, { accountId: acc['1920'], credit: '500.00', projectId: p.id }]);
      await post([{ accountId: acc['1500'], credit: '500.00', projectId: p.id }, { accountId: acc['1920'], debit: '500.00' }]);
      await post([{ accountId: acc['1500'], debit: '75.00', projectId: p.id }, { accountId: acc['1920'], credit: '75.00' }], true);
      await post([{ accountId: acc['3000'], credit: '80.00', projectId: p.id }, { accountId: acc['1920'], debit: '80.00', projectId: p.id }]);
      await post([{ accountId: acc['1500'], debit: '99.00', projectId: q.id }, { accountId: acc['1920'], credit: '99.00' }]);
      const res = await del(p.id);
      expect(res).toMatchObject({ status: 200, body: { id: p.id, is_active: false } });
      expect((await del(q.id)).status).toBe(400);
    });

    it('"Only the transition active → inactive checks": reactivating and deleting an inactive project again are not refused', async () => {
      const p = await newProject({}, tenant);
      expect((await del(p.id)).status).toBe(200);
      // a posting on an inactive project (the journal entries module decides whether it may) leaves it inactive
      await post([{ accountId: acc['1500'], debit: '1.00', projectId: p.id }, { accountId: acc['1920'], credit: '1.00' }]);
      expect(await del(p.id)).toMatchObject({ status: 200, body: { is_active: false } });
      expect(await app.http('PUT', `/api/v2/projects/${p.id}`, { token: tenant.user.token, body: { is_active: true } })).toMatchObject({ status: 200, body: { is_active: true } });
      expect((await del(p.id)).status).toBe(400);
    });
  });

  describe('authentication and scopes (spec 000 "Authentication")', () => {
    it('401 without a token', async () => {
      expect(await app.http('GET', `/api/v2/projects?client_account_id=${t.account.id}`)).toMatchObject({ status: 401, body: { status: 401 } });
    });

    it('a token without write can read but gets 403 on POST, PUT and DELETE (insufficient_scope)', async () => {
      const p = await newProject();
      expect((await list(`client_account_id=${t.account.id}`, t.user.readToken)).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', '/api/v2/projects', { client_account_id: t.account.id, name: 'RO' }],
        ['PUT', `/api/v2/projects/${p.id}`, { name: 'RO' }],
        ['DELETE', `/api/v2/projects/${p.id}`, undefined],
      ] as const) {
        const res = await app.http(method, path, { token: t.user.readToken, body });
        expect(res).toMatchObject({ status: 403, body: { status: 403 } });
        expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
      }
    });
  });
});
