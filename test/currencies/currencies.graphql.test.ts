import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURRENCIES } from '../../src/reference-data/index.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { TestUser } from '../support/seed.ts';

describe.each(targets())('currencies GraphQL (%s)', (target) => {
  let app: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    app = await startTestApp(target);
    user = await app.seed.user();
  });
  afterAll(() => app?.close());

  it('"currencies lists every ISO 4217 currency of the reference data, by code" (no client account needed)', async () => {
    const res = await app.gql(user.readToken, `{ currencies { nodes { id code name minorUnits } } }`);
    expect(res.errors).toBeUndefined();
    const codes = res.data.currencies.nodes.map((c: { code: string }) => c.code);
    expect(codes).toEqual(CURRENCIES.map((c) => c.code).sort());
    expect(res.data.currencies.nodes.find((c: { code: string }) => c.code === 'NOK')).toMatchObject({ name: 'Norwegian Krone', minorUnits: 2 });
  });

  it.each([
    ['NOK', 'Norwegian Krone', 2],
    ['eur', 'Euro', 2],
    [' isk ', 'Iceland Krona', 0],
  ])('"currency(code) finds a currency by its code, case-insensitive": %j', async (c, name, minorUnits) => {
    const res = await app.gql(user.token, `query($c: String!) { currency(code: $c) { code name minorUnits } }`, { c });
    expect(res.errors).toBeUndefined();
    expect(res.data.currency).toEqual({ code: c.trim().toUpperCase(), name, minorUnits });
  });

  it('"an unknown currency code is common.not_found"', async () => {
    const res = await app.gql(user.token, `{ currency(code: "XXX") { code } }`);
    expect(res.errors?.[0].extensions?.code).toBe('common.not_found');
  });

  it('"/graphql needs a bearer token" (401 without one)', async () => {
    const res = await app.http('POST', '/graphql', { body: { query: '{ currencies { nodes { code } } }' } });
    expect(res.status).toBe(401);
  });
});
