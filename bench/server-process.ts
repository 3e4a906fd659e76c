import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { freePort } from '../test/support/free-port.ts';

/**
 * A server under load runs as its own process, as in production (`node dist/server.mjs`, what
 * npm start runs, in production mode; `npm run build` makes dist/), so the client's CPU is not in
 * its figures. `script` starts another server (the bare graphql-yoga of the overhead bench).
 * BENCH_SERVER_FLAGS adds Node flags to every benchmarked server (`--cpu-prof --cpu-prof-dir=/tmp/p`:
 * a CPU profile of each server, written when it stops).
 */
export interface ServerProcess {
  base: string;
  pid: number;
  /** resident set size now, in MB (from /proc) */
  rssMb(): number;
  /** how the process ended ("exit code 1", "signal SIGKILL"), null while it runs */
  ended(): string | null;
  /**
   * The last 4 KB the server wrote to stderr (without a log file): V8's "FATAL ERROR: … JavaScript
   * heap out of memory" goes there and nowhere else, so a server that died says why.
   */
  stderrTail(): string;
  stop(): Promise<void>;
}

/** The Node flags npm start gives the server (package.json's start script, e.g. its heap limit): a benchmarked server runs as npm start runs it. */
const START_FLAGS = (/^node\s+(.*?)\s*src\/start\.mjs/.exec((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start)?.[1] ?? '')
  .split(/\s+/)
  .filter(Boolean);

export async function startServer(env: Record<string, string>, options: { script?: string; log?: string } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const extra = (process.env.BENCH_SERVER_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...(options.script ? [] : START_FLAGS), ...extra, options.script ?? 'dist/server.mjs'], {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: options.log ? 'info' : 'silent', SEED_DEMO: 'false', ...env, PORT: String(port) },
    stdio: options.log ? ['ignore', ...((fd) => [fd, fd])(openSync(`${options.log}.${port}`, 'w'))] : ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-4096);
  });
  let ended: string | null = null;
  const exited = new Promise((r) => child.once('exit', (code, signal) => r((ended = signal ? `signal ${signal}` : `exit code ${code}`))));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (const started = Date.now(); ; ) {
    try {
      if ((await fetch(`${base}/health`)).status < 500) break;
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null || Date.now() - started > 60_000) {
      await stop();
      throw new Error(`server ${options.script ?? ''} did not start (exit code ${child.exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const stderrTail = () => (options.log ? readFileSync(`${options.log}.${port}`, 'utf8').slice(-4096) : stderr);
  return { base, pid: child.pid!, rssMb: () => rssMb(child.pid!), ended: () => ended, stderrTail, stop };
}

export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
