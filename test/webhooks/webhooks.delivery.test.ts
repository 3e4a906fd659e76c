import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sequenceChanges } from '../../src/modules/changes/changes.service.ts';
import { DEFAULT_RETRY_DELAYS_MS, DELIVERY_TIMEOUT_MS } from '../../src/modules/webhooks/webhooks.rules.ts';
import { configureWebhooks, deliverDue, disableFailingWebhooks, dispatchChanges, webhookSettings } from '../../src/modules/webhooks/webhooks.service.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 32: "a receiver that fails twice gets the same webhook-id three times and the signature
// verifies"; "a subscription failing for 3 days is disabled and its owner mailed". The clock and the
// retry schedule are injected (webhookSettings), so no test waits for a backoff.
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

function receiver(answers: number[]): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = answers[received.length - 1] ?? answers.at(-1) ?? 200;
      res.end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received })));
}

describe.each(targets())('webhook delivery (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let clock: Date;
  const servers: Server[] = [];

  // the clock and schedule this file injects are module state: the files after it (one process) get the real ones back
  const saved = { ...webhookSettings };
  beforeAll(async () => {
    app = await startTestApp(target, { env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    t = await app.seed.tenant();
  });
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });
  afterAll(async () => {
    configureWebhooks(saved);
    await app?.close();
  });

  const useClock = (at: Date, retryDelaysMs: number[]) => {
    clock = at;
    configureWebhooks({ now: () => clock, retryDelaysMs });
  };
  const advance = (ms: number) => (clock = new Date(clock.getTime() + ms));
  const newHook = async (url: string, tenant = t) => {
    const res = await app.http('POST', '/api/v2/webhooks', { token: tenant.user.token, body: { client_account_id: tenant.account.id, url } });
    expect(res.status).toBe(201);
    return res.body as { id: number; secret: string };
  };
  const newProject = async (name: string, tenant = t) => {
    const res = await app.http('POST', '/api/v2/projects', { token: tenant.user.token, body: { client_account_id: tenant.account.id, name } });
    expect(res.status).toBe(201);
    return res.body as { id: number };
  };
  const dispatch = async () => {
    await sequenceChanges(app.db.prisma);
    await dispatchChanges(app.db.prisma);
  };

  it('a receiver that fails twice gets the same webhook-id three times, each signature verifies with standardwebhooks, and the deliveries list shows 500, 500, 200', async () => {
    useClock(new Date(), [1000, 1000, 1000]);
    // what GET /metrics counts (webhook_delivery_attempts_total): the job passes the process's metrics as this
    const observed: string[] = [];
    const observe = (outcome: string) => void observed.push(outcome);
    const r = await receiver([500, 503, 200]);
    servers.push(r.server);
    const hook = await newHook(r.url);
    const project = await newProject('Webhook target');
    await dispatch();

    expect(await deliverDue(app.db.prisma, hook.id, observe)).toEqual(new Date(clock.getTime() + 1000));
    expect(r.received).toHaveLength(1);
    expect(await deliverDue(app.db.prisma, hook.id, observe)).toEqual(new Date(clock.getTime() + 1000)); // not due yet: nothing sent
    expect(r.received).toHaveLength(1);
    advance(1000);
    await deliverDue(app.db.prisma, hook.id, observe);
    advance(1000);
    expect(await deliverDue(app.db.prisma, hook.id, observe)).toBeNull();

    expect(r.received).toHaveLength(3);
    expect(observed).toEqual(['failed', 'failed', 'succeeded']);
    const ids = r.received.map((m) => m.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^msg_/);
    const verifier = new Verifier(hook.secret);
    for (const m of r.received) {
      expect(() => verifier.verify(m.body, m.headers as Record<string, string>)).not.toThrow();
      expect(() => new Verifier(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(m.body, m.headers as Record<string, string>)).toThrow();
    }
    expect(r.received.map((m) => m.body)).toEqual(Array(3).fill(r.received[0]!.body));
    expect(JSON.parse(r.received[0]!.body)).toEqual({
      id: expect.stringMatching(/^\d+$/),
      occurred_at: expect.stringMatching(/Z$/),
      client_account_id: t.account.id,
      type: 'project.created',
      resource: 'project',
      resource_id: String(project.id),
      action: 'created',
      actor_id: t.user.id,
    });

    const list = await app.http('GET', `/api/v2/webhooks/${hook.id}/deliveries`, { token: t.user.token });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ status: 'succeeded', attempt_count: 3, last_status_code: 200, message_id: ids[0] });
    expect(list.body.data[0].attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 200]);
  });

  it('changes go out in order per webhook: a failing head holds back the next change; retry answers the same webhook-id', async () => {
    useClock(new Date(), [60_000]);
    const r = await receiver([500, 200, 200, 200]);
    servers.push(r.server);
    const hook = await newHook(r.url);
    await newProject('First');
    await newProject('Second');
    await dispatch();
    await deliverDue(app.db.prisma, hook.id);
    expect(r.received).toHaveLength(1); // the first failed; the second waits behind it
    const list = (await app.http('GET', `/api/v2/webhooks/${hook.id}/deliveries`, { token: t.user.token })).body.data;
    const first = list.find((d: { attempt_count: number }) => d.attempt_count === 1);
    const retried = await app.http('POST', `/api/v2/webhooks/${hook.id}/deliveries/${first.id}/retry`, { token: t.user.token });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'pending', message_id: first.message_id });
    await deliverDue(app.db.prisma, hook.id);
    expect(r.received.map((m) => m.headers['webhook-id'])).toEqual([first.message_id, first.message_id, expect.any(String)]);
    expect(r.received.map((m) => JSON.parse(m.body).resource_id)).toEqual([expect.any(String), JSON.parse(r.received[0]!.body).resource_id, expect.any(String)]);
    const positions = r.received.slice(1).map((m) => BigInt(JSON.parse(m.body).id));
    expect(positions[0]! < positions[1]!).toBe(true);
    expect((await app.http('POST', `/api/v2/webhooks/${hook.id}/deliveries/999999999/retry`, { token: t.user.token })).status).toBe(404);
  });

  it('during a rotation both secrets sign (space-separated signatures), and either verifies', async () => {
    useClock(new Date(), [1000]);
    const r = await receiver([200]);
    servers.push(r.server);
    const hook = await newHook(r.url);
    const rotated = (await app.http('POST', `/api/v2/webhooks/${hook.id}/rotate-secret`, { token: t.user.token })).body as { secret: string };
    await newProject('Rotated');
    await dispatch();
    await deliverDue(app.db.prisma, hook.id);
    const m = r.received[0]!;
    expect(String(m.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Verifier(hook.secret).verify(m.body, m.headers as Record<string, string>)).not.toThrow();
    expect(() => new Verifier(rotated.secret).verify(m.body, m.headers as Record<string, string>)).not.toThrow();
  });

  it('another tenant\'s changes are never delivered to this webhook; types filter the rest', async () => {
    useClock(new Date(), [1000]);
    const other = await app.seed.tenant();
    const r = await receiver([200]);
    servers.push(r.server);
    const hook = await newHook(r.url);
    const onlyTags = await app.http('PATCH', `/api/v2/webhooks/${hook.id}`, { token: t.user.token, body: { types: ['tag.created'] } });
    expect(onlyTags.status).toBe(200);
    await newProject('Other tenant', other);
    await newProject('Not a tag');
    await dispatch();
    expect(await deliverDue(app.db.prisma, hook.id)).toBeNull();
    expect(r.received).toEqual([]);
  });

  it('"a subscription failing for 3 days is disabled and its owner mailed" (time travelled, not waited)', async () => {
    const hour = 3600_000;
    useClock(new Date(), [hour, 6 * hour, 24 * hour, 24 * hour, 24 * hour]);
    const r = await receiver([500]);
    servers.push(r.server);
    const hook = await newHook(r.url);
    await newProject('Never arrives');
    await dispatch();
    const started = clock.getTime();
    for (let i = 0; i < 6; i++) {
      const next = await deliverDue(app.db.prisma, hook.id);
      if (!next) break;
      clock = next;
    }
    const row = await app.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(row.enabled).toBe(false);
    expect(clock.getTime() - started).toBeGreaterThanOrEqual(3 * 24 * hour);
    expect(row.failingSince?.getTime()).toBe(started);
    expect(row.disabledReason).toContain('failed since');
    const shown = (await app.http('GET', `/api/v2/webhooks/${hook.id}`, { token: t.user.token })).body;
    expect(shown).toMatchObject({ enabled: false, disabled_at: expect.any(String) });
    const mail = await app.db.prisma.$queryRawUnsafe<{ data: { to: string[]; subject: string } }[]>(
      `SELECT data FROM pgboss.job WHERE name = 'mail.send' AND data->>'subject' LIKE $1`,
      `Webhook ${hook.id} disabled%`,
    );
    expect(mail).toHaveLength(1);
    expect(mail[0]!.data.to).toEqual([t.user.email]);
    // re-enabling forgets the streak
    const again = await app.http('PATCH', `/api/v2/webhooks/${hook.id}`, { token: t.user.token, body: { enabled: true } });
    expect(again.body).toMatchObject({ enabled: true, failing_since: null, disabled_at: null });
  });

  it('"a subscription failing for 3 days is disabled and its owner mailed" also when no attempt is due any more: its retries used up and no newer change, the minute\'s sweep disables it at 3 days, once', async () => {
    const hour = 3600_000;
    useClock(new Date(), [hour]); // two attempts, then the delivery has failed for good
    const r = await receiver([500]);
    servers.push(r.server);
    const hook = await newHook(r.url);
    await newProject('Retries used up');
    await dispatch();
    const started = clock.getTime();
    clock = (await deliverDue(app.db.prisma, hook.id))!;
    expect(await deliverDue(app.db.prisma, hook.id)).toBeNull(); // nothing pending: no attempt will come
    expect(r.received).toHaveLength(2);
    const mails = async () =>
      (await app.db.prisma.$queryRawUnsafe<{ data: { to: string[] } }[]>(`SELECT data FROM pgboss.job WHERE name = 'mail.send' AND data->>'subject' LIKE $1`, `Webhook ${hook.id} disabled%`)).map((m) => m.data.to);
    clock = new Date(started + 3 * 24 * hour - 60_000);
    expect(await disableFailingWebhooks(app.db.prisma)).not.toContain(hook.id);
    expect(await app.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).toMatchObject({ enabled: true, failingSince: new Date(started) });
    clock = new Date(started + 3 * 24 * hour);
    expect(await disableFailingWebhooks(app.db.prisma)).toContain(hook.id);
    expect(await app.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).toMatchObject({ enabled: false, disabledAt: clock, disabledReason: expect.stringContaining('failed since') });
    expect(await disableFailingWebhooks(app.db.prisma)).not.toContain(hook.id);
    expect(await mails()).toEqual([[t.user.email]]);
  });

  it('a success clears the streak: a webhook that failed 3 days ago but has succeeded since is not disabled', async () => {
    const hour = 3600_000;
    useClock(new Date(), [hour]);
    const r = await receiver([500, 200]);
    servers.push(r.server);
    const hook = await newHook(r.url);
    await newProject('Recovers');
    await dispatch();
    clock = (await deliverDue(app.db.prisma, hook.id))!;
    expect(await deliverDue(app.db.prisma, hook.id)).toBeNull();
    advance(4 * 24 * hour);
    expect(await disableFailingWebhooks(app.db.prisma)).not.toContain(hook.id);
    expect(await app.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).toMatchObject({ enabled: true, failingSince: null });
  });

  it('the URL is checked again at delivery time: a webhook whose URL became private is refused, not called', async () => {
    useClock(new Date(), [1000]);
    const r = await receiver([200]);
    servers.push(r.server);
    const hook = await newHook(r.url);
    await newProject('Refused');
    await dispatch();
    configureWebhooks({ allowPrivateUrls: false });
    try {
      await deliverDue(app.db.prisma, hook.id);
    } finally {
      configureWebhooks({ allowPrivateUrls: true });
    }
    expect(r.received).toEqual([]);
    const d = (await app.http('GET', `/api/v2/webhooks/${hook.id}/deliveries`, { token: t.user.token })).body.data[0];
    expect(d).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null });
    expect(d.attempts[0].error).toContain('refused');
  });

  it('an answer slower than the deadline is a failed attempt (no status code), retried with the same webhook-id', async () => {
    useClock(new Date(), [1000]);
    configureWebhooks({ timeoutMs: 300 });
    const seen: string[] = [];
    const slow = createServer((req) => seen.push(String(req.headers['webhook-id']))); // never answers
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', () => resolve()));
    servers.push(slow);
    try {
      const hook = await newHook(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`);
      await newProject('Slow');
      await dispatch();
      const started = performance.now();
      expect(await deliverDue(app.db.prisma, hook.id)).toEqual(new Date(clock.getTime() + 1000));
      expect(performance.now() - started).toBeLessThan(3000);
      advance(1000);
      await deliverDue(app.db.prisma, hook.id);
      expect(seen).toHaveLength(2);
      expect(seen[0]).toBe(seen[1]);
      const d = (await app.http('GET', `/api/v2/webhooks/${hook.id}/deliveries`, { token: t.user.token })).body.data[0];
      expect(d).toMatchObject({ status: 'failed', attempt_count: 2, last_status_code: null });
      expect(d.attempts[0].error).toContain('no answer within 300 ms');
    } finally {
      configureWebhooks({ timeoutMs: 5000 });
      slow.closeAllConnections();
    }
  });
});

describe('webhook retry schedule', () => {
  it('by default: eight attempts over at least 24 hours, a 5 s deadline each', () => {
    expect(DEFAULT_RETRY_DELAYS_MS.length + 1).toBe(8);
    expect(DEFAULT_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(DELIVERY_TIMEOUT_MS).toBe(5000);
    expect(webhookSettings.retryDelaysMs).toBeDefined();
  });
});
