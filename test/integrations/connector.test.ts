import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { createIntegrations, upstream, UpstreamServiceError } from '../../src/integrations/integrations.ts';
import { UpstreamError } from '../../src/integrations/connector.ts';
import { cancelFiling, createFiling, filingReceipt, getFiling, listFilings } from '../../src/integrations/govportal/filings.ts';
import { INTEGRATION_SERVICES } from '../../src/integrations/services.ts';
import { startFaultyUpstream, type FaultyUpstream } from '../support/faulty-upstream.ts';

describe('connectors: every failure of an external service is an UpstreamError, never a hang', () => {
  let faulty: FaultyUpstream;
  let connector: ReturnType<ReturnType<typeof createIntegrations>['connector']>;
  beforeAll(async () => {
    faulty = await startFaultyUpstream('ok');
    faulty.byPath = { '/fail': '500', '/denied': 'denied', '/html': 'not-json', '/shape': 'bad-shape', '/hang': 'hang' };
    faulty.okBody = { items: [1, 2] };
    const config = loadConfig({ DATA_DIR: '/tmp/unused', DIALOGPLATFORM_URL: faulty.url, DIALOGPLATFORM_CLIENT_ID: 'us', DIALOGPLATFORM_CLIENT_SECRET: 'secret', INTEGRATION_TIMEOUT_MS: '300' });
    connector = createIntegrations(config.integrations).connector('dialogplatform');
  });
  afterAll(() => faulty.close());

  it('sends the configured credentials as HTTP Basic, or the bearer token it is given', async () => {
    await connector.get('/ok');
    await connector.get('/ok', { token: 'user-token' });
    expect(faulty.seen.at(-2)?.authorization).toBe(`Basic ${Buffer.from('us:secret').toString('base64')}`);
    expect(faulty.seen.at(-1)?.authorization).toBe('Bearer user-token');
  });

  it.each([
    ['an error status', '/fail', 'status', /answered 500: upstream exploded/],
    ['a body that is not JSON', '/html', 'malformed', /not JSON/],
    ['no answer within INTEGRATION_TIMEOUT_MS', '/hang', 'timeout', /did not answer within 0.3 s/],
  ])('%s', async (_what, path, failure, message) => {
    const e = await connector.get(path).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(UpstreamError);
    expect((e as UpstreamError).failure).toBe(failure);
    expect((e as UpstreamError).message).toMatch(message);
  });

  it('an answer in another shape than the API promises is malformed, naming the field', async () => {
    const e = await connector.call(z.object({ items: z.array(z.number()) }), 'GET', '/shape').catch((err: unknown) => err);
    expect((e as UpstreamError).failure).toBe('malformed');
    expect((e as UpstreamError).message).toMatch(/unexpected shape at items/);
  });

  it('a service that cannot be reached is unreachable', async () => {
    const config = loadConfig({ DATA_DIR: '/tmp/unused', EINVOICE_URL: 'http://127.0.0.1:1' });
    const e = await createIntegrations(config.integrations).connector('einvoice').get('/x').catch((err: unknown) => err);
    expect((e as UpstreamError).failure).toBe('unreachable');
  });

  it('upstream() gives the status the operation documents, and 403 for refused credentials', async () => {
    const failed = await upstream(() => connector.get('/fail'), { status: 500, what: 'Listing parties' }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(UpstreamServiceError);
    expect(failed).toMatchObject({ status: 500, message: expect.stringMatching(/^Listing parties failed: .*answered 500/) });
    const denied = await upstream(() => connector.get('/denied'), { status: 400 }).catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 403 });
    const timeout = await upstream(() => connector.get('/hang'), { status: 400 }).catch((e: unknown) => e);
    expect(timeout).toMatchObject({ status: 400 });
  });
});

describe('configuration of the connectors', () => {
  it('lists URL, CLIENT_ID and CLIENT_SECRET for every service; unset URL means the sandbox', () => {
    const config = loadConfig({ DATA_DIR: '/tmp/unused', TAXAUTHORITY_URL: 'https://api.example.test/tax/' });
    const integrations = createIntegrations(config.integrations);
    for (const service of INTEGRATION_SERVICES) expect(integrations.usesSandbox(service)).toBe(service !== 'taxauthority');
    expect(config.integrations.services.taxauthority.url).toBe('https://api.example.test/tax');
  });

  it('refuses a URL that is not http(s), naming the variable', () => {
    expect(() => loadConfig({ GOVPORTAL_URL: 'ftp://portal' })).toThrow(ConfigError);
    expect(() => loadConfig({ GOVPORTAL_URL: 'ftp://portal' })).toThrow(/GOVPORTAL_URL/);
  });
});

describe('the govportal sandbox: filing instances over HTTP', () => {
  const portal = createIntegrations(loadConfig({ DATA_DIR: '/tmp/unused' }).integrations).connector('govportal');
  const org = '987654325';

  it('creates a submitted instance with a reference and a receipt PDF, lists it, and cancels it', async () => {
    // data the authority's yearly-accounts rules accept (src/integrations/govportal/yearly-accounts.sandbox.ts)
    const data = {
      main_form_id: 'RR-0002',
      balance_sheet: { sum_eiendeler: '0.00', sum_egenkapital_og_gjeld: '0.00' },
      notes: [{ key: 'accounting_principles' }, { key: 'employees' }],
    };
    const filing = await createFiling(portal, { kind: 'yearly-accounts', orgNumber: org, reportingYear: 2024, data, submit: true });
    expect(filing).toMatchObject({ status: 'submitted', org_number: org, reporting_year: 2024, from_date: '2024-01-01', to_date: '2024-12-31', receipt_available: true });
    expect(filing.id).toMatch(/^\d{8}\/[0-9a-f-]{36}$/);
    expect(await getFiling(portal, filing.id)).toEqual(filing);
    expect((await listFilings(portal, { orgNumber: org, kind: 'yearly-accounts' })).map((f) => f.id)).toContain(filing.id);
    const pdf = await filingReceipt(portal, filing.id);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await cancelFiling(portal, filing.id)).status).toBe('cancelled');
  });

  it('an unknown instance is a 404 status failure', async () => {
    const e = await getFiling(portal, '50000000/00000000-0000-0000-0000-000000000000').catch((err: unknown) => err);
    expect(e).toMatchObject({ failure: 'status', status: 404 });
  });

  it('a correction must name an approved instance', async () => {
    const draft = await createFiling(portal, { kind: 'tax-return', orgNumber: org, reportingYear: 2023, data: {}, submit: false });
    const e = await createFiling(portal, { kind: 'tax-return', orgNumber: org, reportingYear: 2023, data: {}, submit: true, purpose: 'correction', corrects: draft.id }).catch((err: unknown) => err);
    expect(e).toMatchObject({ failure: 'status', status: 400 });
  });
});
