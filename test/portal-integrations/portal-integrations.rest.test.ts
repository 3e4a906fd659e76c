import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PERSONS } from '../../src/integrations/idprovider/login.sandbox.ts';
import { isValidNationalIdNumber } from '../../src/shared/norwegian-ids.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { randomOrganizationNumber, type TestUser } from '../support/seed.ts';
import { formFields, login, postForm } from './browser.ts';

// spec 002 "Integrations" (govportal, taxauthority eiendom, idprovider, dialogplatform rows),
// "Integration records" (System user: id UUID, external_ref, system_id, org_number, client_account_id,
// status New / Pending / Active, confirm_url, redirect_url, rights, created_at, updated_at) and the
// system user's row of "States and transitions" (status synced from the portal on each call).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(targets())('portal integrations REST (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  /** a client account with an organization number and a user holding `role` on it */
  async function company(role: 'CA' | 'EM' = 'CA') {
    const organizationNumber = randomOrganizationNumber();
    const account = await app.seed.clientAccount({ organizationNumber });
    const user = await app.seed.user();
    await app.seed.grantRole({ userId: user.id, clientAccountId: account.id, role });
    return { account, user, organizationNumber };
  }

  const get = (path: string, token: string) => app.http('GET', `/api/v2/integrations${path}`, { token });
  const post = (path: string, token: string, body?: unknown) => app.http('POST', `/api/v2/integrations${path}`, { token, body });
  /** a sandbox URL of the service (the app's connectors point there) */
  const sandboxUrl = async (service: string, path: string) => `${new URL((await post(`/idprovider/authorize`, (await app.seed.user()).token)).body.authorization_url).origin}/${service}${path}`;
  const sandboxPost = async (service: string, path: string, body: unknown) =>
    fetch(await sandboxUrl(service, path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  describe('login: authorize, the browser flow, status', () => {
    it.each(['govportal', 'idprovider'])('%s status before any login: {connected: false, end_session_url: null}', async (service) => {
      const user = await app.seed.user();
      expect(await get(`/${service}/status`, user.token)).toMatchObject({ status: 200, body: { connected: false, end_session_url: null } });
    });

    it.each([
      ['govportal', 'openid profile govportal:portal'],
      ['idprovider', 'openid profile'],
    ])('%s authorize answers {authorization_url}: the national login page with a state, PKCE (S256) and our callback as redirect_uri', async (service, scope) => {
      const user = await app.seed.user();
      const res = await post(`/${service}/authorize`, user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body)).toEqual(['authorization_url']);
      const url = new URL(res.body.authorization_url);
      expect(url.pathname).toBe('/idprovider/authorize');
      expect(Object.fromEntries(url.searchParams)).toEqual({
        client_id: 'accounting-api',
        redirect_uri: `${app.url}/public/v2/integrations/${service}/callback`,
        response_type: 'code',
        scope,
        state: expect.stringMatching(/^[\w-]{40,}$/),
        nonce: expect.any(String),
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        code_challenge_method: 'S256',
      });
      // a fresh state each time
      const again = new URL((await post(`/${service}/authorize`, user.token)).body.authorization_url);
      expect(again.searchParams.get('state')).not.toBe(url.searchParams.get('state'));
    });

    it('the whole browser flow: authorize → login page → POST → our callback ("connected") → status connected → reportees', async () => {
      const user = await app.seed.user();
      const pid = TEST_PERSONS[0]!.pid;
      const steps = await login(app, user.token, 'govportal', pid);
      expect(steps.loginPage).toContain(TEST_PERSONS[0]!.name);
      expect(steps.callbackUrl.startsWith(`${app.url}/public/v2/integrations/govportal/callback?`)).toBe(true);
      expect(steps.callback.status).toBe(200);
      expect(steps.callbackText).toContain('You may close this window');
      const status = await get('/govportal/status', user.token);
      expect(status.body).toEqual({ connected: true, end_session_url: expect.stringContaining('/idprovider/logout?id_token_hint=') });
      const reportees = await get('/govportal/reportees', user.token);
      expect(reportees.status, JSON.stringify(reportees.body)).toBe(200);
      expect(reportees.body._links.self.href).toMatch(/\/govportal\/reportees$/);
      expect(reportees.body._embedded.reportees[0]).toMatchObject({ Type: 'Person', SocialSecurityNumber: pid, Name: TEST_PERSONS[0]!.name });
      // the portal login is the person's: nobody else is connected by it, and the national login status is its own
      expect((await get('/govportal/status', (await app.seed.user()).token)).body.connected).toBe(false);
      expect((await get('/idprovider/status', user.token)).body.connected).toBe(false);
      // tokens are never answered
      expect(JSON.stringify(status.body) + JSON.stringify(reportees.body)).not.toMatch(/access_token|refresh_token/);
    });

    it('the login page offers the deterministic test persons (valid national identity numbers) and refuses an invalid number', async () => {
      expect(TEST_PERSONS.every((p) => isValidNationalIdNumber(p.pid))).toBe(true);
      const user = await app.seed.user();
      const url = (await post('/idprovider/authorize', user.token)).body.authorization_url;
      const html = await (await fetch(url)).text();
      for (const p of TEST_PERSONS) expect(html).toContain(p.pid);
      const { action, fields } = formFields(html);
      const refused = await postForm(action, { ...fields, pid_other: '12345678901', action: 'login' });
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('Ugyldig fødselsnummer');
    });

    it('idprovider: the same flow logs you in with the national login (its status), not the portal', async () => {
      const user = await app.seed.user();
      const steps = await login(app, user.token, 'idprovider', TEST_PERSONS[1]!.pid);
      expect(steps.callback.status).toBe(200);
      expect(steps.callbackText).toContain('Connected to the national login');
      expect((await get('/idprovider/status', user.token)).body).toEqual({ connected: true, end_session_url: expect.stringContaining('id_token_hint=') });
      expect((await get('/govportal/status', user.token)).body.connected).toBe(false);
      expect((await get('/govportal/reportees', user.token)).status).toBe(403);
    });

    it('return_to: the callback sends the browser there (303); one of another origin is a 400 at authorize', async () => {
      const user = await app.seed.user();
      const steps = await login(app, user.token, 'govportal', TEST_PERSONS[2]!.pid, { return_to: `${app.url}/graphql?connected=1` });
      expect(steps.callback.status).toBe(303);
      expect(steps.callback.headers.get('location')).toBe(`${app.url}/graphql?connected=1`);
      const refused = await post('/govportal/authorize', user.token, { return_to: 'https://evil.example/steal' });
      expect(refused).toMatchObject({ status: 400, body: { error: expect.stringMatching(/return_to/), status: 400 } });
      expect((await post('/govportal/authorize', user.token, { return_to: 'javascript:alert(1)' })).status).toBe(400);
    });

    it('the callback: a state is used once (a replay is 400), an unknown one is 400, a cancelled login connects nobody', async () => {
      const user = await app.seed.user();
      const steps = await login(app, user.token, 'govportal', TEST_PERSONS[0]!.pid);
      expect(steps.callback.status).toBe(200);
      const replay = await fetch(steps.callbackUrl, { redirect: 'manual' });
      expect(replay.status).toBe(400);
      expect(await replay.text()).toMatch(/unknown, already finished or expired/);
      expect((await fetch(`${app.url}/public/v2/integrations/govportal/callback?code=x&state=nonsense`)).status).toBe(400);
      expect((await fetch(`${app.url}/public/v2/integrations/govportal/callback`)).status).toBe(400);

      const other = await app.seed.user();
      const url = (await post('/govportal/authorize', other.token)).body.authorization_url;
      const { action, fields } = formFields(await (await fetch(url)).text());
      const cancelled = await postForm(action, { ...fields, action: 'cancel' });
      const back = await fetch(cancelled.headers.get('location')!, { redirect: 'manual' });
      expect(back.status).toBe(400);
      expect(await back.text()).toContain('access_denied');
      expect((await get('/govportal/status', other.token)).body.connected).toBe(false);
    });

    it('a state started by one service is no callback of the other', async () => {
      const user = await app.seed.user();
      const url = (await post('/idprovider/authorize', user.token)).body.authorization_url;
      const { action, fields } = formFields(await (await fetch(url)).text());
      const posted = await postForm(action, { ...fields, pid: TEST_PERSONS[0]!.pid, action: 'login' });
      const callback = new URL(posted.headers.get('location')!);
      callback.pathname = '/public/v2/integrations/govportal/callback';
      expect((await fetch(callback, { redirect: 'manual' })).status).toBe(400);
      expect((await get('/govportal/status', user.token)).body.connected).toBe(false);
    });
  });

  // Issue 26 item 5: "POST /integrations/govportal/authorize accepts an optional client_account_id (403 for an
  // account the caller cannot access), as integrators send it with every call … idprovider/authorize, status
  // endpoints". Spec 000: "Access to any other client account yields 403".
  describe('client_account_id, as integrators send it with every call', () => {
    it.each(['govportal', 'idprovider'])(
      'spec 002 "POST /integrations/%s/authorize … {authorization_url}": with client_account_id of one of your accounts (body) → 200 {authorization_url}',
      async (service) => {
        const { account, user } = await company();
        const res = await post(`/${service}/authorize`, user.token, { client_account_id: account.id });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(Object.keys(res.body)).toEqual(['authorization_url']);
        expect(new URL(res.body.authorization_url).searchParams.get('redirect_uri')).toBe(`${app.url}/public/v2/integrations/${service}/callback`);
        // an employee's account is an eligible account too: starting one's own login needs no manager
        const employee = await company('EM');
        expect((await post(`/${service}/authorize`, employee.user.token, { client_account_id: employee.account.id, return_to: `${app.url}/graphql` })).status).toBe(200);
      },
    );

    it.each(['govportal', 'idprovider'])('spec 000 "Access to any other client account yields 403": POST /integrations/%s/authorize with another tenant’s or a missing client_account_id → 403 {error, status}, no login started', async (service) => {
      const { user } = await company();
      const other = await company();
      for (const id of [other.account.id, 2_000_000_000]) {
        const res = await post(`/${service}/authorize`, user.token, { client_account_id: id });
        expect(res).toMatchObject({ status: 403, body: { error: expect.stringContaining(`client account ${id}`), status: 403 } });
      }
      expect(await app.db.prisma.portalLoginState.count({ where: { userId: user.id } })).toBe(0);
      // a client_account_id that is no id is a 400 naming it
      expect(await post(`/${service}/authorize`, user.token, { client_account_id: 'abc' })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/client_account_id/) } });
    });

    it.each(['govportal', 'idprovider'])('spec 002 "GET /integrations/%s/status {connected, end_session_url}": ?client_account_id= of your account answers the same; another tenant’s is 403', async (service) => {
      const { account, user } = await company();
      const other = await company();
      expect(await get(`/${service}/status?client_account_id=${account.id}`, user.token)).toMatchObject({ status: 200, body: { connected: false, end_session_url: null } });
      expect(await get(`/${service}/status?client_account_id=${other.account.id}`, user.token)).toMatchObject({ status: 403, body: { status: 403 } });
    });

    it('the connection stays the person’s: started with one client account it is connected whichever account (or none) the status names; reportees and parties take client_account_id too', async () => {
      const { account, user } = await company();
      const second = await app.seed.clientAccount();
      await app.seed.grantRole({ userId: user.id, clientAccountId: second.id, role: 'CA' });
      const other = await company();
      const steps = await login(app, user.token, 'govportal', TEST_PERSONS[0]!.pid, { client_account_id: account.id });
      expect(steps.callback.status).toBe(200);
      for (const q of ['', `?client_account_id=${account.id}`, `?client_account_id=${second.id}`]) {
        expect((await get(`/govportal/status${q}`, user.token)).body.connected).toBe(true);
      }
      for (const path of ['/govportal/reportees', '/govportal/parties']) {
        expect((await get(`${path}?client_account_id=${second.id}`, user.token)).status).toBe(200);
        expect(await get(`${path}?client_account_id=${other.account.id}`, user.token)).toMatchObject({ status: 403, body: { status: 403 } });
      }
    });
  });

  describe('reportees and parties', () => {
    it('reportees: the person, organisations derived from the number (the same on every login), and those given through the sandbox control', async () => {
      const pid = TEST_PERSONS[1]!.pid;
      const first = await app.seed.user();
      await login(app, first.token, 'govportal', pid);
      const orgs = (r: any) => r._embedded.reportees.filter((x: any) => x.Type === 'Enterprise').map((x: any) => x.OrganizationNumber);
      const before = orgs((await get('/govportal/reportees', first.token)).body);
      expect(before.length).toBeGreaterThanOrEqual(2);
      const second = await app.seed.user();
      await login(app, second.token, 'govportal', pid);
      expect(orgs((await get('/govportal/reportees', second.token)).body)).toEqual(before);
      const given = randomOrganizationNumber();
      expect((await sandboxPost('govportal', `/sandbox/persons/${pid}/reportees`, { org_number: given, name: 'Gitt AS' })).status).toBe(201);
      const after = (await get('/govportal/reportees', first.token)).body;
      expect(orgs(after)).toEqual([...before, given]);
      expect(after._embedded.reportees.at(-1)).toMatchObject({ Name: 'Gitt AS', OrganizationNumber: given, Type: 'Enterprise' });
    });

    it('parties: the authorized parties of the person, as the portal answers them', async () => {
      const user = await app.seed.user();
      await login(app, user.token, 'govportal', TEST_PERSONS[2]!.pid);
      const res = await get('/govportal/parties', user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body[0]).toMatchObject({ type: 'Person', personId: TEST_PERSONS[2]!.pid, name: TEST_PERSONS[2]!.name });
      expect(res.body.slice(1).every((p: any) => p.type === 'Organization' && /^\d{9}$/.test(p.organizationNumber))).toBe(true);
    });

    const expire = (user: TestUser, data: { refreshToken?: null }) =>
      app.db.prisma.portalConnection.update({ where: { userId_service: { userId: user.id, service: 'GOVPORTAL' } }, data: { expiresAt: new Date(Date.now() - 60_000), ...data } });

    it.each(['reportees', 'parties'])('%s: 403 {error, status} without a valid portal token — none, or expired and not refreshable', async (what) => {
      const user = await app.seed.user();
      expect(await get(`/govportal/${what}`, user.token)).toMatchObject({ status: 403, body: { error: expect.stringMatching(/No valid portal access token/), status: 403 } });
      await login(app, user.token, 'govportal', TEST_PERSONS[0]!.pid);
      await expire(user, { refreshToken: null });
      expect((await get('/govportal/status', user.token)).body).toEqual({ connected: false, end_session_url: null });
      expect(await get(`/govportal/${what}`, user.token)).toMatchObject({ status: 403, body: { error: expect.stringMatching(/expired/), status: 403 } });
    });

    it('an expired portal token with a refresh token counts as connected and is renewed through the login on the next call', async () => {
      const user = await app.seed.user();
      await login(app, user.token, 'govportal', TEST_PERSONS[0]!.pid);
      const old = await app.db.prisma.portalConnection.findFirstOrThrow({ where: { userId: user.id } });
      await expire(user, {});
      expect((await get('/govportal/status', user.token)).body.connected).toBe(true);
      expect((await get('/govportal/reportees', user.token)).status).toBe(200);
      const renewed = await app.db.prisma.portalConnection.findFirstOrThrow({ where: { userId: user.id } });
      expect(renewed.accessToken).not.toBe(old.accessToken);
      expect(renewed.refreshToken).not.toBe(old.refreshToken);
      expect(renewed.expiresAt.getTime()).toBeGreaterThan(Date.now());
    });

    it('after logging out at end_session_url the login cannot renew the token: 403, and status says not connected', async () => {
      const user = await app.seed.user();
      await login(app, user.token, 'govportal', TEST_PERSONS[1]!.pid);
      const { end_session_url } = (await get('/govportal/status', user.token)).body;
      const out = await fetch(end_session_url);
      expect(out.status).toBe(200);
      expect(await out.text()).toContain('logget ut');
      await expire(user, {});
      expect((await get('/govportal/reportees', user.token)).status).toBe(403);
      expect((await get('/govportal/status', user.token)).body).toEqual({ connected: false, end_session_url: null });
    });
  });

  describe('system users', () => {
    const create = (token: string, body: unknown) => post('/govportal/system-users', token, body);
    /** the sandbox's confirm page as the organization's representative sees it, and the decision */
    const openConfirm = (confirmUrl: string) => fetch(confirmUrl).then(async (r) => ({ status: r.status, html: await r.text() }));
    const decide = async (confirmUrl: string, decision: 'approve' | 'reject') => {
      const { action } = formFields((await openConfirm(confirmUrl)).html);
      return postForm(action, { decision });
    };

    it('POST creates a system user for the account’s organization: status New, a confirm_url, the rights this system needs; every field of the record', async () => {
      const c = await company();
      const res = await create(c.user.token, { client_account_id: c.account.id });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        external_ref: expect.stringMatching(new RegExp(`^ca-${c.account.id}-`)),
        system_id: 'accounting-api',
        org_number: c.organizationNumber,
        client_account_id: c.account.id,
        status: 'New',
        confirm_url: expect.stringMatching(/\/govportal\/systemuser\/confirm\//),
        redirect_url: null,
        rights: [
          { resource: 'taxauthority-property-search', scope: 'taxauthority:eiendom' },
          { resource: 'dialogplatform-dialogs', scope: 'dialogplatform:dialogs.read' },
          { resource: 'govportal-filings', scope: 'govportal:filings.read' },
        ],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect((await get(`/govportal/system-users/${res.body.id}`, c.user.token)).body).toEqual(res.body);
    });

    it.each<[string, number, (c: Awaited<ReturnType<typeof company>>) => Promise<[string, unknown]>, RegExp]>([
      ['client_account_id missing', 400, async (c) => [c.user.token, {}], /client_account_id/],
      ['client_account_id not an integer', 400, async (c) => [c.user.token, { client_account_id: 'x' }], /client_account_id/],
      ['an unknown client account', 404, async (c) => [c.user.token, { client_account_id: 2_000_000_000 }], /Client account/],
      ['another tenant’s account', 403, async (c) => [(await company()).user.token, { client_account_id: c.account.id }], /access/],
      ['an employee (EM) of the account: managers only', 403, async (c) => {
        const em = await app.seed.user();
        await app.seed.grantRole({ userId: em.id, clientAccountId: c.account.id, role: 'EM' });
        return [em.token, { client_account_id: c.account.id }];
      }, /cannot manage/],
      ['a read-only token', 403, async (c) => [c.user.readToken, { client_account_id: c.account.id }], /write/],
      ['an account without organization number: "no organization"', 400, async () => {
        const t = await app.seed.tenant();
        return [t.user.token, { client_account_id: t.account.id }];
      }, /no organization/],
      ['redirect_url not an http(s) URL', 400, async (c) => [c.user.token, { client_account_id: c.account.id, redirect_url: 'ftp://x' }], /redirect_url/],
    ])('POST: %s → %i, and nothing stored', async (_what, status, setup, message) => {
      const c = await company();
      const [token, body] = await setup(c);
      const res = await create(token, body);
      expect(res).toMatchObject({ status, body: { error: expect.stringMatching(message), status } });
      expect(await app.db.prisma.govportalSystemUser.count({ where: { clientAccountId: c.account.id } })).toBe(0);
    });

    it('status New → Pending (the confirm page was opened) → Active (approved), each seen through GET one and the list with client_account_id', async () => {
      const c = await company();
      const su = (await create(c.user.token, { client_account_id: c.account.id })).body;
      const one = async () => (await get(`/govportal/system-users/${su.id}`, c.user.token)).body.status;
      const listed = async () => (await get(`/govportal/system-users?client_account_id=${c.account.id}`, c.user.token)).body.items.map((i: any) => i.status);
      expect(await one()).toBe('New');
      const page = await openConfirm(su.confirm_url);
      expect(page.status).toBe(200);
      expect(page.html).toContain(c.organizationNumber);
      expect(await listed()).toEqual(['Pending']);
      expect(await one()).toBe('Pending');
      const approved = await decide(su.confirm_url, 'approve');
      expect(approved.status).toBe(200);
      expect(await one()).toBe('Active');
      expect(await listed()).toEqual(['Active']);
      expect((await app.db.prisma.govportalSystemUser.findUniqueOrThrow({ where: { id: su.id } })).status).toBe('Active');
    });

    it('a rejected request becomes Rejected (final: the page offers no decision any more)', async () => {
      const c = await company();
      const su = (await create(c.user.token, { client_account_id: c.account.id })).body;
      await decide(su.confirm_url, 'reject');
      expect((await get(`/govportal/system-users/${su.id}`, c.user.token)).body.status).toBe('Rejected');
      expect((await openConfirm(su.confirm_url)).html).not.toContain('<form');
    });

    it('redirect_url: after the decision the portal sends the browser there with the system user and its status', async () => {
      const c = await company();
      const su = (await create(c.user.token, { client_account_id: c.account.id, redirect_url: `${app.url}/done` })).body;
      expect(su.redirect_url).toBe(`${app.url}/done`);
      const res = await decide(su.confirm_url, 'approve');
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${app.url}/done?system_user_id=${su.id}&status=Active`);
    });

    it('the sandbox control POST /govportal/sandbox/system-users/{id}/status sets a status the next GET syncs', async () => {
      const c = await company();
      const su = (await create(c.user.token, { client_account_id: c.account.id })).body;
      expect((await sandboxPost('govportal', `/sandbox/system-users/${su.id}/status`, { status: 'Active' })).status).toBe(200);
      expect((await get(`/govportal/system-users/${su.id}`, c.user.token)).body.status).toBe('Active');
      expect((await sandboxPost('govportal', `/sandbox/system-users/${su.id}/status`, { status: 'Bogus' })).status).toBe(400);
    });

    it('GET one: 404 for an unknown UUID, a non-UUID and another account’s; 403 for an employee of the account', async () => {
      const c = await company();
      const su = (await create(c.user.token, { client_account_id: c.account.id })).body;
      const other = await company();
      expect(await get('/govportal/system-users/00000000-0000-4000-8000-000000000000', c.user.token)).toMatchObject({ status: 404, body: { status: 404 } });
      expect((await get('/govportal/system-users/not-a-uuid', c.user.token)).status).toBe(404);
      // spec 002 "id is a UUID string … 404": a long id is no UUID either, so 404 (it was a 400 "at most 100 characters"), never echoed
      const long = await get(`/govportal/system-users/${'x'.repeat(500)}`, c.user.token);
      expect(long).toMatchObject({ status: 404, body: { error: 'System user (the id is no UUID) not found', status: 404 } });
      expect((await get(`/govportal/system-users/${su.id}`, other.user.token)).status).toBe(404);
      const em = await app.seed.user();
      await app.seed.grantRole({ userId: em.id, clientAccountId: c.account.id, role: 'EM' });
      expect(await get(`/govportal/system-users/${su.id}`, em.token)).toMatchObject({ status: 403, body: { status: 403 } });
    });

    it('list: {items, page, per_page, total}, page 1 and per_page 100 by default, newest first; only accounts the caller manages; another account’s id is 403', async () => {
      const c = await company();
      const second = await app.seed.clientAccount({ organizationNumber: randomOrganizationNumber() });
      await app.seed.grantRole({ userId: c.user.id, clientAccountId: second.id, role: 'CA' });
      const a = (await create(c.user.token, { client_account_id: c.account.id })).body;
      const b = (await create(c.user.token, { client_account_id: second.id })).body;
      const cc = (await create(c.user.token, { client_account_id: c.account.id })).body;
      const stranger = await company(); // another tenant's system user is not listed
      expect((await create(stranger.user.token, { client_account_id: stranger.account.id })).status).toBe(201);
      const all = await get('/govportal/system-users', c.user.token);
      expect(all.status, JSON.stringify(all.body)).toBe(200);
      expect(all.body).toMatchObject({ page: 1, per_page: 100, total: 3 });
      expect(all.body.items.map((i: any) => i.id)).toEqual([cc.id, b.id, a.id]);
      const paged = await get('/govportal/system-users?page=2&per_page=2', c.user.token);
      expect(paged.body).toMatchObject({ page: 2, per_page: 2, total: 3, items: [expect.objectContaining({ id: a.id })] });
      const one = await get(`/govportal/system-users?client_account_id=${second.id}`, c.user.token);
      expect(one.body).toMatchObject({ total: 1, items: [expect.objectContaining({ id: b.id, client_account_id: second.id })] });
      expect((await get(`/govportal/system-users?client_account_id=${(await company()).account.id}`, c.user.token)).status).toBe(403);
      expect((await get('/govportal/system-users?page=0', c.user.token)).status).toBe(400);
    });
  });

  describe('as the system user: property search and dialogs', () => {
    /** a company with an Active system user, approved on the portal's page */
    async function approvedCompany() {
      const c = await company();
      const su = (await post('/govportal/system-users', c.user.token, { client_account_id: c.account.id })).body;
      const { action } = formFields(await (await fetch(su.confirm_url)).text());
      await postForm(action, { decision: 'approve' });
      return { ...c, systemUser: su };
    }
    const search = (c: { account: { id: number }; user: TestUser }, year: string | number, query?: string) =>
      get(`/taxauthority/eiendom/soek/${year}?client_account_id=${c.account.id}${query === undefined ? '' : `&query=${encodeURIComponent(query)}`}`, c.user.token);

    it('property search: 403 without a system user, and while it is only New; with an Active one (synced on demand after approval) the upstream result', async () => {
      const none = await company();
      expect(await search(none, 2024, 'Storgata')).toMatchObject({ status: 403, body: { error: expect.stringMatching(/no active system user with the right taxauthority:eiendom/), status: 403 } });
      const c = await company();
      const su = (await post('/govportal/system-users', c.user.token, { client_account_id: c.account.id })).body;
      expect((await search(c, 2024, 'Storgata')).status).toBe(403);
      const { action } = formFields(await (await fetch(su.confirm_url)).text());
      await postForm(action, { decision: 'approve' });
      const res = await search(c, 2024, 'Storgata');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ inntektsaar: 2024, query: 'Storgata', organisasjonsnummer: c.organizationNumber });
      expect(res.body.eiendommer.length).toBeGreaterThan(0);
      expect(res.body.eiendommer[0]).toMatchObject({
        matrikkelenhet: { kommunenummer: expect.stringMatching(/^\d{4}$/), gaardsnummer: expect.any(Number), bruksnummer: expect.any(Number) },
        adresse: { adressetekst: expect.stringMatching(/^Storgata \d+$/) },
        formuesverdi: expect.any(Number),
      });
      // deterministic: the same query and year, the same answer; another year, other values
      expect((await search(c, 2024, 'Storgata')).body).toEqual(res.body);
      const later = (await search(c, 2025, 'Storgata')).body;
      expect(later.eiendommer.map((e: any) => e.eiendomsidentifikator)).toEqual(res.body.eiendommer.map((e: any) => e.eiendomsidentifikator));
      expect(later.eiendommer[0].formuesverdi).toBeGreaterThan(res.body.eiendommer[0].formuesverdi);
      expect((await search(c, 2024, 'ingen')).body.eiendommer).toEqual([]);
    });

    it.each<[string, string | number, string | undefined, string, RegExp]>([
      ['inntektsaar not an integer', 'abc', 'Storgata', '', /inntektsaar/],
      ['inntektsaar a decimal', '2024.5', 'Storgata', '', /inntektsaar/],
      ['query missing', 2024, undefined, '', /query/],
      ['query empty', 2024, '', '', /query/],
      ['client_account_id missing', 2024, 'Storgata', 'nocompany', /client_account_id/],
      ['a year the tax authority does not serve (upstream 400)', 1990, 'Storgata', '', /property search failed/],
      // spec 002 "Path: inntektsaar integer": any integer is passed on, the tax authority answers which years it has
      ['year 1: no local "must be a year" rule, the tax authority refuses it', 1, 'Storgata', '', /property search failed/],
      ['year 99999: the tax authority refuses it', 99999, 'Storgata', '', /property search failed/],
    ])('property search: %s → 400', async (_what, year, query, mode, message) => {
      const c = await approvedCompany();
      const res =
        mode === 'nocompany'
          ? await get(`/taxauthority/eiendom/soek/${year}?query=${query}`, c.user.token)
          : await search(c, year, query);
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(message), status: 400 } });
    });

    it('property search: another tenant’s account is 403; a system user that lost Active at the portal gets no token (403)', async () => {
      const c = await approvedCompany();
      const other = await company();
      expect((await get(`/taxauthority/eiendom/soek/2024?client_account_id=${c.account.id}&query=x1`, other.user.token)).status).toBe(403);
      expect((await search(c, 2024, 'Storgata')).status).toBe(200); // synced: Active here too
      await sandboxPost('govportal', `/sandbox/system-users/${c.systemUser.id}/status`, { status: 'Pending' });
      expect(await search(c, 2024, 'Storgata')).toMatchObject({ status: 403, body: { error: expect.stringMatching(/not Active/) } });
    });

    it('dialogs: 403 without an active system user; with one {items} for the organization, filtered by status and service_resource', async () => {
      const none = await company();
      expect(await get(`/dialogplatform/dialogs?client_account_id=${none.account.id}`, none.user.token)).toMatchObject({ status: 403, body: { error: expect.stringMatching(/no active system user/) } });
      const c = await approvedCompany();
      const all = await get(`/dialogplatform/dialogs?client_account_id=${c.account.id}`, c.user.token);
      expect(all.status, JSON.stringify(all.body)).toBe(200);
      expect(Object.keys(all.body)).toEqual(['items']);
      expect(all.body.items.length).toBe(6);
      expect(all.body.items[0]).toEqual({
        id: expect.stringMatching(UUID),
        status: expect.any(String),
        service_resource: expect.stringMatching(/^urn:altinn:resource:/),
        title: expect.any(String),
        sender_name: expect.any(String),
        party: `urn:altinn:organization:identifier-no:${c.organizationNumber}`,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        due_at: expect.toSatisfy((v: unknown) => v === null || typeof v === 'string'),
      });
      const completed = (await get(`/dialogplatform/dialogs?client_account_id=${c.account.id}&status=Completed`, c.user.token)).body.items;
      expect(completed.length).toBeGreaterThan(0);
      expect(completed.every((d: any) => d.status === 'Completed')).toBe(true);
      const resource = all.body.items[0].service_resource;
      const byResource = (await get(`/dialogplatform/dialogs?client_account_id=${c.account.id}&service_resource=${encodeURIComponent(resource)}`, c.user.token)).body.items;
      expect(byResource.length).toBeGreaterThan(0);
      expect(byResource.every((d: any) => d.service_resource === resource)).toBe(true);
      expect((await get(`/dialogplatform/dialogs?client_account_id=${c.account.id}&status=Nope`, c.user.token)).body.items).toEqual([]);
    });

    it('dialogs: client_account_id missing → 400; another tenant’s → 403', async () => {
      const c = await approvedCompany();
      expect(await get('/dialogplatform/dialogs', c.user.token)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/client_account_id/) } });
      expect((await get(`/dialogplatform/dialogs?client_account_id=${c.account.id}`, (await company()).user.token)).status).toBe(403);
    });
  });
});
