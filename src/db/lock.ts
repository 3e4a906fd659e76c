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

/**
 * Which process a pid names, so that a pid reused by another process is not mistaken for the holder:
 * on Linux, its start time (field 22 of /proc/<pid>/stat, clock ticks since boot) and the boot it
 * belongs to (/proc/sys/kernel/random/boot_id). Undefined where /proc does not tell.
 */
interface ProcessIdentity {
  startTime: string;
  bootId: string;
}

function processIdentity(pid: number): ProcessIdentity | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // field 2, the command name, is in parentheses and may itself contain spaces and ')': field 3 on follow the last ')'
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return /^\d+$/.test(startTime ?? '') && bootId ? { startTime, bootId } : undefined;
  } catch {
    return undefined;
  }
}

interface LockFile extends Partial<ProcessIdentity> {
  pid: number;
  purpose: string;
  since: string;
}

/**
 * The pid of the process that wrote a lock file when that process still runs, else undefined (a
 * stale lock). Its pid alone is not enough: after a crash and a reboot, or long enough, another
 * process may have the same pid, and start-up would refuse forever. So the lock records the holder's
 * identity and a live pid whose identity differs is stale. A lock without identity (no /proc when it
 * was written) and a process whose identity cannot be read now are taken as held: refusing is the
 * safe mistake.
 */
function liveHolder(lock: Partial<LockFile>): number | undefined {
  const pid = Number(lock.pid);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !isAlive(pid)) return undefined;
  if (lock.startTime === undefined || lock.bootId === undefined) return pid;
  const now = processIdentity(pid);
  return !now || (now.startTime === String(lock.startTime) && now.bootId === lock.bootId) ? pid : undefined;
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
      const lock: LockFile = { pid: process.pid, purpose, since: new Date().toISOString(), ...processIdentity(process.pid) };
      writeSync(fd, JSON.stringify(lock));
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
      let holder: Partial<LockFile> = {};
      try {
        holder = JSON.parse(readFileSync(file, 'utf8')) ?? {};
      } catch {
        /* unreadable lock: treat as stale */
      }
      const pid = liveHolder(holder);
      if (pid !== undefined) throw new DataDirLockedError(dataDir, pid);
      // otherwise a stale lock: its process died, or its pid now names another process (or this one)
      try {
        unlinkSync(file);
      } catch {
        /* raced with another remover */
      }
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}
