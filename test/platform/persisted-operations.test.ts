import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheExchange, Client, fetchExchange, gql } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { ClientError, GraphQLClient } from 'graphql-request';
import { getIntrospectionQuery } from 'graphql';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { checkTrustedDocuments, OperationCache, sha256Hex } from '../../src/shared/persisted-operations.ts';
import { schema } from '../../src/schema.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

// Issue: "Trusted documents for production frontends: persisted operations by hash (the APQ protocol
// Apollo and urql speak), GET for queries so a CDN or browser cache can serve them". On the wire with
// real clients: urql's persisted exchange (APQ over GET) and graphql-request (GET).

const PROJECTS = `query Projects($clientAccountId: Int!) { projects(clientAccountId: $clientAccountId) { nodes { id name } } }`;
const CREATE_PROJECT = `mutation CreateProject($input: CreateProjectInput!) { createProject(input: $input) { id name } }`;

/** what a client sent and got, per request */
interface Exchange {
  method: string;
  url: URL;
  body?: any;
  status: number;
  headers: Headers;
}

/** a fetch that records every request and its answer's status and headers */
function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    log.push({ method: init?.method ?? 'GET', url: new URL(String(input)), body, status: res.status, headers: res.headers });
    return res;
  };
}

/** an urql client with its persisted exchange (APQ, queries by GET), recording into `log` */
function urqlClient(url: string, token: string, log: Exchange[], options: Parameters<typeof persistedExchange>[0] = {}): Client {
  return new Client({
    url: `${url}/graphql`,
    exchanges: [cacheExchange, persistedExchange({ preferGetForPersistedQueries: true, ...options }), fetchExchange],
    fetch: recordingFetch(log),
    fetchOptions: { headers: { authorization: `Bearer ${token}` } },
    requestPolicy: 'network-only',
  });
}

const apqExtensions = (document: string) => JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256Hex(document) } });

