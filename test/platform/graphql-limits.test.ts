import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getIntrospectionQuery, getNamedType, getNullableType, isListType, isObjectType, parse } from 'graphql';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { schema } from '../../src/schema.ts';
import { compiledOperations } from '../../rest-adapter/index.ts';
import { DEFAULT_QUERY_LIMITS, MAX_NESTING, measureQuery, parseQuery, queryLimitErrors } from '../../src/shared/query-limits.ts';

// Issue 8: "One short query kills the process with a read-only token" (ItemCollection.entries ↔
// ItemCollectionEntry.itemCollection, unbounded nested lists) and "No depth, alias or cost limit"
// (5,000 aliases of items(perPage: 100); a depth-32 nesting gave a 500). Limits answer 4xx within
// milliseconds, before anything runs; a normal request is served meanwhile.

const ENTRIES = 150;

/** The issue's query, verbatim but for the id. */
const CYCLE = (id: number) => `{ itemCollection(id: ${id}) { entries { itemCollection { entries { itemCollection { entries { itemCollection { id } } } } } } } }`;
const ALIASES = (account: number, n = 5000) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: items(clientAccountId: ${account}, perPage: 100) { nodes { id } }`).join(' ')} }`;
/** itemCollection → entries → itemCollection → … until `depth` fields deep (the leaf is `id`). */
const DEEP = (id: number, depth: number) => {
  let inner = 'id';
  for (let level = depth - 1; level > 1; level--) inner = `${level % 2 === 0 ? 'entries' : 'itemCollection'} { ${inner} }`;
  return `{ itemCollection(id: ${id}) { ${inner} } }`;
};

type Limit = { name: string; max: number; actual: number };
const limitsOf = (body: { errors?: { extensions?: { limit?: Limit } }[] }) => (body.errors ?? []).map((e) => e.extensions?.limit?.name);

