import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetchGarnishmentsJob } from '../../src/modules/payroll-garnishments/payroll-garnishments.job.ts';
import { derivedOrder, SANDBOX_CREDITORS } from '../../src/integrations/taxauthority/garnishments.sandbox.ts';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { startFaultyUpstream, type FaultMode, type FaultyUpstream } from '../support/faulty-upstream.ts';
import { employee, employerTenant, personWith, randomNationalId, sandboxControls, storedGarnishment } from './fixtures.ts';

// The fetch job (payroll.fetch-garnishments) against the taxauthority sandbox over HTTP, then against
// a failing upstream. One file, two apps one after the other: on PostgreSQL the job queue is shared by
// the files running at once, and only this file works this queue.

type Run = { id: number; status: string; listed: number; created: number; updated: number; cancelled: number; expired: number; unchanged: number; skipped: number; error: string | null; startedAt: string | null; finishedAt: string | null };

describe.each(targets())('the garnishment fetch against the tax authority sandbox (%s)', (target) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(target, { jobs: { queues: [fetchGarnishmentsJob.name] } });
  });
  afterAll(() => app?.close());

  type Employer = Awaited<ReturnType<typeof employerTenant>>;

  /** POST /payroll/garnishments/fetch, then the run once the job has finished it (over GraphQL) */
  async function fetchRun(t: Employer): Promise<Run> {
    const res = await app.http('POST', '/api/v2/payroll/garnishments/fetch', { token: t.user.token, body: { client_account_id: t.account.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const runId = Number(/fetch run (\d+)/.exec(res.body.message)?.[1]);
    return eventually(async () => {
      const r = await app.gql(t.user.token, 'query($c: Int!) { payrollGarnishmentFetchRuns(clientAccountId: $c) { nodes { id status listed created updated cancelled expired unchanged skipped error startedAt finishedAt } } }', { c: t.account.id });
      const run = (r.data?.payrollGarnishmentFetchRuns.nodes as Run[] | undefined)?.find((x) => x.id === runId);
      return run && (run.status === 'SUCCEEDED' || run.status === 'FAILED') ? run : undefined;
    }, `fetch run ${runId}`);
  }
  const listed = async (t: Employer) => (await app.http('GET', `/api/v2/payroll/garnishments?client_account_id=${t.account.id}`, { token: t.user.token })).body.data as Record<string, any>[];

  it('creates garnishments from the authority’s orders for employees matched by national id number: FIXED per period, PERCENTAGE of net pay, creditor and its bank account, raw_response as received; the run is recorded', async () => {
    const t = await employerTenant(app.seed);
    const fixedPerson = personWith(t.orgNumber, 'FIXED');
    const percentPerson = personWith(t.orgNumber, 'PERCENTAGE');
    const fixed = await employee(app.seed, t.account.id, fixedPerson, 'Fast Trekk');
    const percent = await employee(app.seed, t.account.id, percentPerson, 'Prosent Trekk');
    await employee(app.seed, t.account.id, personWith(t.orgNumber, 'NONE'), 'Uten Trekk');
    await employee(app.seed, t.account.id, null, 'Uten Fødselsnummer');
    // not an employee: the authority is not asked about this person, so its order is not fetched
    await employee(app.seed, t.account.id, personWith(t.orgNumber, 'FIXED'), 'Kunde Med Trekk', false);
    // NAV is already a supplier of the account: found by organisation number, not created again
    const nav = await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'NAV', organizationNumber: SANDBOX_CREDITORS.nav.organization_number, isSupplier: true } });
    // an order for a person who is no employee of the account: skipped and counted
    await sandboxControls.add(t.orgNumber, { person_number: randomNationalId() });

    const run = await fetchRun(t);
    expect(run).toMatchObject({ status: 'SUCCEEDED', listed: 3, created: 2, updated: 0, cancelled: 0, expired: 0, unchanged: 0, skipped: 1, error: null });
    expect(new Date(run.finishedAt!).getTime()).toBeGreaterThanOrEqual(new Date(run.startedAt!).getTime());

    const rows = await listed(t);
    // ordered by priority: the bidragstrekk (1) before the utleggstrekk (2)
    expect(rows.map((g) => g.business_partner_id)).toEqual([percent.id, fixed.id]);
    const expectedFixed = derivedOrder(t.orgNumber, fixedPerson)!;
    const expectedPercent = derivedOrder(t.orgNumber, percentPerson)!;
    const si = await app.seed.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: t.account.id, organizationNumber: SANDBOX_CREDITORS.innkrevingssentral.organization_number } });
    expect(si).toMatchObject({ name: 'Statens innkrevingssentral', isSupplier: true });
    const siBank = await app.seed.prisma.bankAccount.findFirstOrThrow({ where: { clientAccountId: t.account.id, accountNumber: SANDBOX_CREDITORS.innkrevingssentral.bank_account_number } });
    expect(siBank.businessPartnerId).toBe(si.id);
    expect(rows[1]).toMatchObject({
      external_id: expectedFixed.order_id,
      garnishment_type: 'UTLEGGSTREKK',
      deduction_type: 'FIXED',
      amount: expectedFixed.amount,
      percentage: null,
      priority: 2,
      creditor_id: si.id,
      creditor_bank_account_id: siBank.id,
      payment_reference: expectedFixed.payment_reference,
      case_number: expectedFixed.case_number,
      valid_from: expectedFixed.valid_from,
      valid_to: null,
      status: 'ACTIVE',
      external_version: 1,
      sequence_number: 1,
      created_by_id: t.user.id,
      raw_response: JSON.parse(JSON.stringify(expectedFixed)),
    });
    expect(rows[0]).toMatchObject({ external_id: expectedPercent.order_id, deduction_type: 'PERCENTAGE', amount: null, percentage: expectedPercent.percentage, priority: 1, creditor_id: nav.id, status: 'ACTIVE' });
    expect(await app.seed.prisma.businessPartner.count({ where: { clientAccountId: t.account.id, organizationNumber: SANDBOX_CREDITORS.nav.organization_number } })).toBe(1);

    // the same answer again changes nothing
    expect(await fetchRun(t)).toMatchObject({ status: 'SUCCEEDED', listed: 3, created: 0, updated: 0, cancelled: 0, expired: 0, unchanged: 2, skipped: 1 });
    expect(await app.seed.prisma.payrollGarnishment.count({ where: { clientAccountId: t.account.id } })).toBe(2);
  });

  it('later fetches: a newer external_version wins, the same or an older one changes nothing, an order no longer listed becomes CANCELLED, one whose valid_to has passed is EXPIRED', async () => {
    const t = await employerTenant(app.seed);
    const [pa, pb, pc] = [personWith(t.orgNumber, 'FIXED'), personWith(t.orgNumber, 'PERCENTAGE'), personWith(t.orgNumber, 'NONE')];
    const a = await employee(app.seed, t.account.id, pa);
    const b = await employee(app.seed, t.account.id, pb);
    const c = await employee(app.seed, t.account.id, pc);
    const orderA = derivedOrder(t.orgNumber, pa)!;
    const orderB = derivedOrder(t.orgNumber, pb)!;
    const added = await sandboxControls.add(t.orgNumber, { person_number: pc, amount: '750.00', priority: 3, valid_from: '2026-01-01' });
    expect(await fetchRun(t)).toMatchObject({ status: 'SUCCEEDED', created: 3 });

    // A changed at the authority (version 2); B lifted; C's order ran out (valid_to passed, same version); a new order for C that had already ended
    await sandboxControls.change(t.orgNumber, orderA.order_id, { person_number: pa, amount: '2000.00', payment_reference: '12345678903' });
    await sandboxControls.lift(t.orgNumber, orderB.order_id, pb);
    await sandboxControls.change(t.orgNumber, added.order_id, { valid_to: '2026-06-30', version: 1 });
    const ended = await sandboxControls.add(t.orgNumber, { person_number: pc, valid_from: '2025-01-01', valid_to: '2025-12-31', garnishment_type: 'RESTSKATT', priority: 4 });
    expect(await fetchRun(t)).toMatchObject({ status: 'SUCCEEDED', listed: 3, created: 1, updated: 1, cancelled: 1, expired: 1, unchanged: 0, skipped: 0 });
    const byExternal = Object.fromEntries((await listed(t)).map((g) => [g.external_id, g]));
    expect(byExternal[orderA.order_id]).toMatchObject({ business_partner_id: a.id, amount: '2000.00', payment_reference: '12345678903', external_version: 2, status: 'ACTIVE', raw_response: { version: 2, amount: '2000.00' } });
    expect(byExternal[orderB.order_id]).toMatchObject({ business_partner_id: b.id, status: 'CANCELLED', external_version: 1 });
    expect(byExternal[added.order_id]).toMatchObject({ business_partner_id: c.id, status: 'EXPIRED', amount: '750.00' });
    expect(byExternal[ended.order_id]).toMatchObject({ business_partner_id: c.id, status: 'EXPIRED', garnishment_type: 'RESTSKATT', valid_to: '2025-12-31' });

    // a stale copy (version 1 again, another amount) does not overwrite version 2
    await sandboxControls.change(t.orgNumber, orderA.order_id, { amount: '9999.00', version: 1 });
    expect(await fetchRun(t)).toMatchObject({ status: 'SUCCEEDED', updated: 0, unchanged: 3 });
    expect((await app.http('GET', `/api/v2/payroll/garnishments/${byExternal[orderA.order_id]!.id}`, { token: t.user.token })).body).toMatchObject({ amount: '2000.00', external_version: 2 });

    // status filters over what the fetches wrote
    const active = await app.http('GET', `/api/v2/payroll/garnishments?client_account_id=${t.account.id}&status=ACTIVE`, { token: t.user.token });
    expect(active.body.data.map((g: { external_id: string }) => g.external_id)).toEqual([orderA.order_id]);
    const expired = await app.http('GET', `/api/v2/payroll/garnishments?client_account_id=${t.account.id}&status=EXPIRED&business_partner_id=${c.id}`, { token: t.user.token });
    expect(expired.body.data.map((g: { external_id: string }) => g.external_id)).toEqual([added.order_id, ended.order_id]);
  });

  it('two fetches of one account at once store each order once', async () => {
    const t = await employerTenant(app.seed);
    await employee(app.seed, t.account.id, personWith(t.orgNumber, 'FIXED'));
    await employee(app.seed, t.account.id, personWith(t.orgNumber, 'PERCENTAGE'));
    const runs = await Promise.all([fetchRun(t), fetchRun(t)]);
    expect(runs.map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect(runs.map((r) => r.created).sort()).toEqual([0, 2]);
    expect(await app.seed.prisma.payrollGarnishment.count({ where: { clientAccountId: t.account.id } })).toBe(2);
  });

  it('GraphQL: payrollGarnishments with the employee and creditor, payrollGarnishment, fetchPayrollGarnishments answers the message and the run; no create, update or delete mutation exists', async () => {
    const t = await employerTenant(app.seed);
    const person = personWith(t.orgNumber, 'FIXED');
    const e = await employee(app.seed, t.account.id, person, 'Grafisk Ansatt');
    const m = await app.gql(t.user.token, 'mutation($c: Int!) { fetchPayrollGarnishments(clientAccountId: $c) { message run { id status clientAccountId } } }', { c: t.account.id });
    expect(m.errors).toBeUndefined();
    expect(m.data.fetchPayrollGarnishments).toMatchObject({ message: expect.stringMatching(/queued/), run: { status: 'QUEUED', clientAccountId: t.account.id } });
    await eventually(async () => (await app.seed.prisma.payrollGarnishmentFetchRun.findUniqueOrThrow({ where: { id: m.data.fetchPayrollGarnishments.run.id } })).status === 'SUCCEEDED', 'the fetch');
    const q = await app.gql(
      t.user.token,
      'query($c: Int!) { payrollGarnishments(clientAccountId: $c, status: ACTIVE) { nodes { id amount deductionType businessPartner { id name } creditor { name organizationNumber } } meta { records pages } } }',
      { c: t.account.id },
    );
    expect(q.errors).toBeUndefined();
    expect(q.data.payrollGarnishments).toEqual({
      nodes: [{ id: expect.any(Number), amount: derivedOrder(t.orgNumber, person)!.amount, deductionType: 'FIXED', businessPartner: { id: e.id, name: 'Grafisk Ansatt' }, creditor: { name: 'Statens innkrevingssentral', organizationNumber: '971648198' } }],
      meta: { records: 1, pages: 1 },
    });
    const stranger = await app.seed.tenant();
    const denied = await app.gql(stranger.user.token, 'query($id: Int!) { payrollGarnishment(id: $id) { id } }', { id: q.data.payrollGarnishments.nodes[0].id });
    expect(denied.errors?.[0]?.extensions).toMatchObject({ code: 'common.forbidden' });
    const mutations = await app.gql(t.user.token, '{ __schema { mutationType { fields { name } } } }');
    expect(mutations.data.__schema.mutationType.fields.map((f: { name: string }) => f.name).filter((n: string) => /garnishment/i.test(n))).toEqual(['fetchPayrollGarnishments']);
  });

  it('MCP: the three operations are tools; list_payroll_garnishments answers the envelope', async () => {
    const t = await employerTenant(app.seed);
    const e = await employee(app.seed, t.account.id, randomNationalId());
    const g = await storedGarnishment(app.seed, t.account.id, e.id);
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=payroll`), { requestInit: { headers: { authorization: `Bearer ${t.user.token}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).filter((n) => n.includes('garnishment')).sort()).toEqual(['fetch_payroll_garnishments', 'get_payroll_garnishment', 'list_payroll_garnishments']);
      const res = await client.callTool({ name: 'list_payroll_garnishments', arguments: { client_account_id: t.account.id } });
      const body = JSON.parse((res.content as { text: string }[])[0]!.text);
      // a list tool answers 20 a page unless per_page says otherwise (REST: 100)
      expect(body).toMatchObject({ data: [{ id: g.id, amount: '1500.00' }], meta: { page: 1, pages: 1, per_page: 20, records: 1 } });
    } finally {
      await client.close();
    }
  });
});

