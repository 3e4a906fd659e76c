import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Prisma } from '../../db/database.ts';
import { SAFT_FILE_NAMES, SAFT_FILE_TOUCH_MS, saftImportDir } from './saft-imports.service.ts';

/**
 * How old (mtime) a POST's spool file, or an import's XML that no import row names, must be before
 * the cleanup removes it: one hour, 60 × SAFT_FILE_TOUCH_MS. A request working on such a file touches
 * it every minute until its import is committed (upload-*.xml is written after the body has been
 * received, so the body's own time, REQUEST_BODY_TIMEOUT_MS, does not bound it: the checks after it
 * do, minutes for a 1 GiB file), so only a file whose process died, or whose commit failed, gets this
 * old; an hour leaves room for a stalled event loop and for clocks of hosts sharing DATA_DIR.
 */
export const SAFT_ORPHAN_AGE_MS = 60 * SAFT_FILE_TOUCH_MS;

/** What one cleanup removed: spool files of dead requests, XML of finished imports, XML no import row names. */
export interface SaftCleanup {
  spools: number;
  finished: number;
  orphans: number;
}

/**
 * Removes from $DATA_DIR/saft-imports what no request or job will read again, safely while other
 * processes sharing DATA_DIR and the database upload and import (README "Files on disk"):
 *
 * - `upload-*.xml` (a POST's spool file) untouched for SAFT_ORPHAN_AGE_MS: its request ended without
 *   removing it (the process died);
 * - `<id>.xml` of an import that is COMPLETED or FAILED, whatever its age: the job removes it before it
 *   records that outcome, so one left (the removal failed, a give-up ran where DATA_DIR differs) is
 *   read by nothing: an import is never run again, and what it did is in its row (file hash, summary,
 *   errors) and its entries' references, not in the file;
 * - `<id>.xml` that no import row names, untouched for SAFT_ORPHAN_AGE_MS: a POST that died or failed
 *   at its commit (until then the row is invisible here, and the request keeps the file young), or
 *   an import deleted with its client account.
 *
 * The XML of a QUEUED or RUNNING import is never removed, however old (its job reads it). The
 * directory is listed and the files' ages read before the rows, so a row committed after that read
 * belongs to a file that was young. Other names are left alone.
 */
export async function removeStaleSaftFiles(prisma: Prisma, dataDir: string, now = Date.now()): Promise<SaftCleanup> {
  const dir = saftImportDir(dataDir);
  const removed: SaftCleanup = { spools: 0, finished: 0, orphans: 0 };
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  const old = async (name: string) => {
    const s = await stat(join(dir, name)).catch(() => null); // gone meanwhile: its owner removed it
    return s !== null && now - s.mtimeMs > SAFT_ORPHAN_AGE_MS;
  };
  const remove = async (name: string, kind: keyof SaftCleanup) => {
    await rm(join(dir, name), { force: true });
    removed[kind]++;
  };
  const imported = new Map<number, { name: string; old: boolean }>();
  for (const name of names) {
    if (SAFT_FILE_NAMES.spool.test(name)) {
      if (await old(name)) await remove(name, 'spools');
      continue;
    }
    const id = SAFT_FILE_NAMES.imported.exec(name)?.[1];
    if (id) imported.set(Number(id), { name, old: await old(name) });
  }
  if (!imported.size) return removed;
  // a name beyond the id column's range is no import's (and not asked for: Prisma would refuse it)
  const ids = [...imported.keys()].filter((id) => id <= 2 ** 31 - 1);
  const rows = await prisma.saftImport.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } });
  const status = new Map(rows.map((r) => [r.id, r.status]));
  for (const [id, file] of imported) {
    const s = status.get(id);
    if (s === 'COMPLETED' || s === 'FAILED') await remove(file.name, 'finished');
    else if (s === undefined && file.old) await remove(file.name, 'orphans');
  }
  return removed;
}
