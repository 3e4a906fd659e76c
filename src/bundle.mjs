// npm run build (and npm install, through postinstall): the server as one ES module,
// dist/server.mjs, bundled by esbuild straight from the TypeScript sources. npm start runs it:
// Node then reads one file instead of some 1,600 modules, which was most of the start-up time
// (npm run bench -- cold-start). Type checking is `npm run typecheck`'s job, not the build's.
//
// Packages stay outside the bundle where they load files next to their own code: PGlite (its wasm
// and data files), Prisma (its query compiler wasm), the adapters built on them, argon2 (a native
// addon), Swagger UI's static files and GraphiQL's renderer (loaded on the first GraphiQL view).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = join(root, 'dist', 'server.mjs');

/** Bundles the server into `outfile` (it must lie inside the project: the packages left outside are found from there). */
export async function bundle(outfile = BUNDLE) {
  await build({
    entryPoints: [join(root, 'src', 'server.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    external: ['@electric-sql/pglite', '@prisma/*', 'pglite-prisma-adapter', '@node-rs/argon2', 'swagger-ui-dist', '@graphql-yoga/render-graphiql', 'pdfkit', 'exceljs'],
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
