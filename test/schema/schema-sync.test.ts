import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../../src/schema.ts';

describe('schema.graphql', () => {
  it('equals the printed, sorted schema (run npm run schema:print)', () => {
    expect(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'), 'schema.graphql is stale: run npm run schema:print').toBe(printedSchema());
  });
});
