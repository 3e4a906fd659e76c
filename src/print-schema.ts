import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printedSchema } from './schema.ts';

/** npm run schema:print writes schema.graphql; npm run schema:check fails when it is stale. */
const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema.graphql');
const sdl = printedSchema();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    /* missing counts as stale */
  }
  if (current !== sdl) {
    console.error('schema.graphql is stale: run npm run schema:print');
    process.exit(1);
  }
  console.log('schema.graphql is up to date');
} else {
  writeFileSync(file, sdl);
  console.log(`Wrote ${file}`);
}
