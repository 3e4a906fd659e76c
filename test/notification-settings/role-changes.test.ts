import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';

// The daily ORGANIZATIONAL_ROLE_CHANGES summary reads role_changes: every way a role is granted or
// revoked records it (GraphQL grantRole/revokeRole, a new client account's creator becoming CA, the
// admin CLI's grant-role through the same service), once per real change, in the changing transaction.
describe.each(targets())('role changes are recorded where memberships change (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  const changesAt = (clientAccountId: number) =>
    app.db.prisma.roleChange.findMany({ where: { clientAccountId }, orderBy: { id: 'asc' }, select: { userId: true, role: true, change: true, changedById: true } });

  it('grantRole records ADDED with who changed it; granting a held role again records nothing; revokeRole records REMOVED', async () => {
    const t = await app.seed.tenant();
    const u = await app.seed.user();
    const grant = () => app.gql(t.user.token, `mutation { grantRole(input: { email: "${u.email}", clientAccountId: ${t.account.id}, role: EM }) { id role } }`);
    expect((await grant()).data.grantRole.role).toBe('EM');
    expect((await grant()).errors).toBeUndefined();
    expect((await app.gql(t.user.token, `mutation { revokeRole(input: { email: "${u.email}", clientAccountId: ${t.account.id}, role: EM }) }`)).data.revokeRole).toBe(true);
    expect(await changesAt(t.account.id)).toEqual([
      { userId: t.user.id, role: 'CA', change: 'ADDED', changedById: null }, // the seed grants through the system context, as the admin CLI does
      { userId: u.id, role: 'EM', change: 'ADDED', changedById: t.user.id },
      { userId: u.id, role: 'EM', change: 'REMOVED', changedById: t.user.id },
    ]);
  });

  it('a refused change records nothing: revoking the last manager (400) and revoking a role not held (404)', async () => {
    const t = await app.seed.tenant();
    const last = await app.gql(t.user.token, `mutation { revokeRole(input: { email: "${t.user.email}", clientAccountId: ${t.account.id}, role: CA }) }`);
    expect(last.errors?.[0].extensions?.code).toBe('common.validation_error');
    const missing = await app.gql(t.user.token, `mutation { revokeRole(input: { email: "${t.user.email}", clientAccountId: ${t.account.id}, role: EM }) }`);
    expect(missing.errors?.[0].extensions?.code).toBe('common.not_found');
    expect(await changesAt(t.account.id)).toHaveLength(1);
    expect(await app.db.prisma.membership.count({ where: { clientAccountId: t.account.id, userId: t.user.id, role: 'CA' } })).toBe(1);
  });

  it('createClientAccount: the creator becoming CA is a role added', async () => {
    const u = await app.seed.user();
    const res = await app.gql(u.token, 'mutation { createClientAccount(input: { displayName: "Nytt Selskap AS" }) { id } }');
    expect(res.errors).toBeUndefined();
    expect(await changesAt(res.data.createClientAccount.id)).toEqual([{ userId: u.id, role: 'CA', change: 'ADDED', changedById: u.id }]);
  });
});
