// npm start: runs the server bundled into one file (dist/server.mjs, built by npm install through
// npm run build), which starts measurably faster than the modules one by one or TypeScript through
// tsx (npm run bench -- cold-start). `node src/start.mjs admin <command> ...` (npm run admin) runs
// the admin CLI the same way, from dist/admin.mjs. When a source file is newer than the bundle (code
// changed since npm install) it bundles again first (about a second), so neither runs stale code.
// It runs in production mode unless NODE_ENV says otherwise: graphql-js then skips its development
// checks on every instanceof (responses are the same; Prisma's errors in the log get shorter).
import { pathToFileURL } from 'node:url';
import { bundlePath, isStale } from './bundle.mjs';

// OTEL_EXPORTER_OTLP_ENDPOINT: traces (src/observability/tracing.mjs), started before the server loads
const traced = process.argv[2] !== 'admin' && !!process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
const name = process.argv[2] === 'admin' ? 'admin' : traced ? 'server-traced' : 'server';
if (name === 'admin') process.argv.splice(2, 1); // the CLI reads its command from argv[2]

if (isStale(name)) {
  // (the admin CLI's output is one JSON object or one error message: it bundles silently)
  if (name !== 'admin') console.log(`Bundling dist/${name}.mjs (sources changed since the last build) ...`);
  await (await import('./bundle.mjs')).bundle(bundlePath(name), name);
}
process.env.NODE_ENV ??= 'production';
if (traced) await import('./observability/tracing.mjs');
await import(pathToFileURL(bundlePath(name)).href);
