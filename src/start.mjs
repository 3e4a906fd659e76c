// npm start: runs the compiled server (dist/, built by npm install), which starts measurably faster
// than TypeScript through tsx (npm run bench -- cold-start). When a source file is newer than the
// build (code changed since npm install) it rebuilds first, so npm start never runs stale code.
// It runs in production mode unless NODE_ENV says otherwise: graphql-js then skips its development
// checks on every instanceof (responses are the same; Prisma's errors in the log get shorter).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'src', 'server.js');

function newest(dir) {
  let latest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) latest = Math.max(latest, newest(p));
    else if (e.name.endsWith('.ts')) latest = Math.max(latest, statSync(p).mtimeMs);
  }
  return latest;
}

const built = existsSync(entry) ? statSync(entry).mtimeMs : 0;
if (built < Math.max(newest(join(root, 'src')), newest(join(root, 'rest-adapter')))) {
  console.log('Building dist/ (sources changed since the last build) ...');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  } catch {
    // tsc emits despite type errors; run what was built, as tsx would
    console.warn('npm start: the build reported type errors (npm run typecheck shows them)');
  }
}
process.env.NODE_ENV ??= 'production';
await import(pathToFileURL(entry).href);
