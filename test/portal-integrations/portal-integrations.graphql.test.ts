import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PERSONS } from '../../src/integrations/idprovider/login.sandbox.ts';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { randomOrganizationNumber } from '../support/seed.ts';
import { formFields, login, postForm } from './browser.ts';

// The same operations as GraphQL fields and MCP tools (one operation, every entry point).
describe.each(targets())('portal integrations GraphQL and MCP (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  async function company() {
    const organizationNumber = randomOrganizationNumber();
    const account = await app.seed.clientAccount({ organizationNumber });
    const user = await app.seed.user();
    await app.seed.grantRole({ userId: user.id, clientAccountId: account.id, role: 'CA' });
    return { account, user, organizationNumber };
  }

  it('govportalStatus, idproviderStatus, authorizeGovportal, authorizeIdprovider, govportalReportees, govportalParties', async () => {
    const user = await app.seed.user();
    const before = await app.gql(user.token, '{ govportalStatus { connected endSessionUrl } idproviderStatus { connected endSessionUrl } }');
    expect(before.data).toEqual({ govportalStatus: { connected: false, endSessionUrl: null }, idproviderStatus: { connected: false, endSessionUrl: null } });
    const denied = await app.gql(user.token, '{ govportalReportees }');
    expect(errorCode(denied)).toBe('common.forbidden');
    const started = await app.gql(user.token, 'mutation { authorizeGovportal { authorizationUrl } authorizeIdprovider { authorizationUrl } }');
    expect(started.data.authorizeGovportal.authorizationUrl).toMatch(/\/idprovider\/authorize\?/);
    expect(started.data.authorizeIdprovider.authorizationUrl).toMatch(/\/idprovider\/authorize\?/);
    await login(app, user.token, 'govportal', TEST_PERSONS[0]!.pid);
    const after = await app.gql(user.token, '{ govportalStatus { connected } govportalReportees govportalParties }');
    expect(after.errors).toBeUndefined();
    expect(after.data.govportalStatus.connected).toBe(true);
    expect(after.data.govportalReportees._embedded.reportees[0].SocialSecurityNumber).toBe(TEST_PERSONS[0]!.pid);
    expect(after.data.govportalParties[0].personId).toBe(TEST_PERSONS[0]!.pid);
  });

  it('createGovportalSystemUser, govportalSystemUser, govportalSystemUsers, taxauthorityPropertySearch, dialogplatformDialogs', async () => {
    const c = await company();
    const created = await app.gql(c.user.token, 'mutation($id: Int!) { createGovportalSystemUser(clientAccountId: $id) { id status confirmUrl orgNumber rights { resource scope } } }', { id: c.account.id });
    expect(created.errors).toBeUndefined();
    const su = created.data.createGovportalSystemUser;
    expect(su).toMatchObject({ status: 'New', orgNumber: c.organizationNumber });
    const denied = await app.gql(c.user.token, '{ taxauthorityPropertySearch(inntektsaar: 2024, clientAccountId: ' + c.account.id + ', query: "Storgata") }');
    expect(errorCode(denied)).toBe('common.forbidden');
    const { action } = formFields(await (await fetch(su.confirmUrl)).text());
    await postForm(action, { decision: 'approve' });
    const read = await app.gql(
      c.user.token,
      `query($id: String!, $ca: Int!) {
        govportalSystemUser(id: $id) { status }
        govportalSystemUsers(clientAccountId: $ca) { nodes { id status } page perPage total }
        taxauthorityPropertySearch(inntektsaar: 2024, clientAccountId: $ca, query: "Storgata")
        dialogplatformDialogs(clientAccountId: $ca, status: "Completed") { items { id status serviceResource title } }
      }`,
      { id: su.id, ca: c.account.id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.govportalSystemUser.status).toBe('Active');
    expect(read.data.govportalSystemUsers).toEqual({ nodes: [{ id: su.id, status: 'Active' }], page: 1, perPage: 100, total: 1 });
    expect(read.data.taxauthorityPropertySearch.eiendommer.length).toBeGreaterThan(0);
    expect(read.data.dialogplatformDialogs.items.every((d: { status: string }) => d.status === 'Completed')).toBe(true);
  });

  it('MCP: the operations are tools; a call answers as REST does', async () => {
    const c = await company();
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=integrations`), { requestInit: { headers: { authorization: `Bearer ${c.user.token}` } } }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'get_govportal_status',
          'create_govportal_authorization',
          'list_govportal_reportees',
          'list_govportal_parties',
          'list_govportal_system_users',
          'create_govportal_system_user',
          'get_govportal_system_user',
          'list_taxauthority_properties',
          'get_idprovider_status',
          'create_idprovider_authorization',
          'list_dialogplatform_dialogs',
        ]),
      );
      const created = await client.callTool({ name: 'create_govportal_system_user', arguments: { client_account_id: c.account.id } });
      const su = JSON.parse((created.content as { text: string }[])[0]!.text);
      expect(su).toMatchObject({ status: 'New', client_account_id: c.account.id, org_number: c.organizationNumber });
      const refused = await client.callTool({ name: 'list_dialogplatform_dialogs', arguments: { client_account_id: c.account.id } });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as { text: string }[])[0]!.text)).toMatchObject({ status: 403 });
    } finally {
      await client.close();
    }
  });
});