describe.each(targets())('GraphQL query limits (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let collection: number;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    const prisma = app.db.prisma;
    const [unitId, taxCodeId] = [await app.seed.unitId('H87'), await t.taxCode('3')];
    collection = (await prisma.itemCollection.create({ data: { clientAccountId: t.account.id, collectionType: 'TEMPLATE', name: 'Many entries' } })).id;
    await prisma.itemCollectionEntry.createMany({
      data: Array.from({ length: ENTRIES }, (_, i) => ({ itemCollectionId: collection, clientAccountId: t.account.id, unitId, taxCodeId, quantity: '1', price: String(i) })),
    });
    await prisma.item.createMany({ data: Array.from({ length: 5 }, (_, i) => ({ clientAccountId: t.account.id, itemNo: `L-${i}`, salesUnitId: unitId, taxCodeId })) });
    // the first request of a process loads what every later one shares: timings below are a warm server's
    await app.http('POST', '/graphql', { token: t.user.readToken, body: { query: `{ items(clientAccountId: ${t.account.id}) { nodes { id } } }` } });
  });
  afterAll(() => app?.close());

  /** POST /graphql, timed; `statements`: the SQL it sent that touched collection entries or items. */
  async function timed(query: string, options: { token?: string; variables?: Record<string, unknown> } = {}) {
    app.statements.length = 0;
    const started = performance.now();
    const res = await app.http('POST', '/graphql', { token: options.token ?? t.user.readToken, body: { query, variables: options.variables } });
    const ms = performance.now() - started;
    return { ...res, ms, statements: app.statements.filter((s) => /item_collection_entries|"items"/.test(s)) };
  }

  it(`issue 8 #1: the cycle query on a collection with ${ENTRIES} entries, read-only token → 400 within milliseconds, nothing runs`, async () => {
    const res = await timed(CYCLE(collection));
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringContaining('ItemCollection.entries inside itself'), extensions: { code: 'common.query_too_complex' } });
    expect(limitsOf(res.body)).toEqual(['nested_list', 'cost']);
    expect(res.body.errors[1].extensions.limit).toEqual({ name: 'cost', max: DEFAULT_QUERY_LIMITS.maxCost, actual: 2_020_201 });
    expect(res.statements).toEqual([]);
    expect(res.ms).toBeLessThan(2000);
  });

  it('issue 8 #1: two levels of the same cycle (18k entries in the issue) → 400: a list may appear only once on a path', async () => {
    const res = await timed(`{ itemCollection(id: ${collection}) { entries { itemCollection { entries { id } } } } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        message: 'The query selects the list ItemCollection.entries inside itself; a list may appear only once on a path (query the inner records separately)',
        extensions: { code: 'common.query_too_complex', limit: { name: 'nested_list', max: 1, actual: 2 } },
      },
    ]);
    expect(res.statements).toEqual([]);
  });

  it('issue 8 #1: every cycle is covered, not only the collections one (client accounts ↔ providers)', async () => {
    const res = await timed(`{ clientAccount(id: ${t.account.id}) { providers { servedAccounts { providers { id } } } } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toContain('ClientAccount.providers inside itself');
  });

  it('issue 8 #2: 5,000 aliases of items(perPage: 100) → 400 within milliseconds, before the document is parsed whole', async () => {
    const res = await timed(ALIASES(t.account.id));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { message: 'The query has more than 2,000 tokens, the most a query may have', extensions: { code: 'common.query_too_complex', limit: { name: 'tokens', max: 2000, actual: 2001 } } },
    ]);
    expect(res.statements).toEqual([]);
    expect(res.ms).toBeLessThan(2000);
  });

  it('a name longer than 256 characters → 400 name_length before parsing (graphql-js suggests names for an unknown one, some 40 ms of CPU for a 1 MB name)', async () => {
    const res = await timed(`{ me { ${'y'.repeat(1_000_000)} } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        message: 'The query has a name of 1,000,000 characters; names have at most 256',
        extensions: { code: 'common.query_too_complex', limit: { name: 'name_length', max: 256, actual: 1_000_000 } },
      },
    ]);
    expect((await timed(`{ me { ${'y'.repeat(256)} } }`)).body.errors[0].extensions.code).toBe('common.validation_error');
  });

  it.each([
    ['a variable', 'query($t: [CollectionType!]) { itemCollections(clientAccountId: %ID%, collectionTypes: $t) { nodes { id } } }', { t: ['x'.repeat(1_000_000)] }],
    ['a string literal', `{ itemCollections(clientAccountId: %ID%, collectionTypes: ["${'x'.repeat(1_000_000)}"]) { nodes { id } } }`, undefined],
  ])('a 1 MB value for an enum as %s is refused without "Did you mean", the value cut to 40 characters', async (_as, query, variables) => {
    const res = await timed(query.replace('%ID%', String(t.account.id)), { variables });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('common.validation_error');
    expect(res.body.errors[0].message).toContain(`"${'x'.repeat(40)}…"`);
    expect(res.body.errors[0].message).not.toContain('Did you mean');
    expect(res.text.length).toBeLessThan(1000);
  });

  it('issue 8 #2: within the token limit, aliases, fields and cost are each limited', async () => {
    const res = await timed(ALIASES(t.account.id, 110));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { message: string }) => e.message)).toEqual(['The query has 110 aliases; at most 100 are allowed']);
    expect(res.statements).toEqual([]);
    const fields = await timed(`{ ${'__typename '.repeat(1001)}}`);
    expect(fields.body.errors).toEqual([
      {
        message: 'The query selects 1,001 fields (fragments counted where they are spread); at most 1,000 are allowed',
        extensions: { code: 'common.query_too_complex', limit: { name: 'fields', max: 1000, actual: 1001 } },
      },
    ]);
    // three pages of 100 collections, each with 100 entries and their 12 document lines
    const pages = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `p${i}: itemCollections(clientAccountId: ${t.account.id}, page: ${i + 1}) { nodes { entries { documentLines { id } } } }`).join(' ')} }`;
    const cost = await timed(pages(3));
    expect(cost.status).toBe(400);
    expect(cost.body.errors).toEqual([
      {
        message:
          'The query may return 390,303 objects (page sizes, and 100 for a list without pages, multiplied along each path); at most 250,000 are allowed: ask for smaller pages or fewer nested lists',
        extensions: { code: 'common.query_too_complex', limit: { name: 'cost', max: 250_000, actual: 3 * (1 + 100 * (1 + 100 * (1 + 12))) } },
      },
    ]);
    expect(cost.statements).toEqual([]);
    expect((await timed(pages(1))).status).toBe(200);
  });

  it('issue 8 #2: a depth-32 nesting (was a 500: Prisma JSON recursion, then a stack overflow) → 400 naming the depth', async () => {
    const res = await timed(DEEP(collection, 32));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: 'The query nests 32 fields deep; at most 15 are allowed', extensions: { limit: { name: 'depth', max: 15, actual: 32 } } });
    expect(res.statements).toEqual([]);
    // a chain of single objects is no list, yet depth alone bounds it
    const ofType = await timed(`{ __type(name: "Item") { ${'ofType { '.repeat(31)}name${' }'.repeat(31)} } }`, { token: '' });
    expect(ofType.status).toBe(400);
    expect(limitsOf(ofType.body)).toEqual(['depth']);
  });

  it('a normal request is answered while refused ones arrive', async () => {
    const normal = `{ items(clientAccountId: ${t.account.id}) { nodes { id itemNo } meta { records } } }`;
    const refused = [CYCLE(collection), ALIASES(t.account.id), DEEP(collection, 32)];
    const started = performance.now();
    const [answered, ...rejected] = await Promise.all([
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 20)); // arrives while the refused ones are being read
        const begun = performance.now();
        const res = await app.http('POST', '/graphql', { token: t.user.readToken, body: { query: normal } });
        return { ...res, ms: performance.now() - begun };
      })(),
      ...Array.from({ length: 12 }, (_, i) => app.http('POST', '/graphql', { token: t.user.readToken, body: { query: refused[i % refused.length] } })),
    ]);
    expect(rejected.map((r) => r.status)).toEqual(Array(12).fill(400));
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ data: { items: { nodes: expect.any(Array), meta: { records: 5 } } } });
    expect(answered.ms).toBeLessThan(2000);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('a query within the limits runs: the collection, its entries and their relations', async () => {
    const res = await timed(`{ itemCollection(id: ${collection}) { id entries { id itemCollection { name } unit { symbol } taxCode { code } documentLines { id } } } }`);
    expect(res.status).toBe(200);
    expect(res.body.data.itemCollection.entries).toHaveLength(ENTRIES);
    expect(res.body.data.itemCollection.entries[0]).toMatchObject({ itemCollection: { name: 'Many entries' }, taxCode: { code: '3' }, documentLines: [] });
  });

  it('the page size a variable asks for is counted: the same document passes with 10 per page and is refused with 500', async () => {
    const query = 'query($id: Int!, $n: Int) { accounts(clientAccountId: $id, perPage: $n) { nodes { code allowedTaxCodes { rates { ratePercent } } } } }';
    const small = await timed(query, { variables: { id: t.account.id, n: 10 } });
    expect(small.status).toBe(200);
    expect(small.body.data.accounts.nodes).toHaveLength(10);
    // the same document again (yoga caches validation by document): the variables decide
    const large = await timed(query, { variables: { id: t.account.id, n: 500 } });
    expect(large.status).toBe(400);
    expect(large.body.errors[0].extensions.limit).toEqual({ name: 'cost', max: 250_000, actual: 1 + 500 * (1 + 100 * (1 + 10)) });
    // a page size over the list's maximum counts as the maximum the service serves
    const clamped = await timed(query, { variables: { id: t.account.id, n: 100_000 } });
    expect(clamped.body.errors[0].extensions.limit.actual).toBe(large.body.errors[0].extensions.limit.actual);
  });

  it("GraphiQL's introspection query (15 fields deep) still works, with and without a token", async () => {
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });
    expect(measureQuery(schema, parse(query))[0].depth).toBe(15);
    for (const token of [t.user.readToken, '']) {
      const res = await timed(query, { token });
      expect(res.status).toBe(200);
      expect(res.body.data.__schema.types.length).toBeGreaterThan(50);
    }
  });

  it('a cycle through introspection (__Type.fields → type → ofType → fields) is refused, anonymously too', async () => {
    const res = await timed('{ __schema { types { fields { type { ofType { fields { type { ofType { fields { name } } } } } } } } } }', { token: '' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toContain('__Type.fields inside itself');
  });

  it('fragments count where they are spread: a fragment that spreads the next twice, 30 deep, is measured without expanding it', async () => {
    const fragments = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ${i === 29 ? 'a: __typename' : `...F${i + 1} ...F${i + 1}`} }`);
    // duplicate spreads merge in execution; the document is refused all the same, quickly
    const res = await timed(`{ ...F0 } ${fragments.join(' ')}`, { token: '' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { extensions: { limit: Limit } }) => e.extensions.limit)).toEqual([
      { name: 'aliases', max: 100, actual: 2 ** 29 },
      { name: 'fields', max: 1000, actual: 2 ** 29 },
    ]);
    expect(res.ms).toBeLessThan(2000);
  });

  it('a document of more than 2,000 tokens → 400 naming the limit, before it is parsed whole', async () => {
    const res = await timed(`{ ${'__typename '.repeat(3000)}}`, { token: '' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { message: 'The query has more than 2,000 tokens, the most a query may have', extensions: { code: 'common.query_too_complex', limit: { name: 'tokens', max: 2000, actual: 2001 } } },
    ]);
  });

  it('@include and @skip count as they will run: an excluded branch costs nothing', async () => {
    const query = `query($deep: Boolean!) { itemCollection(id: ${collection}) { id entries @include(if: $deep) { itemCollection { entries { id } } } } }`;
    expect((await timed(query, { variables: { deep: false } })).status).toBe(200);
    expect((await timed(query, { variables: { deep: true } })).status).toBe(400);
  });

  it('the MCP graphql_query tool refuses the same queries the same way, before they run, in the same shape: {errors: [{message, extensions: {code, limit}}]}', async () => {
    const client = new Client({ name: 'limits-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.user.readToken}` } } }));
    try {
      const call = async (query: string) => {
        app.statements.length = 0;
        const res = await client.callTool({ name: 'graphql_query', arguments: { query } });
        return { isError: res.isError, body: JSON.parse((res.content as { text: string }[])[0].text), statements: app.statements.filter((s) => /item_collection_entries|"items"/.test(s)) };
      };
      const cycle = await call(CYCLE(collection));
      expect(cycle.isError).toBe(true);
      expect(cycle.body.errors[0]).toEqual({ message: expect.stringContaining('ItemCollection.entries inside itself'), extensions: { code: 'common.query_too_complex', limit: expect.objectContaining({ name: 'nested_list' }) } });
      expect(limitsOf(cycle.body)).toEqual(['nested_list', 'cost']);
      expect(cycle.statements).toEqual([]);
      const aliases = await call(ALIASES(t.account.id));
      expect(aliases.body).toEqual({
        errors: [{ message: 'The query has more than 2,000 tokens, the most a query may have', extensions: { code: 'common.query_too_complex', limit: { name: 'tokens', max: 2000, actual: 2001 } } }],
      });
      expect(aliases.statements).toEqual([]);
      expect((await call(ALIASES(t.account.id, 110))).body.errors[0].message).toBe('The query has 110 aliases; at most 100 are allowed');
      expect((await call(DEEP(collection, 32))).body.errors[0].message).toBe('The query nests 32 fields deep; at most 15 are allowed');
        const fine = await call(`{ itemCollection(id: ${collection}) { entries { id } } }`);
      expect(fine.isError).toBeFalsy();
      expect(fine.body.data.itemCollection.entries).toHaveLength(ENTRIES);
    } finally {
      await client.close();
    }
  });

  it('the limits come from the configuration (GRAPHQL_MAX_DEPTH …)', async () => {
    const strict = await startTestApp(target, { env: { GRAPHQL_MAX_DEPTH: '3', GRAPHQL_MAX_COST: '50' } });
    try {
      const { user } = await strict.seed.tenant();
      const ok = await strict.http('POST', '/graphql', { token: user.readToken, body: { query: '{ me { user { id } } }' } });
      expect(ok.status).toBe(200);
      const deep = await strict.http('POST', '/graphql', { token: user.readToken, body: { query: '{ me { clientAccounts { memberships { id } } } }' } });
      expect(deep.status).toBe(400);
      expect(deep.body.errors.map((e: { extensions: { limit: Limit } }) => e.extensions.limit)).toEqual([
        { name: 'depth', max: 3, actual: 4 },
        { name: 'cost', max: 50, actual: 1 + 100 * (1 + 100) },
      ]);
    } finally {
      await strict.close();
    }
  });
});

