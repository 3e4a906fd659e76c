import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 has no `exports` map: Node (and so Pothos and yoga, externalized) loads index.js while
  // Vite would resolve our own `import 'graphql'` to index.mjs, giving two realms of GraphQLSchema.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Test files share a worker's modules (the app, its schema, its compiled routes) instead of each
    // importing them again: that import was some 2.8 s a file, a third of the suite's time. Nothing
    // a file changes outlives it (own tenants, own app per file, PGlite clones, named job queues); a
    // file that mocks a module loads the app afresh (test/platform/errors.test.ts).
    isolate: false,
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
