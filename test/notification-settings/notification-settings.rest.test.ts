import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 002 "Notification setting": id, created_at, user_id (always the caller), client_account_id,
// notification_type, email_enabled, push_enabled; types WEEKLY_TODO and ORGANIZATIONAL_ROLE_CHANGES.
// "Notification settings": GET → the caller's stored settings as an array, types without a stored
// setting absent; PUT upserts, email_enabled and push_enabled booleans both required. Errors: 400
// unknown type, a flag missing or not boolean; 403 no access.
describe.each(targets())('notification settings REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const path = (tenant: Tenant, type?: string) => `/api/v2/client-accounts/${tenant.account.id}/notification-settings${type ? `/${type}` : ''}`;
  const put = (tenant: Tenant, type: string, body: unknown, token = tenant.user.token) => app.http('PUT', path(tenant, type), { token, body });
  const list = (tenant: Tenant, token = tenant.user.token) => app.http('GET', path(tenant), { token });

  it('GET: no stored settings is an empty array (the types are enabled, not listed)', async () => {
    const tenant = await app.seed.tenant();
    expect(await list(tenant)).toMatchObject({ status: 200, body: [] });
  });

  it('PUT creates the setting with every field, user_id the caller; GET lists it; a second PUT replaces it (same id)', async () => {
    const tenant = await app.seed.tenant();
    const created = await put(tenant, 'WEEKLY_TODO', { email_enabled: false, push_enabled: true });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      created_at: expect.any(String),
      user_id: tenant.user.id,
      client_account_id: tenant.account.id,
      notification_type: 'WEEKLY_TODO',
      email_enabled: false,
      push_enabled: true,
    });
    expect((await list(tenant)).body).toEqual([created.body]);
    const replaced = await put(tenant, 'WEEKLY_TODO', { email_enabled: true, push_enabled: false });
    expect(replaced.body).toEqual({ ...created.body, email_enabled: true, push_enabled: false });
    const second = await put(tenant, 'organizational_role_changes', { email_enabled: false, push_enabled: false });
    expect(second.body.notification_type).toBe('ORGANIZATIONAL_ROLE_CHANGES');
    expect((await list(tenant)).body.map((s: any) => [s.notification_type, s.email_enabled, s.push_enabled])).toEqual([
      ['WEEKLY_TODO', true, false],
      ['ORGANIZATIONAL_ROLE_CHANGES', false, false],
    ]);
  });

  it('a PUT of what GET answered is accepted (read-only fields echoed back are ignored)', async () => {
    const tenant = await app.seed.tenant();
    const setting = (await put(tenant, 'WEEKLY_TODO', { email_enabled: true, push_enabled: true })).body;
    const res = await put(tenant, 'WEEKLY_TODO', { ...setting, email_enabled: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ ...setting, email_enabled: false });
  });

  it('"user_id (always the caller)": another user of the same account has settings of their own, and GET shows only the caller’s', async () => {
    const tenant = await app.seed.tenant();
    const colleague = await app.seed.user();
    await app.seed.grantRole({ userId: colleague.id, clientAccountId: tenant.account.id, role: 'EM' });
    await put(tenant, 'WEEKLY_TODO', { email_enabled: false, push_enabled: false });
    expect((await list(tenant, colleague.token)).body).toEqual([]);
    const theirs = await put(tenant, 'WEEKLY_TODO', { email_enabled: true, push_enabled: true }, colleague.token);
    expect(theirs.body).toMatchObject({ user_id: colleague.id, email_enabled: true });
    expect((await list(tenant)).body).toEqual([expect.objectContaining({ user_id: tenant.user.id, email_enabled: false })]);
  });

  it.each<[string, string, unknown, RegExp]>([
    ['an unknown notification type', 'DAILY_DIGEST', { email_enabled: true, push_enabled: true }, /notification_type/],
    ['email_enabled missing', 'WEEKLY_TODO', { push_enabled: true }, /email_enabled: is required/],
    ['push_enabled missing', 'WEEKLY_TODO', { email_enabled: true }, /push_enabled: is required/],
    ['both missing', 'WEEKLY_TODO', {}, /email_enabled: is required.*push_enabled: is required/],
    ['email_enabled a string', 'WEEKLY_TODO', { email_enabled: 'true', push_enabled: true }, /email_enabled: Boolean cannot represent/],
    ['push_enabled a number', 'WEEKLY_TODO', { email_enabled: true, push_enabled: 1 }, /push_enabled: Boolean cannot represent/],
    ['email_enabled null', 'WEEKLY_TODO', { email_enabled: null, push_enabled: true }, /email_enabled/],
    ['an unknown field', 'WEEKLY_TODO', { email_enabled: true, push_enabled: true, sms_enabled: true }, /sms_enabled: is not a known field/],
  ])('PUT 400: %s', async (_name, type, body, message) => {
    const tenant = await app.seed.tenant();
    const res = await put(tenant, type, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
    expect((await list(tenant)).body).toEqual([]);
  });

  it('403 without access to the client account (GET and PUT), and for a read-only token on PUT', async () => {
    expect(await list(other, t.user.token)).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    expect((await put(other, 'WEEKLY_TODO', { email_enabled: false, push_enabled: false }, t.user.token)).status).toBe(403);
    expect((await put(t, 'WEEKLY_TODO', { email_enabled: false, push_enabled: false }, t.user.readToken)).status).toBe(403);
    expect((await list(t, t.user.readToken)).status).toBe(200);
    expect(await app.db.prisma.notificationSetting.count({ where: { clientAccountId: other.account.id, userId: t.user.id } })).toBe(0);
  });

  it('GraphQL: notificationSettings and updateNotificationSetting, with the same rules', async () => {
    const tenant = await app.seed.tenant();
    const res = await app.gql(
      tenant.user.token,
      `mutation { updateNotificationSetting(clientAccountId: ${tenant.account.id}, notificationType: ORGANIZATIONAL_ROLE_CHANGES, input: { emailEnabled: false, pushEnabled: true }) { userId notificationType emailEnabled pushEnabled } }`,
    );
    expect(res.data.updateNotificationSetting).toEqual({ userId: tenant.user.id, notificationType: 'ORGANIZATIONAL_ROLE_CHANGES', emailEnabled: false, pushEnabled: true });
    const read = await app.gql(tenant.user.token, `{ notificationSettings(clientAccountId: ${tenant.account.id}) { nodes { notificationType emailEnabled } } }`);
    expect(read.data.notificationSettings.nodes).toEqual([{ notificationType: 'ORGANIZATIONAL_ROLE_CHANGES', emailEnabled: false }]);
    expect(errorCode(await app.gql(tenant.user.token, `{ notificationSettings(clientAccountId: ${other.account.id}) { nodes { id } } }`))).toBe('common.forbidden');
  });
});
