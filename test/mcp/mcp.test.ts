import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { oauthKit, pkcePair, type OauthUser } from '../support/oauth.ts';

// spec 000: "tool endpoint POST {base_url}/mcp"; "a token without write may call only tools annotated
// readOnlyHint, and tools/list returns only those tools"; "On the tool endpoint the write rule applies per tool".

/** An MCP client's OAuth side, as an MCP host would keep it: registration, PKCE verifier, tokens. */
class TestAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(
    readonly redirectUrl: string,
    private readonly scope: string,
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'MCP test host', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], scope: this.scope };
  }
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.client = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (v: string) => void (this.verifier = v);
  codeVerifier = () => this.verifier;
}

describe.each(targets())('MCP tool endpoint through the SDK client (%s)', (target) => {
  let app: TestApp;
  let kit: ReturnType<typeof oauthKit>;
  let owner: OauthUser;

  /**
   * The whole flow an MCP host runs: 401 → discovery → dynamic registration → browser consent → code +
   * PKCE S256 → token for resource …/mcp. The SDK asks for the scopes the protected-resource metadata
   * lists (SEP-835), i.e. read and write.
   */
  async function connect(query = ''): Promise<{ client: Client; provider: TestAuthProvider }> {
    const url = new URL(`${app.url}/mcp${query}`);
    const provider = new TestAuthProvider(kit.redirectUri, 'read write');
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'test-host', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorize = provider.authorizationUrl!;
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('resource')).toBe(`${app.url}/mcp`);
    const consent = await owner.browser.consent(authorize.pathname + authorize.search, 'yes');
    const code = consent.location?.searchParams.get('code');
    expect(code, consent.text).toBeTruthy();
    await first.finishAuth(code!);
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return { client, provider };
  }

  /** A host holding a read-only token bound to …/mcp (authorization code + PKCE S256, scope read). */
  async function connectReadOnly(query = ''): Promise<{ client: Client; provider: TestAuthProvider }> {
    const registered = await kit.register();
    const pkce = pkcePair();
    const resource = `${app.url}/mcp`;
    const code = await kit.code(owner, registered.client_id, { scope: 'read', code_challenge: pkce.s256, code_challenge_method: 'S256', resource });
    const token = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: registered.client_id, client_secret: registered.client_secret, code_verifier: pkce.verifier, resource });
    const provider = new TestAuthProvider(kit.redirectUri, 'read');
    provider.client = registered;
    provider.saved = token.body;
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${resource}${query}`), { authProvider: provider }));
    return { client, provider };
  }

  let writer: Awaited<ReturnType<typeof connect>>;
  let reader: Awaited<ReturnType<typeof connect>>;

  beforeAll(async () => {
    app = await startTestApp(target);
    kit = oauthKit(app);
    owner = await kit.user();
    writer = await connect();
    reader = await connectReadOnly();
  });
  afterAll(async () => {
    await writer?.client.close();
    await reader?.client.close();
    await app?.close();
  });

  it('the SDK registered dynamically and got a token bound to …/mcp with the scope asked for', () => {
    expect(writer.provider.client?.client_id).toBeTruthy();
    expect(decodeJwt(writer.provider.saved!.access_token)).toMatchObject({ aud: `${app.url}/mcp`, scope: 'read write' });
    expect(decodeJwt(reader.provider.saved!.access_token)).toMatchObject({ aud: `${app.url}/mcp`, scope: 'read' });
  });

  /** Another client with the same host's tokens, on the endpoint URL with a query (?modules=…). */
  async function sameTokens(provider: TestAuthProvider, query: string): Promise<Client> {
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp${query}`), { authProvider: provider }));
    return client;
  }

  it('tools/list?modules=all with write: every operation of the table plus graphql_query and graphql_mutation, annotated', async () => {
    const all = await sameTokens(writer.provider, '?modules=all');
    const { tools } = await all.listTools();
    await all.close();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_items', 'get_item', 'create_item', 'update_item', 'deactivate_item', 'list_units', 'create_item_collection_entry', 'graphql_query', 'graphql_mutation']));
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    // destructiveHint and idempotentHint are "meaningful only when readOnlyHint == false"
    expect(byName.list_items.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(byName.delete_item_collection_entry.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.create_item.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['client_account_id', 'item_no', 'sales_unit_id', 'tax_code_id']) });
    expect(byName.list_items.inputSchema.properties).toHaveProperty('with');
  });

  it('tools/list with a read-only token: only the readOnlyHint tools', async () => {
    const { tools } = await reader.client.listTools();
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(tools.map((t) => t.name)).not.toContain('create_item');
  });

  it('?modules= lists those toolsets (the GraphQL tools and the toolset tools stay)', async () => {
    const narrowed = await connectReadOnly('?modules=units');
    const { tools } = await narrowed.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['call_operation', 'describe_operation', 'get_unit', 'graphql_query', 'list_toolsets', 'list_units']);
    await narrowed.client.close();
  });

  it('a read call answers what the REST route answers', async () => {
    const res = await reader.client.callTool({ name: 'list_units', arguments: { per_page: 2, order_by: ['symbol'] } });
    expect(res.isError).toBeFalsy();
    const body = JSON.parse((res.content as { text: string }[])[0].text);
    const rest = await app.http('GET', '/api/v2/units?per_page=2&order_by=symbol', { token: owner.sessionToken });
    expect(body).toEqual(rest.body);
  });

  it('spec 001 balance sheet "balance (number)": get_balance_sheet answers the REST text, the balance an exact JSON number (1000000000003584.01)', async () => {
    const lines = ['500000000001792.00', '500000000001792.01'].flatMap((half) => [
      { posting_date: '2026-02-01', account_code: '1920', debit: half, credit: '0' },
      { posting_date: '2026-02-01', account_code: '2000', debit: '0', credit: half },
    ]);
    const posted = await app.http('POST', '/api/v2/journal-entries/', { token: owner.sessionToken, body: { client_account_id: owner.clientAccountId, lines } });
    expect(posted.status, posted.text).toBe(201);
    const res = await reader.client.callTool({ name: 'get_balance_sheet', arguments: { client_account_id: owner.clientAccountId, report_date: '2026-03-31' } });
    expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
    const text = (res.content as { text: string }[])[0].text;
    const rest = await app.http('GET', `/api/v2/reports/balance-sheet?client_account_id=${owner.clientAccountId}&report_date=2026-03-31`, { token: owner.sessionToken });
    expect(text).toBe(rest.text);
    expect(text).toMatch(/"account_code":"1920","account_name":"[^"]*","balance":1000000000003584\.01\}/);
  });

  it('a write call creates the record; with embeds relations', async () => {
    const taxCode = await app.db.prisma.taxCode.findFirstOrThrow({ where: { clientAccountId: owner.clientAccountId, code: '3' } });
    const res = await writer.client.callTool({
      name: 'create_item',
      arguments: { client_account_id: owner.clientAccountId, item_no: 'MCP-1', sales_unit_id: 1, tax_code_id: taxCode.id, price: '99.50', with: ['tax_code'] },
    });
    expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
    const item = JSON.parse((res.content as { text: string }[])[0].text);
    expect(item).toMatchObject({ item_no: 'MCP-1', price: '99.500000', tax_code: { id: taxCode.id } });
    expect(await app.db.prisma.item.count({ where: { clientAccountId: owner.clientAccountId, itemNo: 'MCP-1' } })).toBe(1);
  });

  it('reconciling through MCP: create_reconciliation answers the REST body (201 there), delete_reconciliation (204 there) answers {}', async () => {
    const post = async (debit: number, credit: number) =>
      (
        await app.http('POST', '/api/v2/journal-entries/', {
          token: owner.sessionToken,
          body: { client_account_id: owner.clientAccountId, lines: [{ posting_date: '2026-05-02', account_code: '1920', debit, credit }, { posting_date: '2026-05-02', account_code: '3000', debit: credit, credit: debit }] },
        })
      ).body.lines[0].id as number;
    const [a, b] = [await post(70, 0), await post(0, 70)];
    const res = await writer.client.callTool({
      name: 'create_reconciliation',
      arguments: { client_account_id: owner.clientAccountId, date: '2026-05-31', entry_lines: [{ journal_entry_line_id: a }, { journal_entry_line_id: b }] },
    });
    expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
    const r = JSON.parse((res.content as { text: string }[])[0].text);
    expect(r).toMatchObject({ is_draft: false, entries: [{ journal_entry_line_id: a, debit: '70.00' }, { journal_entry_line_id: b, credit: '70.00' }] });
    const del = await writer.client.callTool({ name: 'delete_reconciliation', arguments: { id: r.id } });
    expect(del.isError, JSON.stringify(del.content)).toBeFalsy();
    expect(JSON.parse((del.content as { text: string }[])[0].text)).toEqual({});
    expect((await app.db.prisma.reconciliation.findUniqueOrThrow({ where: { id: r.id } })).deletedAt).not.toBeNull();
  });

  it('a write tool called with a read-only token is a tool error, and nothing is written', async () => {
    const res = await reader.client.callTool({ name: 'create_item', arguments: { client_account_id: owner.clientAccountId, item_no: 'MCP-RO', sales_unit_id: 1, tax_code_id: 1 } });
    expect(res.isError).toBe(true);
    expect(JSON.parse((res.content as { text: string }[])[0].text)).toMatchObject({ status: 403 });
    expect(await app.db.prisma.item.count({ where: { itemNo: 'MCP-RO' } })).toBe(0);
    const mutation = await reader.client.callTool({ name: 'graphql_mutation', arguments: { query: 'mutation { deactivateItem(id: 1) { id } }' } });
    expect(mutation.isError).toBe(true);
  });

  it('bad arguments are a tool error naming the field', async () => {
    const res = await writer.client.callTool({ name: 'create_item', arguments: { client_account_id: owner.clientAccountId, item_no: 'X' } });
    expect(res.isError).toBe(true);
    expect((res.content as { text: string }[])[0].text).toContain('sales_unit_id');
  });

  it('graphql_query runs queries and refuses mutations', async () => {
    const q = await reader.client.callTool({ name: 'graphql_query', arguments: { query: '{ me { user { email } } }' } });
    expect(JSON.parse((q.content as { text: string }[])[0].text)).toEqual({ data: { me: { user: { email: owner.email } } } });
    const m = await writer.client.callTool({ name: 'graphql_query', arguments: { query: 'mutation { deactivateItem(id: 1) { id } }' } });
    expect(m.isError).toBe(true);
  });

  it('no token → 401 with WWW-Authenticate pointing at the /mcp protected-resource metadata', async () => {
    const res = await app.http('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('a token bound to /api/v2 is refused on /mcp, and an /mcp token on /api/v2', async () => {
    const mcpToken = writer.provider.saved!.access_token;
    expect((await app.http('GET', '/api/v2/units', { token: mcpToken })).status).toBe(401);
    const client = await kit.register();
    const pkce = pkcePair();
    const code = await kit.code(owner, client.client_id, { scope: 'read', code_challenge: pkce.s256, code_challenge_method: 'S256', resource: `${app.url}/api/v2` });
    const token = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: kit.redirectUri, client_id: client.client_id, client_secret: client.client_secret, code_verifier: pkce.verifier, resource: `${app.url}/api/v2` });
    const res = await app.http('POST', '/mcp', { token: token.body.access_token, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
    expect(res.status).toBe(401);
  });

  it('Idempotency-Key applies to write tool calls: the same message again is replayed, the write happens once', async () => {
    const taxCode = await app.db.prisma.taxCode.findFirstOrThrow({ where: { clientAccountId: owner.clientAccountId, code: '3' } });
    const message = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'create_item', arguments: { client_account_id: owner.clientAccountId, item_no: 'MCP-IDEM', sales_unit_id: 1, tax_code_id: taxCode.id } },
    });
    const headers = { accept: 'application/json, text/event-stream', 'idempotency-key': 'mcp-idem-1', 'mcp-protocol-version': '2025-06-18' };
    const first = await app.http('POST', '/mcp', { token: owner.sessionToken, body: message, headers });
    const again = await app.http('POST', '/mcp', { token: owner.sessionToken, body: message, headers });
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await app.db.prisma.item.count({ where: { itemNo: 'MCP-IDEM' } })).toBe(1);
  });

  it('GET /mcp → 405: every call is a POST', async () => {
    const res = await app.http('GET', '/mcp', { token: owner.sessionToken });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
