import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 26, item 14 (spec 000: "every call is a POST"; the protocol is the MCP specification, 2025-11-25):
// - tools: "Tools use two error reporting mechanisms: 1. Protocol Errors: Standard JSON-RPC errors for
//   issues like: Unknown tools …" (example: code -32602, "Unknown tool: invalid_tool_name");
// - JSON-RPC 2.0: "-32700 Parse error: Invalid JSON was received by the server", "-32600 Invalid
//   Request: The JSON sent is not a valid Request object";
// - Streamable HTTP: "The body of the POST request MUST be a single JSON-RPC request, notification, or
//   response" (2025-06-18 removed batching); "Servers MUST validate the Origin header on all incoming
//   connections to prevent DNS rebinding attacks. If the Origin header is present and invalid, servers
//   MUST respond with HTTP 403 Forbidden. The HTTP response body MAY comprise a JSON-RPC error response
//   that has no id".
// On both databases, as every item of issue 26 (it takes about a second).

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

/** A JSON-RPC error response without id, as /mcp answers an HTTP-level refusal. */
const rpcError = (code: number) => ({ jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } });

async function sdkClient(app: TestApp, token: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'transport-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } } }));
  return client;
}

describe.each(targets())('MCP transport: JSON-RPC errors and the Origin check (%s)', (target) => {
  describe('defaults (CORS_ORIGINS *, MCP_ALLOWED_ORIGINS unset)', () => {
    let app: TestApp;
    let t: Tenant;
    let client: Client;
    /** POST /mcp with the user's token (null: none) */
    const post = (body: unknown, headers: Record<string, string> = {}, token: string | null = t.user.token) =>
      app.http('POST', '/mcp', { token: token ?? undefined, body, headers: { ...MCP_HEADERS, ...headers } });

    beforeAll(async () => {
      app = await startTestApp(target);
      t = await app.seed.tenant();
      client = await sdkClient(app, t.user.token);
    });
    afterAll(async () => {
      await client?.close();
      await app?.close();
    });

    it('tools: "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools": an unknown tool is JSON-RPC error -32602 "Unknown tool: …", not a tool result', async () => {
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: no_such_tool') });
      const raw = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
      expect(raw.status).toBe(200);
      expect(raw.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Unknown tool: no_such_tool' } });
      // a read-only token too; the name is not echoed whole
      const long = await post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'x'.repeat(100_000) } }, {}, t.user.readToken);
      expect(long.body).toMatchObject({ id: 8, error: { code: -32602 } });
      expect(long.text.length).toBeLessThan(400);
    });

    it('a tool that exists stays a tool result when it fails ("Tool Execution Errors: Reported in tool results with isError: true")', async () => {
      const res = await client.callTool({ name: 'create_item', arguments: { client_account_id: t.account.id } });
      expect(res.isError).toBe(true);
      const denied = await sdkClient(app, t.user.readToken);
      expect((await denied.callTool({ name: 'create_item', arguments: {} })).isError).toBe(true);
      await denied.close();
    });

    it.each([
      ['not JSON', '{"jsonrpc": "2.0", "id": 1, "method": "ping"'],
      ['a truncated string', '{"jsonrpc": "2.0", "id": 1, "method": "pi'],
      ['an empty body', ''],
    ])('JSON-RPC: "-32700 Parse error: Invalid JSON was received by the server": %s is HTTP 400 with a JSON-RPC error -32700 and id null', async (_name, body) => {
      const res = await app.http('POST', '/mcp', { token: t.user.token, body, headers: { ...MCP_HEADERS, 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual(rpcError(-32700));
    });

    it('"The body of the POST request MUST be a single JSON-RPC request, notification, or response": a batch array is HTTP 400 with JSON-RPC error -32600, and none of its messages runs', async () => {
      const taxCodeId = await t.taxCode('3');
      const create = (itemNo: string, id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_item', arguments: { client_account_id: t.account.id, item_no: itemNo, sales_unit_id: 1, tax_code_id: taxCodeId } } });
      const batch = await post([create('BATCH-1', 1), create('BATCH-2', 2)], { 'idempotency-key': `batch-${t.account.id}` });
      expect(batch.status).toBe(400);
      expect(batch.body).toEqual(rpcError(-32600));
      expect(batch.body.error.message).toMatch(/batch/i);
      expect(await app.db.prisma.item.count({ where: { clientAccountId: t.account.id } })).toBe(0);
      expect(await post([])).toMatchObject({ status: 400, body: rpcError(-32600) });
      expect(await post([PING])).toMatchObject({ status: 400, body: rpcError(-32600) });
      // one message per POST works, the same tool included
      const single = await post(create('SINGLE-1', 3));
      expect(single.body.result.isError, single.text).toBeFalsy();
      expect(await app.db.prisma.item.count({ where: { clientAccountId: t.account.id } })).toBe(1);
    });

    it.each([
      ['a number', 1],
      ['an empty object', {}],
      ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'ping' }],
      ['a request without method', { jsonrpc: '2.0', id: 1 }],
      ['a method that is not a string', { jsonrpc: '2.0', id: 1, method: 5 }],
    ])('JSON-RPC: "-32600 Invalid Request: The JSON sent is not a valid Request object": %s is HTTP 400 with a JSON-RPC error -32600', async (_name, body) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(rpcError(-32600));
    });

    it('a bearer token\'s 401 keeps its OAuth shape and challenge; other HTTP errors of /mcp are JSON-RPC errors (GET: 405)', async () => {
      const anonymous = await post(PING, {}, null);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
      expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');
      const get = await app.http('GET', '/mcp', { token: t.user.token });
      expect(get.status).toBe(405);
      expect(get.body).toEqual(rpcError(-32000));
    });

    const refused = (res: HttpResult) => {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(rpcError(-32000));
      expect(res.body.error.message).toMatch(/Origin .* may not call \/mcp/);
    };

    it('"If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden": another origin is 403 with a JSON-RPC error without id, before the token is looked at', async () => {
      refused(await post(PING, { origin: 'https://evil.example' }));
      refused(await post(PING, { origin: 'https://evil.example' }, null));
      refused(await post(PING, { origin: 'null' }));
      refused(await post(PING, { origin: `${app.url}.evil.example` }));
      refused(await post(PING, { origin: `https://${new URL(app.url).host}` }));
      const long = await post(PING, { origin: `https://${'a'.repeat(6000)}.example` });
      refused(long);
      expect(long.body.error.message.length).toBeLessThan(300); // the refused Origin is quoted, cut to 100 characters
      refused(await app.http('GET', '/mcp', { token: t.user.token, headers: { origin: 'https://evil.example' } }));
      // with CORS_ORIGINS * the API's other entry points still take any origin
      expect((await app.http('GET', '/api/v2/units?per_page=1', { token: t.user.token, headers: { origin: 'https://evil.example' } })).status).toBe(200);
    });

    it('"MUST validate the Origin header": the SDK client sent from another origin is refused with 403', async () => {
      await expect(sdkClient(app, t.user.token, { origin: 'https://evil.example' })).rejects.toMatchObject({ code: 403 });
    });

    it('requests without Origin and from the service\'s own origin (BASE_URL) pass, through the SDK client and raw', async () => {
      expect(await post(PING)).toMatchObject({ status: 200, body: { id: 1, result: {} } });
      expect(await post(PING, { origin: app.url })).toMatchObject({ status: 200, body: { id: 1, result: {} } });
      expect(await post(PING, { origin: app.url.toUpperCase() })).toMatchObject({ status: 200 });
      const own = await sdkClient(app, t.user.token, { origin: app.url });
      expect((await own.listTools()).tools.length).toBeGreaterThan(5);
      await own.close();
    });

    it('a preflight of /mcp allows the origins the Origin check lets through, and no other', async () => {
      const preflight = (origin: string) =>
        app.http('OPTIONS', '/mcp', { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' } });
      const own = await preflight(app.url);
      expect(own.status).toBe(204);
      expect(own.headers.get('access-control-allow-origin')).toBe(app.url);
      expect(own.headers.get('access-control-allow-headers')).toMatch(/mcp-protocol-version/i);
      expect(own.headers.get('cross-origin-resource-policy')).toBeNull();
      const other = await preflight('https://evil.example');
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('CORS_ORIGINS a list, MCP_ALLOWED_ORIGINS unset', () => {
    let app: TestApp;
    let t: Tenant;
    beforeAll(async () => {
      app = await startTestApp(target, { env: { CORS_ORIGINS: 'https://app.example, https://Admin.example:443/' } });
      t = await app.seed.tenant();
    });
    afterAll(() => app?.close());

    it('"MCP_ALLOWED_ORIGINS, default: the CORS_ORIGINS list when it is a list": its origins pass, any other is 403', async () => {
      const post = (origin: string) => app.http('POST', '/mcp', { token: t.user.token, body: PING, headers: { ...MCP_HEADERS, origin } });
      expect((await post('https://app.example')).status).toBe(200);
      expect((await post('https://admin.example')).status).toBe(200);
      expect((await post(app.url)).status).toBe(200);
      expect((await post('https://other.example')).status).toBe(403);
      expect((await post('http://app.example')).status).toBe(403);
    });
  });

  describe('MCP_ALLOWED_ORIGINS set', () => {
    let app: TestApp;
    let t: Tenant;
    beforeAll(async () => {
      app = await startTestApp(target, { env: { CORS_ORIGINS: 'https://app.example', MCP_ALLOWED_ORIGINS: 'https://agent.example,http://localhost:5173' } });
      t = await app.seed.tenant();
    });
    afterAll(() => app?.close());

    it('"from the allowed origins pass (MCP_ALLOWED_ORIGINS)": its origins and the own one pass; CORS_ORIGINS no longer counts for /mcp', async () => {
      const post = (origin: string) => app.http('POST', '/mcp', { token: t.user.token, body: PING, headers: { ...MCP_HEADERS, origin } });
      expect((await post('https://agent.example')).status).toBe(200);
      expect((await post('http://localhost:5173')).status).toBe(200);
      expect((await post(app.url)).status).toBe(200);
      expect((await post('https://app.example')).status).toBe(403);
      const preflight = await app.http('OPTIONS', '/mcp', { headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' } });
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://agent.example');
    });
  });

  it('MCP_ALLOWED_ORIGINS must list origins: `*` or a value that is no origin stops the server at start, naming the variable', () => {
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: '*' })).toThrow(ConfigError);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: '*' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'agent.example' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://agent.example/path' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(loadConfig({ BASE_URL: 'https://api.example', MCP_ALLOWED_ORIGINS: 'https://Agent.example:443, http://localhost:5173/' }).mcpOrigins).toEqual([
      'https://api.example',
      'https://agent.example',
      'http://localhost:5173',
    ]);
    expect(loadConfig({ BASE_URL: 'https://api.example/base' }).mcpOrigins).toEqual(['https://api.example']);
  });
});
