// npm start: runs the server bundled into one file (dist/server.mjs, built by npm install through
// npm run build), which starts measurably faster than the modules one by one or TypeScript through
// tsx (npm run bench -- cold-start). When a source file is newer than the bundle (code changed
// since npm install) it bundles again first (about a second), so npm start never runs stale code.
// It runs in production mode unless NODE_ENV says otherwise: graphql-js then skips its development
// checks on every instanceof (responses are the same; Prisma's errors in the log get shorter).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'server.mjs');

function newest(dir) {
  let latest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) latest = Math.max(latest, newest(p));
    else if (/\.(ts|mjs)$/.test(e.name)) latest = Math.max(latest, statSync(p).mtimeMs);
  }
  return latest;
}

const built = existsSync(entry) ? statSync(entry).mtimeMs : 0;
if (built < Math.max(newest(join(root, 'src')), newest(join(root, 'rest-adapter')))) {
  console.log('Bundling dist/server.mjs (sources changed since the last build) ...');
  await (await import('./bundle.mjs')).bundle();
}
process.env.NODE_ENV ??= 'production';
await import(pathToFileURL(entry).href);
