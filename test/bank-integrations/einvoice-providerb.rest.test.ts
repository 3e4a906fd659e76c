import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox } from '../../src/integrations/sandbox/server.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { company, ownBankAccount, randomAccountNumber, type Company } from './helpers.ts';

// spec 002 "Integrations": GET /integrations/einvoice/status (one {is_active, connected}; all
// {statuses: [{client_account_id, is_active, connected}]}), PATCH (client_account_id required; body
// is_active required; 400, 403, 500), GET /integrations/providerb/status (client_account_id or
// bank_account_id, at least one, client derived from the bank account; {is_active, is_connected,
// onboarding_information}; 400, 403, 404, 500). Against the built-in sandboxes over HTTP.
describe.each(targets())('einvoice and providerb REST (%s)', (target) => {
  let app: TestApp;
  let stranger: Company;

  beforeAll(async () => {
    app = await startTestApp(target);
    stranger = await company(app);
  });
  afterAll(() => app?.close());

  const einvoice = (c: Company, token = c.user.token) => app.http('GET', `/api/v2/integrations/einvoice/status?client_account_id=${c.account.id}`, { token });
  const setEinvoice = (c: Company, body: unknown, token = c.user.token) => app.http('PATCH', `/api/v2/integrations/einvoice/status?client_account_id=${c.account.id}`, { token, body });
  const registry = async (org: string) => {
    const s = await sandbox(app.config.integrations);
    const res = await fetch(`${s.url}/einvoice/receivers/${org}`);
    return res.status === 404 ? null : res.json();
  };

  describe('einvoice', () => {
    it('GET with client_account_id: {is_active, connected}, false before anything was set', async () => {
      const c = await company(app);
      expect(await einvoice(c)).toMatchObject({ status: 200, body: { is_active: false, connected: false } });
      expect(Object.keys((await einvoice(c)).body).sort()).toEqual(['connected', 'is_active']);
    });

    it('PATCH is_active true registers the organisation as a receiver in the registry: connected is what the registry says', async () => {
      const c = await company(app);
      const on = await setEinvoice(c, { is_active: true });
      expect(on.status, JSON.stringify(on.body)).toBe(200);
      expect(on.body).toEqual({ is_active: true, connected: true });
      expect(await registry(c.organizationNumber!)).toMatchObject({ org_number: c.organizationNumber, name: c.account.displayName, status: 'REGISTERED' });
      expect((await einvoice(c)).body).toEqual({ is_active: true, connected: true });

      const off = await setEinvoice(c, { is_active: false });
      expect(off.body).toEqual({ is_active: false, connected: false });
      expect(await registry(c.organizationNumber!)).toBeNull();
      expect((await einvoice(c)).body).toEqual({ is_active: false, connected: false });
    });

    it("GET without client_account_id: {statuses: [...]} over the caller's eligible accounts only", async () => {
      const provider = await company(app);
      const client = await company(app);
      await app.seed.grantRole({ userId: provider.user.id, clientAccountId: client.account.id, role: 'EM' });
      await setEinvoice(client, { is_active: true });
      const res = await app.http('GET', '/api/v2/integrations/einvoice/status', { token: provider.user.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        statuses: [
          { client_account_id: provider.account.id, is_active: false, connected: false },
          { client_account_id: client.account.id, is_active: true, connected: true },
        ],
      });
    });

    it.each([
      ['400 missing client_account_id', (c: Company) => app.http('PATCH', '/api/v2/integrations/einvoice/status', { token: c.user.token, body: { is_active: true } }), 400, /client_account_id/],
      ['400 is_active missing', (c: Company) => setEinvoice(c, {}), 400, /is_active/],
      ['400 is_active not boolean', (c: Company) => setEinvoice(c, { is_active: 'true' }), 400, /is_active/],
      ['403 another client account', (c: Company) => setEinvoice(stranger, { is_active: true }, c.user.token), 403, /access/],
      ['403 a read-only token', (c: Company) => setEinvoice(c, { is_active: true }, c.user.readToken), 403, /write/],
    ])('PATCH: %s', async (_what, send, code, message) => {
      const c = await company(app);
      const res = await send(c);
      expect(res.status, JSON.stringify(res.body)).toBe(code);
      expect(res.body).toEqual({ error: expect.stringMatching(message), status: code });
    });

    it('PATCH activating without an organization number is 400, and nothing is stored', async () => {
      const c = await company(app, { org: false });
      const res = await setEinvoice(c, { is_active: true });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/organization number/), status: 400 } });
      expect(await app.seed.prisma.integrationSetting.count({ where: { clientAccountId: c.account.id } })).toBe(0);
    });

    it('GET of another account is 403', async () => {
      const c = await company(app);
      expect((await einvoice(stranger, c.user.token)).status).toBe(403);
    });
  });

  describe('providerb', () => {
    const providerb = (query: string, token: string) => app.http('GET', `/api/v2/integrations/providerb/status?${query}`, { token });

    it('the first status call of an account creates its onboarding at providerb (is_active true), waiting for consent', async () => {
      const c = await company(app);
      const acct = await ownBankAccount(app, c.account.id, 'DNBANOKKXXX', { accountNumber: randomAccountNumber('1503') });
      const res = await providerb(`client_account_id=${c.account.id}`, c.user.token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        is_active: true,
        is_connected: false,
        onboarding_information: {
          onboarding_id: expect.stringMatching(/^ob_/),
          status: 'PENDING_CONSENT',
          consent_url: expect.stringMatching(/\/providerb\/consent\/ob_/),
          missing_steps: ['CONSENT'],
          accounts: [{ account_number: acct.accountNumber, connected: false }],
        },
      });
      // the same onboarding on the next call (derived from the organization number)
      const again = await providerb(`client_account_id=${c.account.id}`, c.user.token);
      expect(again.body.onboarding_information.onboarding_id).toBe(res.body.onboarding_information.onboarding_id);
    });

    it('after consent on the consent page it is connected; by bank_account_id the client is derived and the account answered for', async () => {
      const c = await company(app);
      const reachable = await ownBankAccount(app, c.account.id, 'DNBANOKKXXX', { accountNumber: randomAccountNumber('1503') });
      const unreachable = await ownBankAccount(app, c.account.id, null, { accountNumber: randomAccountNumber('9710') });
      const first = await providerb(`client_account_id=${c.account.id}`, c.user.token);
      expect((await fetch(first.body.onboarding_information.consent_url, { method: 'POST' })).status).toBe(200);

      const byClient = await providerb(`client_account_id=${c.account.id}`, c.user.token);
      expect(byClient.body).toMatchObject({ is_active: true, is_connected: true, onboarding_information: { status: 'COMPLETED', consent_url: null, missing_steps: [] } });
      const byAccount = await providerb(`bank_account_id=${reachable.id}`, c.user.token);
      expect(byAccount.body).toMatchObject({ is_active: true, is_connected: true });
      const notReached = await providerb(`bank_account_id=${unreachable.id}&client_account_id=${c.account.id}`, c.user.token);
      expect(notReached.body).toMatchObject({ is_active: true, is_connected: false });
    });

    it('an account without an organization number cannot be onboarded: not active, the missing step named, providerb not called', async () => {
      const c = await company(app, { org: false });
      const res = await providerb(`client_account_id=${c.account.id}`, c.user.token);
      expect(res.body).toEqual({ is_active: false, is_connected: false, onboarding_information: expect.objectContaining({ status: 'NOT_STARTED', missing_steps: ['ORGANIZATION_NUMBER'] }) });
      expect(await app.seed.prisma.integrationSetting.count({ where: { clientAccountId: c.account.id } })).toBe(0);
    });

    it.each([
      ['400 neither client_account_id nor bank_account_id', async (c: Company) => providerb('', c.user.token), 400],
      ['400 both given and they do not agree', async (c: Company) => {
        const other = await company(app);
        await app.seed.grantRole({ userId: c.user.id, clientAccountId: other.account.id, role: 'CA' });
        const acct = await ownBankAccount(app, other.account.id, null);
        return providerb(`bank_account_id=${acct.id}&client_account_id=${c.account.id}`, c.user.token);
      }, 400],
      ['403 another client account', async (c: Company) => providerb(`client_account_id=${stranger.account.id}`, c.user.token), 403],
      ['403 a bank account of another client account', async (c: Company) => {
        const acct = await ownBankAccount(app, stranger.account.id, null);
        return providerb(`bank_account_id=${acct.id}`, c.user.token);
      }, 403],
      ['404 unknown bank account', async (c: Company) => providerb('bank_account_id=2147483000', c.user.token), 404],
    ])('%s', async (_what, send, code) => {
      const c = await company(app);
      const res = await send(c);
      expect(res.status, JSON.stringify(res.body)).toBe(code);
      expect(res.body).toEqual({ error: expect.any(String), status: code });
    });
  });
});
