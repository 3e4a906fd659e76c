import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmBankAgreement } from '../../src/modules/bank-integrations/bank-integrations.service.ts';
import { BANKS } from '../../src/modules/bank-integrations/banks.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { company, ownBankAccount, randomAccountNumber, type Company } from './helpers.ts';

// spec 002 "Integration records" (Bank: bic, organization {id, name, logo, website, country}, status
// {is_active, is_connected}, integration_config, onboarding_information omitted when empty; status,
// integration_config and onboarding_information only when client_account_id is given) and the banks
// rows of "Integrations". Errors {error, status}.
describe.each(targets())('bank integrations REST (%s)', (target) => {
  let app: TestApp;
  let stranger: Company;

  beforeAll(async () => {
    app = await startTestApp(target);
    stranger = await company(app);
  });
  afterAll(() => app?.close());

  const status = (c: Company, bic: string, token = c.user.token) => app.http('GET', `/api/v2/integrations/banks/${bic}/status?client_account_id=${c.account.id}`, { token });
  const patch = (c: Company, bic: string, body: unknown, token = c.user.token) =>
    app.http('PATCH', `/api/v2/integrations/banks/${bic}/status?client_account_id=${c.account.id}`, { token, body });
  const addOns = (c: Company) => app.seed.prisma.billingAddOn.findMany({ where: { clientAccountId: c.account.id }, orderBy: { id: 'asc' } });

  it('GET /integrations/banks without client_account_id: an array of banks with bic and organization only', async () => {
    const res = await app.http('GET', '/api/v2/integrations/banks', { token: stranger.user.token });
    expect(res.status).toBe(200);
    expect(res.body.map((b: any) => b.bic)).toEqual(expect.arrayContaining(['DNBANOKKXXX', 'NDEANOKKXXX', 'SPSONO22XXX', 'HANDNOKKXXX', 'DABANO22XXX']));
    expect(res.body[0]).toEqual({
      bic: 'DNBANOKKXXX',
      organization: { id: 'dnb', name: 'DNB Bank ASA', logo: expect.stringMatching(/^https:\/\//), website: 'https://www.dnb.no', country: 'NO' },
    });
    for (const bank of res.body) expect(Object.keys(bank).sort()).toEqual(['bic', 'organization']);
  });

  it('GET /integrations/banks with client_account_id: status and integration_config per bank; onboarding_information omitted when empty', async () => {
    const c = await company(app);
    await ownBankAccount(app, c.account.id, 'DNBANOKK');
    await patch(c, 'DNBANOKKXXX', { is_active: true });
    const res = await app.http('GET', `/api/v2/integrations/banks?client_account_id=${c.account.id}`, { token: c.user.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(BANKS.length);
    const dnb = res.body.find((b: any) => b.bic === 'DNBANOKKXXX');
    expect(dnb).toMatchObject({ status: { is_active: true, is_connected: false }, integration_config: {}, onboarding_information: { agreement_status: 'AWAITING_SIGNED_AGREEMENT' } });
    const nordea = res.body.find((b: any) => b.bic === 'NDEANOKKXXX');
    expect(nordea).toEqual({ bic: 'NDEANOKKXXX', organization: expect.any(Object), status: { is_active: false, is_connected: false }, integration_config: {} });
  });

  it('GET /integrations/banks of another client account is 403', async () => {
    const res = await app.http('GET', `/api/v2/integrations/banks?client_account_id=${stranger.account.id}`, { token: (await company(app)).user.token });
    expect(res).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
  });

  it.each([
    ['8-character BIC', 'DNBANOKK'],
    ['11-character BIC', 'DNBANOKKXXX'],
    ['lower case', 'dnbanokkxxx'],
    ['another branch of the same bank', 'DNBANOKK123'],
  ])('GET status accepts an %s (ISO 9362): {is_active, is_connected, integration_config}', async (_what, bic) => {
    const c = await company(app);
    const res = await status(c, bic);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ is_active: false, is_connected: false, integration_config: {} });
  });

  it.each([
    ['400 missing client_account_id', (c: Company) => app.http('GET', '/api/v2/integrations/banks/DNBANOKKXXX/status', { token: c.user.token }), 400, /client_account_id/],
    ['400 invalid BIC (too short)', (c: Company) => status(c, 'DNBANO'), 400, /bic: must be a BIC/],
    ['400 invalid BIC (9 characters)', (c: Company) => status(c, 'DNBANOKKX'), 400, /bic: must be a BIC/],
    ['400 invalid BIC (digits in the bank code)', (c: Company) => status(c, 'DNB1NOKKXXX'), 400, /bic: must be a BIC/],
    ['403 another client account', (c: Company) => status(stranger, 'DNBANOKKXXX', c.user.token), 403, /access/],
    ['404 unsupported bank (a valid BIC)', (c: Company) => status(c, 'DEUTDEFFXXX'), 404, /DEUTDEFFXXX/],
  ])('GET status: %s', async (_what, send, code, message) => {
    const c = await company(app);
    const res = await send(c);
    expect(res.status, JSON.stringify(res.body)).toBe(code);
    expect(res.body).toEqual({ error: expect.stringMatching(message), status: code });
  });

  it('PATCH enabling needs an ACTIVE bank account of the company whose BIC matches on its first 8 characters (400 otherwise)', async () => {
    const c = await company(app);
    const none = await patch(c, 'DNBANOKKXXX', { is_active: true });
    expect(none).toMatchObject({ status: 400, body: { error: expect.stringMatching(/needs an active bank account of the company .*\(DNBANOKK\)/), status: 400 } });
    await ownBankAccount(app, c.account.id, 'NDEANOKK'); // another bank
    await ownBankAccount(app, c.account.id, 'DNBANOKKXXX', { isActive: false }); // inactive
    expect((await patch(c, 'DNBANOKKXXX', { is_active: true })).status).toBe(400);
    expect(await app.seed.prisma.integrationSetting.count({ where: { clientAccountId: c.account.id } })).toBe(0);
    expect(await addOns(c)).toEqual([]);
    await ownBankAccount(app, c.account.id, 'DNBANOKK'); // 8 characters matches DNBANOKKXXX
    const ok = await patch(c, 'DNBANOKKXXX', { is_active: true });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ is_active: true, is_connected: false, integration_config: {} });
  });

  it("a business partner's account at the bank does not count", async () => {
    const c = await company(app);
    const partner = await app.seed.prisma.businessPartner.create({ data: { clientAccountId: c.account.id, name: 'Leverandør AS' } });
    await app.seed.prisma.bankAccount.create({ data: { clientAccountId: c.account.id, businessPartnerId: partner.id, accountNumber: randomAccountNumber(), bic: 'DNBANOKKXXX' } });
    expect((await patch(c, 'DNBANOKKXXX', { is_active: true })).status).toBe(400);
  });

  it.each([
    ['is_active missing', {}, /is_active/],
    ['is_active a string', { is_active: 'yes' }, /is_active/],
    ['is_active null', { is_active: null }, /is_active/],
    ['integration_config not an object', { is_active: false, integration_config: [1] }, /integration_config: must be an object/],
    ['integration_config over 10,000 characters', { is_active: false, integration_config: { note: 'x'.repeat(10_000) } }, /integration_config: must be at most 10000 characters/],
  ])('PATCH: 400 %s', async (_what, body, message) => {
    const c = await company(app);
    const res = await patch(c, 'DNBANOKKXXX', body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
  });

  it('PATCH: 400 invalid BIC, 403 another account, 404 unsupported bank, 403 with a read-only token', async () => {
    const c = await company(app);
    expect((await patch(c, 'NOTABIC', { is_active: true })).status).toBe(400);
    expect((await patch(stranger, 'DNBANOKKXXX', { is_active: true }, c.user.token)).status).toBe(403);
    expect(await patch(c, 'ESSESESSXXX', { is_active: true })).toMatchObject({ status: 404, body: { status: 404 } });
    expect((await patch(c, 'DNBANOKKXXX', { is_active: false }, c.user.readToken)).status).toBe(403);
  });

  it('enabling adds the BANK_INTEGRATION add-on once; with two banks active, disabling one keeps it; disabling the last removes it', async () => {
    const c = await company(app);
    await ownBankAccount(app, c.account.id, 'DNBANOKKXXX');
    await ownBankAccount(app, c.account.id, 'NDEANOKKXXX');
    expect((await patch(c, 'DNBANOKKXXX', { is_active: true })).status).toBe(200);
    expect(await addOns(c)).toEqual([expect.objectContaining({ code: 'BANK_INTEGRATION', removedAt: null })]);
    expect((await patch(c, 'NDEANOKKXXX', { is_active: true })).status).toBe(200);
    expect((await patch(c, 'DNBANOKKXXX', { is_active: true })).status).toBe(200); // again: still one
    expect(await addOns(c)).toHaveLength(1);

    expect((await patch(c, 'DNBANOKKXXX', { is_active: false })).body).toMatchObject({ is_active: false, is_connected: false });
    expect(await addOns(c)).toEqual([expect.objectContaining({ removedAt: null })]);
    expect((await patch(c, 'NDEANOKKXXX', { is_active: false })).status).toBe(200);
    const [removed] = await addOns(c);
    expect(removed.removedAt).toBeInstanceOf(Date);
    expect(removed.removedById).toBe(c.user.id);

    // enabled again: a new period of the add-on
    expect((await patch(c, 'NDEANOKKXXX', { is_active: true })).status).toBe(200);
    expect((await addOns(c)).map((a) => a.removedAt === null)).toEqual([false, true]);
  });

  it('two banks enabled at the same moment add one BANK_INTEGRATION add-on (the account is locked while it changes)', async () => {
    const c = await company(app);
    await ownBankAccount(app, c.account.id, 'DNBANOKKXXX');
    await ownBankAccount(app, c.account.id, 'NDEANOKKXXX');
    const answers = await Promise.all([patch(c, 'DNBANOKKXXX', { is_active: true }), patch(c, 'NDEANOKKXXX', { is_active: true })]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(await addOns(c)).toEqual([expect.objectContaining({ code: 'BANK_INTEGRATION', removedAt: null })]);
  });

  it('Handelsbanken (HANDNOKKXXX) requires integration_config.division_number and division_name (strings) when enabling', async () => {
    const c = await company(app);
    await ownBankAccount(app, c.account.id, 'HANDNOKK');
    const missing = await patch(c, 'HANDNOKKXXX', { is_active: true });
    expect(missing).toMatchObject({ status: 400, body: { error: expect.stringMatching(/integration_config\.division_number: is required.*integration_config\.division_name: is required/) } });
    const notString = await patch(c, 'HANDNOKK', { is_active: true, integration_config: { division_number: 4711, division_name: 'Handelsbanken Majorstuen' } });
    expect(notString).toMatchObject({ status: 400, body: { error: expect.stringMatching(/integration_config\.division_number: must be a string/) } });
    expect(await addOns(c)).toEqual([]);
    const ok = await patch(c, 'HANDNOKKXXX', { is_active: true, integration_config: { division_number: '4711', division_name: 'Handelsbanken Majorstuen' } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.integration_config).toEqual({ division_number: '4711', division_name: 'Handelsbanken Majorstuen' });
    expect((await status(c, 'HANDNOKKXXX')).body.integration_config).toEqual({ division_number: '4711', division_name: 'Handelsbanken Majorstuen' });
    // disabling needs no division details; the stored config stays
    const off = await patch(c, 'HANDNOKKXXX', { is_active: false });
    expect(off.body).toMatchObject({ is_active: false, integration_config: { division_number: '4711' } });
  });

  it('another bank needs no division details; its integration_config is stored as sent', async () => {
    const c = await company(app);
    await ownBankAccount(app, c.account.id, 'SPSONO22');
    const ok = await patch(c, 'SPSONO22XXX', { is_active: true, integration_config: { note: 'hovedkonto' } });
    expect(ok.body).toMatchObject({ is_active: true, integration_config: { note: 'hovedkonto' } });
  });

  it('is_connected: true once the bank has confirmed the signed integration agreement (confirm-bank-agreement), while active', async () => {
    const c = await company(app);
    await ownBankAccount(app, c.account.id, 'DABANO22');
    await expect(confirmBankAgreement(app.seed.system, { clientAccountId: c.account.id, bic: 'DABANO22XXX' })).rejects.toThrow(/not enabled/);
    const enabled = await patch(c, 'DABANO22XXX', { is_active: true });
    expect(enabled.body.onboarding_information).toEqual({
      agreement_status: 'AWAITING_SIGNED_AGREEMENT',
      integration_agreement_url: `/api/v2/integrations/banks/DABANO22XXX/pdf-forms/integration-agreement?client_account_id=${c.account.id}`,
      next_step: expect.stringContaining('Danske Bank'),
    });
    await confirmBankAgreement(app.seed.system, { clientAccountId: c.account.id, bic: 'DABANO22', confirmedAt: new Date('2026-11-20T10:00:00Z') });
    expect((await status(c, 'DABANO22XXX')).body).toEqual({
      is_active: true,
      is_connected: true,
      integration_config: {},
      onboarding_information: { agreement_status: 'CONFIRMED', agreement_confirmed_at: '2026-11-20T10:00:00.000Z' },
    });
    expect((await patch(c, 'DABANO22XXX', { is_active: false })).body).toMatchObject({ is_active: false, is_connected: false });
  });

  describe('GET /integrations/banks/{bic}/pdf-forms/integration-agreement', () => {
    const form = (c: Company, bic: string, type = 'integration-agreement', token = c.user.token) =>
      app.http('GET', `/api/v2/integrations/banks/${bic}/pdf-forms/${type}?client_account_id=${c.account.id}`, { token });

    it("is a PDF attachment filled with the company's name, organization number and its account numbers at that bank", async () => {
      const c = await company(app, { name: 'Fjordkraft Regnskap AS' });
      const [a, b] = [randomAccountNumber('1503'), randomAccountNumber('1506')];
      await ownBankAccount(app, c.account.id, 'DNBANOKKXXX', { accountNumber: a, name: 'Driftskonto' });
      await ownBankAccount(app, c.account.id, 'DNBANOKK', { accountNumber: b });
      const elsewhere = randomAccountNumber('6011');
      await ownBankAccount(app, c.account.id, 'NDEANOKKXXX', { accountNumber: elsewhere });
      const res = await fetch(`${app.url}/api/v2/integrations/banks/DNBANOKKXXX/pdf-forms/integration-agreement?client_account_id=${c.account.id}`, {
        headers: { authorization: `Bearer ${c.user.token}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/pdf/);
      expect(res.headers.get('content-disposition')).toMatch(new RegExp(`attachment; filename="integrasjonsavtale-dnb-${c.organizationNumber}\\.pdf"`));
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      const text = pdfText(bytes);
      expect(text).toContain('Avtale om regnskapsintegrasjon');
      expect(text).toContain('Fjordkraft Regnskap AS');
      const org = c.organizationNumber!;
      expect(text).toContain(`${org.slice(0, 3)} ${org.slice(3, 6)} ${org.slice(6)}`);
      for (const n of [a, b]) expect(text).toContain(`${n.slice(0, 4)}.${n.slice(4, 6)}.${n.slice(6)}`);
      expect(text).not.toContain(`${elsewhere.slice(0, 4)}.${elsewhere.slice(4, 6)}`);
      expect(text).toContain('DNB Bank ASA');
      expect(text).toMatch(/Signatur/);
      expect(text).toMatch(/Dato: \d{2}\.\d{2}\.\d{4}/);
    });

    it('the division bank’s form carries the stored division details', async () => {
      const c = await company(app);
      await ownBankAccount(app, c.account.id, 'HANDNOKK');
      await patch(c, 'HANDNOKKXXX', { is_active: true, integration_config: { division_number: '9041', division_name: 'Handelsbanken Bergen' } });
      const res = await fetch(`${app.url}/api/v2/integrations/banks/HANDNOKKXXX/pdf-forms/integration-agreement?client_account_id=${c.account.id}`, {
        headers: { authorization: `Bearer ${c.user.token}` },
      });
      const text = pdfText(Buffer.from(await res.arrayBuffer()));
      expect(text).toContain('9041');
      expect(text).toContain('Handelsbanken Bergen');
    });

    it.each([
      ['400 missing client_account_id', (c: Company) => app.http('GET', '/api/v2/integrations/banks/DNBANOKKXXX/pdf-forms/integration-agreement', { token: c.user.token }), 400],
      ['400 invalid BIC', (c: Company) => form(c, 'DNB'), 400],
      ['403 another client account', (c: Company) => form(stranger, 'DNBANOKKXXX', 'integration-agreement', c.user.token), 403],
      ['404 unsupported bank', (c: Company) => form(c, 'DEUTDEFF'), 404],
      ['404 unknown form type', (c: Company) => form(c, 'DNBANOKKXXX', 'power-of-attorney'), 404],
    ])('%s', async (_what, send, code) => {
      const c = await company(app);
      const res = await send(c);
      expect(res.status, res.text).toBe(code);
      expect(res.body).toEqual({ error: expect.any(String), status: code });
    });
  });
});

function pdfText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'bank-agreement-'));
  try {
    writeFileSync(join(dir, 'a.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', join(dir, 'a.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
