import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { Database } from '../../src/db/database.ts';

/** The backup tests' helpers: temporary directories and a writer that keeps the database busy. */

/** `tmp(prefix)`: a new temporary directory, removed after the file's tests. */
export function tempDirs(): (prefix: string) => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

/** Writes to the database until stopped: business partners of the demo company named `<label> <n>`, one after the other. */
export function keepWriting(db: Database, label: string): { started: () => Promise<void>; stop: () => Promise<number> } {
  let stopped = false;
  let n = 0;
  const done = (async () => {
    const account = await db.prisma.clientAccount.findFirstOrThrow({ where: { uniqueName: 'demo-nordlys-kaffe-as' } });
    while (!stopped) await db.prisma.businessPartner.create({ data: { clientAccountId: account.id, name: `${label} ${++n}` } });
  })();
  return {
    /** until a few rows are committed: they are before the snapshot */
    started: async () => {
      while (n < 3) await new Promise((r) => setTimeout(r, 20));
    },
    stop: async () => ((stopped = true), await done, n),
  };
}
