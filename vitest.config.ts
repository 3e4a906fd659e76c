import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 has no `exports` map: Node (and so Pothos and yoga, externalized) loads index.js while
  // Vite would resolve our own `import 'graphql'` to index.mjs, giving two realms of GraphQLSchema.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ['./test/global-setup.ts'],
    reporters: ['default', './test/plain-summary-reporter.ts'],
  },
});
