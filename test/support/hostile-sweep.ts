import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getNamedType, getVariableValues, GraphQLString, isNonNullType, Kind, parse, validate, type GraphQLArgument, type GraphQLField, type OperationDefinitionNode } from 'graphql';
import { schema } from '../../src/schema.ts';
import { compiledOperations } from '../../rest-adapter/index.ts';
import { operationVariables } from '../../rest-adapter/variables.ts';
import type { CompiledOperation } from '../../rest-adapter/compile.ts';
import { restPath } from '../../rest-adapter/operation.ts';
import { toSnake } from '../../src/shared/naming.ts';
import { ResponseMismatchError } from '../support/openapi-validator.ts';
import { sharedOut, startTestApp, targets, type HttpResult, type Target, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { fixtureWorld, ownType, validArguments, validRequest, wireKeys } from './valid-requests.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import {
  baseline,
  HOSTILE_PARAMS,
  HOSTILE_VALUES,
  literalValues,
  longList,
  MB,
  MCP_VALUES,
  PARAM_SHAPES,
  placeAt,
  pool,
  positions,
  Raw,
  toJson,
  toLiteral,
  typeAt,
  valuesFor,
  type BaselineContext,
  type Hostile,
} from '../support/hostile.ts';

// Issue 8, "Tests": "a sweep test that sends a generated set of hostile values (NUL, prototype keys,
// deep nesting, huge numbers, 1 MB strings, invalid dates, arrays for scalars) to every route of the
// operation table and every GraphQL field argument and asserts 4xx JSON, never 5xx — generated from
// the table, so new modules are covered without new code"; "None of the requests above gets a 5xx".
// The cases come from the operation table, the schema and the MCP tool list: one hostile value goes
// into one place of an otherwise valid request (test/support/hostile.ts), so it gets as far as the
// value lets it. Besides "no 5xx": an error is JSON in the entry point's shape and never echoes the
// input back, and no field takes a 1 MB string.

/** Requests in flight at once per case (keep-alive HTTP to the one app of the file). */
const CONCURRENCY = 4;
/** An error answer longer than this echoes input back (a bounded message and at most 20 issues stay well below). */
const MAX_ERROR_LENGTH = 16 * 1024;

const compiled = compiledOperations(schema);

/** What deletes or deactivates the fixtures other cases point at runs last. */
const destructive = (name: string) => /^(Mutation\.)?(DELETE |delete|deactivate|revoke|unlink|changePassword)/.test(name);
const lastIfDestructive = <T extends [string, ...unknown[]]>(cases: T[]): T[] => [...cases].sort((a, b) => Number(destructive(a[0])) - Number(destructive(b[0])));

/** A line the app logged, as a failure shows it: its message, the error's and the first frames of its stack. */
function loggedError(line: string): string {
  const { msg, err } = JSON.parse(line) as { msg?: string; err?: { type?: string; message?: string; stack?: string } };
  return `logged: ${msg}: ${err?.type ?? ''} ${err?.stack?.split('\n').slice(0, 6).join(' | ') ?? err?.message ?? ''}`;
}

interface Sent {
  /** the value and where it went, as a failure names it */
  name: string;
  /** the answer's problem, or undefined */
  send(): Promise<string | undefined>;
}

// ── REST cases: each parameter of each operation ──────────────────────────────────────────────

type Where = 'path' | 'query' | 'body' | 'whole body' | 'request';
interface RestCase {
  c: CompiledOperation;
  where: Where;
  /** wire name of the path or query parameter, or of the body field */
  wire: string;
  /** body: where the value goes (GraphQL field names; the body variable's, or the body field's below `wire`) */
  path?: (string | number)[];
}

const wirePath = (p: (string | number)[]) => p.map((s) => (typeof s === 'number' ? s : toSnake(s))).join('.');