describe('GraphQL query limits and the schema', () => {
  it.each(compiledOperations(schema).map((c) => [`${c.op.method} ${c.op.path}`, c] as const))(
    '%s: its document, with every `with` relation and the largest page, is within the default limits',
    (_name, compiled) => {
      const variables: Record<string, unknown> = { perPage: 1_000_000 };
      for (const v of compiled.withVariables.values()) variables[v] = true;
      expect(queryLimitErrors(schema, compiled.document, DEFAULT_QUERY_LIMITS, { variables }).map((e) => e.message)).toEqual([]);
    },
  );

  it.each([
    ['fields', (n: number) => `{ __type(name: "Item") { ${'ofType { '.repeat(n)}name${' }'.repeat(n)} } }`],
    ['a list value', (n: number) => `{ currency(code: ${'['.repeat(n)}"NOK"${']'.repeat(n)}) { code } }`],
  ])('%s nested 5,000 deep are refused before parsing (the parser would overflow the stack), whatever the token limit', (_name, query) => {
    expect(() => parseQuery(query(5000), { maxTokens: 1_000_000 })).toThrow(`The query nests brackets more than ${MAX_NESTING} levels deep`);
    expect(() => parseQuery(query(MAX_NESTING - 3), { maxTokens: 1_000_000 })).not.toThrow();
  });

  it('every page field declares the page limits its service applies (so its nodes are counted as served)', () => {
    const paged = Object.values(schema.getTypeMap())
      .filter(isObjectType)
      .flatMap((type) => Object.values(type.getFields()).map((f) => ({ coordinate: `${type.name}.${f.name}`, field: f })))
      .filter(({ field }) => field.args.some((a) => a.name === 'perPage'));
    expect(paged.length).toBeGreaterThanOrEqual(7);
    for (const { coordinate, field } of paged) {
      expect({ coordinate, page: (field.extensions.queryCost as { page?: unknown } | undefined)?.page }).toEqual({ coordinate, page: { defaultPerPage: expect.any(Number), maxPerPage: expect.any(Number) } });
      const nodes = (getNamedType(field.type) as import('graphql').GraphQLObjectType).getFields().nodes;
      expect(nodes && isListType(getNullableType(nodes.type))).toBe(true);
    }
  });

  it('the largest REST document costs most (per_page=100 with every relation): the cost limit leaves it room', () => {
    const costs = compiledOperations(schema).map((c) => {
      const variables: Record<string, unknown> = { perPage: 100 };
      for (const v of c.withVariables.values()) variables[v] = true;
      return measureQuery(schema, c.document, { variables })[0].cost;
    });
    // 100 collections × (1 + 100 entries × (1 + item, unit, tax code, partner + 12 document lines)), and the page's meta
    expect(Math.max(...costs)).toBe(1 + 100 * (1 + 100 * 17) + 1);
    expect(Math.max(...costs)).toBeLessThan(DEFAULT_QUERY_LIMITS.maxCost);
  });
});
