import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { buildSchema, execute, print, printSchema } from 'graphql';
import { compiledOperations } from '../rest-adapter/index.ts';
import { operationVariables } from '../rest-adapter/variables.ts';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database, type Prisma } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { schema } from '../src/schema.ts';
import { createRequestContext, type RequestContext } from '../src/shared/context.ts';
import { createLogger } from '../src/shared/logger.ts';
import { ReferenceCache } from '../src/shared/reference-cache.ts';
import { eligibleAccountIds } from '../src/shared/tenancy.ts';
import { createSeed } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';
import { median, startServer } from './server-process.ts';

/**
 * npm run bench -- overhead: what the framework adds to the work the database does, on both
 * databases, every comparison interleaved in one run (medians):
 *   1. GET /items' document (100 items with sales_unit, stock_unit and tax_code) executed in process
 *      against raw Prisma doing the same reads with the same statements (the tenancy lookup, the
 *      count, one findMany with the tax code and its rates included, units from memory), and GraphQL CPU alone: the same execution with every Prisma
 *      result replayed from memory (recorded from a live run, checked to give the same answer), next
 *      to graphql-js alone executing the same document over plain objects (its own floor);
 *   2. REST against GraphQL over HTTP for the same data (the REST route's own document on /graphql);
 *   3. SQL statements per request of the widest lists, per page size (must not grow with it);
 *   4. the floor: `{ __typename }` with a token, 10 connections, against a bare graphql-yoga server
 *      started by the bench (both its own process in production mode), with a session token, a JWT,
 *      a session looked up on every request (SESSION_CACHE_SECONDS=0) and the API rate limit off.
 */
const ITEMS = 100;
const ITERATIONS = 300;
const HTTP_REQUESTS = 200;
const FLOOR_SECONDS = 5;
const FLOOR_ROUNDS = 3;
const BASE_URL = 'http://bench.invalid';

const items = compiledOperations(schema).find((c) => c.op.method === 'GET' && c.op.path === '/items')!;
const WITH = 'sales_unit,stock_unit,tax_code';

interface Fixture {
  db: Database;
  statements: { count: number };
  accountId: number;
  userId: number;
  token: string;
}

export async function prepare(db: Database, statements: { count: number }): Promise<Fixture> {
  await applyMigrations(db.adapterFactory);
  await ensureReferenceData(db.prisma);
  const seed = createSeed(db.prisma);
  const t = await seed.tenant();
  const [piece, kg] = [await seed.unitId('H87'), await seed.unitId('KGM')];
  const taxes = [await t.taxCode('3'), await t.taxCode('31'), await t.taxCode('5')];
  await db.prisma.item.createMany({
    data: Array.from({ length: ITEMS }, (_, i) => ({
      clientAccountId: t.account.id, itemNo: `O-${String(i).padStart(4, '0')}`, name: `Vare ${i}`, metadata: { shelf: i % 7 },
      salesUnitId: i % 2 ? piece : kg, stockUnitId: piece, taxCodeId: taxes[i % 3], price: '99.900000', createdById: t.user.id,
    })),
  });
  return { db, statements, accountId: t.account.id, userId: t.user.id, token: t.user.token };
}

/**
 * `recorder` runs every model operation on the database and records its result; `replayer` answers
 * the same calls from the recording with no Prisma code at all (model delegates of plain functions),
 * so what an execution on it costs is the GraphQL side alone.
 */