function restCases(): [string, RestCase][] {
  const out: [string, RestCase][] = [];
  for (const c of compiled) {
    const add = (param: string, rc: Omit<RestCase, 'c'>) => out.push([`${c.op.method} ${restPath(c.op)} ${param}`, { c, ...rc }]);
    const bound = new Set(c.boundFields.map((b) => b.field));
    for (const v of c.variables) {
      if (v.source === 'path' || v.source === 'query') add(`${v.source} ${v.wire}`, { where: v.source, wire: v.wire });
      else if (v.source === 'body') {
        for (const p of positions(v.type)) if (p.length && !bound.has(String(p[0]))) add(`body ${wirePath(p)}`, { where: 'body', wire: v.wire, path: p });
      } else for (const p of positions(v.type)) add(`body ${wirePath([v.wire, ...p])}`, { where: 'body', wire: v.wire, path: p });
    }
    for (const b of c.boundFields) if (!c.variables.some((v) => v.source === 'path' && v.wire === b.wire)) add(`path ${b.wire}`, { where: 'path', wire: b.wire });
    if (c.op.with) add('query with', { where: 'query', wire: 'with' });
    if (c.op.method !== 'GET') add('the whole body', { where: 'whole body', wire: '' });
    add('the whole request', { where: 'request', wire: '' });
  }
  return lastIfDestructive(out);
}

/** Page windows every list route must answer without a 5xx: an OFFSET past any integer, a page size of a billion. */
const PAGE_EXTREMES = [
  ['2147483647', '100'],
  ['2147483647', '2147483647'],
  ['1', '1000000000'],
  ['-1', '1'],
  ['1099511627776', '1'],
  ['0', '0'],
];

// ── GraphQL cases: each place of each argument of each root field ─────────────────────────────

interface GraphqlCase {
  kind: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
  arg: GraphQLArgument;
  path: (string | number)[];
}

function graphqlCases(): [string, GraphqlCase][] {
  const out: [string, GraphqlCase][] = [];
  for (const [kind, root] of [['query', schema.getQueryType()!], ['mutation', schema.getMutationType()!]] as const) {
    for (const field of Object.values(root.getFields())) {
      for (const arg of field.args) {
        for (const path of positions(arg.type)) out.push([`${root.name}.${field.name}(${[arg.name, ...path].join('.')})`, { kind, field, arg, path }]);
      }
    }
  }
  return lastIfDestructive(out);
}

/** `{ __typename }` for an object result (the resolver runs; nothing of the input comes back), nothing for a scalar. */
const selection = (field: GraphQLField<unknown, unknown>) => ('getFields' in getNamedType(field.type) ? ' { __typename }' : '');

// ── MCP cases: each argument of each tool ─────────────────────────────────────────────────────

/** Every tool of the table, and the two GraphQL tools. */
const mcpCases = (): [string, CompiledOperation | 'query' | 'mutation'][] =>
  lastIfDestructive([...compiled.map((c): [string, CompiledOperation] => [`${c.toolName} (${c.op.method} ${c.op.path})`, c]), ['graphql_query', 'query'], ['graphql_mutation', 'mutation']]);

/** Documents the GraphQL tools must refuse, before parsing them where the parser would suffer. */
const HOSTILE_DOCUMENTS: Hostile[] = [
  { name: 'a literal nested 5000 deep', value: `{ currency(code: ${'['.repeat(5000)}"NOK"${']'.repeat(5000)}) { code } }` },
  { name: 'a NUL escape in a literal', value: '{ currency(code: "N\\u0000K") { code } }' },
  { name: 'a 1 MB literal', value: `{ currency(code: "${MB}") { code } }` },
  { name: 'no document', value: '' },
  { name: 'a syntax error', value: '{ currency(' },
];

/** The codes of the 5xx answers (an unexpected error, a busy server, a failing upstream). */
const SERVER_CODES = new Set(['common.internal_error', 'common.unavailable', 'common.upstream_error']);

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

