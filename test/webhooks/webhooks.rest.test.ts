import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureWebhooks, webhookSettings } from '../../src/modules/webhooks/webhooks.service.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 32, "Webhooks": CRUD on the wire, the secret shown once, managers only, another tenant
// sees nothing, and the SSRF rules without WEBHOOK_ALLOW_PRIVATE_URLS (the default).
const NAMES: Record<string, string> = {
  'hooks.example.test': '93.184.215.14', // public
  'sneaky.example.test': '127.0.0.1', // a public-looking name resolving to loopback
  'v6.example.test': '::ffff:10.1.2.3', // IPv4-mapped private address
};

describe.each(targets())('webhooks REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  // the resolver this file injects is module state: the files after it (one process) get the real one back
  const saved = { ...webhookSettings };
  beforeAll(async () => {
    app = await startTestApp(target);
    configureWebhooks({
      resolver: async (host) => {
        const address = NAMES[host];
        if (!address) throw new Error(`ENOTFOUND ${host}`);
        return [{ address, family: address.includes(':') ? 6 : 4 }];
      },
    });
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(async () => {
    configureWebhooks(saved);
    await app?.close();
  });

  const create = (body: Record<string, unknown>, token = t.user.token) => app.http('POST', '/api/v2/webhooks', { token, body });

  it('POST /webhooks: 201 with id and a whsec_ secret of 24 random bytes, shown once; GET, list, PATCH and DELETE never show it', async () => {
    const res = await create({ client_account_id: t.account.id, url: 'https://hooks.example.test/in', types: ['journal_entry.posted'], description: 'ERP' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.any(Number), client_account_id: t.account.id, url: 'https://hooks.example.test/in', types: ['journal_entry.posted'], description: 'ERP', enabled: true });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(24);
    const id = res.body.id;

    const one = await app.http('GET', `/api/v2/webhooks/${id}`, { token: t.user.token });
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('secret');
    expect(JSON.stringify(one.body)).not.toContain(res.body.secret.slice(6));

    const list = await app.http('GET', `/api/v2/webhooks?client_account_id=${t.account.id}`, { token: t.user.token });
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ page: 1, records: 1 });
    expect(list.body.data.map((w: { id: number }) => w.id)).toEqual([id]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret.slice(6));

    const patched = await app.http('PATCH', `/api/v2/webhooks/${id}`, { token: t.user.token, body: { types: [], description: 'all changes' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ types: [], description: 'all changes', url: 'https://hooks.example.test/in' });
    expect(patched.body).not.toHaveProperty('secret');

    expect((await app.http('DELETE', `/api/v2/webhooks/${id}`, { token: t.user.token })).status).toBe(204);
    expect((await app.http('GET', `/api/v2/webhooks/${id}`, { token: t.user.token })).status).toBe(404);
  });

  it('rotate-secret answers a new secret once; the previous one stays valid for 24 hours', async () => {
    const made = (await create({ client_account_id: t.account.id, url: 'https://hooks.example.test/rotate' })).body;
    const res = await app.http('POST', `/api/v2/webhooks/${made.id}/rotate-secret`, { token: t.user.token });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(made.secret);
    const until = Date.parse(res.body.previous_secret_expires_at) - Date.now();
    expect(until).toBeGreaterThan(23.9 * 3600_000);
    expect(until).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('another tenant sees nothing: 403 on its account, its webhook and its deliveries; 404 for a missing one', async () => {
    const made = (await create({ client_account_id: t.account.id, url: 'https://hooks.example.test/mine' })).body;
    const tok = other.user.token;
    expect((await app.http('GET', `/api/v2/webhooks?client_account_id=${t.account.id}`, { token: tok })).status).toBe(403);
    expect((await app.http('GET', `/api/v2/webhooks/${made.id}`, { token: tok })).status).toBe(403);
    expect((await app.http('PATCH', `/api/v2/webhooks/${made.id}`, { token: tok, body: { url: 'https://hooks.example.test/theirs' } })).status).toBe(403);
    expect((await app.http('DELETE', `/api/v2/webhooks/${made.id}`, { token: tok })).status).toBe(403);
    expect((await app.http('GET', `/api/v2/webhooks/${made.id}/deliveries`, { token: tok })).status).toBe(403);
    expect((await app.http('POST', `/api/v2/webhooks/${made.id}/rotate-secret`, { token: tok })).status).toBe(403);
    expect((await create({ client_account_id: t.account.id, url: 'https://hooks.example.test/x' }, tok)).status).toBe(403);
    const mine = await app.http('GET', `/api/v2/webhooks?client_account_id=${other.account.id}`, { token: tok });
    expect(mine.body.data).toEqual([]);
    expect((await app.http('GET', '/api/v2/webhooks/999999999', { token: t.user.token })).status).toBe(404);
  });

  it('"the account\'s managers only": an employee (EM) of the account gets 403; a read-only token gets 403 on writes', async () => {
    const em = await app.seed.user();
    await app.seed.grantRole({ userId: em.id, clientAccountId: t.account.id, role: 'EM' });
    expect((await create({ client_account_id: t.account.id, url: 'https://hooks.example.test/em' }, em.token)).status).toBe(403);
    expect((await app.http('GET', `/api/v2/webhooks?client_account_id=${t.account.id}`, { token: em.token })).status).toBe(403);
    expect((await create({ client_account_id: t.account.id, url: 'https://hooks.example.test/ro' }, t.user.readToken)).status).toBe(403);
  });

  it.each([
    ['http://hooks.example.test/plain', 'https'],
    ['https://127.0.0.1/hook', 'public address'],
    ['https://10.0.0.5/hook', 'public address'],
    ['https://169.254.169.254/latest/meta-data', 'public address'],
    ['https://100.64.1.1/hook', 'public address'],
    ['https://[::1]/hook', 'public address'],
    ['https://[fd00:ec2::254]/hook', 'public address'],
    ['https://sneaky.example.test/hook', '127.0.0.1'],
    ['https://v6.example.test/hook', 'public address'],
    ['https://nowhere.example.test/hook', 'does not resolve'],
    ['not a url', 'absolute URL'],
    ['https://user:pw@hooks.example.test/', 'user name'],
  ])('SSRF and shape: %s is refused with 400 {error, status} naming url (%s)', async (url, says) => {
    const res = await create({ client_account_id: t.account.id, url });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringContaining('url'), status: 400 });
    expect(res.body.error).toContain(says);
    const made = (await create({ client_account_id: t.account.id, url: 'https://hooks.example.test/ok' })).body;
    const patch = await app.http('PATCH', `/api/v2/webhooks/${made.id}`, { token: t.user.token, body: { url } });
    expect(patch.status).toBe(400);
  });

  it('an unknown change type and a missing url are 400 naming the field', async () => {
    const bad = await create({ client_account_id: t.account.id, url: 'https://hooks.example.test/t', types: ['journal_entry.exploded'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('types');
    const missing = await create({ client_account_id: t.account.id });
    expect(missing).toMatchObject({ status: 400, body: { error: expect.stringContaining('url'), status: 400 } });
  });
});
