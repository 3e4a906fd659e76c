import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTaxYear } from '../../src/modules/payroll-contracts/payroll-tax-cards.service.ts';
import { fetchTaxCardJob, reportEmploymentEndJob } from '../../src/modules/payroll-contracts/payroll-contracts.job.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { osloTodayText } from '../equity/fixtures.ts';
import { minimalBody, partner, payrollTenant, queuedJobs } from './fixtures.ts';

// spec 002 "Employment contract" and "Payroll contracts" over REST: every endpoint, field, default,
// maximum length, decimal scale, required rule, immutable field, 403 and 404. No job workers run
// here: what an operation queues is read from the queue (test/payroll-contracts/*.jobs.test.ts runs them).

/** Every field of spec 002 "Employment contract", as REST answers a contract. */
const CONTRACT_KEYS = [
  'id', 'business_partner_id', 'client_account_id', 'employment_type', 'start_date', 'end_date', 'end_date_reason', 'job_title',
  'occupation_code', 'employment_form', 'work_time_arrangement', 'work_percentage', 'weekly_hours', 'remuneration_type', 'salary_type',
  'last_salary_change_date', 'last_work_pct_change_date', 'monthly_salary', 'hourly_rate', 'vacation_pay_rate', 'pension_rate',
  'employee_pension_rate', 'pension_provider_id', 'union_dues_amount', 'car_registration_number', 'car_list_price', 'arbeidsforhold_id',
  'is_primary_employer', 'is_active', 'is_payroll_default', 'created_by_id', 'created_at',
].sort();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(targets())('payroll contracts REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let employee: { id: number };
  let stranger: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await payrollTenant(app.seed);
    employee = await partner(app.seed, t);
    stranger = await payrollTenant(app.seed);
  });
  afterAll(() => app?.close());

  const create = (body: Record<string, unknown>, token = t.user.token) => app.http('POST', '/api/v2/payroll/contracts', { token, body });
  const get = (id: number, query = '', token = t.user.token) => app.http('GET', `/api/v2/payroll/contracts/${id}${query}`, { token });
  const put = (id: number, body: Record<string, unknown>, token = t.user.token, method = 'PUT') => app.http(method, `/api/v2/payroll/contracts/${id}`, { token, body });
  const list = (query: string, token = t.user.token) => app.http('GET', `/api/v2/payroll/contracts?${query}`, { token });
  const made = async (body: Record<string, unknown> = {}) => {
    const res = await create(minimalBody(t, employee.id, body));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Record<string, any>;
  };

  describe('POST /payroll/contracts', () => {
    it('201 with every field of the spec; arbeidsforhold_id a generated UUID; defaults is_primary_employer true, is_active true, is_payroll_default false; created_by_id and created_at set', async () => {
      const res = await create(minimalBody(t, employee.id));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(CONTRACT_KEYS);
      expect(res.body).toMatchObject({
        business_partner_id: employee.id,
        client_account_id: t.account.id,
        employment_type: 'ordinaertArbeidsforhold',
        start_date: '2026-01-01',
        end_date: null,
        salary_type: 'MONTHLY_FIXED',
        monthly_salary: '50000.00',
        hourly_rate: null,
        is_primary_employer: true,
        is_active: true,
        is_payroll_default: false,
        created_by_id: t.user.id,
      });
      expect(res.body.arbeidsforhold_id).toMatch(UUID);
      expect(Date.parse(res.body.created_at)).toBeGreaterThan(Date.now() - 60_000);
      const other = await made();
      expect(other.arbeidsforhold_id).not.toBe(res.body.arbeidsforhold_id);
    });

    it('every optional field is stored and answered with its scale (money 2 decimals, rates 4, work_percentage and weekly_hours 2)', async () => {
      const provider = await partner(app.seed, t, { isEmployee: false, nationalIdNumber: null, name: 'Pensjon AS' });
      const body = minimalBody(t, employee.id, {
        end_date: '2026-12-31',
        end_date_reason: 'kontraktEngasjementEllerVikariatErUtloept',
        job_title: 'Regnskapsfører',
        occupation_code: '3313101',
        employment_form: 'midlertidig',
        work_time_arrangement: 'skift365',
        work_percentage: '80',
        weekly_hours: '37.5',
        remuneration_type: 'fast',
        last_salary_change_date: '2026-01-01',
        last_work_pct_change_date: '2026-02-01',
        monthly_salary: '52000.5',
        hourly_rate: '300',
        vacation_pay_rate: '0.102',
        pension_rate: '0.02',
        employee_pension_rate: '0.0125',
        pension_provider_id: provider.id,
        union_dues_amount: '450',
        car_registration_number: 'EL 12345',
        car_list_price: '450000',
        is_primary_employer: false,
        is_payroll_default: true,
      });
      const res = await create(body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({
        end_date: '2026-12-31',
        end_date_reason: 'kontraktEngasjementEllerVikariatErUtloept',
        job_title: 'Regnskapsfører',
        occupation_code: '3313101',
        employment_form: 'midlertidig',
        work_time_arrangement: 'skift365',
        work_percentage: '80.00',
        weekly_hours: '37.50',
        remuneration_type: 'fast',
        last_salary_change_date: '2026-01-01',
        last_work_pct_change_date: '2026-02-01',
        monthly_salary: '52000.50',
        hourly_rate: '300.00',
        vacation_pay_rate: '0.1020',
        pension_rate: '0.0200',
        employee_pension_rate: '0.0125',
        pension_provider_id: provider.id,
        union_dues_amount: '450.00',
        car_registration_number: 'EL 12345',
        car_list_price: '450000.00',
        is_primary_employer: false,
        is_payroll_default: true,
      });
      expect((await get(res.body.id)).body).toEqual(res.body);
    });

    it('HOURLY needs hourly_rate, not monthly_salary', async () => {
      const res = await create({ ...minimalBody(t, employee.id), salary_type: 'HOURLY', monthly_salary: undefined, hourly_rate: '245.50' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ salary_type: 'HOURLY', hourly_rate: '245.50', monthly_salary: null });
    });

    it('"Queues a background fetch of tax cards for the current tax year": one payroll.fetch-tax-card job for the employee and this year, for a contract created inactive too', async () => {
      const e = await partner(app.seed, t);
      await create(minimalBody(t, e.id));
      const jobs = await queuedJobs(app.seed, fetchTaxCardJob.name, { businessPartnerId: e.id });
      expect(jobs.map((j) => j.data)).toEqual([{ clientAccountId: t.account.id, businessPartnerId: e.id, year: currentTaxYear() }]);
      const idle = await partner(app.seed, t);
      expect((await create(minimalBody(t, idle.id, { is_active: false }))).status).toBe(201);
      expect((await queuedJobs(app.seed, fetchTaxCardJob.name, { businessPartnerId: idle.id })).map((j) => j.data)).toEqual([{ clientAccountId: t.account.id, businessPartnerId: idle.id, year: currentTaxYear() }]);
    });

    it('an employee without a national id number still gets a contract (the tax-card job records what is missing)', async () => {
      const e = await partner(app.seed, t, { nationalIdNumber: null });
      expect((await create(minimalBody(t, e.id))).status).toBe(201);
    });

    it.each(['client_account_id', 'business_partner_id', 'employment_type', 'start_date', 'salary_type'])('"Required: %s": missing → 400 naming it, nothing stored', async (field) => {
      const body: Record<string, unknown> = minimalBody(t, employee.id);
      delete body[field];
      const before = await app.seed.prisma.payrollContract.count({ where: { clientAccountId: t.account.id } });
      const res = await create(body);
      expect(res.status, JSON.stringify(res.body)).toBe(field === 'client_account_id' ? 400 : 400);
      expect(res.body).toEqual({ error: expect.stringContaining(`${field}: is required`), status: 400 });
      expect(await app.seed.prisma.payrollContract.count({ where: { clientAccountId: t.account.id } })).toBe(before);
    });

    it.each([
      ['MONTHLY_FIXED', { monthly_salary: undefined }, 'monthly_salary: is required when salary_type is MONTHLY_FIXED'],
      ['MONTHLY_FIXED', { monthly_salary: null }, 'monthly_salary: is required when salary_type is MONTHLY_FIXED'],
      ['HOURLY', { monthly_salary: undefined }, 'hourly_rate: is required when salary_type is HOURLY'],
    ])('"monthly_salary when MONTHLY_FIXED, hourly_rate when HOURLY": %s with %j → 400', async (salaryType, extra, message) => {
      const res = await create({ ...minimalBody(t, employee.id), salary_type: salaryType, ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(message);
    });

    it.each([
      ['job_title', 200],
      ['car_registration_number', 20],
      // "end_date_reason (max 50)": text, not one of the coded fields whose values are "not shown"
      ['end_date_reason', 50],
    ])('%s: at most %i characters', async (field, max) => {
      expect((await create(minimalBody(t, employee.id, { [field]: 'x'.repeat(max) }))).status).toBe(201);
      const res = await create(minimalBody(t, employee.id, { [field]: 'x'.repeat(max + 1) }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(`${field}: must be at most ${max} characters`);
    });

    it.each(['2511', '2511108', '1234567890'])('"occupation_code (max 10, national statistics occupation standard)": %s (STYRK-08 digits) is taken', async (value) => {
      const res = await create(minimalBody(t, employee.id, { occupation_code: value }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.occupation_code).toBe(value);
    });

    it.each([
      ['12345678901', 'must be at most 10 characters'],
      ['25111OB', 'STYRK-08'],
      ['Utvikler', 'STYRK-08'],
    ])('occupation_code (max 10, STYRK-08 digits): %s → 400', async (value, message) => {
      const res = await create(minimalBody(t, employee.id, { occupation_code: value }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('occupation_code');
      expect(res.body.error).toContain(message);
    });

    it.each([
      // money: Decimal(18, 2)
      ['monthly_salary', '50000.001', 'must have at most 2 decimals'],
      ['monthly_salary', '-1', 'must be at least 0'],
      ['monthly_salary', '10000000000000000', 'must be less than 10^16'],
      ['hourly_rate', '245.555', 'must have at most 2 decimals'],
      ['hourly_rate', '-0.01', 'must be at least 0'],
      ['union_dues_amount', '1.001', 'must have at most 2 decimals'],
      ['union_dues_amount', '-1', 'must be at least 0'],
      ['car_list_price', '450000.005', 'must have at most 2 decimals'],
      ['car_list_price', '-0.01', 'must be at least 0'],
      // fractions: Decimal(5, 4), 0–1
      ['vacation_pay_rate', '0.10201', 'must have at most 4 decimals'],
      ['vacation_pay_rate', '12', 'must be'],
      ['pension_rate', '0.00001', 'must have at most 4 decimals'],
      ['pension_rate', '-0.01', 'must be between 0 and 1'],
      ['employee_pension_rate', '1.0001', 'must be between 0 and 1'],
      // work_percentage Decimal(5, 2): 0 ≤ x ≤ 100 ("100.00 is full-time")
      ['work_percentage', '50.001', 'must have at most 2 decimals'],
      ['work_percentage', '-1', 'must be between 0 and 100'],
      ['work_percentage', '100.01', 'must be between 0 and 100'],
      ['work_percentage', 'full', 'must be a'],
      // weekly_hours Decimal(5, 2): 0 ≤ x ≤ 168 (the hours of a week)
      ['weekly_hours', '37.555', 'must have at most 2 decimals'],
      ['weekly_hours', '169', 'must be between 0 and 168'],
      ['weekly_hours', '-0.5', 'must be between 0 and 168'],
    ])('%s = %s → 400 (%s)', async (field, value, message) => {
      const res = await create(minimalBody(t, employee.id, { [field]: value }));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field), status: 400 });
      expect(res.body.error).toContain(message);
    });

    it.each([
      ['work_percentage', '100.00', '100.00'],
      ['work_percentage', '0.01', '0.01'],
      // no agreed share of full time (on call, hourly): the a-melding reports 0
      ['work_percentage', '0', '0.00'],
      ['weekly_hours', '0', '0.00'],
      ['weekly_hours', '168', '168.00'],
      ['monthly_salary', '0', '0.00'],
      ['hourly_rate', '0', '0.00'],
      ['vacation_pay_rate', '1', '1.0000'],
      ['vacation_pay_rate', '0', '0.0000'],
      ['union_dues_amount', '0', '0.00'],
      ['monthly_salary', '9999999999999999.99', '9999999999999999.99'],
    ])('%s = %s is accepted and answered as %s', async (field, value, shown) => {
      const res = await create(minimalBody(t, employee.id, { [field]: value }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body[field]).toBe(shown);
    });

    it.each([
      ['employment_type', ['ordinaertArbeidsforhold', 'pensjonOgAndreTyperYtelserUtenAnsettelsesforhold', 'ordinary', 'Fast ansatt', 'x'.repeat(50)]],
      ['employment_form', ['fast', 'midlertidig', 'permanent', 'Fast']],
      ['work_time_arrangement', ['ikkeSkift', 'offshore336', 'skift', 'dagtid 08-16']],
      ['remuneration_type', ['fast', 'time', 'hourly', 'Månedslønn']],
    ])('spec 002: "%s (string, max 50)" whose "Allowed values …: not shown": an a-melding code or any other text of at most 50 characters is taken as sent; 51 → 400', async (field, good) => {
      for (const value of good) {
        const res = await create(minimalBody(t, employee.id, { [field]: value }));
        expect(res.status, `${value}: ${JSON.stringify(res.body)}`).toBe(201);
        expect(res.body[field]).toBe(value);
      }
      const res = await create(minimalBody(t, employee.id, { [field]: 'x'.repeat(51) }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(`${field}: must be at most 50 characters`);
    });

    it('employment_type is required: empty text is a 400, not a contract without one', async () => {
      const res = await create(minimalBody(t, employee.id, { employment_type: '  ' }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('employment_type: must not be empty');
    });

    it.each(['arbeidstakerHarSagtOppSelv', 'Sagt opp selv, sluttet 30. juni'])('end_date_reason is text (an a-melding sluttaarsak code or any other): %s is taken as sent', async (value) => {
      const res = await create(minimalBody(t, employee.id, { end_date_reason: value }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.end_date_reason).toBe(value);
    });

    it('salary_type is MONTHLY_FIXED or HOURLY', async () => {
      const res = await create(minimalBody(t, employee.id, { salary_type: 'WEEKLY' }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('salary_type');
    });

    it('end_date must not be before start_date', async () => {
      const res = await create(minimalBody(t, employee.id, { start_date: '2026-03-01', end_date: '2026-02-28' }));
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('end_date: must not be before start_date');
      expect((await create(minimalBody(t, employee.id, { start_date: '2026-03-01', end_date: '2026-03-01' }))).status).toBe(201);
    });

    it('business_partner_id and pension_provider_id must be business partners of that client account (another account\'s → 400)', async () => {
      const theirs = await partner(app.seed, stranger);
      const foreign = await create(minimalBody(t, theirs.id));
      expect(foreign.status).toBe(400);
      expect(foreign.body.error).toContain(`business_partner_id: business partner ${theirs.id} does not exist in client account ${t.account.id}`);
      const foreignProvider = await create(minimalBody(t, employee.id, { pension_provider_id: theirs.id }));
      expect(foreignProvider.status).toBe(400);
      expect(foreignProvider.body.error).toContain(`pension_provider_id: business partner ${theirs.id} does not exist in client account ${t.account.id}`);
    });

    it('a client account the caller has no access to → 403; no body field unknown to the spec', async () => {
      const res = await create(minimalBody(t, employee.id), stranger.user.token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.any(String), status: 403 });
      const unknown = await create(minimalBody(t, employee.id, { salary: '1' }));
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toContain('salary: is not a known field');
    });

    it('a token without write cannot create', async () => {
      const res = await create(minimalBody(t, employee.id), t.user.readToken);
      expect([401, 403]).toContain(res.status);
    });
  });

  describe('spec 002 "business_partner_id (employee)": any business partner of the account is the employee', () => {
    const employeeFlag = async (contractId: number) => (await get(contractId, '?with=business_partner')).body.business_partner.is_employee as boolean;

    it('spec 002 "POST /payroll/contracts | Required: client_account_id, business_partner_id, …": a partner made without the employee flag gets a contract (201) and now reads as an employee', async () => {
      const made = await app.gql(t.user.token, `mutation ($input: CreateBusinessPartnerInput!) { createBusinessPartner(input: $input) { id isEmployee } }`, {
        input: { clientAccountId: t.account.id, name: 'Ola Nordmann' },
      });
      expect(made.errors).toBeUndefined();
      const ola = made.data.createBusinessPartner as { id: number; isEmployee: boolean };
      expect(ola.isEmployee).toBe(false);
      const res = await app.http('POST', '/api/v2/payroll/contracts?with=business_partner', { token: t.user.token, body: minimalBody(t, ola.id) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ business_partner_id: ola.id, business_partner: { id: ola.id, is_employee: true } });
      expect(await employeeFlag(res.body.id)).toBe(true);
      expect((await app.gql(t.user.token, `{ businessPartner(id: ${ola.id}) { isEmployee updatedBy { id } } }`)).data.businessPartner).toEqual({ isEmployee: true, updatedBy: { id: t.user.id } });
    });

    it('spec 002 "is_active (default true)": a contract created inactive leaves the partner as it was; an update setting is_active true marks it; deactivating does not unmark it', async () => {
      const p = await partner(app.seed, t, { isEmployee: false });
      const c = await create(minimalBody(t, p.id, { is_active: false }));
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      expect(await employeeFlag(c.body.id)).toBe(false);
      const activated = await app.http('PUT', `/api/v2/payroll/contracts/${c.body.id}?with=business_partner`, { token: t.user.token, body: { is_active: true } });
      expect(activated.status).toBe(200);
      expect(activated.body.business_partner.is_employee).toBe(true);
      expect(await employeeFlag(c.body.id)).toBe(true);
      expect((await put(c.body.id, { is_active: false, end_date: '2026-12-31' })).status).toBe(200);
      expect(await employeeFlag(c.body.id)).toBe(true);
    });

    it('an update sending is_active true on an active contract marks a partner whose flag was taken off since', async () => {
      const p = await partner(app.seed, t, { isEmployee: false });
      const c = (await create(minimalBody(t, p.id))).body;
      await app.seed.prisma.businessPartner.update({ where: { id: p.id }, data: { isEmployee: false } });
      expect((await put(c.id, { job_title: 'Kokk' })).status).toBe(200);
      expect(await employeeFlag(c.id)).toBe(false);
      expect((await put(c.id, { is_active: true })).status).toBe(200);
      expect(await employeeFlag(c.id)).toBe(true);
    });

    it('a refused create marks nothing (the mark is written in the contract\'s transaction)', async () => {
      const p = await partner(app.seed, t, { isEmployee: false });
      const res = await create(minimalBody(t, p.id, { monthly_salary: null }));
      expect(res.status).toBe(400);
      expect((await app.seed.prisma.businessPartner.findUniqueOrThrow({ where: { id: p.id } })).isEmployee).toBe(false);
    });
  });

  describe('GET /payroll/contracts and /payroll/contracts/{id}', () => {
    it('client_account_id is required (400); another account → 403', async () => {
      const missing = await app.http('GET', '/api/v2/payroll/contracts', { token: t.user.token });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toContain('client_account_id');
      const foreign = await list(`client_account_id=${stranger.account.id}`);
      expect(foreign.status).toBe(403);
      expect(foreign.body).toEqual({ error: expect.any(String), status: 403 });
    });

    it('filters business_partner_id and is_active; page 1, per_page 100; the list envelope {data, meta: {page, pages, per_page, records}}', async () => {
      const own = await payrollTenant(app.seed);
      const a = await partner(app.seed, own);
      const b = await partner(app.seed, own);
      const mk = async (bp: number, extra: Record<string, unknown> = {}) => (await create(minimalBody(own, bp, extra), own.user.token)).body.id as number;
      const a1 = await mk(a.id);
      const a2 = await mk(a.id, { is_active: false });
      const b1 = await mk(b.id);
      const ids = (r: { body: { data: { id: number }[] } }) => r.body.data.map((c) => c.id);
      const all = await list(`client_account_id=${own.account.id}`, own.user.token);
      expect(all.status).toBe(200);
      expect(ids(all)).toEqual([a1, a2, b1]);
      expect(all.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 3 });
      expect(Object.keys(all.body.data[0]).sort()).toEqual(CONTRACT_KEYS);
      expect(ids(await list(`client_account_id=${own.account.id}&business_partner_id=${a.id}`, own.user.token))).toEqual([a1, a2]);
      expect(ids(await list(`client_account_id=${own.account.id}&is_active=true`, own.user.token))).toEqual([a1, b1]);
      expect(ids(await list(`client_account_id=${own.account.id}&is_active=false`, own.user.token))).toEqual([a2]);
      const page2 = await list(`client_account_id=${own.account.id}&page=2&per_page=2`, own.user.token);
      expect(ids(page2)).toEqual([b1]);
      expect(page2.body.meta).toEqual({ page: 2, pages: 2, per_page: 2, records: 3 });
      expect((await list(`client_account_id=${own.account.id}&per_page=500`, own.user.token)).body.meta.per_page).toBe(100);
    });

    it('with=business_partner embeds the employee, on the list and on one contract; an unknown relation is a 400', async () => {
      const c = await made();
      const one = await get(c.id, '?with=business_partner');
      expect(one.status).toBe(200);
      expect(one.body.business_partner).toEqual({ id: employee.id, name: 'Kari Nordmann', email: null, is_employee: true, is_active: true });
      expect((await get(c.id)).body).not.toHaveProperty('business_partner');
      const listed = await list(`client_account_id=${t.account.id}&with=business_partner&business_partner_id=${employee.id}`);
      expect(listed.body.data.every((x: any) => x.business_partner?.id === employee.id)).toBe(true);
      expect((await get(c.id, '?with=client_account')).status).toBe(400);
    });

    it('another tenant’s contract → 403; a missing one → 404', async () => {
      const c = await made();
      const forbidden = await get(c.id, '', stranger.user.token);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toEqual({ error: expect.any(String), status: 403 });
      const missing = await get(2_000_000_000);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: expect.any(String), status: 404 });
    });
  });

  describe.each(['PUT', 'POST'])('%s /payroll/contracts/{id}', (method) => {
    it('"Only provided fields change"; null clears an optional field', async () => {
      const c = await made({ job_title: 'Konsulent', union_dues_amount: '300' });
      const res = await put(c.id, { job_title: 'Seniorkonsulent', union_dues_amount: null }, t.user.token, method);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ ...c, job_title: 'Seniorkonsulent', union_dues_amount: null });
    });

    it('a contract as GET answers it may be sent back unchanged (read-only and immutable fields echoed)', async () => {
      const c = await made();
      const res = await put(c.id, { ...c, weekly_hours: '37.50' }, t.user.token, method);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ ...c, weekly_hours: '37.50' });
    });

    it.each(['client_account_id', 'business_partner_id'])('"%s immutable": another value → 400, nothing changes', async (field) => {
      const c = await made();
      const other = field === 'client_account_id' ? stranger.account.id : (await partner(app.seed, t)).id;
      const res = await put(c.id, { [field]: other, job_title: 'Ny' }, t.user.token, method);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(`${field}: cannot be changed`), status: 400 });
      expect((await get(c.id)).body).toEqual(c);
    });

    it('the rules across fields are checked with the stored values: HOURLY needs hourly_rate, MONTHLY_FIXED keeps monthly_salary, end_date not before the stored start_date', async () => {
      const c = await made({ start_date: '2026-03-01' });
      expect((await put(c.id, { salary_type: 'HOURLY' }, t.user.token, method)).body.error).toContain('hourly_rate: is required when salary_type is HOURLY');
      expect((await put(c.id, { monthly_salary: null }, t.user.token, method)).body.error).toContain('monthly_salary: is required when salary_type is MONTHLY_FIXED');
      expect((await put(c.id, { end_date: '2026-02-01' }, t.user.token, method)).body.error).toContain('end_date: must not be before start_date');
      const ok = await put(c.id, { salary_type: 'HOURLY', hourly_rate: '400', monthly_salary: null }, t.user.token, method);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ salary_type: 'HOURLY', hourly_rate: '400.00', monthly_salary: null });
    });

    it.each(['start_date', 'employment_type', 'salary_type'])('the required field %s cannot be cleared (null → 400)', async (field) => {
      const c = await made();
      const res = await put(c.id, { [field]: null }, t.user.token, method);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(`${field}: cannot be cleared`);
    });

    it('an empty occupation_code clears it', async () => {
      const c = await made({ occupation_code: '2511108' });
      expect((await put(c.id, { occupation_code: '' }, t.user.token, method)).body.occupation_code).toBeNull();
    });

    it('the same field rules as create (length, scale, required)', async () => {
      const c = await made();
      for (const body of [{ job_title: 'x'.repeat(201) }, { monthly_salary: '1.001' }, { employment_form: 'x'.repeat(51) }, { work_percentage: '101' }, { start_date: null }, { employment_type: null }, { employment_type: '' }]) {
        const res = await put(c.id, body, t.user.token, method);
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      expect((await get(c.id)).body).toEqual(c);
    });

    it('another tenant’s contract → 403; a missing one → 404', async () => {
      const c = await made();
      expect((await put(c.id, { job_title: 'x' }, stranger.user.token, method)).status).toBe(403);
      const missing = await put(2_000_000_000, { job_title: 'x' }, t.user.token, method);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: expect.any(String), status: 404 });
    });

    it('spec 002 "active | update is_active false | inactive | Employment end reported to the tax authority with the end date": the end_date sent is stored and queued for reporting', async () => {
      const c = await made();
      const res = await put(c.id, { is_active: false, end_date: '2026-06-30', end_date_reason: 'arbeidstakerHarSagtOppSelv' }, t.user.token, method);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ is_active: false, end_date: '2026-06-30', end_date_reason: 'arbeidstakerHarSagtOppSelv' });
      expect((await queuedJobs(app.seed, reportEmploymentEndJob.name, { contractId: c.id })).map((j) => j.data)).toEqual([{ contractId: c.id }]);
      const stored = await app.seed.prisma.payrollContract.findUniqueOrThrow({ where: { id: c.id } });
      expect(stored).toMatchObject({ employmentEndReportStatus: 'PENDING', employmentEndReportedDate: new Date('2026-06-30') });
    });

    it('spec 002 "update is_active false" has no condition: with no end_date sent or stored, the end is today in Norway, stored as end_date and reported', async () => {
      const c = await made({ start_date: '2020-01-01' });
      const res = await put(c.id, { is_active: false }, t.user.token, method);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const today = osloTodayText();
      expect(res.body).toMatchObject({ is_active: false, end_date: today });
      expect((await queuedJobs(app.seed, reportEmploymentEndJob.name, { contractId: c.id })).map((j) => j.data)).toEqual([{ contractId: c.id }]);
      const stored = await app.seed.prisma.payrollContract.findUniqueOrThrow({ where: { id: c.id } });
      expect(stored).toMatchObject({ employmentEndReportStatus: 'PENDING', employmentEndReportedDate: new Date(today) });
    });

    it('deactivating a contract that has not started, with no end_date: the end is its start_date (end_date is never before start_date)', async () => {
      const c = await made({ start_date: '2099-03-01' });
      const res = await put(c.id, { is_active: false }, t.user.token, method);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ is_active: false, start_date: '2099-03-01', end_date: '2099-03-01' });
    });

    it('an end_date stored earlier is enough to deactivate; an inactive contract updated again reports nothing new', async () => {
      const c = await made({ end_date: '2026-09-30' });
      expect((await put(c.id, { is_active: false }, t.user.token, method)).status).toBe(200);
      expect((await put(c.id, { is_active: false, job_title: 'x' }, t.user.token, method)).status).toBe(200);
      expect(await queuedJobs(app.seed, reportEmploymentEndJob.name, { contractId: c.id })).toHaveLength(1);
    });

    it('three deactivations at once: one is the transition, and one end report is queued', async () => {
      const c = await made({ end_date: '2026-10-31' });
      const results = await Promise.all(Array.from({ length: 3 }, () => put(c.id, { is_active: false }, t.user.token, method)));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(await queuedJobs(app.seed, reportEmploymentEndJob.name, { contractId: c.id })).toHaveLength(1);
    });

    it('activating (is_active false → true) queues a tax-card fetch for the current tax year', async () => {
      const e = await partner(app.seed, t);
      const c = (await create(minimalBody(t, e.id, { is_active: false }))).body;
      const fetch = { clientAccountId: t.account.id, businessPartnerId: e.id, year: currentTaxYear() };
      // the create queued one (spec 002's POST, whatever is_active says)
      expect((await queuedJobs(app.seed, fetchTaxCardJob.name, { businessPartnerId: e.id })).map((j) => j.data)).toEqual([fetch]);
      const res = await put(c.id, { is_active: true }, t.user.token, method);
      expect(res.status).toBe(200);
      expect((await queuedJobs(app.seed, fetchTaxCardJob.name, { businessPartnerId: e.id })).map((j) => j.data)).toEqual([fetch, fetch]);
      // already active: no change, nothing queued
      expect((await put(c.id, { is_active: true }, t.user.token, method)).status).toBe(200);
      expect(await queuedJobs(app.seed, fetchTaxCardJob.name, { businessPartnerId: e.id })).toHaveLength(2);
    });
  });

  describe('is_payroll_default: at most one default contract per employee', () => {
    it('making a contract the default clears it on the employee’s other contracts (create and update), not on other employees’', async () => {
      const e = await partner(app.seed, t);
      const other = await partner(app.seed, t);
      const mk = async (bp: number, extra: Record<string, unknown> = {}) => (await create(minimalBody(t, bp, extra))).body.id as number;
      const a = await mk(e.id, { is_payroll_default: true });
      const o = await mk(other.id, { is_payroll_default: true });
      const b = await mk(e.id, { is_payroll_default: true });
      const defaults = async (bp: number) =>
        (await list(`client_account_id=${t.account.id}&business_partner_id=${bp}`)).body.data.filter((c: any) => c.is_payroll_default).map((c: any) => c.id);
      expect(await defaults(e.id)).toEqual([b]);
      expect((await put(a, { is_payroll_default: true })).body.is_payroll_default).toBe(true);
      expect(await defaults(e.id)).toEqual([a]);
      expect(await defaults(other.id)).toEqual([o]);
      expect((await put(a, { is_payroll_default: false })).body.is_payroll_default).toBe(false);
      expect(await defaults(e.id)).toEqual([]);
    });

    it('contracts made the default at the same time leave one default', async () => {
      const e = await partner(app.seed, t);
      const ids = await Promise.all(Array.from({ length: 3 }, async () => (await create(minimalBody(t, e.id))).body.id as number));
      const results = await Promise.all(ids.map((id) => put(id, { is_payroll_default: true })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      const stored = await app.seed.prisma.payrollContract.findMany({ where: { businessPartnerId: e.id, isPayrollDefault: true } });
      expect(stored).toHaveLength(1);
    });
  });
});
