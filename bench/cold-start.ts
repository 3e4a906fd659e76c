import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * npm run bench -- cold-start: time from `tsx src/server.ts` to the first answered request on the
 * embedded database, for a new data directory (initdb + migrations + demo seed) and for an existing one.
 */
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startOnce(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('node_modules/.bin/tsx', ['src/server.ts'], {
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
  const fresh: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'regnskap-bench-'));
    try {
      fresh.push(await startOnce(dir));
      warm.push(await startOnce(dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const fmt = (xs: number[]) => `median ${Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)])} ms (${xs.map(Math.round).join(', ')})`;
  console.log(`cold start to first response, new data dir (initdb, migrate, seed demo): ${fmt(fresh)}`);
  console.log(`cold start to first response, existing data dir:                         ${fmt(warm)}`);
}
