import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';
import { startServer } from './server-process.ts';

/**
 * npm run bench -- fairness [--seconds N] [--per-page N]: user A runs HEAVY_CLIENTS concurrent heavy GraphQL
 * queries, each within the query limits (src/shared/query-limits.ts: 99 aliases of a page of 100
 * items (`--per-page`) with two relations, 990 fields), one after the other on each connection, while user B lists
 * its items (GET /api/v2/items, one request at a time). B's p50/p90/p99 are measured without A's
 * load and then under it, on one server in one run (the server runs as its own process with the
 * defaults, as npm start runs it), on PGlite and on a scratch PostgreSQL database. Prints whether
 * the goal holds (issue 27): B's p90 under load at most 500 ms on PostgreSQL, at most twice its
 * unloaded p90 on PGlite.
 *
 *   BENCH_SERVER_LOG=/tmp/log  keeps each server's request log (LOG_LEVEL info) in /tmp/log.<port>
 */
const HEAVY_CLIENTS = 20;
const ALIASES = 99;
/** A's load runs this long before B's measurement starts, so B meets the steady state */
const LOAD_RAMP_MS = 2000;
const DEFAULT_PER_PAGE = 100;

interface Users {
  a: { token: string; accountId: number };
  b: { token: string; accountId: number };
}

/** Two users of two client accounts: A's with 1,000 items, B's with 100. */
async function prepare(db: Database): Promise<Users> {
  await applyMigrations(db.adapterFactory);
  await ensureReferenceData(db.prisma);
  const seed = createSeed(db.prisma);
  const [piece, kg] = [await seed.unitId('H87'), await seed.unitId('KGM')];
  const tenant = async (items: number) => {
    const t = await seed.tenant();
    const tax = await t.taxCode('3');
    await db.prisma.item.createMany({
      data: Array.from({ length: items }, (_, i) => ({
        clientAccountId: t.account.id, itemNo: `F-${String(i).padStart(4, '0')}`, name: `Vare ${i}`,
        salesUnitId: i % 2 ? piece : kg, stockUnitId: piece, taxCodeId: tax, price: '99.900000',
      })),
    });
    return { token: t.user.token, accountId: t.account.id };
  };
  return { a: await tenant(1000), b: await tenant(100) };
}

/**
 * The heavy query: 99 aliases, each the first page of 100 of A's items with their sales unit and tax
 * code (cost ~30,000 of 250,000, 990 fields of 1,000, ~1,700 tokens of 2,000).
 */
function heavyQuery(accountId: number, perPage: number): { query: string; variables: Record<string, unknown> } {
  const pages = Array.from({ length: ALIASES }, (_, i) => `p${i}: items(clientAccountId: $a, perPage: ${perPage}) { ...F }`);
  return {
    query: `query Heavy($a: Int!) { ${pages.join(' ')} } fragment F on ItemPage { nodes { id itemNo name price salesUnit { symbol } taxCode { code } } }`,
    variables: { a: accountId },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

interface Sample {
  p50: number;
  p90: number;
  p99: number;
  n: number;
  /** answers other than 200 */
  failed: number;
}

/** B's requests one after the other for `seconds`. */
async function listB(url: string, token: string, seconds: number): Promise<Sample> {
  const times: number[] = [];
  let failed = 0;
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const start = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    times.push(performance.now() - start);
    if (res.status !== 200) failed++;
  }
  times.sort((x, y) => x - y);
  return { p50: percentile(times, 0.5), p90: percentile(times, 0.9), p99: percentile(times, 0.99), n: times.length, failed };
}

/** A's load: HEAVY_CLIENTS loops of the heavy query until `stop()`; counts answers by outcome. */
function loadA(base: string, users: Users, perPage: number) {
  const body = JSON.stringify(heavyQuery(users.a.accountId, perPage));
  const headers = { authorization: `Bearer ${users.a.token}`, 'content-type': 'application/json' };
  const counts = { ok: 0, shed: 0, other: 0 };
  let running = true;
  const started = performance.now();
  const loops = Array.from({ length: HEAVY_CLIENTS }, async () => {
    while (running) {
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers, body }).catch(() => null);
      if (!res) {
        counts.other++;
        continue;
      }
      const text = await res.text();
      if (res.status === 503) counts.shed++;
      else if (res.status === 200 && !text.startsWith('{"errors"')) counts.ok++;
      else counts.other++;
    }
  });
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all(loops);
      return (performance.now() - started) / 1000;
    },
  };
}

