import { describe, expect, it } from 'vitest';
import { compileRoute, routes } from '../../rest-adapter/index.ts';
import { schema } from '../../src/schema.ts';

/** Every documented method + path of the modules built so far (spec 001). */
const DOCUMENTED = [
  'GET /items', 'GET /items/:id', 'POST /items', 'PUT /items/:id', 'DELETE /items/:id',
  'GET /units', 'GET /units/:id',
  'GET /item-collections', 'GET /item-collections/:id', 'POST /item-collections',
  'GET /item-collections/:id/entries', 'POST /item-collections/:id/entries',
  'PUT /item-collections/:id/entries/:entry_id', 'DELETE /item-collections/:id/entries/:entry_id',
];

describe('REST route table', () => {
  it('has exactly one entry for every documented method and path', () => {
    const table = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(table).size).toBe(table.length);
    expect([...table].sort()).toEqual([...DOCUMENTED].sort());
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: its GraphQL document validates against the schema', (_name, route) => {
    expect(() => compileRoute(schema, route)).not.toThrow();
  });
});
