import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabase, type Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { scratchPostgres } from './scratch-db.ts';
import { startServer } from './server-process.ts';

/**
 * npm run bench -- load [connections...] [--seconds N]: a bounded load on one list endpoint
 * (GET /api/v2/items per_page=50 with its three relations) from autocannon, 10 and then 50
 * connections for 15 s by default (`npm run bench -- load 200 --seconds 20` is the hardening probe),
 * a client that gives up after 10 s. The server runs as its own process in production mode, on
 * PGlite and on a scratch PostgreSQL database, with admission control off (REQUEST_CONCURRENCY=0,
 * the baseline) and on (the default) in the same run. Prints ok/s, p50/p99, 503s, timeouts, other
 * errors and the server's RSS idle and 3 s after the load; the last connection count's default run
 * goes three rounds on one server, so its RSS shows whether memory keeps growing under load.
 *
 *   BENCH_SERVER_LOG=/tmp/log  keeps each server's request log (LOG_LEVEL info) in /tmp/log.<port>
 */
const CLIENT_TIMEOUT_S = 10;
const WARM_UP_REQUESTS = 50;

/** A tenant with 1,000 items and a session token, written before the server starts. */
async function prepare(db: Database): Promise<{ token: string; accountId: number }> {
  await applyMigrations(db.adapterFactory);
  await ensureReferenceData(db.prisma);
  const seed = createSeed(db.prisma);
  const t = await seed.tenant();
  const [piece, kg] = [await seed.unitId('H87'), await seed.unitId('KGM')];
  const tax = await t.taxCode('3');
  await db.prisma.item.createMany({
    data: Array.from({ length: 1000 }, (_, i) => ({
      clientAccountId: t.account.id, itemNo: `L-${String(i).padStart(4, '0')}`, name: `Vare ${i}`,
      salesUnitId: i % 2 ? piece : kg, stockUnitId: piece, taxCodeId: tax, price: '99.900000',
    })),
  });
  return { token: t.user.token, accountId: t.account.id };
}

async function hammer(label: string, env: Record<string, string>, auth: { token: string; accountId: number }, connections: number, seconds: number, rounds = 1): Promise<void> {
  // one user sends everything: the per-user API limit (600/min) would answer most of it 429
  const server = await startServer({ ...env, API_RATE_LIMIT: 'off' }, { log: process.env.BENCH_SERVER_LOG });
  try {
    const url = `${server.base}/api/v2/items?client_account_id=${auth.accountId}&per_page=50&with=sales_unit,stock_unit,tax_code`;
    const headers = { authorization: `Bearer ${auth.token}` };
    // warm up (JIT, query plans, the unit cache) sequentially: the figures are the steady state
    for (let i = 0; i < WARM_UP_REQUESTS; i++) {
      const warm = await fetch(url, { headers });
      if (!warm.ok) throw new Error(`warm-up: ${warm.status} ${await warm.text()}`);
      await warm.arrayBuffer();
    }
    const rss = [server.rssMb()];
    let r: autocannon.Result | undefined;
    for (let round = 0; round < rounds; round++) {
      const result = await autocannon({ url, headers, connections, duration: seconds, timeout: CLIENT_TIMEOUT_S });
      r ??= result; // the figures are the first round's; later rounds show whether memory keeps growing
      await new Promise((res) => setTimeout(res, 3000));
      rss.push(server.rssMb());
    }
    const shed = r!.statusCodeStats?.['503']?.count ?? 0;
    console.log(
      `  ${label.padEnd(40)} ${String(Math.round(r!['2xx'] / seconds)).padStart(5)} ok/s  p50 ${String(r!.latency.p50).padStart(5)} ms  p99 ${String(r!.latency.p99).padStart(5)} ms  ` +
        `503: ${String(shed).padStart(5)}  timeouts: ${String(r!.timeouts).padStart(4)}  other errors: ${r!.errors - r!.timeouts + (r!.non2xx - shed)}  RSS ${rss.join(' → ')} MB (idle, then 3 s after each round)`,
    );
  } finally {
    await server.stop();
  }
}

export async function load(args: string[] = []): Promise<void> {
  const at = args.indexOf('--seconds');
  const seconds = at >= 0 ? Number(args[at + 1]) : 15;
  const listed = args.filter((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--seconds').map(Number);
  const connectionCounts = listed.length ? listed : [10, 50];
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-load-'));
  const scratch = await scratchPostgres('load');
  const targets: { label: string; env: Record<string, string>; open: () => Promise<Database> }[] = [
    { label: 'PGlite', env: { DATA_DIR: dir, DATABASE_URL: '' }, open: () => openDatabase({ dataDir: dir, purpose: 'bench' }) },
    ...(scratch ? [{ label: 'PostgreSQL', env: { DATABASE_URL: scratch.url }, open: () => openDatabase({ databaseUrl: scratch.url }) }] : []),
  ];
  console.log(`load: GET /api/v2/items per_page=50 with 3 relations, ${seconds} s per run, client timeout ${CLIENT_TIMEOUT_S} s`);
  try {
    for (const target of targets) {
      const db = await target.open();
      const auth = await prepare(db);
      await db.close();
      for (const connections of connectionCounts) {
        await hammer(`${target.label}, ${connections} conns, admission off`, { ...target.env, REQUEST_CONCURRENCY: '0' }, auth, connections, seconds);
        await hammer(`${target.label}, ${connections} conns, admission on`, target.env, auth, connections, seconds, connections === connectionCounts.at(-1) ? 3 : 1);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
