import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import ts from 'typescript';
import { generate } from '@graphql-codegen/cli';
import config from '../../examples/codegen/codegen.ts';
import { checkTrustedDocuments, sha256Hex } from '../../src/shared/persisted-operations.ts';
import { schema } from '../../src/schema.ts';

// Issue: "Keep the printed schema.graphql the source for codegen and show
// @graphql-codegen/client-preset in the README (a test type-checks a few operations against the
// schema, so the example cannot rot)". The README's config is examples/codegen/codegen.ts; its
// operations and typed calls are the files beside it. Here they are generated into a scratch folder
// and type-checked as a front end's bundler would (module resolution "bundler", strict).

const root = resolve(import.meta.dirname, '../..');
const examples = join(root, 'examples/codegen');
// inside node_modules, so the generated code and the examples resolve graphql-request and
// @graphql-typed-document-node/core from the project's packages
mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
const dir = mkdtempSync(join(root, 'node_modules/.cache/codegen-test-'));

/** misuses the compiler must refuse: the types are the schema's, not `any` */
const MISUSE = `
import { GraphQLClient } from 'graphql-request';
import { CreateProjectMutation, ProjectsQuery } from './operations';

export async function misuse(api: GraphQLClient) {
  // @ts-expect-error clientAccountId is an Int
  await api.request(ProjectsQuery, { clientAccountId: '2' });
  // @ts-expect-error CreateProjectInput needs a name
  await api.request(CreateProjectMutation, { input: { clientAccountId: 2 } });
  const { projects } = await api.request(ProjectsQuery, { clientAccountId: 2 });
  // @ts-expect-error the operation does not select description
  return projects.nodes[0].description;
}
`;

describe('codegen from schema.graphql (@graphql-codegen/client-preset), the README example', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('generates typed documents for examples/codegen and they type-check against the schema; the misuses do not', async () => {
    for (const file of ['operations.ts', 'client.ts']) copyFileSync(join(examples, file), join(dir, file));
    writeFileSync(join(dir, 'misuse.ts'), MISUSE);
    const [output] = Object.values(config.generates);
    await generate(
      { ...config, schema: join(root, 'schema.graphql'), documents: [join(dir, 'operations.ts')], generates: { [`${dir}/gql/`]: output }, silent: true },
      true,
    );

    const program = ts.createProgram([join(dir, 'client.ts'), join(dir, 'misuse.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
      noUnusedLocals: true,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.slice(dir.length + 1)}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
  });

  it('persisted-documents.json is {"sha256:" + SHA-256 of the document: document}, every one valid against the schema: the manifest GRAPHQL_PERSISTED_OPERATIONS reads', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'gql/persisted-documents.json'), 'utf8')) as Record<string, string>;
    expect(Object.values(manifest).map((d) => /(query|mutation) (\w+)/.exec(d)?.[2]).sort()).toEqual(['CreateProject', 'Me', 'Projects']);
    for (const [hash, document] of Object.entries(manifest)) expect(`sha256:${sha256Hex(document)}`).toBe(hash);
    expect(() => checkTrustedDocuments(schema, new Map(Object.entries(manifest)))).not.toThrow();
    // the document the client sends carries the same hash
    expect(readFileSync(join(dir, 'gql/graphql.ts'), 'utf8')).toContain(`"hash":"${Object.keys(manifest).find((h) => manifest[h].includes('query Me'))}"`);
  });
});
