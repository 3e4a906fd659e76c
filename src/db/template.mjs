// A new embedded database starts as a copy of a template data directory that `npm run build` (and so
// `npm install`) makes beside the bundle, instead of running initdb, the migrations, the job queue's
// schema and the demo seed on the user's first start (about 17 s on a 2-core machine; a copy and an
// open take well under 2 s: npm run bench -- cold-start).
//
// dist/pglite-template/ holds two PGlite data directories, each written by the admin CLI of the same
// build and closed cleanly, and a manifest:
//   base/   migrated, reference data, the job queue's schema: what every start makes first;
//   demo/   base plus the demo seed (`npm run admin -- seed-demo`) as of `demoDay`;
//   manifest.json  { bundle: sha256 of dist/server.mjs, pglite: PGlite's version, demoDay }.
// A template is used only by the build it belongs to (same server bundle, same PGlite), and the demo
// template only on the Oslo day it was seeded (the demo year runs up to "today"); otherwise the start
// copies the base template and seeds the demo itself, or (no template at all: tsx, a changed source)
// does everything itself. Neither template holds a secret: server secrets (OAuth keys, signing keys)
// are made by the server on its first start, per database.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../project-root.mjs';

const bundleDir = join(PROJECT_ROOT, 'dist');
export const TEMPLATE_DIR = join(bundleDir, 'pglite-template');

/** Today in Europe/Oslo as YYYY-MM-DD (the demo seed's "today"). */
export const osloDay = (now = new Date()) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const pgliteVersion = () =>
  JSON.parse(readFileSync(join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json'), 'utf8')).version;

function readManifest() {
  try {
    return JSON.parse(readFileSync(join(TEMPLATE_DIR, 'manifest.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Which template a new data directory of the running program can start from: 'demo' (seeded as of
 * today), 'base', or undefined (none of this build). `program` is the running bundle's file.
 */
export function usableTemplate(program, { demo, today = osloDay() }) {
  const manifest = readManifest();
  if (!manifest || !existsSync(program) || manifest.pglite !== pgliteVersion() || manifest.bundle !== sha256(program)) return undefined;
  if (demo && manifest.demoDay === today && existsSync(join(TEMPLATE_DIR, 'demo', 'PG_VERSION'))) return 'demo';
  return existsSync(join(TEMPLATE_DIR, 'base', 'PG_VERSION')) ? 'base' : undefined;
}

/**
 * Copies template `kind` to `target` (a PGlite data directory that does not exist yet): under a
 * temporary name first, renamed into place, so an interrupted copy never looks like a database.
 * Asynchronous: its 1,600 files are copied by libuv's thread pool while the server's code is still
 * being loaded on the main thread (a synchronous copy held the start up for about 0.5 s).
 */
export async function copyTemplate(kind, target) {
  const partial = `${target}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await cp(join(TEMPLATE_DIR, kind), partial, { recursive: true });
  await rename(partial, target);
}

function admin(dataDir, args) {
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', NODE_ENV: 'production', LOG_LEVEL: 'silent' };
  const run = spawnSync(process.execPath, [join(bundleDir, 'admin.mjs'), ...args], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`npm run admin -- ${args.join(' ')} failed while building the database template: ${run.stderr || run.error}`);
}

/**
 * Builds dist/pglite-template/ with the bundles just built (dist/admin.mjs, dist/server.mjs): the
 * admin CLI migrates a new data directory (any command does; `jobs` reads nothing), which is copied as
 * `base`, then seeds the demo in it, copied as `demo`. Replaces the previous templates in one rename.
 */
export function buildTemplates() {
  const work = mkdtempSync(join(tmpdir(), 'regnskap-template-'));
  const staged = `${TEMPLATE_DIR}.partial-${process.pid}`;
  try {
    rmSync(staged, { recursive: true, force: true });
    admin(work, ['jobs', '--limit', '1']);
    cpSync(join(work, 'pglite'), join(staged, 'base'), { recursive: true });
    const day = osloDay();
    admin(work, ['seed-demo']);
    // a seed that ran over midnight is of no single day: keep the base template only
    const demoDay = osloDay() === day ? day : null;
    if (demoDay) cpSync(join(work, 'pglite'), join(staged, 'demo'), { recursive: true });
    writeFileSync(join(staged, 'manifest.json'), `${JSON.stringify({ bundle: sha256(join(bundleDir, 'server.mjs')), pglite: pgliteVersion(), demoDay }, null, 2)}\n`);
    rmSync(TEMPLATE_DIR, { recursive: true, force: true });
    renameSync(staged, TEMPLATE_DIR);
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(staged, { recursive: true, force: true });
  }
}
