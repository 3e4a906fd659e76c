import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { startFaultyUpstream, type FaultMode, type FaultyUpstream } from '../support/faulty-upstream.ts';
import { company, ownBankAccount } from './helpers.ts';

// spec 002: PATCH /integrations/einvoice/status "400; 403; 500", GET /integrations/providerb/status
// "…; 500". The network or provider failing — an error status, our credentials refused, a body that
// is not JSON or not the promised shape, no answer in time — is a 500 {error, status}, answered
// within the timeout, and nothing is stored.
describe.each(targets())('einvoice and providerb upstream failures (%s)', (target) => {
  let app: TestApp;
  let faulty: FaultyUpstream;

  beforeAll(async () => {
    faulty = await startFaultyUpstream('500');
    app = await startTestApp(target, { env: { EINVOICE_URL: faulty.url, PROVIDERB_URL: faulty.url, INTEGRATION_TIMEOUT_MS: '500' } });
  });
  afterAll(async () => {
    await app?.close();
    await faulty?.close();
  });

  const MODES: [string, FaultMode][] = [
    ['an error status', '500'],
    ['our credentials refused (401)', 'denied'],
    ['a body that is not JSON', 'not-json'],
    ['a body of another shape', 'bad-shape'],
    ['no answer within INTEGRATION_TIMEOUT_MS', 'hang'],
  ];

  it.each(MODES)('einvoice PATCH: %s is 500 and nothing is stored', async (_what, mode) => {
    faulty.mode = mode;
    const c = await company(app);
    const started = Date.now();
    const res = await app.http('PATCH', `/api/v2/integrations/einvoice/status?client_account_id=${c.account.id}`, { token: c.user.token, body: { is_active: true } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.status, JSON.stringify(res.body)).toBe(500);
    expect(res.body).toEqual({ error: expect.stringMatching(/e-invoicing network/), status: 500 });
    expect(await app.seed.prisma.integrationSetting.count({ where: { clientAccountId: c.account.id } })).toBe(0);
    expect(faulty.seen.at(-1)).toMatchObject({ method: 'PUT', url: `/receivers/${c.organizationNumber}` });
  });

  it('einvoice PATCH deactivating: a failure keeps the stored state', async () => {
    faulty.mode = 'ok';
    faulty.okBody = { org_number: '000000000', name: 'x', status: 'REGISTERED', capabilities: [], registered_at: new Date().toISOString() };
    const c = await company(app);
    const path = `/api/v2/integrations/einvoice/status?client_account_id=${c.account.id}`;
    expect((await app.http('PATCH', path, { token: c.user.token, body: { is_active: true } })).body).toEqual({ is_active: true, connected: true });
    faulty.mode = '500';
    expect((await app.http('PATCH', path, { token: c.user.token, body: { is_active: false } })).status).toBe(500);
    expect((await app.http('GET', path, { token: c.user.token })).body).toEqual({ is_active: true, connected: true });
  });

  it.each(MODES)('providerb GET: %s is 500 and nothing is stored', async (_what, mode) => {
    faulty.mode = mode;
    const c = await company(app);
    const acct = await ownBankAccount(app, c.account.id, null);
    const res = await app.http('GET', `/api/v2/integrations/providerb/status?bank_account_id=${acct.id}`, { token: c.user.token });
    expect(res.status, JSON.stringify(res.body)).toBe(500);
    expect(res.body).toEqual({ error: expect.stringMatching(/Providerb onboarding failed/), status: 500 });
    expect(await app.seed.prisma.integrationSetting.count({ where: { clientAccountId: c.account.id } })).toBe(0);
  });
});
