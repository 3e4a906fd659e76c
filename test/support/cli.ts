import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';

/**
 * The real admin CLI (`npm run --silent admin -- ...` runs `node src/start.mjs admin ...`, the bundle
 * dist/admin.mjs, which test/global-setup.ts brings up to date), as a user runs it: one JSON object on
 * stdout and exit 0, or a message on stderr and exit 2 (usage) / 1 (others).
 */
export const cwd = process.cwd();
/** `node src/start.mjs [admin]`: what npm start and npm run admin run */
export const START = [process.execPath, join(cwd, 'src/start.mjs')] as const;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

// vitest puts BASE_URL=/ into process.env; the children must see a clean configuration.
export const baseEnv = (): NodeJS.ProcessEnv => ({ ...process.env, DATABASE_URL: '', BASE_URL: '', LOG_LEVEL: 'silent', SEED_DEMO: 'false' });

export function cli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(START[0], [START[1], 'admin', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Exit 0 and exactly one JSON object on stdout (JSON.parse fails on anything more). */
export function json(res: CliResult): Record<string, any> {
  expect(res.stderr, 'stderr').toBe('');
  expect(res.code).toBe(0);
  const value = JSON.parse(res.stdout);
  expect(value).toBeTypeOf('object');
  expect(Array.isArray(value)).toBe(false);
  return value;
}

/** A CLI run can wait behind the other runs of its target (and the machine is shared): generous. */
export const SLOW = 180_000;
