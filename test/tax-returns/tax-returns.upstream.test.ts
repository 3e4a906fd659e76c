import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { startFaultyUpstream, type FaultMode, type FaultyUpstream } from '../support/faulty-upstream.ts';
import type { Tenant } from '../support/seed.ts';
import { filingTenant, postCleanLedger } from './fixtures.ts';

// Connector failures: the portal or the authority answers 500, something that is not JSON, JSON of
// another shape, or nothing within INTEGRATION_TIMEOUT_MS → 500 {error, status}; our credentials
// refused → 403. The call comes before any write, so nothing is half-written.
describe.each(targets())('tax returns when the portal or the tax authority fails (%s)', (target) => {
  let app: TestApp;
  let faulty: FaultyUpstream;

  beforeAll(async () => {
    faulty = await startFaultyUpstream('500');
    app = await startTestApp(target, { env: { GOVPORTAL_URL: faulty.url, TAXAUTHORITY_URL: faulty.url, INTEGRATION_TIMEOUT_MS: '500' } });
  });
  afterAll(async () => {
    await app?.close();
    await faulty?.close();
  });

  const stored = (t: Tenant, data: Record<string, unknown>) =>
    app.seed.prisma.taxReturn.create({
      data: { clientAccountId: t.account.id, reportingYear: 2026, fromDate: new Date('2026-01-01'), toDate: new Date('2026-12-31'), portalInstanceId: '50000001/00000000-0000-4000-8000-000000000001', status: 'SUBMITTED', portalStatus: 'submitted', ...data },
    });

  const MODES: [FaultMode, number][] = [
    ['500', 500],
    ['not-json', 500],
    ['bad-shape', 500],
    ['hang', 500],
    ['denied', 403],
  ];

  it.each(MODES)('submit: upstream %s → %i, no tax return and no voucher stored', async (mode, status) => {
    faulty.mode = mode;
    faulty.byPath = {};
    const t = await filingTenant(app.seed);
    await postCleanLedger(app.seed, t);
    const res = await app.http('POST', '/api/v2/tax-returns', { token: t.user.token, body: { client_account_id: t.account.id, reporting_year: 2026 } });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Filing the tax return at the portal failed: /), status });
    expect(await app.seed.prisma.taxReturn.count({ where: { clientAccountId: t.account.id } })).toBe(0);
    expect(await app.seed.prisma.voucher.count({ where: { clientAccountId: t.account.id } })).toBe(0);
  });

  it.each(MODES)('status refresh, cancel and import: upstream %s → %i and nothing changes', async (mode, status) => {
    faulty.mode = mode;
    faulty.byPath = {};
    const t = await filingTenant(app.seed);
    const r = await stored(t, {});
    const refresh = await app.http('GET', `/api/v2/tax-returns/${r.id}/status`, { token: t.user.token });
    expect(refresh.body).toEqual({ error: expect.stringMatching(/status at the portal failed/), status });
    const cancel = await app.http('POST', `/api/v2/tax-returns/${r.id}/cancel`, { token: t.user.token });
    expect(cancel.body).toEqual({ error: expect.stringMatching(/Cancelling the tax return at the portal failed/), status });
    expect((await app.seed.prisma.taxReturn.findUniqueOrThrow({ where: { id: r.id } })).status).toBe('SUBMITTED');
    const imported = await app.http('POST', '/api/v2/tax-returns/import', { token: t.user.token, body: { client_account_id: t.account.id } });
    expect(imported.body).toEqual({ error: expect.stringMatching(/Listing the tax returns at the portal failed/), status });
    expect(await app.seed.prisma.taxReturn.count({ where: { clientAccountId: t.account.id } })).toBe(1);
  });

  it.each(MODES.filter(([m]) => m !== 'hang'))('fetch-prefilled and validate: the authority %s → %i', async (mode, status) => {
    faulty.mode = mode;
    faulty.byPath = {};
    const t = await filingTenant(app.seed);
    const prefilled = await app.http('POST', `/api/v2/tax-returns/2025/fetch-prefilled?client_account_id=${t.account.id}`, { token: t.user.token });
    expect(prefilled.body).toEqual({ error: expect.stringMatching(/pre-filled data/), status });
    const validated = await app.http('POST', '/api/v2/tax-returns/2025/validate', { token: t.user.token, body: { client_account_id: t.account.id } });
    expect(validated.body).toEqual({ error: expect.stringMatching(/Validation by the tax authority failed/), status });
  });

  it('a submitted filing whose receipt the portal cannot give is stored SUBMITTED without receipt_voucher_id; each status refresh asks for it again', async () => {
    const t = await filingTenant(app.seed);
    const filing = {
      id: '50000002/00000000-0000-4000-8000-000000000002',
      kind: 'tax-return',
      org_number: t.orgNumber,
      reporting_year: 2026,
      purpose: 'original',
      status: 'submitted',
      findings: [],
      reference: 'SKM-2026-TEST',
      created_at: '2027-03-01T10:00:00.000Z',
      submitted_at: '2027-03-01T10:00:00.000Z',
      receipt_available: true,
    };
    faulty.mode = 'ok';
    faulty.okBody = filing;
    faulty.byPath = { [`/filings/${filing.id}/receipt`]: '500' };
    const res = await app.http('POST', '/api/v2/tax-returns', { token: t.user.token, body: { client_account_id: t.account.id, reporting_year: 2026 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'SUBMITTED', portal_instance_id: filing.id, tax_authority_reference: 'SKM-2026-TEST', receipt_voucher_id: null });
    faulty.byPath = {}; // the receipt path now answers 200, but JSON: not a PDF, so still none stored
    faulty.seen.length = 0;
    const refreshed = await app.http('GET', `/api/v2/tax-returns/${res.body.id}/status`, { token: t.user.token });
    expect(refreshed.body).toMatchObject({ status: 'SUBMITTED', receipt_voucher_id: null });
    expect(faulty.seen.map((s) => s.url)).toEqual([`/filings/${filing.id}`, `/filings/${filing.id}/receipt`]);
    expect(await app.seed.prisma.voucher.count({ where: { clientAccountId: t.account.id } })).toBe(0);
  });
});
