import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema.ts';
import { compiledOperations } from '../../rest-adapter/index.ts';
import { operationPaths, restPath } from '../../rest-adapter/operation.ts';
import { startTestApp, targets, type HttpResult, type TestApp } from '../support/harness.ts';
import { decode, oauthKit, type OauthUser } from '../support/oauth.ts';
import { fixtureWorld, validArguments, validRequest, wireKeys, type FixtureWorld } from '../support/valid-requests.ts';

// spec 000, Authentication 6: "A token without write cannot perform POST, PUT, PATCH or DELETE" and
// "On the tool endpoint the write rule applies per tool"; "a token without write may call only tools
// annotated readOnlyHint, and tools/list returns only those tools". The walk covers every entry of
// the operation table: each write is sent as it would succeed (the hostile sweep's valid request, on
// a tenant owning one record of every kind) with a real OAuth access token of scope read, and must be
// refused with nothing changed anywhere in the database.

/** The methods the spec's sentence names (not the code's list, so the walk checks the code against the spec). */
const SPEC_WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const compiled = compiledOperations(schema);
/** Every write of the table under /api/v2 (the public /public/v2 entries take no token at all). */
const restWrites = compiled.filter((c) => SPEC_WRITE_METHODS.includes(c.op.method) && !c.op.public);
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
/** Counts requests by design (every request adds to its user's window): no record of anything a write does. */
const REQUEST_COUNTERS = 'public.rate_limit_counters';

