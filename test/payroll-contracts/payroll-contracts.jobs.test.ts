import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createIntegrations } from '../../src/integrations/integrations.ts';
import { sandboxTaxCard } from '../../src/integrations/taxauthority/tax-cards.sandbox.ts';
import { enqueue } from '../../src/jobs/jobs.ts';
import { fetchTaxCardJob, reportEmploymentEndJob } from '../../src/modules/payroll-contracts/payroll-contracts.job.ts';
import { currentTaxYear } from '../../src/modules/payroll-contracts/payroll-tax-cards.service.ts';
import { startFaultyUpstream, type FaultyUpstream } from '../support/faulty-upstream.ts';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { minimalBody, nationalIdNumber, partner, payrollTenant, queuedJobs } from './fixtures.ts';

// spec 002 "States and transitions": a contract created or activated → "Background tax card fetch
// queued"; deactivated → "Employment end reported to the tax authority with the end date". The jobs
// run against the taxauthority sandbox over HTTP, then against a failing upstream.
const authority = createIntegrations(loadConfig({ DATA_DIR: '/tmp/unused' }).integrations).connector('taxauthority');
const QUEUES = { queues: [fetchTaxCardJob.name, reportEmploymentEndJob.name] };

const CONTRACT = /* GraphQL */ `
  query ($id: Int!, $year: Int) {
    payrollContract(id: $id) {
      id isActive endDate arbeidsforholdId jobTitle
      employmentEndReportStatus employmentEndReportedDate employmentEndReportedAt employmentEndReference employmentEndReportError employmentEndReportAttempts
      taxCard(year: $year) {
        year status deductionType tableNumber withholdingPercentage exemptionAmount issuedDate taxCardIdentifier rawResponse
        fetchedAt attempts lastError businessPartner { id }
      }
    }
  }`;

/** What the sandbox's card for the person and year becomes when stored. */
function expectedCard(orgNumber: string, nin: string, year: number) {
  const answer = sandboxTaxCard(orgNumber, nin, year);
  const trekk = answer.skattekort.forskuddstrekk[0]!;
  return {
    year,
    status: 'FETCHED',
    deductionType: trekk.trekktabell ? 'TABLE' : trekk.trekkprosent ? 'PERCENTAGE' : 'EXEMPTION',
    tableNumber: trekk.trekktabell?.tabellnummer ?? null,
    withholdingPercentage: trekk.trekktabell ? trekk.trekktabell.prosentsats.toFixed(2) : trekk.trekkprosent ? trekk.trekkprosent.prosentsats.toFixed(2) : null,
    exemptionAmount: trekk.frikort ? (trekk.frikort.frikortbeloep ?? 0).toFixed(2) : null,
    issuedDate: answer.skattekort.utstedtDato,
    taxCardIdentifier: answer.skattekort.skattekortidentifikator,
    rawResponse: answer,
    lastError: null,
  };
}

