import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type DatabaseTarget } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { ensureReferenceData } from '../src/db/reference-data.ts';
import { createSeed } from '../test/support/seed.ts';
import { freePort } from '../test/support/free-port.ts';
import { scratchPostgres } from './scratch-db.ts';

/**
 * npm run bench -- cold-start [runs]: time from spawning the server to its first answer, interleaved
 * in one run, the bundled server (`node src/start.mjs`, what npm start runs, on dist/server.mjs that
 * `npm run build` makes) against TypeScript through tsx (`npm run dev`'s way):
 *  - existing database, on PGlite and on PostgreSQL (a scratch database, when the machine's server
 *    answers): migrated, with a user and a session token, and started once before (so the job
 *    queue's schema and the OAuth keys are in place). The answer waited for is an authenticated one,
 *    POST /graphql `{ __typename }` with the user's bearer token, 200;
 *  - a new PGlite data directory (initdb, migrations, demo seed), to GET /health.
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
  phases: Record<string, [number, number]>;
}

/** Spawns the server and waits for `probe` (or /health) to answer 200; returns the time and the phases it logged. */
async function startOnce(runner: Runner, env: Record<string, string>, token?: string): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const [command, args] = COMMANDS[runner]!;
  const child = spawn(command, args, {
    env: { ...process.env, DATABASE_URL: '', BASE_URL: '', ...env, PORT: String(port), LOG_LEVEL: 'debug' },
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
  const request = (): Promise<Response> =>
    token
      ? fetch(`http://127.0.0.1:${port}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{"query":"{ __typename }"}',
        })
      : fetch(`http://127.0.0.1:${port}/health`);
  try {
    for (;;) {
      try {
        const res = await request();
        if (res.ok) {
          const ms = performance.now() - started;
          await res.arrayBuffer();
          // the phases line is written asynchronously: give it a moment
          for (let i = 0; i < 50 && !phases.listen; i++) await new Promise((r) => setTimeout(r, 10));
          return { ms, phases };
        }
        throw new Error(`answered ${res.status}: ${await res.text()}`);
      } catch (e) {
        if ((e as Error).message.startsWith('answered')) throw e;
        /* not listening yet */
      }
      if (performance.now() - started > 60_000) throw new Error('server did not start within 60 s');
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

export async function coldStart(runs = 3): Promise<void> {
  const results: Record<string, Start[]> = {};
  const add = (key: string, s: Start) => (results[key] ??= []).push(s);

  const pgliteDir = mkdtempSync(join(tmpdir(), 'regnskap-bench-'));
  const pgliteEnv = { DATA_DIR: pgliteDir };
  const pgliteToken = await prepare({ dataDir: pgliteDir, purpose: 'bench' });
  const postgres = await scratchPostgres('cold_start');
  const postgresEnv = postgres ? { DATABASE_URL: postgres.url, SEED_DEMO: 'false' } : undefined;
  const postgresToken = postgres ? await prepare({ databaseUrl: postgres.url }) : undefined;
  try {
    // a first start installs what the server adds to a database (job queue schema, OAuth keys)
    await startOnce('npm start', pgliteEnv, pgliteToken);
    if (postgresEnv) await startOnce('npm start', postgresEnv, postgresToken);
    for (let i = 0; i < runs; i++) {
      for (const runner of Object.keys(COMMANDS) as Runner[]) {
        add(`${runner}, PostgreSQL, existing database`, postgresEnv ? await startOnce(runner, postgresEnv, postgresToken) : { ms: NaN, phases: {} });
        add(`${runner}, PGlite, existing data dir`, await startOnce(runner, pgliteEnv, pgliteToken));
        const dir = mkdtempSync(join(tmpdir(), 'regnskap-bench-'));
        try {
          add(`${runner}, PGlite, new data dir (/health)`, await startOnce(runner, { DATA_DIR: dir }));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    rmSync(pgliteDir, { recursive: true, force: true });
    await postgres?.drop();
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`cold start: spawn to the first authenticated answer (POST /graphql with a bearer token), median of ${runs}`);
  for (const [key, starts] of Object.entries(results)) {
    const xs = starts.map((s) => s.ms);
    if (xs.some(Number.isNaN)) continue;
    console.log(`  ${key.padEnd(48)} ${String(Math.round(median(xs))).padStart(6)} ms  (${xs.map(Math.round).join(', ')})`);
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
