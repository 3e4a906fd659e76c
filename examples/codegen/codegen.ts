import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed GraphQL operations for a front end, generated from the printed schema (`schema.graphql`, in
 * the repository). Run from the repository root: `npx graphql-codegen --config examples/codegen/codegen.ts`.
 * test/codegen/codegen.test.ts generates from this config and type-checks the examples beside it.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['examples/codegen/*.ts', '!examples/codegen/codegen.ts'],
  ignoreNoDocuments: false,
  generates: {
    'examples/codegen/gql/': {
      preset: 'client',
      // persisted-documents.json: {hash: document}, what GRAPHQL_PERSISTED_OPERATIONS reads; each
      // document carries its hash (`__meta__.hash`) for the client to send instead of the text
      presetConfig: { persistedDocuments: true, fragmentMasking: false },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { Decimal: 'string', Date: 'string', DateTime: 'string', JSON: 'unknown' } },
    },
  },
};

export default config;
