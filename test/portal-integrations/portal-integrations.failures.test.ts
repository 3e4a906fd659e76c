import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PERSONS } from '../../src/integrations/idprovider/login.sandbox.ts';
import { startFaultyUpstream, type FaultMode, type FaultyUpstream } from '../support/faulty-upstream.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { randomOrganizationNumber } from '../support/seed.ts';
import { login } from './browser.ts';

// Connector failures (common brief, spec 002 "Integrations"): the portal, the tax authority and the
// dialog platform answer 500, something not JSON, JSON of another shape, 401, or nothing at all. The
// documented statuses: parties 500; system-user create 400 "request failed" and no row; GET one 400;
// property search 400; dialogs 400. Never a hang (INTEGRATION_TIMEOUT_MS 500).
const FAILURES: FaultMode[] = ['500', 'not-json', 'bad-shape', 'hang'];

describe.each(targets())('portal integrations: upstream failures (%s)', (target) => {
  let app: TestApp;
  let faulty: FaultyUpstream;
  beforeAll(async () => {
    faulty = await startFaultyUpstream('500');
    app = await startTestApp(target, {
      env: {
        GOVPORTAL_URL: faulty.url,
        GOVPORTAL_CLIENT_ID: 'our-system',
        GOVPORTAL_CLIENT_SECRET: 'portal-secret',
        TAXAUTHORITY_URL: faulty.url,
        DIALOGPLATFORM_URL: faulty.url,
        INTEGRATION_TIMEOUT_MS: '500',
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await faulty?.close();
  });

  const fail = (mode: FaultMode, byPath: Record<string, FaultMode> = {}, okBody: unknown = {}) => {
    faulty.mode = mode;
    faulty.byPath = byPath;
    faulty.okBody = okBody;
  };
  const get = (path: string, token: string) => app.http('GET', `/api/v2/integrations${path}`, { token });
  const timed = async <T>(call: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const result = await call();
    expect(Date.now() - started, 'answered well within the test timeout, not hanging').toBeLessThan(5000);
    return result;
  };

  /** a user with a stored, unexpired portal connection (as the callback stores it) */
  async function connectedUser() {
    const user = await app.seed.user();
    await app.db.prisma.portalConnection.create({
      data: { userId: user.id, service: 'GOVPORTAL', personId: TEST_PERSONS[0]!.pid, accessToken: `portal-${randomUUID()}`, expiresAt: new Date(Date.now() + 600_000) },
    });
    return user;
  }

  async function company() {
    const organizationNumber = randomOrganizationNumber();
    const account = await app.seed.clientAccount({ organizationNumber });
    const user = await app.seed.user();
    await app.seed.grantRole({ userId: user.id, clientAccountId: account.id, role: 'CA' });
    return { account, user, organizationNumber };
  }

  /** a stored system user (as a create stored it) in the given status */
  async function systemUser(c: Awaited<ReturnType<typeof company>>, status: string) {
    return app.db.prisma.govportalSystemUser.create({
      data: {
        id: randomUUID(),
        externalRef: `ca-${c.account.id}-x`,
        systemId: 'our-system',
        orgNumber: c.organizationNumber,
        clientAccountId: c.account.id,
        status,
        confirmUrl: `${faulty.url}/confirm`,
        rights: [
          { resource: 'taxauthority-property-search', scope: 'taxauthority:eiendom' },
          { resource: 'dialogplatform-dialogs', scope: 'dialogplatform:dialogs.read' },
          { resource: 'govportal-filings', scope: 'govportal:filings.read' },
        ],
      },
    });
  }

  it.each(FAILURES)('parties: the portal answering %s → 500 {error, status}', async (mode) => {
    const user = await connectedUser();
    fail(mode);
    const res = await timed(() => get('/govportal/parties', user.token));
    expect(res).toMatchObject({ status: 500, body: { error: expect.stringMatching(/^Listing authorized parties failed: /), status: 500 } });
    expect((await get('/govportal/status', user.token)).body.connected).toBe(true);
  });

  it('reportees: the portal failing → 500; refusing the token (401) → 403, and the connection is forgotten', async () => {
    const user = await connectedUser();
    fail('bad-shape');
    expect((await get('/govportal/reportees', user.token)).status).toBe(500);
    fail('denied');
    expect(await get('/govportal/reportees', user.token)).toMatchObject({ status: 403, body: { error: expect.stringMatching(/refused the token/), status: 403 } });
    expect((await get('/govportal/status', user.token)).body).toEqual({ connected: false, end_session_url: null });
    // the portal token is sent as the bearer, never our service credentials
    expect(faulty.seen.at(-1)?.authorization).toMatch(/^Bearer portal-/);
  });

  it('the login callback: the portal’s token exchange failing → a 502 page, and no connection is stored', async () => {
    const user = await app.seed.user();
    fail('500');
    const steps = await login(app, user.token, 'govportal', TEST_PERSONS[1]!.pid);
    expect(steps.callback.status).toBe(502);
    expect(steps.callbackText).toContain('could not be completed');
    expect(await app.db.prisma.portalConnection.count({ where: { userId: user.id } })).toBe(0);
    expect((await get('/govportal/status', user.token)).body.connected).toBe(false);
  });

  it.each([...FAILURES, 'denied' as const])('system-user create: the portal answering %s → 400 "request failed", and no row written', async (mode) => {
    const c = await company();
    fail(mode);
    const res = await timed(() => app.http('POST', '/api/v2/integrations/govportal/system-users', { token: c.user.token, body: { client_account_id: c.account.id } }));
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^The system user request failed: /), status: 400 } });
    expect(await app.db.prisma.govportalSystemUser.count({ where: { clientAccountId: c.account.id } })).toBe(0);
    // sent with our service credentials (HTTP Basic) and our system id
    const sent = faulty.seen.at(-1)!;
    expect(sent.authorization).toBe(`Basic ${Buffer.from('our-system:portal-secret').toString('base64')}`);
    expect(JSON.parse(sent.body)).toMatchObject({ system_id: 'our-system', org_number: c.organizationNumber, rights: expect.any(Array) });
  });

  it.each(FAILURES)('GET one: the portal answering %s → 400, the stored row unchanged; the list with client_account_id too', async (mode) => {
    const c = await company();
    const row = await systemUser(c, 'Pending');
    fail(mode);
    expect(await timed(() => get(`/govportal/system-users/${row.id}`, c.user.token))).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Syncing the system user status failed: /), status: 400 } });
    expect(await app.db.prisma.govportalSystemUser.findUniqueOrThrow({ where: { id: row.id } })).toEqual(row);
    expect((await get(`/govportal/system-users?client_account_id=${c.account.id}`, c.user.token)).status).toBe(400);
    // without client_account_id nothing is synced: the stored rows
    expect((await get('/govportal/system-users', c.user.token)).body).toMatchObject({ total: 1, items: [expect.objectContaining({ id: row.id, status: 'Pending' })] });
  });

  const TOKEN = { access_token: 'system-user-token', token_type: 'Bearer', expires_in: 600, scope: 'taxauthority:eiendom' };

  it.each(FAILURES)('property search: the portal’s system-user token call answering %s → 400', async (mode) => {
    const c = await company();
    await systemUser(c, 'Active');
    fail(mode);
    const res = await timed(() => get(`/taxauthority/eiendom/soek/2024?client_account_id=${c.account.id}&query=Storgata`, c.user.token));
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Getting a system user token failed: /), status: 400 } });
  });

  it.each(FAILURES)('property search: the tax authority answering %s → 400', async (mode) => {
    const c = await company();
    await systemUser(c, 'Active');
    fail(mode, { '/systemuser/token': 'ok' }, TOKEN);
    const res = await timed(() => get(`/taxauthority/eiendom/soek/2024?client_account_id=${c.account.id}&query=Storgata`, c.user.token));
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^The property search failed: /), status: 400 } });
    expect(faulty.seen.at(-1)).toMatchObject({ url: '/eiendom/soek/2024?query=Storgata', authorization: 'Bearer system-user-token' });
  });

  it('property search: a system user the portal refuses a token for (its 401/403) → 403', async () => {
    const c = await company();
    await systemUser(c, 'Active');
    fail('denied');
    expect((await get(`/taxauthority/eiendom/soek/2024?client_account_id=${c.account.id}&query=Storgata`, c.user.token)).status).toBe(403);
  });

  it.each(FAILURES)('dialogs: the dialog platform answering %s → 400', async (mode) => {
    const c = await company();
    await systemUser(c, 'Active');
    fail(mode, { '/systemuser/token': 'ok' }, { ...TOKEN, scope: 'dialogplatform:dialogs.read' });
    const res = await timed(() => get(`/dialogplatform/dialogs?client_account_id=${c.account.id}`, c.user.token));
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^The dialog search failed: /), status: 400 } });
  });
});
