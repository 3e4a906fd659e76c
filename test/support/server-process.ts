import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/project-root.ts';
import { freePort } from './free-port.ts';

/**
 * A server started as npm start starts it (`node src/start.mjs`, production mode, its own port), for
 * the tests about what only a separate process shows: traces, several processes, shutdown. (The
 * functional tests use the in-process app of harness.ts.)
 */
export interface ServerProcess {
  child: ChildProcess;
  base: string;
}

/** Until `url` answers below 500; throws when `child` exits first or after two minutes. */
export async function waitUntilAnswering(url: string, child: ChildProcess, what: string): Promise<void> {
  for (const started = Date.now(); ; ) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null || Date.now() - started > 120_000) throw new Error(`${what} did not start (exit code ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts `node src/start.mjs` with `env` over a clean base (port, host, BASE_URL, quiet logs, no event-loop shedding) and waits for /health. */
export async function startServerProcess(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'src/start.mjs')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', BASE_URL: base, LOG_LEVEL: 'warn', REQUEST_MAX_EVENT_LOOP_DELAY_MS: '0', ...env },
    stdio: 'ignore',
  });
  await waitUntilAnswering(`${base}/health`, child, 'the server');
  return { child, base };
}

/** SIGTERM, and its exit code once it has exited (its code at once when it already has). */
export function stopProcess(child: ChildProcess | undefined): Promise<number | null> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child?.exitCode ?? null);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return exited;
}
