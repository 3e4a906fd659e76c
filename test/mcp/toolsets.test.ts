import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { schema } from '../../src/schema.ts';
import { compiledOperations } from '../../rest-adapter/index.ts';
import { DEFAULT_TOOLSETS, TOOLSET_DESCRIPTIONS } from '../../src/mcp/toolsets.ts';
import { TOOL_PAGE_SIZE, toolbox } from '../../src/mcp/tools.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue "MCP, for agents": "By default tools/list is at most 40,000 characters … a default set of
// toolsets … plus a read-only tool that lists the other toolsets and their tools, and a way to reach
// them that works on a stateless endpoint (?modules= on the URL, and a tool that describes and calls
// any operation by name with the same scope rules) … Every operation stays reachable." "List tools
// default to a small page and say how to get more; tools declare outputSchema and return
// structuredContent beside the text." The client is the MCP SDK's own, which validates structuredContent
// against the outputSchema tools/list gave it; the whole output schema (describe_operation's) is checked
// with the SDK's validator too.

/** The most characters the default tools/list may take (JSON.stringify of the result the SDK client reads). */
const LIST_BUDGET = 40_000;

const operationTools = compiledOperations(schema).map((c) => c.toolName);
const validator = new AjvJsonSchemaValidator();

const text = (res: Awaited<ReturnType<Client['callTool']>>, i = 0) => (res.content as { text: string }[])[i]?.text;
const json = (res: Awaited<ReturnType<Client['callTool']>>) => JSON.parse(text(res));

