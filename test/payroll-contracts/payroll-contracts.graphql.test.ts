import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A_MELDING_CODE_LISTS } from '../../src/modules/payroll-contracts/a-melding-codes.ts';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { partner, payrollTenant } from './fixtures.ts';

// The same operations over GraphQL (payrollContracts, payrollContract, createPayrollContract,
// updatePayrollContract, payrollCodeLists) and as MCP tools generated from the route entries.
describe.each(targets())('payroll contracts over GraphQL and MCP (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let employee: { id: number };

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await payrollTenant(app.seed);
    employee = await partner(app.seed, t);
  });
  afterAll(() => app?.close());

  const CREATE = /* GraphQL */ `
    mutation ($input: CreatePayrollContractInput!) {
      createPayrollContract(input: $input) {
        id employmentType employmentForm workTimeArrangement remunerationType endDateReason salaryType monthlySalary workPercentage vacationPayRate
        isActive isPayrollDefault isPrimaryEmployer arbeidsforholdId businessPartner { id isEmployee } taxCard { id }
      }
    }`;

  it('the coded fields are strings (an a-melding code as sent); createPayrollContract and updatePayrollContract keep the scales', async () => {
    const res = await app.gql(t.user.token, CREATE, {
      input: {
        clientAccountId: t.account.id,
        businessPartnerId: employee.id,
        employmentType: 'maritimtArbeidsforhold',
        employmentForm: 'fast',
        workTimeArrangement: 'offshore336',
        remunerationType: 'time',
        startDate: '2026-02-01',
        salaryType: 'MONTHLY_FIXED',
        monthlySalary: '61000',
        workPercentage: '100',
        vacationPayRate: '0.12',
      },
    });
    expect(res.errors).toBeUndefined();
    const c = res.data.createPayrollContract;
    expect(c).toMatchObject({
      employmentType: 'maritimtArbeidsforhold',
      employmentForm: 'fast',
      workTimeArrangement: 'offshore336',
      remunerationType: 'time',
      endDateReason: null,
      salaryType: 'MONTHLY_FIXED',
      monthlySalary: '61000.00',
      workPercentage: '100.00',
      vacationPayRate: '0.1200',
      isActive: true,
      isPayrollDefault: false,
      isPrimaryEmployer: true,
      businessPartner: { id: employee.id, isEmployee: true },
      taxCard: null,
    });
    const updated = await app.gql(t.user.token, `mutation { updatePayrollContract(id: ${c.id}, input: { endDate: "2026-12-31", endDateReason: "arbeidstakerHarSagtOppSelv", isActive: false }) { isActive endDate endDateReason employmentEndReportStatus employmentEndReportedDate } }`);
    expect(updated.data.updatePayrollContract).toEqual({ isActive: false, endDate: '2026-12-31', endDateReason: 'arbeidstakerHarSagtOppSelv', employmentEndReportStatus: 'PENDING', employmentEndReportedDate: '2026-12-31' });
    const listed = await app.gql(t.user.token, `{ payrollContracts(clientAccountId: ${t.account.id}, isActive: false) { nodes { id } meta { records perPage } } }`);
    expect(listed.data.payrollContracts).toEqual({ nodes: [{ id: c.id }], meta: { records: 1, perPage: 100 } });
  });

  it('errors: a coded field over 50 characters, a missing salary, another tenant (forbidden), a missing contract (not found), a read-only token', async () => {
    const tooLong = await app.gql(t.user.token, CREATE, {
      input: { clientAccountId: t.account.id, businessPartnerId: employee.id, employmentType: 'x'.repeat(51), startDate: '2026-01-01', salaryType: 'HOURLY', hourlyRate: '250' },
    });
    expect(errorCode(tooLong)).toBe('common.validation_error');
    expect(tooLong.errors?.[0]?.message).toContain('employmentType: must be at most 50 characters');
    const noSalary = await app.gql(t.user.token, CREATE, {
      input: { clientAccountId: t.account.id, businessPartnerId: employee.id, employmentType: 'ordinaertArbeidsforhold', startDate: '2026-01-01', salaryType: 'HOURLY' },
    });
    expect(errorCode(noSalary)).toBe('common.validation_error');
    expect(noSalary.errors?.[0]?.message).toContain('hourlyRate: is required when salary_type is HOURLY');
    const c = (await app.gql(t.user.token, CREATE, { input: { clientAccountId: t.account.id, businessPartnerId: employee.id, employmentType: 'ordinaertArbeidsforhold', startDate: '2026-01-01', salaryType: 'HOURLY', hourlyRate: '250' } })).data.createPayrollContract;
    const stranger = await payrollTenant(app.seed);
    expect(errorCode(await app.gql(stranger.user.token, `{ payrollContract(id: ${c.id}) { id } }`))).toBe('common.forbidden');
    expect(errorCode(await app.gql(t.user.token, `{ payrollContract(id: 2000000000) { id } }`))).toBe('common.not_found');
    expect(errorCode(await app.gql(t.user.readToken, `mutation { updatePayrollContract(id: ${c.id}, input: { jobTitle: "x" }) { id } }`))).toBe('insufficient_scope');
  });

  it('payrollCodeLists publishes every a-melding list with its Norwegian labels, as suggestions (restricted false: spec 002 gives the fields as text of max 50, their allowed values "not shown")', async () => {
    const res = await app.gql(t.user.token, `{ payrollCodeLists { name field restricted values { value label } } }`);
    expect(res.data.payrollCodeLists).toEqual(A_MELDING_CODE_LISTS.map((l) => ({ name: l.name, field: l.field, restricted: l.restricted, values: l.values })));
    expect(res.data.payrollCodeLists.map((l: { field: string; restricted: boolean }) => [l.field, l.restricted])).toEqual([
      ['employment_type', false], ['employment_form', false], ['work_time_arrangement', false], ['remuneration_type', false], ['end_date_reason', false],
    ]);
    expect(res.data.payrollCodeLists[1].values).toEqual([
      { value: 'fast', label: 'Fast ansettelse' },
      { value: 'midlertidig', label: 'Midlertidig ansettelse' },
    ]);
    const fieldType = async (name: string) =>
      (await app.gql(t.user.token, `{ __type(name: "PayrollContract") { fields { name type { kind name ofType { name } } } } }`)).data.__type.fields.find((f: { name: string }) => f.name === name).type;
    expect(await fieldType('employmentForm')).toMatchObject({ kind: 'SCALAR', name: 'String' });
    expect(await fieldType('employmentType')).toMatchObject({ kind: 'NON_NULL', ofType: { name: 'String' } });
  });

  it('MCP: the route entries are tools; create, update (PUT and POST forms), list and get work through them', async () => {
    const client = new Client({ name: 'payroll', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=payroll`), { requestInit: { headers: { authorization: `Bearer ${t.user.token}` } } }));
    try {
      const names = (await client.listTools()).tools.map((x) => x.name);
      expect(names).toEqual(expect.arrayContaining(['list_payroll_contracts', 'get_payroll_contract', 'create_payroll_contract', 'update_payroll_contract', 'update_payroll_contract_by_post']));
      const text = (r: Awaited<ReturnType<typeof client.callTool>>) => JSON.parse((r.content as { text: string }[])[0]!.text);
      const created = await client.callTool({
        name: 'create_payroll_contract',
        arguments: { client_account_id: t.account.id, business_partner_id: employee.id, employment_type: 'ordinaertArbeidsforhold', start_date: '2026-01-01', salary_type: 'MONTHLY_FIXED', monthly_salary: '45000' },
      });
      expect(created.isError).toBeFalsy();
      const c = text(created);
      expect(c).toMatchObject({ monthly_salary: '45000.00', is_active: true });
      const updated = text(await client.callTool({ name: 'update_payroll_contract', arguments: { id: c.id, job_title: 'Kokk' } }));
      expect(updated.job_title).toBe('Kokk');
      const refused = await client.callTool({ name: 'update_payroll_contract_by_post', arguments: { id: c.id, business_partner_id: employee.id + 1 } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatchObject({ status: 400 });
      const got = text(await client.callTool({ name: 'get_payroll_contract', arguments: { id: c.id, with: ['business_partner'] } }));
      expect(got.business_partner.id).toBe(employee.id);
      const listed = text(await client.callTool({ name: 'list_payroll_contracts', arguments: { client_account_id: t.account.id } }));
      expect(listed.data.map((x: { id: number }) => x.id)).toContain(c.id);
    } finally {
      await client.close();
    }
  });
});