describe.each(targets())('persisted operations by hash (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    await app.gql(t.user.token, CREATE_PROJECT, { input: { clientAccountId: t.account.id, name: 'Seeded' } });
  });
  afterAll(() => app?.close());

  it("urql's persisted exchange: an unknown hash is PersistedQueryNotFound over GET, the client sends the document, later calls send the hash alone over GET", async () => {
    const log: Exchange[] = [];
    const client = urqlClient(app.url, t.user.readToken, log);
    const query = gql(PROJECTS);
    const first = await client.query(query, { clientAccountId: t.account.id }).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data.projects.nodes).toEqual([expect.objectContaining({ name: 'Seeded' })]);
    // the hash alone, over GET: not known yet → 404 PersistedQueryNotFound, never cached
    expect(log[0].method).toBe('GET');
    expect(log[0].url.searchParams.get('query')).toBeNull();
    expect(JSON.parse(log[0].url.searchParams.get('extensions')!).persistedQuery).toEqual({ version: 1, sha256Hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(log[0].status).toBe(404);
    expect(log[0].headers.get('cache-control')).toBe('no-store');
    // then the document with its hash, which registers it
    expect(log[1].status).toBe(200);
    expect(log[1].url.searchParams.get('query') ?? log[1].body?.query).toContain('projects(clientAccountId: $clientAccountId)');
    expect(log).toHaveLength(2);

    // a second client (another tab) with the same document: one GET, by hash alone
    const again: Exchange[] = [];
    const second = urqlClient(app.url, t.user.readToken, again);
    const hit = await second.query(query, { clientAccountId: t.account.id }).toPromise();
    expect(hit.data.projects.nodes).toHaveLength(1);
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ method: 'GET', status: 200 });
    expect(again[0].url.searchParams.get('query')).toBeNull();
    // an answer for this token only: a browser may keep it but must ask again, no shared cache keeps it
    expect(again[0].headers.get('cache-control')).toBe('private, no-cache');
    expect(again[0].headers.get('vary')).toMatch(/Authorization/i);
  });

  it('the unknown-hash error keeps the protocol\'s message and code, which the clients read', async () => {
    const document = `query NeverSeen { me { user { id } } }`;
    const res = await app.http('GET', `/graphql?extensions=${encodeURIComponent(apqExtensions(document))}`, { token: t.user.readToken, headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
  });

  it("Apollo's GET form (operationName, variables and extensions in the query string) through the middlewares in front of yoga, with a bearer token", async () => {
    const variables = JSON.stringify({ clientAccountId: t.account.id });
    const register = await app.http('GET', `/graphql?query=${encodeURIComponent(PROJECTS)}&operationName=Projects&variables=${encodeURIComponent(variables)}&extensions=${encodeURIComponent(apqExtensions(PROJECTS))}`, { token: t.user.readToken });
    expect(register.status).toBe(200);
    const byHash = await app.http('GET', `/graphql?operationName=Projects&variables=${encodeURIComponent(variables)}&extensions=${encodeURIComponent(apqExtensions(PROJECTS))}`, { token: t.user.readToken });
    expect(byHash.status).toBe(200);
    expect(byHash.body.data.projects.nodes).toEqual([expect.objectContaining({ name: 'Seeded' })]);
    expect(byHash.headers.get('x-request-id')).toBeTruthy();
    expect(byHash.headers.get('ratelimit-policy') ?? byHash.headers.get('ratelimit')).toBeTruthy();
    // another user's token reads nothing of this account through the same hash
    const other = await app.seed.tenant();
    const foreign = await app.http('GET', `/graphql?operationName=Projects&variables=${encodeURIComponent(variables)}&extensions=${encodeURIComponent(apqExtensions(PROJECTS))}`, { token: other.user.readToken });
    expect(foreign.body.errors[0].extensions.code).toBe('common.forbidden');
    expect(foreign.headers.get('cache-control')).toBe('no-store');
    // no token: 401 as a GraphQL response, as for a document sent in full
    const anonymous = await app.http('GET', `/graphql?operationName=Projects&variables=${encodeURIComponent(variables)}&extensions=${encodeURIComponent(apqExtensions(PROJECTS))}`, { headers: { accept: 'application/json' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('cache-control')).toBe('no-store');
  });

  it('a hash that is not the SHA-256 of the document sent with it → 400, nothing registered', async () => {
    const document = `query Mismatch { me { user { id } } }`;
    const wrong = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256Hex('something else') } });
    const res = await app.http('POST', '/graphql', { token: t.user.readToken, body: { query: document, extensions: JSON.parse(wrong) } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringContaining('PersistedQueryMismatch'), extensions: { code: 'common.validation_error' } });
    const lookup = await app.http('POST', '/graphql', { token: t.user.readToken, body: { extensions: JSON.parse(wrong) } });
    expect(lookup.status).toBe(404);
  });

  it('a document that does not validate is not registered', async () => {
    const document = `query Invalid { noSuchField }`;
    const sent = await app.http('POST', '/graphql', { token: t.user.readToken, body: { query: document, extensions: JSON.parse(apqExtensions(document)) } });
    expect(sent.body.errors[0].message).toContain('noSuchField');
    const lookup = await app.http('POST', '/graphql', { token: t.user.readToken, body: { extensions: JSON.parse(apqExtensions(document)) } });
    expect(lookup.body.errors[0].message).toBe('PersistedQueryNotFound');
  });

  it('without a token only what the caller may run is registered: introspection yes, a query of private fields no (401, not kept)', async () => {
    const schemaQuery = '{ __schema { mutationType { name } } }';
    const privateQuery = '{ me { user { email } } }';
    const anonymous = { accept: 'application/json' };
    expect((await app.http('POST', '/graphql', { body: { query: schemaQuery, extensions: JSON.parse(apqExtensions(schemaQuery)) }, headers: anonymous })).status).toBe(200);
    expect((await app.http('POST', '/graphql', { body: { query: privateQuery, extensions: JSON.parse(apqExtensions(privateQuery)) }, headers: anonymous })).status).toBe(401);
    const known = await app.http('POST', '/graphql', { token: t.user.readToken, body: { extensions: JSON.parse(apqExtensions(schemaQuery)) } });
    expect(known.body.data.__schema.mutationType.name).toBe('Mutation');
    const unknown = await app.http('POST', '/graphql', { token: t.user.readToken, body: { extensions: JSON.parse(apqExtensions(privateQuery)) } });
    expect(unknown.body.errors[0].message).toBe('PersistedQueryNotFound');
  });

  it('graphql-request over GET: a query with variables runs (and its mutations go by POST); a mutation over GET is refused 405 (GraphQL over HTTP), also by hash', async () => {
    const log: Exchange[] = [];
    const client = new GraphQLClient(`${app.url}/graphql`, { method: 'GET', headers: { authorization: `Bearer ${t.user.token}` }, fetch: recordingFetch(log) });
    const data = await client.request<{ projects: { nodes: { name: string }[] } }>(PROJECTS, { clientAccountId: t.account.id });
    expect(data.projects.nodes.map((p) => p.name)).toEqual(['Seeded']);
    expect(log[0]).toMatchObject({ method: 'GET', status: 200 });
    expect(log[0].headers.get('cache-control')).toBe('private, no-cache');
    // graphql-request itself sends a mutation by POST even with method GET
    const invalid = await client.request(CREATE_PROJECT, { input: { clientAccountId: t.account.id, name: '' } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ClientError);
    expect(log[1].method).toBe('POST');

    const overGet = await app.http('GET', `/graphql?query=${encodeURIComponent(CREATE_PROJECT)}&variables=${encodeURIComponent(JSON.stringify({ input: { clientAccountId: t.account.id, name: 'Over GET' } }))}`, { token: t.user.token });
    expect(overGet.status).toBe(405);
    expect(overGet.body.errors[0].extensions.code).toBe('common.method_not_allowed');

    // registered over POST, then asked for by hash over GET: still 405, nothing created
    await app.http('POST', '/graphql', { token: t.user.token, body: { query: CREATE_PROJECT, variables: { input: { clientAccountId: t.account.id, name: 'Registered' } }, extensions: JSON.parse(apqExtensions(CREATE_PROJECT)) } });
    const byHash = await app.http('GET', `/graphql?variables=${encodeURIComponent(JSON.stringify({ input: { clientAccountId: t.account.id, name: 'By hash over GET' } }))}&extensions=${encodeURIComponent(apqExtensions(CREATE_PROJECT))}`, { token: t.user.token });
    expect(byHash.status).toBe(405);
    expect(byHash.headers.get('allow')).toBe('POST');
    expect(byHash.headers.get('cache-control')).toBe('no-store');
    const names = (await app.db.prisma.project.findMany({ where: { clientAccountId: t.account.id }, select: { name: true } })).map((p) => p.name).sort();
    expect(names).toEqual(['Registered', 'Seeded']);
  });

  it('a persisted mutation sent by hash honours Idempotency-Key: the retry is replayed, one project', async () => {
    const input = { clientAccountId: t.account.id, name: 'Idempotent by hash' };
    const document = `mutation CreateOne($input: CreateProjectInput!) { createProject(input: $input) { id } }`;
    // urql registers mutations too when asked (enableForMutation); here the protocol by hand
    const miss = await app.http('POST', '/graphql', { token: t.user.token, body: { variables: { input }, extensions: JSON.parse(apqExtensions(document)) } });
    expect(miss.status).toBe(404);
    await app.http('POST', '/graphql', { token: t.user.token, body: { query: document, variables: { input: { ...input, name: 'Registering' } }, extensions: JSON.parse(apqExtensions(document)) } });
    const body = { variables: { input }, extensions: JSON.parse(apqExtensions(document)) };
    const headers = { 'idempotency-key': `apq-${t.account.id}` };
    const first = await app.http('POST', '/graphql', { token: t.user.token, body, headers });
    const retry = await app.http('POST', '/graphql', { token: t.user.token, body, headers });
    expect(first.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await app.db.prisma.project.count({ where: { clientAccountId: t.account.id, name: input.name } })).toBe(1);
  });

  it('without a token, introspection over GET is public for a while (a CDN may keep the schema); the public fields are not kept', async () => {
    const res = await app.http('GET', `/graphql?query=${encodeURIComponent('{ __schema { queryType { name } } }')}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('vary')).toMatch(/Authorization/i);
    const full = await app.http('GET', `/graphql?query=${encodeURIComponent(getIntrospectionQuery())}`, { headers: { accept: 'application/json' } });
    expect(full.status).toBe(200);
    const invitation = await app.http('GET', `/graphql?query=${encodeURIComponent('{ publicInvitation(token: "nope") { status } }')}`, { headers: { accept: 'application/json' } });
    expect(invitation.headers.get('cache-control')).toBe('no-store');
    // POST answers get no cache headers of ours
    const post = await app.http('POST', '/graphql', { token: t.user.readToken, body: { query: PROJECTS, variables: { clientAccountId: t.account.id } } });
    expect(post.headers.get('cache-control')).toBeNull();
  });
});

describe.each(targets())('trusted documents only: GRAPHQL_PERSISTED_OPERATIONS with GRAPHQL_PERSISTED_OPERATIONS_ONLY (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  const dir = mkdtempSync(join(tmpdir(), 'persisted-ops-'));
  const manifest = join(dir, 'persisted-documents.json');

  beforeAll(async () => {
    // one key as client-preset writes it (`sha256:<hex>`), found by the bare hex APQ clients send too
    writeFileSync(manifest, JSON.stringify({ [`sha256:${sha256Hex(PROJECTS)}`]: PROJECTS, [sha256Hex(CREATE_PROJECT)]: CREATE_PROJECT }));
    app = await startTestApp(target, { env: { GRAPHQL_PERSISTED_OPERATIONS: manifest, GRAPHQL_PERSISTED_OPERATIONS_ONLY: 'true' } });
    t = await app.seed.tenant();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a trusted document runs by its hash, a mutation over POST and a query over GET with urql', async () => {
    const created = await app.http('POST', '/graphql', {
      token: t.user.token,
      body: { variables: { input: { clientAccountId: t.account.id, name: 'Trusted' } }, extensions: JSON.parse(apqExtensions(CREATE_PROJECT)) },
    });
    expect(created.status).toBe(200);
    expect(created.body.data.createProject.name).toBe('Trusted');
    const log: Exchange[] = [];
    // urql's enforcePersistedQueries: the hash alone, never the document; the hash is the manifest's
    // (client-preset's documents carry it as `__meta__.hash`, which generateHash returns)
    const client = urqlClient(app.url, t.user.readToken, log, { enforcePersistedQueries: true, generateHash: async () => sha256Hex(PROJECTS) });
    const result = await client.query(gql(PROJECTS), { clientAccountId: t.account.id }).toPromise();
    expect(result.data.projects.nodes.map((p: { name: string }) => p.name)).toEqual(['Trusted']);
    expect(log.map((e) => [e.method, e.status])).toEqual([['GET', 200]]);
  });

  it('any other document is refused before it runs (400), also with a hash; an unknown hash is 404', async () => {
    const own = await app.http('POST', '/graphql', { token: t.user.readToken, body: { query: '{ me { user { id } } }' } });
    expect(own.status).toBe(400);
    expect(own.body.errors[0]).toMatchObject({ message: expect.stringContaining('Only trusted documents run here'), extensions: { code: 'common.validation_error' } });
    const document = '{ me { user { id } } }';
    const registering = await app.http('POST', '/graphql', { token: t.user.readToken, body: { query: document, extensions: JSON.parse(apqExtensions(document)) } });
    expect(registering.status).toBe(400);
    const unknown = await app.http('POST', '/graphql', { token: t.user.readToken, body: { extensions: JSON.parse(apqExtensions(document)) } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});

describe('persisted operations: the registry and the configuration', () => {
  it('the APQ registry is a bounded LRU: by operations and by characters, the least recently used goes first', () => {
    const cache = new OperationCache(2, 30);
    cache.set('a', 'query A { x }');
    cache.set('b', 'query B { x }');
    expect(cache.get('a')).toBe('query A { x }'); // a is now the most recent
    cache.set('c', 'query C { x }');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['query A { x }', undefined, 'query C { x }']);
    cache.set('d', 'query D { a b c d e f g h }'); // 26 characters: a and c (13 each) must go
    expect(cache.size).toBe(1);
    cache.set('e', 'x'.repeat(31)); // larger than the whole registry: not kept
    expect(cache.get('e')).toBeUndefined();
  });

  it('a trusted document that does not match the schema stops the server at boot, naming its hash', () => {
    expect(() => checkTrustedDocuments(schema, new Map([['h1', PROJECTS]]))).not.toThrow();
    expect(() => checkTrustedDocuments(schema, new Map([['h2', '{ noSuchField }']]))).toThrow(/h2 does not match the schema: Cannot query field "noSuchField"/);
    expect(() => checkTrustedDocuments(schema, new Map([['h3', 'query {']]))).toThrow(/h3 does not parse/);
  });

  it('GRAPHQL_PERSISTED_OPERATIONS_ONLY without a manifest, or a manifest that is not {hash: document}, stops the process at boot naming the variable', () => {
    expect(() => loadConfig({ GRAPHQL_PERSISTED_OPERATIONS_ONLY: 'true' })).toThrow(/GRAPHQL_PERSISTED_OPERATIONS_ONLY: needs GRAPHQL_PERSISTED_OPERATIONS/);
    const dir = mkdtempSync(join(tmpdir(), 'persisted-ops-config-'));
    try {
      writeFileSync(join(dir, 'list.json'), '["query { me { user { id } } }"]');
      expect(() => loadConfig({ GRAPHQL_PERSISTED_OPERATIONS: join(dir, 'list.json') })).toThrow(ConfigError);
      expect(() => loadConfig({ GRAPHQL_PERSISTED_OPERATIONS: join(dir, 'missing.json') })).toThrow(/GRAPHQL_PERSISTED_OPERATIONS: cannot read/);
      writeFileSync(join(dir, 'ok.json'), JSON.stringify({ abc: '{ me { user { id } } }' }));
      expect(loadConfig({ GRAPHQL_PERSISTED_OPERATIONS: join(dir, 'ok.json') }).persistedOperations).toEqual({ trusted: new Map([['abc', '{ me { user { id } } }']]), only: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
