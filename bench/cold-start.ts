import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type DatabaseTarget } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { freePort } from '../test/support/free-port.ts';
import { scratchPostgres } from './scratch-db.ts';
import { DEMO_LOGIN } from '../src/admin/seed-demo.ts';
import { buildTemplates, TEMPLATE_DIR } from '../src/db/template.mjs';
import { bundle, bundlePath } from '../src/bundle.mjs';

/**
 * npm run bench -- cold-start [runs]: time from spawning the server to its first answer, and the
 * server's peak RSS (VmHWM) by then, interleaved in one run (median of `runs`, default 5):
 *  - a new PGlite data directory: `npm start` (node src/start.mjs) to the demo login's first GraphQL
 *    answer (POST /v2/oauth/login with the demo's password, then POST /graphql `{ me { id } }` with
 *    its token), with the install's database template (src/db/template.mjs) and, as the baseline in
 *    the same run, without it (the template directory moved aside: initdb, migrations, demo seed);
 *  - a restart on that existing data directory, same measure;
 *  - a new PostgreSQL database (scratch, SEED_DEMO=false) to GET /health;
 *  - an existing PostgreSQL database, migrated, with a user and a session token, to an authenticated
 *    POST /graphql `{ __typename }`;
 *  and, as the baseline of the last two and the restart, the same through tsx (npm run dev's way).
 * Each request is retried every 10 ms until it is answered. The server logs its start-up phases at
 * debug level (src/server.ts); their medians are printed as [start, end] ms after spawn.
 *
 * COLD_START_BASELINE=<path of another build's dist/server.mjs> measures that build instead of
 * tsx, interleaved with this one: before/after figures from the same run. (The other build needs
 * package.json, prisma/ and node_modules above its dist/, as a copy of the project has.)
 */
type Runner = 'npm start' | 'tsx' | 'baseline';
const baseline = process.env.COLD_START_BASELINE;
const COMMANDS: Partial<Record<Runner, [string, string[]]>> = baseline
  ? { 'npm start': [process.execPath, ['src/start.mjs']], baseline: [process.execPath, [baseline]] }
  : { 'npm start': [process.execPath, ['src/start.mjs']], tsx: ['node_modules/.bin/tsx', ['src/server.ts']] };

interface Start {
  ms: number;
  /** the server's peak resident set size when it answered, MB */
  rssMb: number;
  phases: Record<string, [number, number]>;
}

/** What a start waits for: /health, an authenticated `{ __typename }` with a token, or the demo login and its first GraphQL answer. */
type Probe = { health: true } | { token: string } | { demo: true };

const peakRssMb = (pid: number) => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
    return Math.round(Number(line?.split(/\s+/)[1] ?? NaN) / 1024);
  } catch {
    return NaN;
  }
};