describe.each(targets())('MCP toolsets, compact tools/list, structured results (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  const clients: Client[] = [];

  /** An SDK client on /mcp (a query: ?modules=…) with the tenant user's token (read-only: read). */
  async function connect(query = '', token = t.user.token): Promise<Client> {
    const client = new Client({ name: 'toolsets-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp${query}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }

  /** structuredContent is valid against the tool's whole output schema (describe_operation's). */
  async function validWhole(client: Client, name: string, res: CallToolResult): Promise<void> {
    const described = json(await client.callTool({ name: 'describe_operation', arguments: { name } }));
    const result = validator.getValidator(described.outputSchema)(res.structuredContent);
    expect(result.errorMessage, `${name}: ${JSON.stringify(res.structuredContent).slice(0, 300)}`).toBeUndefined();
  }

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await app?.close();
  });

  it(`the default tools/list as the SDK client reads it is at most ${LIST_BUDGET} characters: the default toolsets, the GraphQL tools and list_toolsets, describe_operation, call_operation`, async () => {
    const client = await connect();
    const result = await client.listTools();
    const size = JSON.stringify(result).length;
    console.info(`default tools/list (write scope): ${size} characters, ${result.tools.length} tools`);
    expect(size).toBeLessThanOrEqual(LIST_BUDGET);
    const box = toolbox(schema);
    const names = result.tools.map((x) => x.name);
    const expected = box.tools.filter((x) => DEFAULT_TOOLSETS.includes(x.module) || x.module === 'graphql').map((x) => x.tool.name);
    expect(names.sort()).toEqual([...expected, 'list_toolsets', 'describe_operation', 'call_operation'].sort());
    const listed = JSON.stringify(result);
    // no int32 bounds, no REST wording, the decimal rule once (in the instructions), every tool with an object outputSchema
    expect(listed).not.toContain('2147483647');
    expect(listed).not.toContain('REST:');
    expect(listed).not.toContain('trailing slash');
    expect(listed).not.toContain('15 significant digits');
    expect(client.getInstructions()).toContain('15 significant digits');
    for (const tool of result.tools) expect(tool.outputSchema?.type, tool.name).toBe('object');
  });

  it('the full list is what ?modules=all gives, and every toolset has a description for list_toolsets', async () => {
    const all = await (await connect('?modules=all')).listTools();
    expect(all.tools.map((x) => x.name).sort()).toEqual([...operationTools, 'graphql_query', 'graphql_mutation', 'list_toolsets', 'describe_operation', 'call_operation'].sort());
    console.info(`tools/list?modules=all (write scope): ${JSON.stringify(all).length} characters, ${all.tools.length} tools`);
    for (const m of toolbox(schema).modules.filter((x) => x !== 'graphql')) expect(TOOLSET_DESCRIPTIONS[m], m).toBeTruthy();
    // the module names as on REST, or in camelCase, snake_case, capitals
    const named = (await (await connect('?modules=itemCollections;TAX_RETURNS')).listTools()).tools.map((x) => x.name);
    expect(named).toEqual(expect.arrayContaining(['list_item_collections', 'list_tax_returns']));
    expect(named).not.toContain('list_vouchers');
  });

  it('every operation is reachable from the default list: list_toolsets names every tool of the table by toolset, describe_operation describes each', async () => {
    const client = await connect();
    const res = await client.callTool({ name: 'list_toolsets', arguments: {} });
    expect(res.isError).toBeFalsy();
    const { toolsets } = res.structuredContent as { toolsets: { name: string; listed: boolean; tools: string[] }[] };
    expect(toolsets.flatMap((s) => s.tools).sort()).toEqual([...operationTools].sort());
    expect(toolsets.filter((s) => s.listed).map((s) => s.name).sort()).toEqual([...DEFAULT_TOOLSETS].sort());
    const one = await client.callTool({ name: 'list_toolsets', arguments: { toolset: 'documents' } });
    expect(json(one).toolsets[0].tools).toContainEqual(expect.objectContaining({ name: 'create_document', read_only: false }));
    const described = json(await client.callTool({ name: 'describe_operation', arguments: { name: 'create_item' } }));
    expect(described).toMatchObject({ name: 'create_item', toolset: 'items', rest: 'POST /api/v2/items', outputSchema: { type: 'object' }, inputSchema: { required: expect.arrayContaining(['item_no', 'sales_unit_id']) } });
  });

  it('enabling a toolset: ?modules=items lists its tools, and calling one returns structuredContent the SDK client validates', async () => {
    const client = await connect('?modules=items');
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['list_items', 'create_item', 'get_item', 'list_toolsets', 'call_operation']));
    expect(names).not.toContain('list_vouchers');
    const taxCode = await app.db.prisma.taxCode.findFirstOrThrow({ where: { clientAccountId: t.account.id, code: '3' } });
    const created = await client.callTool({ name: 'create_item', arguments: { client_account_id: t.account.id, item_no: 'TS-1', sales_unit_id: 1, tax_code_id: taxCode.id, price: '10.5', with: ['tax_code'] } });
    expect(created.isError, text(created)).toBeFalsy();
    // a record answer that may be null (a nullable GraphQL field) is no object for sure: wrapped as {result}
    expect(created.structuredContent).toEqual({ result: json(created) });
    expect(json(created)).toMatchObject({ item_no: 'TS-1', price: '10.500000', tax_code: { id: taxCode.id } });
    await validWhole(client, 'create_item', created as CallToolResult);
    const listed = await client.callTool({ name: 'list_items', arguments: { client_account_id: t.account.id } });
    expect(listed.structuredContent).toMatchObject({ data: [expect.objectContaining({ item_no: 'TS-1' })], meta: { page: 1 } });
    await validWhole(client, 'list_items', listed as CallToolResult);
  });

  it('call_operation runs an unlisted tool as the tool runs: the same answer, the same validation error, and for a read-only token the same 403 tool error', async () => {
    const writer = await connect();
    const direct = await connect('?modules=items');
    const args = { client_account_id: t.account.id, per_page: 5 };
    const via = await writer.callTool({ name: 'call_operation', arguments: { name: 'list_items', arguments: args } });
    const itself = await direct.callTool({ name: 'list_items', arguments: args });
    expect(via.isError).toBeFalsy();
    expect(via.content).toEqual(itself.content);
    expect(via.structuredContent).toEqual(itself.structuredContent);
    const bad = await writer.callTool({ name: 'call_operation', arguments: { name: 'create_item', arguments: { client_account_id: t.account.id, item_no: 'X' } } });
    const badDirect = await direct.callTool({ name: 'create_item', arguments: { client_account_id: t.account.id, item_no: 'X' } });
    expect(bad.isError).toBe(true);
    expect(bad.content).toEqual(badDirect.content);
    const reader = await connect('', t.user.readToken);
    const readerTools = (await reader.listTools()).tools;
    expect(readerTools.every((x) => x.annotations?.readOnlyHint === true)).toBe(true);
    expect(readerTools.find((x) => x.name === 'call_operation')?.description).toContain('read-only');
    const refused = await reader.callTool({ name: 'call_operation', arguments: { name: 'create_item', arguments: { client_account_id: t.account.id, item_no: 'RO', sales_unit_id: 1, tax_code_id: 1 } } });
    expect(refused.isError).toBe(true);
    expect(json(refused)).toMatchObject({ status: 403 });
    expect(await app.db.prisma.item.count({ where: { itemNo: 'RO' } })).toBe(0);
    const read = await reader.callTool({ name: 'call_operation', arguments: { name: 'list_units', arguments: { per_page: 1 } } });
    expect(read.isError, text(read)).toBeFalsy();
    // the GraphQL tools' errors keep their shape through call_operation
    const gql = await reader.callTool({ name: 'call_operation', arguments: { name: 'graphql_mutation', arguments: { query: 'mutation { deactivateItem(id: 1) { id } }' } } });
    expect(gql.isError).toBe(true);
    const gqlDirect = await reader.callTool({ name: 'graphql_mutation', arguments: { query: 'mutation { deactivateItem(id: 1) { id } }' } });
    expect(json(gql)).toMatchObject({ errors: [{ extensions: { code: 'insufficient_scope' } }] });
    expect(gql.content).toEqual(gqlDirect.content);
  });

  it.each([
    ['call_operation', {}, 'name: is required'],
    ['call_operation', { name: 'no_such_tool' }, 'no tool is named'],
    ['call_operation', { name: 42 }, 'name:'],
    ['call_operation', { name: 'list_units', arguments: [] }, 'arguments: must be a JSON object'],
    ['call_operation', { name: 'list_units', extra: 1 }, 'extra: is not an argument'],
    ['call_operation', { name: 'list_units', arguments: { per_page: 'many' } }, 'per_page'],
    ['describe_operation', {}, 'name: is required'],
    ['describe_operation', { name: ['x'] }, 'name: must be a string'],
    ['describe_operation', { name: 'x'.repeat(10_000) }, 'no tool is named'],
    ['list_toolsets', { toolset: 'nope' }, 'no toolset is named'],
    ['list_toolsets', { toolsets: 'vouchers' }, 'toolsets: is not an argument'],
  ])('bad input to %s (%j) is a tool error {error, status: 400}, not a crash', async (name, args, message) => {
    const client = clients[0] ?? (await connect());
    const res = await client.callTool({ name, arguments: args as Record<string, unknown> });
    expect(res.isError).toBe(true);
    const body = json(res);
    expect(body).toEqual({ error: expect.stringContaining(message), status: 400 });
    expect(body.error.length).toBeLessThan(1000);
  });

  it(`a list tool answers ${TOOL_PAGE_SIZE} records a page and says how to get the next; REST keeps its own default page size`, async () => {
    const client = await connect('?modules=units');
    const first = await client.callTool({ name: 'list_units', arguments: {} });
    const page = first.structuredContent as { data: unknown[]; meta: { page: number; pages: number; per_page: number; records: number } };
    expect(page.meta.records, 'the units of measure are more than a page').toBeGreaterThan(TOOL_PAGE_SIZE);
    expect(page.data).toHaveLength(TOOL_PAGE_SIZE);
    expect(page.meta).toMatchObject({ page: 1, per_page: TOOL_PAGE_SIZE });
    expect(text(first, 1)).toContain('page 2');
    const second = await client.callTool({ name: 'list_units', arguments: { page: 2 } });
    expect((second.structuredContent as typeof page).meta.page).toBe(2);
    const last = await client.callTool({ name: 'list_units', arguments: { page: page.meta.pages } });
    expect(last.content).toHaveLength(1);
    const rest = await app.http('GET', '/api/v2/units', { token: t.user.token });
    expect(rest.body.meta.per_page).toBeGreaterThan(TOOL_PAGE_SIZE);
    const listed = (await client.listTools()).tools.find((x: Tool) => x.name === 'list_units');
    expect(listed?.description).toContain(`${TOOL_PAGE_SIZE} a page`);
  });

  it('structuredContent validates against the whole output schema for every read tool a tenant can call with its client account alone', async () => {
    const client = await connect('?modules=all');
    const { tools } = await client.listTools();
    const box = toolbox(schema);
    const callable = tools.filter((x) => {
      const entry = box.byName.get(x.name);
      const required = (x.inputSchema.required ?? []) as string[];
      return entry?.readOnly && entry.module !== 'graphql' && required.every((r) => r === 'client_account_id');
    });
    expect(callable.length).toBeGreaterThan(10);
    const answered: string[] = [];
    for (const tool of callable) {
      const account = tool.inputSchema.properties?.client_account_id;
      const args = account ? { client_account_id: JSON.stringify(account).includes('array') ? [t.account.id] : t.account.id } : {};
      // the SDK client validates structuredContent against the listed outputSchema (it throws when it does not match)
      const res = await client.callTool({ name: tool.name, arguments: args });
      if (res.isError) continue;
      answered.push(tool.name);
      await validWhole(client, tool.name, res as CallToolResult);
    }
    expect(answered.length).toBeGreaterThan(8);
  });
});
