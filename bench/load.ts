import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { freePort } from './cold-start.ts';

/**
 * npm run bench -- load: many connections hammering one list endpoint, the way the hardening probe
 * did (200 connections, GET /api/v2/items per_page=50, 20 s, a client that gives up after 10 s).
 * The server runs as its own process (node dist/src/server.js, what npm start runs); the same run
 * measures it with admission control off (REQUEST_CONCURRENCY=0, the baseline) and on (the default),
 * on PGlite and, when BENCH_DATABASE_URL names an empty PostgreSQL database, on PostgreSQL.
 *
 *   npm run bench -- load [connections] [seconds]
 *   BENCH_SERVER_LOG=/tmp/log  keeps each server's request log (LOG_LEVEL info) in /tmp/log.<port>
 */
const CLIENT_TIMEOUT_MS = 10_000;
const WARM_UP_REQUESTS = 50;

interface Target {
  label: string;
  env: Record<string, string>;
  open(): Promise<Database>;
  cleanup(): void;
}

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
      clientAccountId: t.account.id,
      itemNo: `L-${String(i).padStart(4, '0')}`,
      name: `Vare ${i}`,
      salesUnitId: i % 2 ? piece : kg,
      stockUnitId: piece,
      taxCodeId: tax,
      price: '99.900000',
    })),
  });
  return { token: t.user.token, accountId: t.account.id };
}

interface Figures {
  ok: number;
  shed: number;
  timeouts: number;
  otherErrors: number;
  latencies: number[];
  seconds: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  rssSettledMb: number;
}

const rssMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
};

async function hammer(env: Record<string, string>, auth: { token: string; accountId: number }, connections: number, seconds: number): Promise<Figures> {
  const port = await freePort();
  const log = process.env.BENCH_SERVER_LOG; // a file for the server's request log (LOG_LEVEL info)
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    // one user sends everything: the per-user API limit (600/min) would answer most of it 429
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: log ? 'info' : 'silent', BASE_URL: '', SEED_DEMO: 'false', API_RATE_LIMIT: 'off' },
    stdio: log ? ['ignore', openSync(`${log}.${port}`, 'w'), 'ignore'] : 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (const started = Date.now(); ; ) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() - started > 60_000) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    const path = `/api/v2/items?client_account_id=${auth.accountId}&per_page=50`;
    const headers = { authorization: `Bearer ${auth.token}` };
    // warm up (JIT, query plans) with a few sequential requests: the figures are the steady state
    for (let i = 0; i < WARM_UP_REQUESTS; i++) {
      const warm = await fetch(base + path, { headers });
      if (warm.status === 503) await new Promise((r) => setTimeout(r, 200)); // still starting up
      else if (!warm.ok) throw new Error(`warm-up: ${warm.status} ${await warm.text()}`);
      await warm.arrayBuffer();
    }
    const f: Figures = { ok: 0, shed: 0, timeouts: 0, otherErrors: 0, latencies: [], seconds, rssBeforeMb: rssMb(child.pid!), rssAfterMb: 0, rssSettledMb: 0 };
    const until = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < until) {
        const start = performance.now();
        try {
          const res = await fetch(base + path, { headers, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
          await res.arrayBuffer();
          if (res.ok) {
            f.ok++;
            f.latencies.push(performance.now() - start);
          } else if (res.status === 503) {
            f.shed++;
            // a well-behaved client waits as told; the probe's did not, so neither do we (worst case)
          } else f.otherErrors++;
        } catch (e) {
          if ((e as Error).name === 'TimeoutError') f.timeouts++;
          else f.otherErrors++;
        }
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    f.rssAfterMb = rssMb(child.pid!);
    await new Promise((r) => setTimeout(r, 3000));
    f.rssSettledMb = rssMb(child.pid!);
    return f;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

function report(label: string, f: Figures): void {
  const l = [...f.latencies].sort((a, b) => a - b);
  const q = (p: number) => (l.length ? Math.round(l[Math.min(l.length - 1, Math.floor(p * l.length))]) : NaN);
  console.log(
    `  ${label.padEnd(44)} ${String(Math.round(f.ok / f.seconds)).padStart(5)} ok/s  p50 ${String(q(0.5)).padStart(5)} ms  p99 ${String(q(0.99)).padStart(5)} ms  ` +
      `503: ${String(f.shed).padStart(6)}  timeouts: ${String(f.timeouts).padStart(4)}  other errors: ${f.otherErrors}  RSS ${f.rssBeforeMb} → ${f.rssAfterMb} MB (${f.rssSettledMb} MB 3 s later)`,
  );
}

export async function load(connections = 200, seconds = 20): Promise<void> {
  const targets: Target[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-load-'));
  targets.push({ label: 'PGlite', env: { DATA_DIR: dir, DATABASE_URL: '' }, open: () => openDatabase({ dataDir: dir, purpose: 'bench' }), cleanup: () => rmSync(dir, { recursive: true, force: true }) });
  const pg = process.env.BENCH_DATABASE_URL;
  if (pg) targets.push({ label: 'PostgreSQL', env: { DATABASE_URL: pg }, open: () => openDatabase({ databaseUrl: pg }), cleanup: () => {} });
  else console.log('(set BENCH_DATABASE_URL to an empty PostgreSQL database to measure PostgreSQL too)');

  console.log(`load: ${connections} connections, GET /api/v2/items per_page=50 for ${seconds} s each, client timeout ${CLIENT_TIMEOUT_MS / 1000} s`);
  for (const target of targets) {
    try {
      const db = await target.open();
      const auth = await prepare(db);
      await db.close();
      report(`${target.label}, admission control off (baseline)`, await hammer({ ...target.env, REQUEST_CONCURRENCY: '0' }, auth, connections, seconds));
      report(`${target.label}, admission control on (default)`, await hammer(target.env, auth, connections, seconds));
    } finally {
      target.cleanup();
    }
  }
}
