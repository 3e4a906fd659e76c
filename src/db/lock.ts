import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The embedded database belongs to one process. PGlite itself takes no lock on its directory, so
 * whoever opens it (server, admin CLI, migrate) first takes this one; a second opener refuses.
 */
export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${resolve(dataDir)} is in use by another process (pid ${pid}, probably the server).\n` +
        `Stop that process first, or set DATABASE_URL to use PostgreSQL, which many processes can share.`,
    );
  }
}

export interface DataDirLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lock files this process holds: opening the same directory twice in one process is refused too. */
const heldHere = new Set<string>();

export function lockDataDir(dataDir: string, purpose: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = resolve(dataDir, 'embedded-db.lock');
  if (heldHere.has(file)) throw new DataDirLockedError(dataDir, process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, purpose, since: new Date().toISOString() }));
      closeSync(fd);
      heldHere.add(file);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        heldHere.delete(file);
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return { release };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = 0;
      try {
        holder = Number(JSON.parse(readFileSync(file, 'utf8')).pid) || 0;
      } catch {
        /* unreadable lock: treat as stale */
      }
      if (holder && holder !== process.pid && isAlive(holder)) throw new DataDirLockedError(dataDir, holder);
      // otherwise: a lock left by a process that died (or by an earlier run of this pid number)
      try {
        unlinkSync(file); // stale lock of a process that died
      } catch {
        /* raced with another remover */
      }
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}
