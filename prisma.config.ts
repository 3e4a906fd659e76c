import { defineConfig } from 'prisma/config';

// `prisma generate` only needs a path to a schema engine; it never executes it. Without this it tries
// to download the native engine, which cannot work offline. Migrations run through
// @prisma/schema-engine-wasm (src/db/migrate.ts), never through the prisma CLI.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= '/bin/false';

export default defineConfig({
  schema: 'prisma',
  migrations: { path: 'prisma/migrations' },
});