// ── Which database runs which part ────────────────────────────────────────────────────────────
//
// What a hostile value does to the database is swept on every database by the REST part: a REST route
// and its MCP tool run the same GraphQL operation in-process. What the GraphQL and MCP parts add (the
// GraphQL parser, variable coercion and literal validation; the MCP layer splitting a tool's
// arguments) does not depend on the database, so each of them runs once: the MCP part on PGlite (every
// run has it); a GraphQL case of a field a REST route calls on one of the two databases, shared out by
// a hash of the case's name (sharedOut() in test/support/harness.ts: the two suites of CI agree
// without talking and together run every case; a run on PGlite alone runs them all); and the fields no
// REST route calls on both (their database paths are swept nowhere else). (It halved the sweep's share
// of CI's time. The route fields' cases ran whole on PostgreSQL until that suite was the longer by
// minutes: the GraphQL part took some 430 s there against 60 s on PGlite.)

/** The root fields the operation table's routes call (`query name`, `mutation name`). */
const restFields = new Set(
  compiled.map((c) => {
    const top = c.operation.selectionSet.selections[0];
    return `${c.isMutation ? 'mutation' : 'query'} ${top.kind === Kind.FIELD ? top.name.value : ''}`;
  }),
);

// A REST body value the adapter refuses before GraphQL runs (the JSON does not parse, or the
// operation's variables do not convert and coerce: a wrong type, an unknown field, a number past its
// type) never reaches a database: the PGlite suite sends it, the PostgreSQL suite only the values
// that get through to the operation (CI runs a suite per database; a run with TEST_TARGETS=postgres
// alone leaves them to the PGlite run, as onceTargets() does). So does a 1 MB string: whether a
// field takes one is the field's rule, and PGlite is PostgreSQL's own engine, so a 1 MB text
// parameter meets the same server on both (the 70,000-item lists stay on both: how many parameters
// one query may bind is the driver's and the protocol's). Most of CI's REST sweep on PostgreSQL
// repeated such refusals, which cannot differ between the databases.

/** Whether the adapter refuses this body of the request before the operation runs (rest-adapter/variables.ts, as the route does). */
function refusedBeforeDatabase(c: CompiledOperation, request: { params: Record<string, string>; query: Record<string, string> }, json: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(json);
  } catch {
    return true;
  }
  try {
    operationVariables(c, { params: request.params, query: request.query, body });
    return false;
  } catch {
    return true;
  }
}

// ── The sweep ─────────────────────────────────────────────────────────────────────────────────

/** Which part of the sweep a test file runs: REST, GraphQL or MCP, and which share of its cases. */
export interface SweepPart {
  surface: 'rest' | 'graphql' | 'mcp';
  /** the cases i with i % shards === shard (a part split over test files that run in parallel) */
  shard?: number;
  shards?: number;
}

/**
 * The sweep, one part of it per test file (test/platform/hostile-sweep.*.test.ts): the files run in
 * parallel, where one file took longer than the rest of the suite together.
 */
