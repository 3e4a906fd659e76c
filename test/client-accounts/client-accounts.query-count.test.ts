import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { TestUser } from '../support/seed.ts';

// STYLE.md: relations below a page load in one batched query per level, whatever the page size.
describe.each(targets())('client accounts list batching (%s)', (target) => {
  let app: TestApp;
  let accountant: TestUser;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    const firm = await app.seed.clientAccount({ industryCode: '69.201' });
    accountant = await app.seed.user();
    await app.seed.grantRole({ userId: accountant.id, clientAccountId: firm.id, role: 'AA' });
    for (let i = 0; i < 12; i++) {
      const served = await app.seed.clientAccount();
      await app.seed.linkProvider(firm.id, served.id);
      const owner = await app.seed.user();
      await app.seed.grantRole({ userId: owner.id, clientAccountId: served.id, role: 'CA' });
    }
  });
  afterAll(() => app?.close());

  const QUERY = (perPage: number) => `{ clientAccounts(perPage: ${perPage}) { nodes {
    id memberships { role user { email } } providers { id displayName memberships { role } } servedAccounts { id } } } }`;

  const count = async (perPage: number) => {
    app.statements.length = 0;
    const res = await app.gql(accountant.token, QUERY(perPage));
    expect(res.errors).toBeUndefined();
    expect(res.data.clientAccounts.nodes).toHaveLength(perPage);
    return app.statements.length;
  };

  it('"relations batch": clientAccounts with memberships, providers and served accounts issue the same number of statements for 2 and 12 rows', async () => {
    await count(2); // the token's first request also looks its session up and opens the user's rate-limit window (both kept in memory after)
    const small = await count(2);
    const large = await count(12);
    expect(large).toBe(small);
  });
});
