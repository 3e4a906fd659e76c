import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * npm run bench -- cold-start: time from spawning the server to the first answered request on the
 * embedded database, for a new data directory (initdb + migrations + demo seed) and for an existing
 * one, run both ways in the same run, interleaved: compiled JavaScript (`node dist/src/server.js`,
 * what npm start runs; `npm run build` makes it) and TypeScript through tsx (`npm run dev`'s way).
 */
type Runner = 'node dist' | 'tsx';
const COMMANDS: Record<Runner, [string, string[]]> = {
  'node dist': [process.execPath, ['dist/src/server.js']],
  tsx: ['node_modules/.bin/tsx', ['src/server.ts']],
};
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startOnce(runner: Runner, dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const [command, args] = COMMANDS[runner];
  const child = spawn(command, args, {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'silent', DATABASE_URL: '', BASE_URL: '' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        if (res.ok) return performance.now() - started;
      } catch {
        /* not listening yet */
      }
      if (performance.now() - started > 60_000) throw new Error('server did not start within 60 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function coldStart(runs = 3): Promise<void> {
  const times: Record<string, number[]> = {};
  const add = (key: string, ms: number) => (times[key] ??= []).push(ms);
  for (let i = 0; i < runs; i++) {
    for (const runner of Object.keys(COMMANDS) as Runner[]) {
      const dir = mkdtempSync(join(tmpdir(), 'regnskap-bench-'));
      try {
        add(`${runner}, new data dir (initdb, migrate, seed demo)`, await startOnce(runner, dir));
        add(`${runner}, existing data dir`, await startOnce(runner, dir));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log('cold start to first response (embedded PGlite), median of', runs);
  for (const [key, xs] of Object.entries(times)) console.log(`  ${key.padEnd(52)} ${String(Math.round(median(xs))).padStart(6)} ms  (${xs.map(Math.round).join(', ')})`);
}
