import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/db/lock.ts';

// Issue "Database": the embedded database belongs to one process; any other command that would open
// it refuses with a clear message telling the user to stop the server or set DATABASE_URL.
describe('embedded database lock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regnskap-lock-'));
  let holder: ChildProcess;

  beforeAll(async () => {
    // another process holds the lock, as a running server would
    holder = spawn(process.execPath, ['--import', 'tsx', '-e', `
      const { lockDataDir } = await import('./src/db/lock.ts');
      lockDataDir(${JSON.stringify(dir)}, 'server');
      console.log('locked');
      setInterval(() => {}, 1000);`], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout!.on('data', (d) => String(d).includes('locked') && resolve()));
  });
  afterAll(() => {
    holder?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second opener refuses with a message naming the server and DATABASE_URL', () => {
    expect(() => lockDataDir(dir, 'cli')).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir, 'cli')).toThrow(/Stop that process.*DATABASE_URL/s);
  });

  it('npm run migrate refuses the locked directory and exits 1', () => {
    const res = spawnSync('node_modules/.bin/tsx', ['src/db/migrate-cli.ts', 'deploy'], {
      // vitest puts BASE_URL=/ into process.env; the child must see a clean configuration
      env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', BASE_URL: '' },
      encoding: 'utf8',
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/in use by another process.*DATABASE_URL/s);
  });

  it('the same process cannot open it twice; a lock left by a dead process is taken over', () => {
    const own = mkdtempSync(join(tmpdir(), 'regnskap-lock-own-'));
    const lock = lockDataDir(own, 'test');
    expect(() => lockDataDir(own, 'again')).toThrow(DataDirLockedError);
    lock.release();
    const dead = spawnSync(process.execPath, ['--import', 'tsx', '-e', `
      const { lockDataDir } = await import('./src/db/lock.ts');
      lockDataDir(${JSON.stringify(own)}, 'crashed');
      process.kill(process.pid, 'SIGKILL');`]);
    expect(dead.signal).toBe('SIGKILL');
    lockDataDir(own, 'after crash').release();
    rmSync(own, { recursive: true, force: true });
  });
});
