import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser } from '../../src/modules/users/users.service.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';

// Verified session tokens are kept in the process for SESSION_CACHE_SECONDS (README "Configuration"):
// one lookup per token per period, revocation in this process at once, elsewhere within the period.
const ME = '{ me { user { email } } }';
const sessionLookups = (app: TestApp) => app.statements.filter((s) => /FROM "public"\."sessions"/.test(s) && /^SELECT/.test(s)).length;

describe.each(targets())('session token cache (%s)', (target) => {
  let app: TestApp;
  let uncached: TestApp;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'], env: { SESSION_CACHE_SECONDS: '5' } });
    uncached = await startTestApp(target, { database: app.db, env: { SESSION_CACHE_SECONDS: '0' } });
  });
  afterAll(async () => {
    await uncached?.close();
    await app?.close();
  });
  afterEach(() => vi.useRealTimers());

  const ok = async (a: TestApp, token: string) => (await a.http('POST', '/graphql', { token, body: { query: ME } })).status;

  it('a verified session token is looked up in the database once while it is cached', async () => {
    const { user } = await app.seed.tenant();
    app.statements.length = 0;
    for (let i = 0; i < 5; i++) expect(await ok(app, user.token)).toBe(200);
    expect(sessionLookups(app)).toBe(1);
  });

  it('a session deleted by another process is refused once SESSION_CACHE_SECONDS (5) have passed, and at once with SESSION_CACHE_SECONDS=0', async () => {
    const { user } = await app.seed.tenant();
    expect(await ok(app, user.token)).toBe(200);
    expect(await ok(uncached, user.token)).toBe(200);
    await app.db.prisma.session.deleteMany({ where: { userId: user.id } }); // as another process would
    expect(await ok(uncached, user.token)).toBe(401);
    expect(await ok(app, user.token)).toBe(200); // still within the cache period here
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 5_001 });
    expect(await ok(app, user.token)).toBe(401);
  });

  it('changePassword ends the other sessions in this process at once, even a cached one', async () => {
    const email = `cache-${Date.now()}-${target}@test.example`;
    await createUser(app.seed.system, { input: { email, password: 'old password 1' } });
    const login = async () => (await app.http('POST', '/v2/oauth/login', { body: { email, password: 'old password 1' } })).body.access_token as string;
    const [first, second] = [await login(), await login()];
    expect(await ok(app, second)).toBe(200); // cached now
    const changed = await app.gql(first, 'mutation { changePassword(input: { currentPassword: "old password 1", newPassword: "new password 2" }) }');
    expect(changed.errors).toBeUndefined();
    expect(await ok(app, second)).toBe(401);
    expect(await ok(app, first)).toBe(200);
  });

  it('a cached entry never outlives its session: an expired session is refused', async () => {
    const { user } = await app.seed.tenant();
    await app.db.prisma.session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() + 2_000) } });
    expect(await ok(app, user.token)).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 2_001 });
    expect(await ok(app, user.token)).toBe(401);
  });
});