describe.each(targets())('payroll contract jobs (%s)', (target) => {
  describe('against the taxauthority sandbox', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(target, { jobs: QUEUES });
    });
    afterAll(() => app?.close());

    const contract = async (t: Tenant, id: number, year?: number) => (await app.gql(t.user.token, CONTRACT, { id, year })).data?.payrollContract;
    const create = async (t: Tenant, bp: number, extra: Record<string, unknown> = {}) => {
      const res = await app.http('POST', '/api/v2/payroll/contracts', { token: t.user.token, body: minimalBody(t, bp, extra) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as { id: number; arbeidsforhold_id: string };
    };
    const cardOf = (t: Tenant, id: number) => eventually(async () => (await contract(t, id))?.taxCard ?? undefined, 'the tax card');

    it('a contract created active: the employee’s tax card for the current tax year is fetched from the authority and shown on PayrollContract.taxCard and payrollTaxCards', async () => {
      const t = await payrollTenant(app.seed);
      const nin = nationalIdNumber();
      const e = await partner(app.seed, t, { nationalIdNumber: nin });
      const c = await create(t, e.id);
      const card = await cardOf(t, c.id);
      expect(card).toMatchObject({ ...expectedCard(t.orgNumber!, nin, currentTaxYear()), attempts: 1, businessPartner: { id: e.id } });
      expect(card.fetchedAt).not.toBeNull();
      const listed = await app.gql(t.user.token, `{ payrollTaxCards(clientAccountId: ${t.account.id}) { nodes { businessPartnerId year status } meta { records } } }`);
      expect(listed.data.payrollTaxCards).toEqual({ nodes: [{ businessPartnerId: e.id, year: currentTaxYear(), status: 'FETCHED' }], meta: { records: 1 } });
      const stranger = await payrollTenant(app.seed);
      const refused = await app.gql(stranger.user.token, `{ payrollTaxCards(clientAccountId: ${t.account.id}) { nodes { id } } }`);
      expect(refused.errors?.[0]?.extensions?.code).toBe('common.forbidden');
    });

    it('the sandbox’s cards follow from the person number and year: the same person twice gives the same card, other years other answers', async () => {
      const t = await payrollTenant(app.seed);
      const nin = nationalIdNumber();
      const [a, b] = [await partner(app.seed, t, { nationalIdNumber: nin }), await partner(app.seed, t, { nationalIdNumber: nin })];
      const [ca, cb] = [await create(t, a.id), await create(t, b.id)];
      const [cardA, cardB] = [await cardOf(t, ca.id), await cardOf(t, cb.id)];
      expect({ ...cardA, businessPartner: null, fetchedAt: null }).toEqual({ ...cardB, businessPartner: null, fetchedAt: null });
      expect(await contract(t, ca.id, 2010)).toMatchObject({ taxCard: null });
    });

    it('a person the authority does not know (individual number 000) → NOT_FOUND; the contract stands', async () => {
      const t = await payrollTenant(app.seed);
      const e = await partner(app.seed, t, { nationalIdNumber: nationalIdNumber('000') });
      const c = await create(t, e.id);
      expect(await cardOf(t, c.id)).toMatchObject({ status: 'NOT_FOUND', deductionType: null, rawResponse: null, lastError: null, attempts: 1 });
      expect((await contract(t, c.id)).isActive).toBe(true);
    });

    it('"contract creation without a national id number still works": the card records MISSING_NATIONAL_ID and nothing is asked', async () => {
      const t = await payrollTenant(app.seed);
      const e = await partner(app.seed, t, { nationalIdNumber: null });
      const c = await create(t, e.id);
      expect(await cardOf(t, c.id)).toMatchObject({ status: 'MISSING_NATIONAL_ID', lastError: expect.stringContaining('national_id_number'), attempts: 1 });
    });

    it('a client account without an organization number: MISSING_ORGANIZATION_NUMBER', async () => {
      const t = await payrollTenant(app.seed, { orgNumber: false });
      const e = await partner(app.seed, t);
      const c = await create(t, e.id);
      expect(await cardOf(t, c.id)).toMatchObject({ status: 'MISSING_ORGANIZATION_NUMBER', lastError: expect.stringContaining('organization number') });
    });

    it('deactivating reports the employment’s end with its end date; the receipt is recorded on the contract; activating again fetches the tax card again', async () => {
      const t = await payrollTenant(app.seed);
      const nin = nationalIdNumber();
      const e = await partner(app.seed, t, { nationalIdNumber: nin });
      const c = await create(t, e.id, { start_date: '2025-08-01' });
      await cardOf(t, c.id);
      const res = await app.http('PUT', `/api/v2/payroll/contracts/${c.id}`, { token: t.user.token, body: { is_active: false, end_date: '2026-05-31', end_date_reason: 'arbeidsgiverHarSagtOppArbeidstaker' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const reported = await eventually(async () => {
        const x = await contract(t, c.id);
        return x.employmentEndReportStatus === 'REPORTED' && x;
      }, 'the end reported');
      const sent = (await authority.get<{ reports: Record<string, unknown>[] }>('/sandbox/employment-end-reports', { query: { arbeidsforhold_id: c.arbeidsforhold_id } })).body.reports;
      expect(sent).toEqual([
        {
          organisasjonsnummer: t.orgNumber,
          arbeidsforholdId: c.arbeidsforhold_id,
          arbeidstakeridentifikator: nin,
          startdato: '2025-08-01',
          sluttdato: '2026-05-31',
          sluttaarsak: 'arbeidsgiverHarSagtOppArbeidstaker',
          referanse: expect.stringMatching(/^AVS-/),
          mottatt: expect.any(String),
        },
      ]);
      expect(reported).toMatchObject({ isActive: false, employmentEndReportedDate: '2026-05-31', employmentEndReference: sent[0]!.referanse, employmentEndReportError: null, employmentEndReportAttempts: 1 });
      expect(reported.employmentEndReportedAt).not.toBeNull();
      // activated again: a new tax-card fetch; deactivated again with another end date: a second report
      expect((await app.http('PUT', `/api/v2/payroll/contracts/${c.id}`, { token: t.user.token, body: { is_active: true } })).status).toBe(200);
      await eventually(async () => (await contract(t, c.id)).taxCard.attempts === 2, 'the second fetch');
      expect((await app.http('POST', `/api/v2/payroll/contracts/${c.id}`, { token: t.user.token, body: { is_active: false, end_date: '2026-07-31' } })).status).toBe(200);
      await eventually(async () => (await contract(t, c.id)).employmentEndReportedDate === '2026-07-31' && (await contract(t, c.id)).employmentEndReportStatus === 'REPORTED', 'the second report');
      const again = (await authority.get<{ reports: { sluttdato: string }[] }>('/sandbox/employment-end-reports', { query: { arbeidsforhold_id: c.arbeidsforhold_id } })).body.reports;
      expect(again.map((r) => r.sluttdato)).toEqual(['2026-05-31', '2026-07-31']);
    });

    it('an end cannot be reported without the employer’s organization number: FAILED at once (no retries), the contract stays inactive', async () => {
      const t = await payrollTenant(app.seed, { orgNumber: false });
      const e = await partner(app.seed, t);
      const c = await create(t, e.id, { end_date: '2026-03-31' });
      expect((await app.http('PUT', `/api/v2/payroll/contracts/${c.id}`, { token: t.user.token, body: { is_active: false } })).status).toBe(200);
      const failed = await eventually(async () => {
        const x = await contract(t, c.id);
        return x.employmentEndReportStatus === 'FAILED' && x;
      }, 'the report failed');
      expect(failed).toMatchObject({ isActive: false, employmentEndReportError: expect.stringContaining('no organization number'), employmentEndReportAttempts: 1 });
      await eventually(async () => (await queuedJobs(app.seed, reportEmploymentEndJob.name, { contractId: c.id }))[0]?.state === 'completed', 'the job completed');
    });
  });

  describe('when the tax authority fails (faulty upstream)', () => {
    let app: TestApp;
    let faulty: FaultyUpstream;
    beforeAll(async () => {
      faulty = await startFaultyUpstream('500');
      app = await startTestApp(target, {
        jobs: QUEUES,
        env: { TAXAUTHORITY_URL: faulty.url, TAXAUTHORITY_CLIENT_ID: 'regnskap-svc', TAXAUTHORITY_CLIENT_SECRET: 's3cret', INTEGRATION_TIMEOUT_MS: '500' },
      });
    });
    afterAll(async () => {
      await app?.close();
      await faulty?.close();
    });

    const contract = async (t: Tenant, id: number) => (await app.gql(t.user.token, CONTRACT, { id })).data?.payrollContract;
    /** the job waiting for its retry runs now instead of after its delay */
    const retryNow = (id: string) => app.seed.prisma.$executeRawUnsafe(`UPDATE pgboss.job SET start_after = now() WHERE id = $1::uuid AND state = 'retry'`, id);
    const jobOf = async (name: string, key: { businessPartnerId?: number; contractId?: number }) => (await queuedJobs(app.seed, name, key))[0];

    it('tax card: an upstream failure is recorded (FAILED, attempts, lastError) and retried; the contract is intact; the retry stores the card; a failed refresh keeps it', async () => {
      faulty.mode = '500';
      const t = await payrollTenant(app.seed);
      const nin = nationalIdNumber();
      const e = await partner(app.seed, t, { nationalIdNumber: nin });
      const created = await app.http('POST', '/api/v2/payroll/contracts', { token: t.user.token, body: minimalBody(t, e.id, { job_title: 'Lønnsmedarbeider' }) });
      expect(created.status).toBe(201);
      const failed = await eventually(async () => (await contract(t, created.body.id)).taxCard?.status === 'FAILED' && (await contract(t, created.body.id)), 'the failure recorded');
      expect(failed.taxCard).toMatchObject({ status: 'FAILED', attempts: 1, lastError: expect.stringContaining('answered 500'), deductionType: null });
      expect(failed).toMatchObject({ isActive: true, jobTitle: 'Lønnsmedarbeider' });
      const job = await eventually(async () => (await jobOf(fetchTaxCardJob.name, { businessPartnerId: e.id }))?.state === 'retry' && jobOf(fetchTaxCardJob.name, { businessPartnerId: e.id }), 'the job waiting to retry');
      expect(job).toMatchObject({ state: 'retry', retry_count: 0 }); // pg-boss counts a retry when it starts
      // our service credentials as HTTP Basic; the person number in the body, never in the URL
      const call = faulty.seen.find((s) => s.url === '/tax-cards/requests' && s.body.includes(nin))!;
      expect(call.method).toBe('POST');
      expect(call.authorization).toBe(`Basic ${Buffer.from('regnskap-svc:s3cret').toString('base64')}`);
      expect(JSON.parse(call.body)).toEqual({ organisasjonsnummer: t.orgNumber, inntektsaar: currentTaxYear(), arbeidstakeridentifikator: nin });

      faulty.mode = 'ok';
      faulty.okBody = sandboxTaxCard(t.orgNumber!, nin, currentTaxYear());
      await retryNow(job.id);
      const fetched = await eventually(async () => (await contract(t, created.body.id)).taxCard?.status === 'FETCHED' && (await contract(t, created.body.id)).taxCard, 'the retry');
      expect(fetched).toMatchObject({ ...expectedCard(t.orgNumber!, nin, currentTaxYear()), attempts: 2 });

      faulty.mode = 'bad-shape';
      await enqueue(app.db.prisma, fetchTaxCardJob, { clientAccountId: t.account.id, businessPartnerId: e.id, year: currentTaxYear() });
      const kept = await eventually(async () => ((await contract(t, created.body.id)).taxCard.attempts === 3 ? (await contract(t, created.body.id)).taxCard : undefined), 'the failed refresh');
      expect(kept).toMatchObject({ ...expectedCard(t.orgNumber!, nin, currentTaxYear()), attempts: 3, lastError: expect.stringContaining('unexpected shape') });
    });

    it('employment end: the deactivation stands, the failure is recorded on the contract (PENDING, attempts, error) and retried; the retry records the receipt', async () => {
      faulty.mode = '500';
      const t = await payrollTenant(app.seed);
      const e = await partner(app.seed, t);
      const c = (await app.http('POST', '/api/v2/payroll/contracts', { token: t.user.token, body: minimalBody(t, e.id, { end_date: '2026-04-30', is_active: true }) })).body;
      const res = await app.http('PUT', `/api/v2/payroll/contracts/${c.id}`, { token: t.user.token, body: { is_active: false } });
      expect(res.status).toBe(200);
      const pending = await eventually(async () => ((await contract(t, c.id)).employmentEndReportAttempts === 1 ? contract(t, c.id) : undefined), 'the failed report');
      expect(pending).toMatchObject({ isActive: false, endDate: '2026-04-30', employmentEndReportStatus: 'PENDING', employmentEndReportError: expect.stringContaining('answered 500'), employmentEndReportedAt: null });
      const job = await eventually(async () => (await jobOf(reportEmploymentEndJob.name, { contractId: c.id }))?.state === 'retry' && jobOf(reportEmploymentEndJob.name, { contractId: c.id }), 'the job waiting to retry');

      faulty.mode = 'ok';
      faulty.okBody = { referanse: 'AVS-TEST-1', mottatt: '2026-05-01T08:00:00Z' };
      await retryNow(job.id);
      const reported = await eventually(async () => ((await contract(t, c.id)).employmentEndReportStatus === 'REPORTED' ? contract(t, c.id) : undefined), 'the retry');
      expect(reported).toMatchObject({ employmentEndReference: 'AVS-TEST-1', employmentEndReportError: null, employmentEndReportAttempts: 2 });
      const sent = faulty.seen.filter((s) => s.url === '/employments/end-reports' && s.body.includes(c.arbeidsforhold_id));
      expect(sent).toHaveLength(2);
      expect(JSON.parse(sent[0]!.body)).toMatchObject({ organisasjonsnummer: t.orgNumber, arbeidsforholdId: c.arbeidsforhold_id, sluttdato: '2026-04-30', startdato: '2026-01-01' });
    });

    it('employment end: when the last retry fails too, the report is FAILED with the error', async () => {
      faulty.mode = 'not-json';
      const t = await payrollTenant(app.seed);
      const e = await partner(app.seed, t);
      const c = (await app.http('POST', '/api/v2/payroll/contracts', { token: t.user.token, body: minimalBody(t, e.id, { end_date: '2026-04-30' }) })).body;
      expect((await app.http('PUT', `/api/v2/payroll/contracts/${c.id}`, { token: t.user.token, body: { is_active: false } })).status).toBe(200);
      const job = await eventually(async () => (await jobOf(reportEmploymentEndJob.name, { contractId: c.id }))?.state === 'retry' && jobOf(reportEmploymentEndJob.name, { contractId: c.id }), 'the first failure');
      // as if every retry but the last had failed too: the next fetch counts one more, and pg-boss's
      // retry_limit is the job's plus the attempt that only gives it up (src/jobs/jobs.ts, queueRetryLimit)
      await app.seed.prisma.$executeRawUnsafe(`UPDATE pgboss.job SET retry_count = retry_limit - 2, start_after = now() WHERE id = $1::uuid`, job.id);
      const failed = await eventually(async () => ((await contract(t, c.id)).employmentEndReportStatus === 'FAILED' ? contract(t, c.id) : undefined), 'the last failure');
      expect(failed).toMatchObject({ isActive: false, employmentEndReportError: expect.stringContaining('not JSON'), employmentEndReportAttempts: 2 });
      await eventually(async () => (await jobOf(reportEmploymentEndJob.name, { contractId: c.id }))?.state === 'failed', 'the job failed');
    });
  });
});