export function replayingClient(prisma: Prisma) {
  const recorded = new Map<string, unknown>();
  const keyOf = (model: string | undefined, operation: string, args: unknown) =>
    `${model}.${operation}:${JSON.stringify(args, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
  const recorder = prisma.$extends({
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          const result = await query(args);
          recorded.set(keyOf(model, operation, args), result);
          return result;
        },
      },
    },
  }) as unknown as Prisma;
  const delegates = new Map<string, object>();
  const replayer = new Proxy({} as Prisma, {
    get(_target, name) {
      if (typeof name !== 'string' || name.startsWith('$')) throw new Error(`bench: the replaying client has no ${String(name)}`);
      const model = name[0].toUpperCase() + name.slice(1);
      let delegate = delegates.get(model);
      if (!delegate) {
        delegate = new Proxy({}, {
          get: (_t, operation: string) => (args: unknown) => {
            const key = keyOf(model, operation, args);
            if (!recorded.has(key)) throw new Error(`bench: no recorded result for ${key}`);
            return Promise.resolve(recorded.get(key));
          },
        });
        delegates.set(model, delegate);
      }
      return delegate;
    },
  });
  return { recorder, replayer };
}

const ms = (x: number) => x.toFixed(2).padStart(7);

async function inProcess(label: string, f: Fixture): Promise<void> {
  const { prisma } = f.db;
  const reference = new ReferenceCache(); // one per app, as createApp makes it
  const actor = { userId: f.userId, scopes: new Set(['read', 'write'] as const), clientId: null, tokenKind: 'session' as const, sessionId: null };
  const context = (db: Prisma): RequestContext => createRequestContext({ db, actor, requestId: 'bench', logger: createLogger('silent'), reference });
  const variableValues = operationVariables(items, { params: {}, query: { client_account_id: String(f.accountId), per_page: String(ITEMS), with: WITH }, body: undefined });
  const graphql = async (db: Prisma) => {
    const result = await execute({ schema, document: items.document, variableValues, contextValue: context(db) });
    if (result.errors?.length) throw result.errors[0];
    return result.data;
  };
  const where = { clientAccountId: f.accountId, isActive: true };
  // the same statements as the GraphQL execution: units from memory (as the app keeps them), the tax
  // code and its rates included
  const units = new Map((await prisma.unit.findMany()).map((u) => [u.id, u]));
  const raw = async () => {
    await eligibleAccountIds(prisma, f.userId);
    const [records, rows] = await Promise.all([
      prisma.item.count({ where }),
      prisma.item.findMany({ where, orderBy: { id: 'asc' }, take: ITEMS, include: { taxCode: { include: { rates: true } } } }),
    ]);
    return { records, rows: rows.map((r) => ({ ...r, salesUnit: units.get(r.salesUnitId), stockUnit: r.stockUnitId === null ? null : units.get(r.stockUnitId) })) };
  };
  const replaying = replayingClient(prisma);
  const live = JSON.stringify(await graphql(replaying.recorder)); // records every result
  if (JSON.stringify(await graphql(replaying.replayer)) !== live) throw new Error('bench: the replayed execution answered differently');

  const counted = async (fn: () => Promise<unknown>) => {
    f.statements.count = 0;
    await fn();
    return f.statements.count;
  };
  const rawStatements = await counted(raw);
  const graphqlStatements = await counted(() => graphql(prisma));

  // graphql-js alone: the same document on the printed schema with default resolvers over plain
  // objects already holding each field's final value (no Pothos, no plugins, no Prisma): its floor
  const plainSchema = buildSchema(printSchema(schema));
  const rows = await prisma.item.findMany({ where, orderBy: { id: 'asc' }, take: ITEMS, include: { salesUnit: true, stockUnit: true, taxCode: true } });
  const nodes = rows.map((r) => ({ ...r, price: r.price.toFixed(6), createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(), taxCode: { ...r.taxCode, rate: '25.00' } }));
  const rootValue = { items: () => ({ nodes, meta: { page: 1, pages: 1, perPage: ITEMS, records: ITEMS } }) };
  const plain = async () => {
    const result = await execute({ schema: plainSchema, document: items.document, variableValues, rootValue });
    if (result.errors?.length) throw result.errors[0];
  };

  const times = { raw: [] as number[], graphql: [] as number[], cpu: [] as number[], plain: [] as number[] };
  const time = async (into: number[], fn: () => Promise<unknown>) => {
    const start = performance.now();
    await fn();
    into.push(performance.now() - start);
  };
  for (let i = 0; i < ITERATIONS + 50; i++) {
    const warm = i < 50;
    await time(warm ? [] : times.raw, raw);
    await time(warm ? [] : times.graphql, () => graphql(prisma));
    await time(warm ? [] : times.cpu, () => graphql(replaying.replayer));
    await time(warm ? [] : times.plain, plain);
  }
  const [r, g, c] = [median(times.raw), median(times.graphql), median(times.cpu)];
  console.log(`[${label}] ${ITEMS} items with sales_unit, stock_unit, tax_code, in process, median of ${ITERATIONS} interleaved`);
  console.log(`  raw Prisma (tenancy lookup, count, findMany + tax code, units from memory) ${ms(r)} ms  ${rawStatements} statements`);
  console.log(`  GraphQL execution of GET /items' document                        ${ms(g)} ms  ${graphqlStatements} statements  (+${(g - r).toFixed(2)} ms, ratio ${(g / r).toFixed(2)})`);
  console.log(`  GraphQL CPU alone (every Prisma result replayed from memory)      ${ms(c)} ms`);
  console.log(`  graphql-js alone: same document, default resolvers, plain objects ${ms(median(times.plain))} ms  (the floor of any graphql-js schema)`);
}