const ms = (n: number) => `${Math.round(n)}`.padStart(5);
const shown = (s: Sample) => `p50 ${ms(s.p50)}  p90 ${ms(s.p90)}  p99 ${ms(s.p99)} ms  (${s.n} requests${s.failed ? `, ${s.failed} not 200` : ''})`;

async function measure(label: string, env: Record<string, string>, users: Users, seconds: number, perPage: number): Promise<void> {
  // two users send everything: the per-user API limit (600/min) would answer much of it 429
  const server = await startServer({ ...env, API_RATE_LIMIT: 'off' }, { log: process.env.BENCH_SERVER_LOG });
  try {
    const listUrl = `${server.base}/api/v2/items?client_account_id=${users.b.accountId}`;
    // warm up (JIT, query plans, the unit cache), and check that A's query is allowed
    for (let i = 0; i < 30; i++) {
      const res = await fetch(listUrl, { headers: { authorization: `Bearer ${users.b.token}` } });
      if (!res.ok) throw new Error(`warm-up: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    // the first heavy queries are slow (cold code) and may be refused while the event loop catches up: retried
    for (let ok = 0, tries = 0; ok < 2; tries++) {
      const res = await fetch(`${server.base}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${users.a.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(heavyQuery(users.a.accountId, perPage)),
      });
      const text = await res.text();
      if (res.status === 503 && tries < 10) await new Promise((r) => setTimeout(r, 1000));
      else if (res.status !== 200 || text.startsWith('{"errors"')) throw new Error(`the heavy query is refused: ${res.status} ${text.slice(0, 300)}`);
      else ok++;
    }
    await new Promise((r) => setTimeout(r, 1000));
    const unloaded = await listB(listUrl, users.b.token, seconds);
    const load = loadA(server.base, users, perPage);
    await new Promise((r) => setTimeout(r, LOAD_RAMP_MS));
    const loaded = await listB(listUrl, users.b.token, seconds);
    const loadSeconds = await load.stop();
    const goal = label === 'PostgreSQL' ? { limit: 500, text: 'p90 under load ≤ 500 ms' } : { limit: 2 * unloaded.p90, text: `p90 under load ≤ 2 × unloaded p90 (${Math.round(2 * unloaded.p90)} ms)` };
    console.log(`  ${label}`);
    console.log(`    B alone            ${shown(unloaded)}`);
    console.log(`    B under A's load   ${shown(loaded)}`);
    console.log(
      `    A: ${HEAVY_CLIENTS} connections, ${load.counts.ok} heavy queries answered (${(load.counts.ok / loadSeconds).toFixed(1)}/s), ${load.counts.shed} answered 503, ${load.counts.other} other; RSS ${server.rssMb()} MB`,
    );
    console.log(`    goal: ${goal.text}: ${loaded.p90 <= goal.limit && !loaded.failed ? 'holds' : 'NOT met'}`);
  } finally {
    await server.stop();
  }
}

export async function fairness(args: string[] = []): Promise<void> {
  const at = args.indexOf('--seconds');
  const seconds = at >= 0 ? Number(args[at + 1]) : 10;
  const pp = args.indexOf('--per-page');
  const perPage = pp >= 0 ? Number(args[pp + 1]) : DEFAULT_PER_PAGE;
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-fairness-'));
  const scratch = await scratchPostgres('fairness');
  const targets: { label: string; env: Record<string, string>; open: () => Promise<Database> }[] = [
    { label: 'PGlite', env: { DATA_DIR: dir, DATABASE_URL: '' }, open: () => openDatabase({ dataDir: dir, purpose: 'bench' }) },
    ...(scratch ? [{ label: 'PostgreSQL', env: { DATABASE_URL: scratch.url }, open: () => openDatabase({ databaseUrl: scratch.url }) }] : []),
  ];
  console.log(
    `fairness: user B lists items (GET /api/v2/items, one request at a time) for ${seconds} s alone, then ${seconds} s while user A runs ${HEAVY_CLIENTS} concurrent GraphQL queries of ${ALIASES} aliases × ${perPage} items (default server settings)`,
  );
  try {
    for (const target of targets) {
      const db = await target.open();
      const users = await prepare(db);
      await db.close();
      await measure(target.label, target.env, users, seconds, perPage);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
