import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { employee, employerTenant, randomNationalId, storedGarnishment } from './fixtures.ts';

// spec 002 "Garnishment (read-only)" and "Payroll garnishments": the list (ordered by priority then
// id, the page envelope), one garnishment, the fetch's 202; 400/403/404 as documented. The fetch job
// itself is tested in payroll-garnishments.fetch.test.ts.
const GARNISHMENT_KEYS = [
  'id', 'created_by_id', 'created_at', 'business_partner_id', 'client_account_id', 'external_id', 'garnishment_type',
  'deduction_type', 'amount', 'percentage', 'priority', 'creditor_id', 'creditor_bank_account_id', 'payment_reference',
  'valid_from', 'valid_to', 'status', 'case_number', 'external_version', 'sequence_number', 'raw_response',
].sort();

describe.each(targets())('payroll garnishments REST (%s)', (target) => {
  let app: TestApp;
  let stranger: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    stranger = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  const list = (t: Tenant, query: string, token = t.user.token) => app.http('GET', `/api/v2/payroll/garnishments?client_account_id=${t.account.id}${query}`, { token });

  it('GET /payroll/garnishments: every field of "Garnishment", ordered by priority then id, in the page envelope', async () => {
    const t = await employerTenant(app.seed);
    const e = await employee(app.seed, t.account.id, randomNationalId());
    const g3 = await storedGarnishment(app.seed, t.account.id, e.id, { priority: 3 });
    const g1a = await storedGarnishment(app.seed, t.account.id, e.id, { priority: 1, deductionType: 'PERCENTAGE', percentage: '12.5' });
    const g2 = await storedGarnishment(app.seed, t.account.id, e.id, { priority: 2, amount: '1234.5' });
    const g1b = await storedGarnishment(app.seed, t.account.id, e.id, { priority: 1 });
    const res = await list(t, '');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 4 });
    expect(res.body.data.map((g: { id: number }) => g.id)).toEqual([g1a.id, g1b.id, g2.id, g3.id]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(GARNISHMENT_KEYS);
    expect(res.body.data[0]).toMatchObject({
      id: g1a.id,
      client_account_id: t.account.id,
      business_partner_id: e.id,
      deduction_type: 'PERCENTAGE',
      amount: null,
      percentage: '12.50',
      priority: 1,
      status: 'ACTIVE',
      valid_from: '2026-01-01',
      valid_to: null,
      external_version: 1,
      sequence_number: 1,
      raw_response: { source: 'test' },
    });
    expect(res.body.data[2]).toMatchObject({ deduction_type: 'FIXED', amount: '1234.50', percentage: null });
  });

  it('filters: business_partner_id (the employee)', async () => {
    const t = await employerTenant(app.seed);
    const a = await employee(app.seed, t.account.id, randomNationalId());
    const b = await employee(app.seed, t.account.id, randomNationalId());
    const ga = await storedGarnishment(app.seed, t.account.id, a.id);
    await storedGarnishment(app.seed, t.account.id, b.id);
    const res = await list(t, `&business_partner_id=${a.id}`);
    expect(res.body.data.map((g: { id: number }) => g.id)).toEqual([ga.id]);
    expect((await list(t, `&business_partner_id=${stranger.account.id + 1_000_000}`)).body.data).toEqual([]);
  });

  it.each(['ACTIVE', 'EXPIRED', 'CANCELLED'] as const)('filters: status %s (spec 002: ACTIVE, EXPIRED, CANCELLED)', async (status) => {
    const t = await employerTenant(app.seed);
    const e = await employee(app.seed, t.account.id, randomNationalId());
    const rows = Object.fromEntries(
      await Promise.all((['ACTIVE', 'EXPIRED', 'CANCELLED'] as const).map(async (s) => [s, await storedGarnishment(app.seed, t.account.id, e.id, { status: s })] as const)),
    );
    const res = await list(t, `&status=${status}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((g: { id: number; status: string }) => [g.id, g.status])).toEqual([[rows[status]!.id, status]]);
    // enum values in query strings are case-insensitive, as everywhere in the REST adapter
    expect((await list(t, `&status=${status.toLowerCase()}`)).body.data).toHaveLength(1);
  });

  it.each([
    ['a status that is not ACTIVE, EXPIRED or CANCELLED', '&status=PAUSED', /status/],
    ['a non-integer business_partner_id', '&business_partner_id=abc', /business_partner_id/],
    ['page 0', '&page=0', /page/],
  ])('400 {error, status}: %s', async (_what, query, message) => {
    const t = await employerTenant(app.seed);
    const res = await list(t, query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
  });

  it('400 without client_account_id (required)', async () => {
    const t = await employerTenant(app.seed);
    const res = await app.http('GET', '/api/v2/payroll/garnishments', { token: t.user.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/client_account_id/), status: 400 });
  });

  it('paging: page and per_page (100 by default, at most 100)', async () => {
    const t = await employerTenant(app.seed);
    const e = await employee(app.seed, t.account.id, randomNationalId());
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await storedGarnishment(app.seed, t.account.id, e.id, { priority: 1 })).id);
    const page2 = await list(t, '&page=2&per_page=2');
    expect(page2.body.meta).toEqual({ page: 2, pages: 3, per_page: 2, records: 5 });
    expect(page2.body.data.map((g: { id: number }) => g.id)).toEqual(ids.slice(2, 4));
    expect((await list(t, '&per_page=500')).body.meta.per_page).toBe(100);
  });

  it('403 for another tenant’s client account; the list of none is empty', async () => {
    const t = await employerTenant(app.seed);
    const res = await app.http('GET', `/api/v2/payroll/garnishments?client_account_id=${t.account.id}`, { token: stranger.user.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String), status: 403 });
    expect((await list(stranger, '')).body).toEqual({ data: [], meta: { page: 1, pages: 0, per_page: 100, records: 0 } });
  });

  it('GET /payroll/garnishments/{id}: one garnishment; 403 another tenant’s, 404 none, 400 not an integer', async () => {
    const t = await employerTenant(app.seed);
    const e = await employee(app.seed, t.account.id, randomNationalId());
    const g = await storedGarnishment(app.seed, t.account.id, e.id, { externalId: 'ORDER-42' });
    const own = await app.http('GET', `/api/v2/payroll/garnishments/${g.id}`, { token: t.user.token });
    expect(own.status).toBe(200);
    expect(Object.keys(own.body).sort()).toEqual(GARNISHMENT_KEYS);
    expect(own.body).toMatchObject({ id: g.id, external_id: 'ORDER-42', amount: '1500.00', status: 'ACTIVE' });
    // a read-only token may read
    expect((await app.http('GET', `/api/v2/payroll/garnishments/${g.id}`, { token: t.user.readToken })).status).toBe(200);
    const other = await app.http('GET', `/api/v2/payroll/garnishments/${g.id}`, { token: stranger.user.token });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: expect.any(String), status: 403 });
    const none = await app.http('GET', '/api/v2/payroll/garnishments/2147483000', { token: t.user.token });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: expect.any(String), status: 404 });
    expect((await app.http('GET', '/api/v2/payroll/garnishments/abc', { token: t.user.token })).status).toBe(400);
  });

  describe('POST /payroll/garnishments/fetch', () => {
    it('202 {message}: a fetch run is recorded QUEUED and its job enqueued', async () => {
      const t = await employerTenant(app.seed);
      const res = await app.http('POST', '/api/v2/payroll/garnishments/fetch', { token: t.user.token, body: { client_account_id: t.account.id } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toEqual({ message: expect.stringMatching(/^Fetching garnishments from the tax authority has been queued/) });
      const runs = await app.seed.prisma.payrollGarnishmentFetchRun.findMany({ where: { clientAccountId: t.account.id } });
      expect(runs).toMatchObject([{ status: 'QUEUED', createdById: t.user.id }]);
      const jobs = await app.db.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pgboss.job WHERE name = 'payroll.fetch-garnishments' AND (data->>'runId')::int = ${runs[0]!.id}`;
      expect(Number(jobs[0]!.n)).toBe(1);
    });

    it('400 without client_account_id (required), and nothing is queued', async () => {
      const t = await employerTenant(app.seed);
      const res = await app.http('POST', '/api/v2/payroll/garnishments/fetch', { token: t.user.token, body: {} });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(/client_account_id/), status: 400 });
      expect(await app.seed.prisma.payrollGarnishmentFetchRun.count({ where: { clientAccountId: t.account.id } })).toBe(0);
    });

    it('403 for another tenant’s client account; 403 for a token without write', async () => {
      const t = await employerTenant(app.seed);
      const other = await app.http('POST', '/api/v2/payroll/garnishments/fetch', { token: stranger.user.token, body: { client_account_id: t.account.id } });
      expect(other.status).toBe(403);
      expect(other.body).toEqual({ error: expect.any(String), status: 403 });
      const readOnly = await app.http('POST', '/api/v2/payroll/garnishments/fetch', { token: t.user.readToken, body: { client_account_id: t.account.id } });
      expect(readOnly.status).toBe(403);
      expect(await app.seed.prisma.payrollGarnishmentFetchRun.count({ where: { clientAccountId: t.account.id } })).toBe(0);
    });

    it('400 when the client account has no organization number (the authority is asked on its behalf)', async () => {
      const t = await app.seed.tenant();
      const res = await app.http('POST', '/api/v2/payroll/garnishments/fetch', { token: t.user.token, body: { client_account_id: t.account.id } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(/organization number/), status: 400 });
    });
  });

  it.each([
    ['POST', '/api/v2/payroll/garnishments'],
    ['PUT', '/api/v2/payroll/garnishments/1'],
    ['PATCH', '/api/v2/payroll/garnishments/1'],
    ['DELETE', '/api/v2/payroll/garnishments/1'],
  ])('"Garnishments cannot be created, updated or deleted through the API": %s %s is 405', async (method, path) => {
    const t = await employerTenant(app.seed);
    const res = await app.http(method, path, { token: t.user.token, body: method === 'DELETE' ? undefined : { client_account_id: t.account.id } });
    expect(res.status).toBe(405);
  });
});