describe.each(targets())('the write scope on every write of the operation table (%s)', (target) => {
  let app: TestApp;
  let world: FixtureWorld;
  let readToken: string;
  let writeToken: string;

  beforeAll(async () => {
    app = await startTestApp(target);
    world = await fixtureWorld(app);
    // real OAuth access tokens (JWTs) acting as the tenant's user: a client_credentials client of the user's own
    const kit = oauthKit(app);
    const owner = { sessionToken: world.t.user.token } as OauthUser;
    const client = await kit.ownedClient(owner, { grant_types: 'client_credentials', scope: 'read write' });
    const token = async (scope: string) => {
      const res = await kit.token({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope });
      expect(res.status, res.text).toBe(200);
      return res.body.access_token as string;
    };
    readToken = await token('read');
    writeToken = await token('write');
    expect(decode(readToken)).toMatchObject({ scope: 'read', user_id: world.t.user.id });
  });
  afterAll(() => app?.close());

  /**
   * What the database holds, table by table: its rows and a hash of their content (an insert, an
   * update or a delete in any table, the job queue's included, changes it). Exact because test files
   * run one at a time against a database (CI; TEST_WORKERS above 1 on PostgreSQL would let another
   * file's writes in).
   */
  async function fingerprint(): Promise<Record<string, string>> {
    const tables = await app.db.prisma.$queryRawUnsafe<{ name: string }[]>(
      `SELECT schemaname || '.' || tablename AS name FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
    );
    const sql = tables
      .filter((t) => t.name !== REQUEST_COUNTERS)
      .map((t) => {
        const [schemaName, table] = t.name.split('.');
        return `SELECT '${t.name}' AS name, count(*)::int AS rows, md5(coalesce(string_agg(md5(x::text), '' ORDER BY md5(x::text)), '')) AS hash FROM "${schemaName}"."${table}" AS x`;
      })
      .join(' UNION ALL ');
    const rows = await app.db.prisma.$queryRawUnsafe<{ name: string; rows: number; hash: string }[]>(sql);
    return Object.fromEntries(rows.map((r) => [r.name, `${r.rows} rows ${r.hash}`]));
  }

  /** The request of an entry as the hostile sweep sends it before putting anything hostile in. */
  function request(c: (typeof compiled)[number]) {
    const { params, query, body } = validRequest(c, world.ctx);
    const q = Object.entries(query).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
    const path = `${restPath(c.op).replace(/:(\w+)/g, (_m, k: string) => encodeURIComponent(params[k]))}${q ? `?${q}` : ''}`;
    return { path, body: body && c.bodyVariable ? wireKeys(body, c.bodyVariable.type) : body };
  }

  // ?modules=all: every tool listed (without it tools/list shows the default toolsets, src/mcp/toolsets.ts)
  const mcp = (token: string, method: string, params?: unknown) => app.http('POST', '/mcp?modules=all', { token, headers: MCP_HEADERS, body: { jsonrpc: '2.0', id: 1, method, params } });

  it('spec 000: "A token without write cannot perform POST, PUT, PATCH or DELETE": every such entry answers 403 insufficient_scope to a read-only token, and nothing changes', async () => {
    // the three POSTs that store nothing (and two of which call the tax authority) are writes too
    expect(restWrites.map((c) => c.toolName)).toEqual(expect.arrayContaining(['preview_document', 'fetch_prefilled_tax_data', 'validate_tax_return']));
    const before = await fingerprint();
    const wrong: string[] = [];
    for (const c of restWrites) for (const at of operationPaths(c.op)) {
      const { path, body } = request({ ...c, op: { ...c.op, path: at } });
      const res: HttpResult = await app.http(c.op.method, path, { token: readToken, body });
      const challenge = res.headers.get('www-authenticate') ?? '';
      const shaped =
        c.op.errorShape === 'envelope'
          ? res.body?.error?.code === 'insufficient_scope' && /^[0-9a-f-]{36}$/.test(res.body.error.request_id)
          : res.body?.error === "This operation requires the 'write' scope" && res.body.status === 403;
      if (res.status !== 403 || !challenge.includes('error="insufficient_scope"') || !challenge.includes('scope="write"') || !shaped) {
        wrong.push(`${c.op.method} ${path}: ${res.status} ${challenge} ${res.text.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await fingerprint()).toEqual(before);
  });

  it('spec 000: "tools/list returns only those tools" (annotated readOnlyHint) to a token without write: exactly the GET entries and graphql_query', async () => {
    const res = await mcp(readToken, 'tools/list');
    expect(res.status, res.text).toBe(200);
    const tools = res.body.result.tools as { name: string; annotations?: { readOnlyHint?: boolean } }[];
    expect(tools.filter((t) => t.annotations?.readOnlyHint !== true)).toEqual([]);
    // list_toolsets, describe_operation, and call_operation, which for a read-only token calls read-only tools only
    const expected = [...compiled.filter((c) => c.op.method === 'GET').map((c) => c.toolName), 'graphql_query', 'list_toolsets', 'describe_operation', 'call_operation'];
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
  });

  it('spec 000: "On the tool endpoint the write rule applies per tool": every tool that is not readOnlyHint refuses a read-only token, and nothing changes', async () => {
    const listed = await mcp(writeToken, 'tools/list');
    const tools = listed.body.result.tools as { name: string; inputSchema: { properties: Record<string, unknown> }; annotations: { readOnlyHint: boolean } }[];
    const writeTools = tools.filter((t) => !t.annotations.readOnlyHint);
    // every POST, PUT, PATCH and DELETE of the table is one of them (the public invitation accept too: the tool endpoint always has a token)
    const writeEntries = compiled.filter((c) => SPEC_WRITE_METHODS.includes(c.op.method));
    expect(writeTools.map((t) => t.name).sort()).toEqual([...writeEntries.map((c) => c.toolName), 'graphql_mutation', 'call_operation'].sort());
    const before = await fingerprint();
    const wrong: string[] = [];
    for (const tool of writeTools) {
      const c = writeEntries.find((e) => e.toolName === tool.name);
      const updateMe = { query: 'mutation($i: UpdateMeInput!) { updateMe(input: $i) { id } }', variables: { i: { firstName: 'Changed' } } };
      // call_operation naming a write tool: that tool's refusal
      const args = c ? validArguments(c, world.ctx, 'body' in tool.inputSchema.properties) : tool.name === 'call_operation' ? { name: 'graphql_mutation', arguments: updateMe } : updateMe;
      const res = await mcp(readToken, 'tools/call', { name: tool.name, arguments: args });
      const result = res.body?.result as { isError?: boolean; content: { text: string }[] } | undefined;
      const error = result?.isError ? JSON.parse(result.content[0].text) : undefined;
      const refused = error?.status === 403 || error?.errors?.[0]?.extensions?.code === 'insufficient_scope';
      if (res.status !== 200 || !refused) wrong.push(`${tool.name}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
    expect(await fingerprint()).toEqual(before);
  });

  it('the fingerprint sees a write: the same kind of request with a write token changes it (so "nothing changes" above can fail)', async () => {
    const create = restWrites.find((c) => c.op.method === 'POST' && c.op.path === '/projects')!;
    const before = await fingerprint();
    const { path, body } = request(create);
    const res = await app.http('POST', path, { token: writeToken, body });
    expect(res.status, res.text).toBe(201);
    const after = await fingerprint();
    expect(Object.keys(after).filter((table) => after[table] !== before[table])).toContain('public.projects');
  });
});
