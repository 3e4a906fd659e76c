import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// STYLE.md: relations below a page load in one batched query per level, whatever the page size.
describe.each(targets())('invitations list batching (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    t = await app.seed.tenant();
    for (let i = 0; i < 12; i++) {
      const res = await app.http('POST', '/api/v2/invitations', { token: t.user.token, body: { email: `batch-${i}-${t.account.id}@example.no`, client_account_id: t.account.id, role_id: 5 } });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => app?.close());

  const count = async (limit: number) => {
    app.statements.length = 0;
    const res = await app.http('GET', `/api/v2/invitations?client_account_id=${t.account.id}&limit=${limit}`, { token: t.user.token });
    expect(res.status).toBe(200);
    expect(res.body.invitations).toHaveLength(limit);
    return app.statements.length;
  };

  it('"relations batch": GET /invitations with client_account, role and invited_by issues the same number of statements for 2 and 12 rows', async () => {
    await count(2);
    const small = await count(2);
    const large = await count(12);
    expect(large).toBe(small);
  });
});
