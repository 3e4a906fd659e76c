import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root (package.json, prisma/), found by walking up from this file, so the same code
 * finds it from src/ under tsx and from dist/ in the bundle (npm start). Plain JavaScript, so the
 * build script (src/bundle.mjs, src/db/template.mjs) shares it; src/project-root.ts re-exports it.
 */
/** @param {string} from */
function findRoot(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'prisma'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no project root (package.json and prisma/) above ${from}`);
  }
}

export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
