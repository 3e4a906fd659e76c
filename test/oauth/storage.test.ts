import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { EXPIRED_GRACE_MS } from '../../src/modules/oauth/adapter.ts';
import { cleanupExpired } from '../../src/modules/oauth/cleanup.ts';
import { loadOauthKeys } from '../../src/modules/oauth/keys.ts';
import { openTestDatabase, targets } from '../support/harness.ts';

const privateJwk = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

describe('OAUTH_JWKS and OAUTH_COOKIE_KEYS configuration', () => {
  it('a private RSA key set and comma-separated cookie keys are taken as given', () => {
    const jwk = privateJwk();
    const config = loadConfig({ OAUTH_JWKS: JSON.stringify({ keys: [jwk] }), OAUTH_COOKIE_KEYS: 'one, two' });
    expect(config.oauthJwks?.keys[0].n).toBe(jwk.n);
    expect(config.oauthCookieKeys).toEqual(['one', 'two']);
  });

  it.each([
    ['not JSON', '{keys'],
    ['no keys', '{"keys":[]}'],
    ['a public key only', JSON.stringify({ keys: [{ kty: 'RSA', n: 'x', e: 'AQAB' }] })],
  ])('OAUTH_JWKS that is %s stops the boot naming the variable', (_n, value) => {
    expect(() => loadConfig({ OAUTH_JWKS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ OAUTH_JWKS: value })).toThrow(/OAUTH_JWKS/);
  });
});

describe.each(targets())('authorization server state in the database (%s)', (target) => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(() => db?.close());

  it('signing and cookie keys are generated once and shared by every process on the database', async () => {
    const first = await loadOauthKeys(db.prisma, {});
    const second = await loadOauthKeys(db.prisma, {});
    expect(first.jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', d: expect.any(String) });
    expect(second).toEqual(first);
    const [a, b] = await Promise.all([loadOauthKeys(db.prisma, {}), loadOauthKeys(db.prisma, {})]);
    expect(a.jwks.keys[0].kid).toBe(first.jwks.keys[0].kid);
    expect(b.cookieKeys).toEqual(first.cookieKeys);
  });

  it('configured keys win over the stored ones', async () => {
    const jwk = { ...privateJwk(), kid: 'configured' };
    const keys = await loadOauthKeys(db.prisma, { jwks: { keys: [jwk] }, cookieKeys: ['k1'] });
    expect(keys.jwks.keys[0].kid).toBe('configured');
    expect(keys.cookieKeys).toEqual(['k1']);
  });

  it('cleanup deletes rows past expiry plus the grace period, keeps recently expired codes (so "Authorization code expired" can be answered) and deletes expired session tokens', async () => {
    const now = Date.now();
    const tag = `cleanup-${now}-${Math.random()}`;
    await db.prisma.oauthObject.createMany({
      data: [
        { kind: 'AuthorizationCode', id: `${tag}-old`, payload: {}, expiresAt: new Date(now - EXPIRED_GRACE_MS - 60_000) },
        { kind: 'AuthorizationCode', id: `${tag}-recent`, payload: {}, expiresAt: new Date(now - 60_000) },
        { kind: 'Client', id: `${tag}-client`, payload: {}, expiresAt: null },
      ],
    });
    const user = await db.prisma.user.create({ data: { email: `${tag}@test.example`, passwordHash: '!' } });
    await db.prisma.session.createMany({
      data: [
        { tokenHash: `${tag}-expired`, userId: user.id, scope: 'read', expiresAt: new Date(now - 1000) },
        { tokenHash: `${tag}-valid`, userId: user.id, scope: 'read', expiresAt: new Date(now + 3600_000) },
      ],
    });
    const deleted = await cleanupExpired(db.prisma);
    expect(deleted.oauthObjects).toBeGreaterThanOrEqual(1);
    const left = await db.prisma.oauthObject.findMany({ where: { id: { startsWith: tag } }, orderBy: { id: 'asc' } });
    expect(left.map((r) => r.id)).toEqual([`${tag}-client`, `${tag}-recent`]);
    const sessions = await db.prisma.session.findMany({ where: { userId: user.id } });
    expect(sessions.map((s) => s.tokenHash)).toEqual([`${tag}-valid`]);
  });
});
