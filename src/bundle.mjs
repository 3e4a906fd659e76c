// npm run build (and npm install, through postinstall): the server and the admin CLI, each as one
// ES module (dist/server.mjs, dist/admin.mjs), bundled by esbuild straight from the TypeScript
// sources. npm start and npm run admin run them (through src/start.mjs): Node then reads one file
// instead of some 1,600 modules, which was most of the start-up time (npm run bench -- cold-start;
// an admin command takes about 1.5 s instead of 5 s under tsx). Type checking is `npm run
// typecheck`'s job, not the build's.
//
// Packages stay outside the bundle where they load files next to their own code: PGlite (its wasm
// and data files), Prisma (its query compiler wasm), the adapters built on them, argon2 (a native
// addon), Swagger UI's static files, GraphiQL's renderer (loaded on the first GraphiQL view) and
// piscina (it starts its workers from its own worker.js).
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The programs bundled: name → entry source. `server-traced` is the server for a start with
 * OpenTelemetry (OTEL_EXPORTER_OTLP_ENDPOINT, src/observability/tracing.mjs): the same program with
 * the packages the instrumentations patch as Node loads them left outside the bundle (TRACED).
 */
export const ENTRIES = { server: 'src/server.ts', admin: 'src/admin/cli.ts', 'server-traced': 'src/server.ts' };
/** Left as packages in `server-traced` only: loading them one module at a time costs a start some 0.25 s. */
const TRACED = ['express', 'graphql', 'pg', 'pg-pool'];
/**
 * The heavy-work pool's worker (src/workers/heavy-work.ts), bundled beside each program: the server
 * and the CLI start their worker threads from dist/heavy-worker.mjs.
 */
export const WORKER_ENTRY = 'src/workers/heavy.worker.ts';
export const WORKER_BUNDLE = 'heavy-worker.mjs';
/** Where `npm run build` puts a program's bundle. */
export const bundlePath = (name) => join(root, 'dist', `${name}.mjs`);
export const BUNDLE = bundlePath('server');

/**
 * Bundles program `name` into `outfile` (it must lie inside the project: the packages left outside
 * are found from there). The files are written under temporary names and renamed into place, so a
 * process starting meanwhile never reads half a bundle, and two builds at once do not mix.
 */
export async function bundle(outfile = BUNDLE, name = 'server') {
  await bundleEntry(ENTRIES[name], outfile, name === 'server-traced' ? TRACED : []);
  await bundleEntry(WORKER_ENTRY, join(dirname(outfile), WORKER_BUNDLE));
}

async function bundleEntry(entry, outfile, externals = []) {
  const { build } = await import('esbuild'); // only when building: starting a fresh bundle needs no esbuild
  const result = await build({
    entryPoints: [join(root, entry)],
    outfile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    external: ['@electric-sql/pglite', '@prisma/*', 'pglite-prisma-adapter', '@node-rs/argon2', 'swagger-ui-dist', '@graphql-yoga/render-graphiql', 'pdfkit', 'exceljs', 'piscina', ...externals],
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  // the map first: the bundle names it, so it must be in place when the bundle is
  const files = [...result.outputFiles].sort((a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')));
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true }); // dist/ does not exist in a fresh clone
    const tmp = join(dirname(file.path), `.${basename(file.path)}.${process.pid}.tmp`);
    writeFileSync(tmp, file.contents);
    renameSync(tmp, file.path);
  }
}

function newest(dir) {
  let latest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) latest = Math.max(latest, newest(p));
    else if (/\.(ts|mjs)$/.test(e.name)) latest = Math.max(latest, statSync(p).mtimeMs);
  }
  return latest;
}

/** Is `dist/<name>.mjs` older than some source file (code changed since the last build)? */
export function isStale(name) {
  const file = bundlePath(name);
  const worker = join(dirname(file), WORKER_BUNDLE);
  const built = existsSync(file) && existsSync(worker) ? Math.min(statSync(file).mtimeMs, statSync(worker).mtimeMs) : 0;
  return built < Math.max(newest(join(root, 'src')), newest(join(root, 'rest-adapter')));
}

/** Bundles the programs whose bundle is stale; returns their names. */
export async function bundleStale(names = Object.keys(ENTRIES)) {
  const stale = names.filter(isStale);
  for (const name of stale) await bundle(bundlePath(name), name);
  return stale;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(ENTRIES)) await bundle(bundlePath(name), name);
  // the template a new embedded database starts from (src/db/template.mjs); BUILD_DB_TEMPLATE=false skips it
  if (process.env.BUILD_DB_TEMPLATE !== 'false') {
    console.error('Preparing the embedded database template, so the first npm start takes seconds ...');
    (await import('./db/template.mjs')).buildTemplates();
  }
}
