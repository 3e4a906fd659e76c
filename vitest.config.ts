import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 has no `exports` map: Node (and so Pothos and yoga, externalized) loads index.js while
  // Vite would resolve our own `import 'graphql'` to index.mjs, giving two realms of GraphQLSchema.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // One test file at a time unless TEST_WORKERS says otherwise (vitest's default: one fewer than the
    // cores). Files are independent (own tenants, PGlite clones, named job queues), but on a 2-core
    // machine two at once starve the admin CLI test's subprocesses (tsx compiling the app) past its
    // time limit; a bigger machine may set TEST_WORKERS=4.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 1),
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ['./test/global-setup.ts'],
    reporters: ['default', './test/plain-summary-reporter.ts'],
  },
});
