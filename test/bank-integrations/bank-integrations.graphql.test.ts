import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { company, ownBankAccount } from './helpers.ts';

// The same operations over GraphQL (the fields the REST adapter runs) and as MCP tools; the
// BANK_INTEGRATION add-on is visible on the client account.
describe.each(targets())('bank integrations over GraphQL and MCP (%s)', (target) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  it('banks, updateBankIntegrationStatus and ClientAccount.billingAddOns; the same errors with their codes', async () => {
    const c = await company(app);
    await ownBankAccount(app, c.account.id, 'NDEANOKKXXX');
    const listed = await app.gql(c.user.token, `{ banks { bic status { isActive } integrationConfig } }`);
    expect(listed.data.banks[0]).toEqual({ bic: 'DNBANOKKXXX', status: null, integrationConfig: null });

    const enable = await app.gql(
      c.user.token,
      `mutation($id: Int!) { updateBankIntegrationStatus(bic: "NDEANOKK", clientAccountId: $id, input: { isActive: true }) { isActive isConnected onboardingInformation } }`,
      { id: c.account.id },
    );
    expect(enable.errors).toBeUndefined();
    expect(enable.data.updateBankIntegrationStatus).toMatchObject({ isActive: true, isConnected: false, onboardingInformation: { agreement_status: 'AWAITING_SIGNED_AGREEMENT' } });

    const account = await app.gql(c.user.token, `query($id: Int!) { clientAccount(id: $id) { billingAddOns(active: true) { code isActive removedAt } } }`, { id: c.account.id });
    expect(account.data.clientAccount.billingAddOns).toEqual([{ code: 'BANK_INTEGRATION', isActive: true, removedAt: null }]);

    const bad = await app.gql(c.user.token, `query($id: Int!) { bankIntegrationStatus(bic: "X", clientAccountId: $id) { isActive } }`, { id: c.account.id });
    expect(errorCode(bad)).toBe('common.validation_error');
    const unsupported = await app.gql(c.user.token, `query($id: Int!) { bankIntegrationStatus(bic: "DEUTDEFF", clientAccountId: $id) { isActive } }`, { id: c.account.id });
    expect(errorCode(unsupported)).toBe('common.not_found');
  });

  it('einvoiceStatus and updateEinvoiceStatus', async () => {
    const c = await company(app);
    const on = await app.gql(c.user.token, `mutation($id: Int!) { updateEinvoiceStatus(clientAccountId: $id, input: { isActive: true }) { clientAccountId isActive connected } }`, { id: c.account.id });
    expect(on.data.updateEinvoiceStatus).toEqual({ clientAccountId: c.account.id, isActive: true, connected: true });
    const one = await app.gql(c.user.token, `query($id: Int!) { einvoiceStatus(clientAccountId: $id) { isActive connected statuses { clientAccountId } } }`, { id: c.account.id });
    expect(one.data.einvoiceStatus).toEqual({ isActive: true, connected: true, statuses: null });
  });

  it('MCP: the tools exist; get_bank_integration_status answers as REST does', async () => {
    const c = await company(app);
    const client = new Client({ name: 'bank-integrations-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=integrations`), { requestInit: { headers: { authorization: `Bearer ${c.user.token}` } } }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['list_banks', 'get_bank_integration_status', 'update_bank_integration_status', 'get_bank_pdf_form', 'get_einvoice_status', 'update_einvoice_status', 'get_providerb_status']),
      );
      const res = await client.callTool({ name: 'get_bank_integration_status', arguments: { bic: 'DNBANOKKXXX', client_account_id: c.account.id } });
      expect(JSON.parse((res.content as { text: string }[])[0].text)).toEqual({ is_active: false, is_connected: false, integration_config: {} });
    } finally {
      await client.close();
    }
  });
});