// An upstream failure writes no garnishment, creates no creditor and records the run FAILED with the
// error; the job is not retried (the client asks again).
describe.each(targets())('the garnishment fetch when the tax authority fails (%s)', (target) => {
  let app: TestApp;
  let faulty: FaultyUpstream;

  beforeAll(async () => {
    faulty = await startFaultyUpstream('500');
    app = await startTestApp(target, {
      jobs: { queues: [fetchGarnishmentsJob.name] },
      env: { TAXAUTHORITY_URL: faulty.url, TAXAUTHORITY_CLIENT_ID: 'our-service', TAXAUTHORITY_CLIENT_SECRET: 's3cret', INTEGRATION_TIMEOUT_MS: '500' },
    });
  });
  afterAll(async () => {
    await app?.close();
    await faulty?.close();
  });

  const MODES: [FaultMode, RegExp][] = [
    ['500', /answered 500/],
    ['denied', /answered 401/],
    ['not-json', /not JSON/],
    ['bad-shape', /unexpected shape/],
    ['hang', /did not answer within/],
  ];

  it.each(MODES)('upstream %s: the run is FAILED with the error; nothing is written', async (mode, error) => {
    faulty.mode = mode;
    faulty.seen.length = 0;
    const t = await employerTenant(app.seed);
    const person = randomNationalId();
    const e = await employee(app.seed, t.account.id, person);
    const kept = await storedGarnishment(app.seed, t.account.id, e.id, { externalId: 'KEPT-1' });
    const partners = await app.seed.prisma.businessPartner.count({ where: { clientAccountId: t.account.id } });
    const res = await app.http('POST', '/api/v2/payroll/garnishments/fetch', { token: t.user.token, body: { client_account_id: t.account.id } });
    expect(res.status).toBe(202);
    const run = await eventually(async () => {
      const r = await app.seed.prisma.payrollGarnishmentFetchRun.findFirst({ where: { clientAccountId: t.account.id } });
      return r?.status === 'FAILED' || r?.status === 'SUCCEEDED' ? r : undefined;
    }, 'the failed run');
    expect(run).toMatchObject({ status: 'FAILED', created: 0, updated: 0, cancelled: 0, error: expect.stringMatching(/^Fetching garnishments from the tax authority failed: /) });
    expect(run.error).toMatch(error);
    expect(run.finishedAt).not.toBeNull();
    // the stored order the authority did not list is not cancelled: nothing was written
    expect(await app.seed.prisma.payrollGarnishment.findUniqueOrThrow({ where: { id: kept.id } })).toMatchObject({ status: 'ACTIVE', externalVersion: 1 });
    expect(await app.seed.prisma.payrollGarnishment.count({ where: { clientAccountId: t.account.id } })).toBe(1);
    expect(await app.seed.prisma.businessPartner.count({ where: { clientAccountId: t.account.id } })).toBe(partners);
    // asked once (no retry), with our service's credentials as HTTP Basic, on behalf of the employer
    const calls = faulty.seen.filter((s) => s.body.includes(t.orgNumber));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'POST', url: '/garnishments/search', authorization: `Basic ${Buffer.from('our-service:s3cret').toString('base64')}` });
    expect(JSON.parse(calls[0]!.body)).toEqual({ org_number: t.orgNumber, person_numbers: [person] });
  });

  it('an order of the wrong shape (FIXED without an amount) fails the whole answer: nothing is written', async () => {
    const t = await employerTenant(app.seed);
    const person = randomNationalId();
    await employee(app.seed, t.account.id, person);
    faulty.mode = 'ok';
    faulty.okBody = {
      org_number: t.orgNumber,
      retrieved_at: new Date().toISOString(),
      orders: [{ ...derivedOrder(t.orgNumber, personWith(t.orgNumber, 'FIXED'))!, person_number: person, amount: null }],
    };
    await app.http('POST', '/api/v2/payroll/garnishments/fetch', { token: t.user.token, body: { client_account_id: t.account.id } });
    const run = await eventually(async () => {
      const r = await app.seed.prisma.payrollGarnishmentFetchRun.findFirst({ where: { clientAccountId: t.account.id } });
      return r?.status === 'FAILED' || r?.status === 'SUCCEEDED' ? r : undefined;
    }, 'the run');
    expect(run).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/unexpected shape at orders\.0\.amount/) });
    expect(await app.seed.prisma.payrollGarnishment.count({ where: { clientAccountId: t.account.id } })).toBe(0);
  });
});
