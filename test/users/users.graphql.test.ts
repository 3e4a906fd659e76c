import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/modules/users/users.service.ts';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';

// Issue "Core model": users have an email, first/last name and an argon2id password hash; GraphQL
// lets a user keep their own profile and password.
describe.each(targets())('users GraphQL (%s)', (target) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  const login = async (email: string, password: string) => app.http('POST', '/v2/oauth/login', { body: { email, password } });

  it('the password is stored as an argon2id hash, never in clear', async () => {
    const u = await createUser(app.seed.system, { input: { email: `hash-${target}@test.example`, password: 'secret password' } });
    const row = await app.db.prisma.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row.passwordHash).not.toContain('secret password');
  });

  it('updateMe changes the caller\'s names; null clears one', async () => {
    const u = await app.seed.user();
    const res = await app.gql(u.token, 'mutation { updateMe(input: { firstName: "Kari", lastName: "Nordmann" }) { email firstName lastName } }');
    expect(res.data.updateMe).toEqual({ email: u.email, firstName: 'Kari', lastName: 'Nordmann' });
    const cleared = await app.gql(u.token, 'mutation { updateMe(input: { lastName: null }) { firstName lastName } }');
    expect(cleared.data.updateMe).toEqual({ firstName: 'Kari', lastName: null });
  });

  it('changePassword needs the current password; the new one logs in, the old one no longer does, other sessions end', async () => {
    const email = `pw-${target}-${Date.now()}@test.example`;
    await createUser(app.seed.system, { input: { email, password: 'old password 1' } });
    const first = (await login(email, 'old password 1')).body.access_token;
    const second = (await login(email, 'old password 1')).body.access_token;
    const change = (input: object) => app.gql(first, 'mutation($input: ChangePasswordInput!) { changePassword(input: $input) }', { input });

    expect(errorCode(await change({ currentPassword: 'wrong', newPassword: 'new password 2' }))).toBe('common.validation_error');
    expect(errorCode(await change({ currentPassword: 'old password 1', newPassword: 'short' }))).toBe('common.validation_error');
    expect((await change({ currentPassword: 'old password 1', newPassword: 'new password 2' })).data.changePassword).toBe(true);

    expect((await login(email, 'old password 1')).status).toBe(401);
    expect((await login(email, 'new password 2')).status).toBe(200);
    expect((await app.gql(first, '{ me { user { email } } }')).data.me.user.email).toBe(email);
    expect((await app.http('POST', '/graphql', { token: second, body: { query: '{ me { scopes } }' } })).status).toBe(401);
  });

  it('changePassword to the current password is accepted (no unstated "must differ" refusal): it ends the other sessions, as any change does', async () => {
    const email = `pw-same-${target}-${Date.now()}@test.example`;
    await createUser(app.seed.system, { input: { email, password: 'same password 1' } });
    const first = (await login(email, 'same password 1')).body.access_token;
    const second = (await login(email, 'same password 1')).body.access_token;
    const res = await app.gql(first, 'mutation { changePassword(input: { currentPassword: "same password 1", newPassword: "same password 1" }) }');
    expect(res).toEqual({ data: { changePassword: true } });
    expect((await login(email, 'same password 1')).status).toBe(200);
    expect((await app.http('POST', '/graphql', { token: second, body: { query: '{ me { scopes } }' } })).status).toBe(401);
  });

  it('a read-only token cannot change the profile (insufficient_scope)', async () => {
    const u = await app.seed.user();
    expect(errorCode(await app.gql(u.readToken, 'mutation { updateMe(input: { firstName: "X" }) { id } }'))).toBe('insufficient_scope');
  });
});