/** An app in this process: REST and GraphQL over HTTP, and statement counts per request. */
async function overHttp(label: string, f: Fixture): Promise<void> {
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', BASE_URL, DATABASE_URL: '' });
  const { express } = await createApp({ config, db: f.db, logger: createLogger('silent'), rateLimits: { api: null } });
  const server: Server = express.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = { authorization: `Bearer ${f.token}` };
  const query = print(items.document);
  const rest = (perPage: number, w = WITH) => () => fetch(`${base}/api/v2/items?client_account_id=${f.accountId}&per_page=${perPage}&with=${w}`, { headers });
  const gql = (perPage: number) => () => {
    const variables = operationVariables(items, { params: {}, query: { client_account_id: String(f.accountId), per_page: String(perPage), with: WITH }, body: undefined });
    return fetch(`${base}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  };
  const once = async (send: () => Promise<Response>) => {
    f.statements.count = 0;
    const start = performance.now();
    const res = await send();
    const body = await res.text();
    if (!res.ok) throw new Error(`bench: ${res.status} ${body.slice(0, 300)}`);
    return { ms: performance.now() - start, statements: f.statements.count, body };
  };
  try {
    const [restBody, gqlBody] = [(await once(rest(ITEMS))).body, (await once(gql(ITEMS))).body];
    if (JSON.stringify(JSON.parse(gqlBody).data.items) !== restBody) throw new Error('bench: REST and GraphQL answered different data');
    const t = { rest: [] as number[], graphql: [] as number[] };
    for (let i = 0; i < HTTP_REQUESTS + 20; i++) {
      const [a, b] = [await once(rest(ITEMS)), await once(gql(ITEMS))];
      if (i >= 20) t.rest.push(a.ms), t.graphql.push(b.ms);
    }
    console.log(`[${label}] over HTTP, ${ITEMS} items with ${WITH}, median of ${HTTP_REQUESTS} sequential requests, interleaved`);
    console.log(`  REST GET /api/v2/items        ${ms(median(t.rest))} ms`);
    console.log(`  GraphQL POST /graphql (same)  ${ms(median(t.graphql))} ms  REST/GraphQL ${(median(t.rest) / median(t.graphql)).toFixed(2)}`);

    const perPage = [2, 20, 100];
    const counts = async (send: (n: number) => () => Promise<Response>) => {
      const out: number[] = [];
      for (const n of perPage) out.push((await once(send(n))).statements);
      return out.join(' / ');
    };
    const collections = (n: number) => () =>
      fetch(`${base}/api/v2/item-collections?client_account_id=${f.accountId}&per_page=${n}&with=entries,entries.item,entries.unit,entries.tax_code_details,entries.business_partner,entries.document_lines`, { headers });
    console.log(`[${label}] SQL statements per request, per_page ${perPage.join(' / ')} (the token lookup is cached, so none for it)`);
    console.log(`  GET /items?with=${WITH}          ${await counts(rest)}`);
    console.log(`  GET /item-collections with every entry relation  ${await counts(collections)}`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** Mints a client_credentials access token (JWT) through the running server's OAuth endpoints. */
async function jwtFor(base: string, sessionToken: string): Promise<string> {
  const created = await fetch(`${base}/v2/oauth/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', redirect_uris: 'https://bench.invalid/cb', grant_types: 'client_credentials', scope: 'read write' }),
  });
  const client = (await created.json()) as { client_id: string; client_secret: string };
  const res = await fetch(`${base}/v2/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read write' }).toString(),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`bench: no JWT: ${JSON.stringify(body)}`);
  return body.access_token;
}

interface FloorVariant {
  name: string;
  env?: Record<string, string>;
  script?: string;
  token?: 'session' | 'jwt';
}

async function floor(label: string, env: Record<string, string>, sessionToken: string): Promise<void> {
  // counted, but never reached: one user sends everything
  const counted = { API_RATE_LIMIT: '100000000' };
  const variants: FloorVariant[] = [
    { name: 'bare graphql-yoga (10 lines)', script: 'bench/bare-yoga.mjs' },
    { name: 'this API, session token', env: counted, token: 'session' },
    { name: 'this API, JWT access token', env: counted, token: 'jwt' },
    { name: 'this API, session token, API rate limit off', env: { API_RATE_LIMIT: 'off' }, token: 'session' },
    { name: 'this API, session token looked up per request', env: { ...counted, SESSION_CACHE_SECONDS: '0' }, token: 'session' },
  ];
  let jwt = '';
  const results = new Map<string, number[]>();
  const latency = new Map<string, number[]>();
  for (let round = 0; round < FLOOR_ROUNDS; round++) {
    for (const v of variants) {
      const server = await startServer({ ...env, BASE_URL, ...v.env }, { script: v.script });
      try {
        if (v.token === 'jwt' && !jwt) jwt = await jwtFor(server.base, sessionToken);
        const token = v.token === 'jwt' ? jwt : sessionToken;
        const options = {
          url: `${server.base}/graphql`,
          method: 'POST' as const,
          headers: { 'content-type': 'application/json', ...(v.token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify({ query: '{ __typename }' }),
          connections: 10,
        };
        await autocannon({ ...options, amount: 500 }); // warm-up
        const r = await autocannon({ ...options, duration: FLOOR_SECONDS });
        if (r.non2xx || r.errors) throw new Error(`bench: ${v.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        (results.get(v.name) ?? results.set(v.name, []).get(v.name)!).push(r.requests.average);
        (latency.get(v.name) ?? latency.set(v.name, []).get(v.name)!).push(r.latency.p50);
      } finally {
        await server.stop();
      }
    }
  }
  const bare = median(results.get(variants[0].name)!);
  console.log(`[${label}] floor: POST /graphql { __typename }, 10 connections, ${FLOOR_SECONDS} s, median of ${FLOOR_ROUNDS} interleaved rounds (servers in production mode)`);
  for (const v of variants) {
    const rps = median(results.get(v.name)!);
    console.log(`  ${v.name.padEnd(48)} ${String(Math.round(rps)).padStart(6)} req/s  p50 ${median(latency.get(v.name)!)} ms  ratio to bare ${(rps / bare).toFixed(2)}  (${results.get(v.name)!.map(Math.round).join(', ')})`);
  }
}

export async function overhead(): Promise<void> {
  console.log(`overhead (NODE_ENV=${process.env.NODE_ENV ?? ''})`);
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-overhead-'));
  const scratch = await scratchPostgres('overhead');
  const log = { log: [{ level: 'query' as const, emit: 'event' as const }] };
  const targets: { label: string; env: Record<string, string>; open: () => Promise<Database> }[] = [
    { label: 'PGlite', open: () => openDatabase({ dataDir: dir, purpose: 'bench' }, log), env: { DATA_DIR: dir, DATABASE_URL: '' } },
    ...(scratch ? [{ label: 'PostgreSQL', open: () => openDatabase({ databaseUrl: scratch.url }, log), env: { DATABASE_URL: scratch.url } }] : []),
  ];
  try {
    for (const target of targets) {
      const db = await target.open();
      const statements = { count: 0 };
      (db.prisma as unknown as { $on(e: 'query', cb: () => void): void }).$on('query', () => statements.count++);
      const f = await prepare(db, statements);
      try {
        await inProcess(target.label, f);
        await overHttp(target.label, f);
      } finally {
        await db.close(); // the servers of the floor open the database themselves
      }
      await floor(target.label, target.env, f.token);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
