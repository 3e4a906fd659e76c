import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('the lock file records who holds it: pid, and on Linux the start time and boot of that process', () => {
    const own = mkdtempSync(join(tmpdir(), 'regnskap-lock-who-'));
    const lock = lockDataDir(own, 'test');
    const written = JSON.parse(readFileSync(join(own, 'embedded-db.lock'), 'utf8'));
    expect(written).toMatchObject({ pid: process.pid, purpose: 'test' });
    if (process.platform === 'linux') expect(written).toMatchObject({ startTime: expect.stringMatching(/^\d+$/), bootId: expect.any(String) });
    lock.release();
    rmSync(own, { recursive: true, force: true });
  });

  // A stale lock whose pid now names an unrelated live process (pid reuse after a crash or a reboot)
  // must not block start-up forever.
  describe.runIf(process.platform === 'linux')('pid reuse (Linux: start time from /proc/<pid>/stat, boot id)', () => {
    let unrelated: ChildProcess;
    let own: string;
    const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const startTime = (pid: number) => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    };
    const writeLock = (content: Record<string, unknown>) =>
      writeFileSync(join(own, 'embedded-db.lock'), JSON.stringify({ pid: unrelated.pid, purpose: 'server', since: new Date().toISOString(), ...content }));

    beforeAll(() => {
      unrelated = spawn('sleep', ['600'], { stdio: 'ignore' });
      own = mkdtempSync(join(tmpdir(), 'regnskap-lock-reuse-'));
    });
    afterAll(() => {
      unrelated?.kill();
      rmSync(own, { recursive: true, force: true });
    });

    it('a lock naming a live process with another start time is stale: it is taken over', () => {
      writeLock({ startTime: String(Number(startTime(unrelated.pid!)) - 1), bootId: bootId() });
      lockDataDir(own, 'server after crash').release();
    });

    it('a lock naming a live process from an earlier boot is stale: it is taken over', () => {
      writeLock({ startTime: startTime(unrelated.pid!), bootId: '00000000-0000-0000-0000-000000000000' });
      lockDataDir(own, 'server after reboot').release();
    });

    it('a lock naming that live process with its own start time and boot is held: refused', () => {
      writeLock({ startTime: startTime(unrelated.pid!), bootId: bootId() });
      expect(() => lockDataDir(own, 'cli')).toThrow(DataDirLockedError);
    });

    it('a lock without start time (written without /proc) naming a live process is held: refused', () => {
      writeLock({});
      expect(() => lockDataDir(own, 'cli')).toThrow(new RegExp(`pid ${unrelated.pid}`));
    });
  });
});