/** Spawns the server and waits for `probe` to answer 200; returns the time, the peak RSS and the phases it logged. */
async function startOnce(runner: Runner, env: Record<string, string>, probe: Probe): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const [command, args] = COMMANDS[runner]!;
  const child = spawn(command, args, {
    // event-loop-delay shedding off (as the bundle test has it): on a busy machine a start's own lag could refuse the probe
    env: { ...process.env, DATABASE_URL: '', BASE_URL: '', REQUEST_MAX_EVENT_LOOP_DELAY_MS: '0', ...env, PORT: String(port), LOG_LEVEL: 'debug' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let phases: Start['phases'] = {};
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      if (line.includes('"start-up phases"')) phases = JSON.parse(line).phases;
    }
  });
  const exited = new Promise((r) => child.once('exit', r));
  const base = `http://127.0.0.1:${port}`;
  const graphql = (token: string, query: string) =>
    fetch(`${base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  const request = async (): Promise<Response> => {
    if ('health' in probe) return fetch(`${base}/health`);
    if ('token' in probe) return graphql(probe.token, '{ __typename }');
    const login = await fetch(`${base}/v2/oauth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(DEMO_LOGIN) });
    if (!login.ok) return login;
    return graphql(((await login.json()) as { access_token: string }).access_token, '{ me { id } }');
  };
  try {
    for (;;) {
      try {
        const res = await request();
        if (res.ok) {
          const ms = performance.now() - started;
          await res.arrayBuffer();
          const rssMb = peakRssMb(child.pid!);
          // the phases line is written asynchronously: give it a moment
          for (let i = 0; i < 50 && !phases.listen; i++) await new Promise((r) => setTimeout(r, 10));
          return { ms, rssMb, phases };
        }
        throw new Error(`answered ${res.status}: ${await res.text()}`);
      } catch (e) {
        if ((e as Error).message.startsWith('answered')) throw e;
        /* not listening yet */
      }
      if (performance.now() - started > 120_000) throw new Error('server did not start within 120 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Migrates the database and writes a user with a session token, as bench/load.ts does. */
async function prepare(target: DatabaseTarget): Promise<string> {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db.adapterFactory);
    await ensureReferenceData(db.prisma);
    return (await createSeed(db.prisma).user()).token;
  } finally {
    await db.close();
  }
}

/** Runs `work` with the install's database template moved aside (a new data dir then starts the long way). */
async function withoutTemplate<T>(work: () => Promise<T>): Promise<T> {
  const aside = `${TEMPLATE_DIR}.aside-${process.pid}`;
  renameSync(TEMPLATE_DIR, aside);
  try {
    return await work();
  } finally {
    renameSync(aside, TEMPLATE_DIR);
  }
}

export async function coldStart(runs = 5): Promise<void> {
  // the server's bundle was just built (bench/run.ts); the template a new data dir starts from is made
  // by the admin CLI of the same sources and belongs to that bundle, as npm run build makes them
  await bundle(bundlePath('admin'), 'admin');
  buildTemplates();
  const results: Record<string, Start[]> = {};
  const add = (key: string, s: Start) => (results[key] ??= []).push(s);

  const scratch: string[] = [];
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'regnskap-bench-'));
    scratch.push(dir);
    return dir;
  };
  const postgresServer = await scratchPostgres('cold_start');
  const postgresEnv = postgresServer ? { DATABASE_URL: postgresServer.url, SEED_DEMO: 'false' } : undefined;
  const postgresToken = postgresServer ? await prepare({ databaseUrl: postgresServer.url }) : undefined;
  try {
    // a first start installs what the server adds to a database (job queue schema, OAuth keys)
    if (postgresEnv) await startOnce('npm start', postgresEnv, { token: postgresToken! });
    for (let i = 0; i < runs; i++) {
      const demoDir = newDir();
      add('npm start, PGlite, new data dir (demo login)', await startOnce('npm start', { DATA_DIR: demoDir }, { demo: true }));
      add('npm start, PGlite, restart (demo login)', await startOnce('npm start', { DATA_DIR: demoDir }, { demo: true }));
      add('baseline: no template, PGlite, new data dir (demo login)', await withoutTemplate(() => startOnce('npm start', { DATA_DIR: newDir() }, { demo: true })));
      for (const runner of Object.keys(COMMANDS).filter((r) => r !== 'npm start') as Runner[]) {
        add(`${runner}, PGlite, restart (demo login)`, await startOnce(runner, { DATA_DIR: demoDir }, { demo: true }));
      }
      for (const runner of Object.keys(COMMANDS) as Runner[]) {
        if (!postgresServer) continue;
        const fresh = await scratchPostgres(`cold_start_new_${i}`);
        try {
          add(`${runner}, PostgreSQL, new database (/health)`, await startOnce(runner, { DATABASE_URL: fresh!.url, SEED_DEMO: 'false' }, { health: true }));
        } finally {
          await fresh?.drop();
        }
        add(`${runner}, PostgreSQL, existing database`, await startOnce(runner, postgresEnv!, { token: postgresToken! }));
      }
      for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    await postgresServer?.drop();
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`cold start: spawn to the first answer, median of ${runs}, with the server's peak RSS then`);
  for (const [key, starts] of Object.entries(results)) {
    const xs = starts.map((s) => s.ms);
    console.log(`  ${key.padEnd(58)} ${String(Math.round(median(xs))).padStart(6)} ms  ${String(median(starts.map((s) => s.rssMb))).padStart(4)} MB  (${xs.map(Math.round).join(', ')})`);
  }
  console.log('start-up phases, median [start, end] ms since the process started (src/server.ts, LOG_LEVEL=debug):');
  for (const [key, starts] of Object.entries(results)) {
    if (key.startsWith('tsx') || !starts[0]?.phases.listen) continue;
    const names = Object.keys(starts[0].phases);
    const cells = names.map((n) => {
      const [a, b] = [0, 1].map((i) => median(starts.map((s) => s.phases[n]?.[i] ?? NaN)));
      return `${n} ${a}–${b}`;
    });
    console.log(`  ${key}:\n    ${cells.join(', ')}`);
  }
}