export function hostileSweep({ surface, shard = 0, shards = 1 }: SweepPart): void {
const mine = <T>(cases: T[]): T[] => cases.filter((_, i) => i % shards === shard);
describe.each(targets())(`hostile values on every route, field and tool: ${surface}${shards > 1 ? ` ${shard + 1}/${shards}` : ''} (%s)`, (target) => {
  if (surface === 'mcp' && target !== 'pglite') {
    it.skip('the MCP part runs on PGlite (the database paths of its tools are the REST routes\', swept on every database)', () => {});
    return;
  }
  let app: TestApp;

  // uploaded files (the voucher fixture's PDF, what merge and split write) go to a directory of the run's own
  const dataDir = mkdtempSync(join(tmpdir(), 'hostile-sweep-'));
  /** what the app logged at level error (an unexpected error's message and stack): a failure shows it */
  const logged: string[] = [];
  beforeAll(async () => {
    const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
    app = await startTestApp(target, { env: { DATA_DIR: dataDir }, logger });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Sends the requests, CONCURRENCY at a time, and lists the problems, each naming its value. */
  async function sweep(requests: Sent[]): Promise<string[]> {
    logged.length = 0;
    const problems = await pool(requests, CONCURRENCY, async (r) => {
      try {
        const problem = await r.send();
        return problem && `${r.name}: ${problem}`;
      } catch (e) {
        return `${r.name}: ${e instanceof ResponseMismatchError ? e.message.split('\n')[0] : String(e)}`;
      }
    });
    const found = problems.filter((p): p is string => !!p);
    return found.length ? [...found, ...logged.map(loggedError)] : [];
  }

  if (surface === 'rest') describe('REST: every parameter of every operation of the table', () => {
    let t: Tenant;
    let ctx: (ownType?: string) => BaselineContext;
    beforeAll(async () => {
      ({ t, ctx } = await fixtureWorld(app));
    });


    /** What is wrong with an answer: a 5xx, no JSON, not the route's error shape, an echo of the input, a 1 MB string taken. */
    function problem(res: HttpResult, c: CompiledOperation, value: unknown, elsewhere = false): string | undefined {
      if (res.status >= 500) return `${res.status} ${res.text.slice(0, 200)}`;
      // a 204 route (DELETE /vouchers/{id}) answers its success with no body at all
      if (res.status === 204 && c.op.status === 204) return res.text === '' ? undefined : `204 with a body: ${res.text.slice(0, 200)}`;
      // a success with no JSON by design: 204 No Content, or a file representation (the document preview's PDF)
      if (res.status < 400 && (c.op.status === 204 || c.op.representations?.json === false)) return value === MB ? `${res.status}: a 1 MB string was taken` : undefined;
      if (!/^application\/json/.test(res.headers.get('content-type') ?? '') || typeof res.body !== 'object' || res.body === null) return `${res.status} with no JSON body`;
      if (res.status < 400) return value === MB ? `${res.status}: a 1 MB string was taken` : undefined;
      if (res.text.length > MAX_ERROR_LENGTH) return `${res.status} with a ${res.text.length}-character error body`;
      const shaped =
        c.op.errorShape === 'envelope' && !elsewhere
          ? typeof res.body.error?.code === 'string' && typeof res.body.error?.message === 'string'
          : typeof res.body.error === 'string' && res.body.status === res.status;
      return shaped ? undefined : `${res.status} not in the route's error shape: ${res.text.slice(0, 200)}`;
    }

    it.each(mine(restCases()))('%s: 4xx JSON in the route shape, never 5xx', async (_name, { c, where, wire, path }) => {
      const { params, query, body, bc } = validRequest(c, ctx);
      const bodyType = c.bodyVariable?.type;
      const onWire = (b: unknown) => (bodyType ? wireKeys(b, bodyType) : b);
      const requests: Sent[] = [];
      /** one request: the valid one with parameters replaced, more query text, another body */
      const request = (name: string, change: { params?: Record<string, string>; query?: Record<string, string>; extra?: string; body?: unknown; value?: unknown; once?: boolean }) => {
        const q = [...Object.entries(change.query ?? query).map(([k, v]) => `${k}=${encodeURIComponent(v)}`), change.extra].filter(Boolean).join('&');
        const p = { ...params, ...change.params };
        const b = 'body' in change ? change.body : onWire(body);
        if (change.once && target !== 'pglite' && b !== undefined && (change.value === MB || refusedBeforeDatabase(c, { params: p, query: change.query ?? query }, toJson(b)))) return;
        // as fetch sends it, dot segments resolved ("/items/.." is "/items"), so the OpenAPI check sees the path the app saw
        const url = new URL(`${restPath(c.op).replace(/:(\w+)/g, (_m, k: string) => p[k])}${q ? `?${q}` : ''}`, app.url);
        requests.push({
          name,
          send: async () => {
            const res = await app.http(c.op.method, url.pathname + url.search, { token: t.user.token, body: b === undefined ? undefined : toJson(b) });
            // a dot segment took the request to another path ("/vouchers/.." is "/"): the answer is that path's, in its shape
            const elsewhere = !new RegExp(`^${restPath(c.op).replace(/:\w+/g, '[^/]+')}$`).test(url.pathname);
            return problem(res, c, change.value, elsewhere);
          },
        });
      };
      const without = Object.fromEntries(Object.entries(query).filter(([k]) => k !== wire));

      if (where === 'path') for (const h of HOSTILE_PARAMS) request(h.name, { params: { [wire]: String(h.value) } });
      if (where === 'query') {
        for (const h of HOSTILE_PARAMS) request(h.name, { query: without, extra: `${wire}=${String(h.value)}` });
        for (const s of PARAM_SHAPES) request(s.name, { query: without, extra: s.query(wire) });
      }
      if (where === 'body') {
        const fieldType = c.variables.find((v) => v.wire === wire)!.type;
        const at = bodyType ? typeAt(bodyType, path!) : typeAt(fieldType, path!);
        for (const h of [...valuesFor(at, (bodyType ? path!.length : path!.length + 1) > 1 ? 'nested' : 'argument'), ...longList(at, String([wire, ...path!].filter((s) => typeof s === 'string').pop()), bc)]) {
          const hostile = bodyType ? placeAt(body, bodyType, path!, h.value, bc) : { ...body, [wire]: placeAt(body?.[wire], fieldType, path!, h.value, bc) };
          request(h.name, { body: onWire(hostile), value: h.value, once: true });
        }
      }
      if (where === 'whole body') {
        for (const h of HOSTILE_VALUES) request(`a body of ${h.name}`, { body: h.value });
        const fields = JSON.stringify(onWire(body)).slice(1, -1);
        for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'unknown_field']) {
          request(`a "${key}" field`, { body: new Raw(`{"${key}": {"polluted": true}${fields ? `, ${fields}` : ''}}`) });
        }
        request('a body that is not JSON', { body: new Raw('{"a": ') });
        request('a JSON text with a key given twice', { body: new Raw(`{"client_account_id": "x"${fields ? `, ${fields}` : ''}}`) });
      }
      if (where === 'request') {
        request('unknown parameters', { extra: '__proto__=1&constructor=1&toString=1&unknown_parameter=1' });
        request('an 8000-character unknown parameter', { extra: `unknown_parameter=${'x'.repeat(8000)}` });
        if (c.variables.some((v) => v.name === 'page') && c.variables.some((v) => v.name === 'perPage')) {
          for (const [page, perPage] of PAGE_EXTREMES) request(`page=${page}&per_page=${perPage}`, { extra: `page=${page}&per_page=${perPage}` });
        }
      }
      const problems = await sweep(requests);
      expect(problems, `${problems.length} of ${requests.length} requests`).toEqual([]);
    });
  });

  if (surface === 'graphql') describe('GraphQL: every argument of every Query and Mutation field, as a variable and as a literal', () => {
    let t: Tenant;
    let ctx: (ownType?: string) => BaselineContext;
    beforeAll(async () => {
      ({ t, ctx } = await fixtureWorld(app));
    });

    /** What is wrong with an answer: a 5xx, no JSON, a masked unexpected error, an echo of the input, a 1 MB string taken. */
    function problem(res: HttpResult, value: unknown): string | undefined {
      if (res.status >= 500) return `${res.status} ${res.text.slice(0, 200)}`;
      if (typeof res.body !== 'object' || res.body === null) return `${res.status} with no JSON body`;
      const errors: { message?: string; extensions?: { code?: string } }[] = res.body.errors ?? [];
      const unexpected = errors.find((e) => e.extensions?.code === 'common.internal_error' || e.message === 'Unexpected error.');
      if (unexpected) return `${res.status} an unexpected error (${JSON.stringify(unexpected).slice(0, 200)})`;
      // issue 26: every GraphQL error carries extensions.code, in the project's naming
      const uncoded = errors.find((e) => !/^[a-z][a-z0-9_.]*$/.test(e.extensions?.code ?? ''));
      if (uncoded) return `${res.status} an error without a code of ours (${JSON.stringify(uncoded).slice(0, 200)})`;
      if (errors.length && res.text.length > MAX_ERROR_LENGTH) return `${res.status} with a ${res.text.length}-character error body`;
      if (!errors.length && value === MB) return `${res.status}: a 1 MB string was taken`;
      return undefined;
    }

    /**
     * A value graphql-js refuses before any resolver runs (variable coercion, or validation of a
     * literal) is answered from its type and the value alone, whichever field it is sent to: such a
     * request goes over the wire once per type, place and value (the first field to meet it), not once
     * per field. What reaches a resolver is always sent. (One share of the GraphQL sweep on PGlite:
     * 73 s before, 51 s after.) Whether graphql-js refuses it is worked out once per type, place and
     * value too (the first field to meet it): parsing and coercing a 1 MB value for every field was a
     * fifth of the sweep's time.
     */
    const refusal = new Map<string, boolean>();
    /** Leave this request out: an earlier field sent the same type, place and value, and graphql-js refused it before any resolver. */
    const alreadyRefused = (key: string, refused: () => boolean): boolean => {
      const known = refusal.get(key);
      if (known !== undefined) return known;
      refusal.set(key, refused());
      return false; // the first to meet it is sent
    };
    const variablesRefused = (document: string, variables: Record<string, unknown>) => {
      const op = parse(document).definitions[0] as OperationDefinitionNode;
      return 'errors' in getVariableValues(schema, op.variableDefinitions ?? [], variables, { maxErrors: 1 });
    };
    /**
     * A 1 MB string literal for a String place is, once lexed, the same value the variable sent the
     * field: what it adds is the lexer's work, the same wherever the literal stands. It goes over the
     * wire once per place (argument, nested), not once per String field.
     */
    const lexedOnce = new Set<string>();
    const literalRefused = (query: string) => {
      try {
        return validate(schema, parse(query)).length > 0;
      } catch {
        return true; // a syntax error: the parser answers
      }
    };

    it.each(mine(graphqlCases()).filter(([name, c]) => !restFields.has(`${c.kind} ${c.field.name}`) || sharedOut(target, name)))('%s: never a 5xx or an unexpected error', async (_name, { kind, field, arg, path }) => {
      const bc = ctx(getNamedType(field.type).name);
      const args = field.args.filter((a) => a === arg || (isNonNullType(a.type) && a.defaultValue === undefined));
      const valid = Object.fromEntries(args.map((a) => [a.name, baseline(a.type, a.name, bc, field.name)]));
      const withValue = (h: Hostile) => ({ ...valid, [arg.name]: placeAt(valid[arg.name], arg.type, path, h.value, bc) });
      const place = path.length ? 'nested' : 'argument';
      const document = `${kind} Sweep(${args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ')}) { ${field.name}(${args.map((a) => `${a.name}: $${a.name}`).join(', ')})${selection(field)} }`;
      const requests: Sent[] = [];
      for (const h of [...valuesFor(typeAt(arg.type, path), place), ...longList(typeAt(arg.type, path), String([arg.name, ...path].filter((s) => typeof s === 'string').pop()), bc)]) {
        const wire = () => `{"query": ${JSON.stringify(document)}, "variables": ${toJson(withValue(h))}}`;
        if (alreadyRefused(`variable ${String(typeAt(arg.type, path))} ${place} ${h.name}`, () => variablesRefused(document, JSON.parse(wire()).variables))) continue;
        const body = wire();
        requests.push({ name: `${h.name} as a variable`, send: async () => problem(await app.http('POST', '/graphql', { token: t.user.token, body }), h.value) });
      }
      for (const h of literalValues(place)) {
        if (h.value === MB && getNamedType(typeAt(arg.type, path)) === GraphQLString) {
          if (lexedOnce.has(place)) continue;
          lexedOnce.add(place);
        }
        const literal = () => {
          const values = withValue(h);
          return `${kind} { ${field.name}(${args.map((a) => `${a.name}: ${toLiteral(values[a.name], a.type)}`).join(', ')})${selection(field)} }`;
        };
        if (alreadyRefused(`literal ${String(typeAt(arg.type, path))} ${place} ${h.name}`, () => literalRefused(literal()))) continue;
        const query = literal();
        requests.push({ name: `${h.name} as a literal`, send: async () => problem(await app.http('POST', '/graphql', { token: t.user.token, body: { query } }), h.value) });
      }
      const problems = await sweep(requests);
      expect(problems, `${problems.length} of ${requests.length} requests`).toEqual([]);
    });
  });

  if (surface === 'mcp') describe('MCP: every argument of every tool', () => {
    let t: Tenant;
    let ctx: (ownType?: string) => BaselineContext;
    let properties: Map<string, Record<string, unknown>>;

    beforeAll(async () => {
      ({ t, ctx } = await fixtureWorld(app));
      const list = await app.http('POST', '/mcp?modules=all', { token: t.user.token, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: MCP_HEADERS });
      properties = new Map(list.body.result.tools.map((tool: { name: string; inputSchema: { properties: Record<string, unknown> } }) => [tool.name, tool.inputSchema.properties]));
    });


    /** What is wrong with an answer: a 5xx, no JSON-RPC answer, a tool error that is a 500 or echoes the input, a 1 MB string taken. */
    function problem(res: HttpResult, value: unknown): string | undefined {
      if (res.status >= 500) return `${res.status} ${res.text.slice(0, 200)}`;
      if (typeof res.body !== 'object' || res.body === null) return `${res.status} with no JSON body`;
      if (res.status >= 400 || res.body.error) return res.text.length > MAX_ERROR_LENGTH ? `${res.status} with a ${res.text.length}-character error body` : undefined;
      const result = res.body.result as { isError?: boolean; content: { text: string }[] } | undefined;
      if (!result) return `${res.status} neither a result nor an error`;
      const text = result.content[0]?.text ?? '';
      if (!result.isError) return value === MB ? 'a 1 MB string was taken' : undefined;
      if (text.length > MAX_ERROR_LENGTH) return `a ${text.length}-character tool error`;
      const error = JSON.parse(text) as { status?: number; errors?: { extensions?: { code?: string } }[] };
      // the GraphQL tools fail as /graphql does: {errors: [{message, extensions: {code}}]}, never an unexpected one
      if (error.errors) return error.errors.length && error.errors.every((e) => /^[a-z][a-z0-9_.]*$/.test(e.extensions?.code ?? '') && !SERVER_CODES.has(e.extensions!.code!)) ? undefined : `a tool error ${text.slice(0, 200)}`;
      return typeof error.status === 'number' && error.status < 500 ? undefined : `a tool error ${text.slice(0, 200)}`;
    }

    it.each(mine(mcpCases()))('%s: a result or a 4xx tool error, never a 5xx', async (_name, target) => {
      const tool = typeof target === 'string' ? `graphql_${target}` : target.toolName;
      const valid: Record<string, unknown> =
        target === 'query'
          ? { query: '{ __typename }' }
          : target === 'mutation'
            ? { query: 'mutation($i: UpdateMeInput!) { updateMe(input: $i) { id } }', variables: { i: {} } }
            : validArguments(target, ctx, 'body' in properties.get(target.toolName)!);
      const requests: Sent[] = [];
      const call = (name: string, args: unknown, value?: unknown) => {
        const body = toJson({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } });
        requests.push({ name, send: async () => problem(await app.http('POST', '/mcp', { token: t.user.token, body, headers: MCP_HEADERS }), value) });
      };
      for (const property of Object.keys(properties.get(tool)!)) for (const h of MCP_VALUES) call(`${property}: ${h.name}`, { ...valid, [property]: h.value }, h.value);
      if (typeof target === 'string') for (const h of HOSTILE_DOCUMENTS) call(`query: ${h.name}`, { ...valid, query: h.value });
      for (const h of MCP_VALUES) call(`arguments: ${h.name}`, h.value);
      call('an unknown argument', { ...valid, unknown_argument: 1 });
      const problems = await sweep(requests);
      expect(problems, `${problems.length} of ${requests.length} requests`).toEqual([]);
    });
  });
});
}
