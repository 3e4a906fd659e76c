import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequenceChanges } from '../../src/modules/changes/changes.service.ts';
import { startTestApp, eventually, targets, type TestApp } from '../support/harness.ts';

// Issue 32: "Deliveries run from the job queue". No service is called by hand here: a write, the
// sequencer's hook, webhooks.dispatch and webhooks.deliver on the app's own job runner.
describe.each(targets())('webhook delivery through the job queue (%s)', (target) => {
  let app: TestApp;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = 204;
      res.end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    app = await startTestApp(target, { env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, jobs: { queues: ['webhooks.dispatch', 'webhooks.deliver'] } });
  });
  afterAll(async () => {
    server.close();
    await app?.close();
  });

  it('a project created over REST reaches the receiver, signed, with no service called by the test', async () => {
    const t = await app.seed.tenant();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jobs`;
    const hook = (await app.http('POST', '/api/v2/webhooks', { token: t.user.token, body: { client_account_id: t.account.id, url } })).body as { id: number; secret: string };
    const project = (await app.http('POST', '/api/v2/projects', { token: t.user.token, body: { client_account_id: t.account.id, name: 'Via jobs' } })).body as { id: number };
    await sequenceChanges(app.db.prisma); // what a feed read or the minute's dispatch does; its hook enqueues webhooks.dispatch
    const got = await eventually(() => received.find((m) => JSON.parse(m.body).resource_id === String(project.id)), 'the delivery of the project');
    expect(new Verifier(hook.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: 'project.created', client_account_id: t.account.id });
    await eventually(async () => (await app.db.prisma.webhookDelivery.findFirst({ where: { webhookId: hook.id, status: 'succeeded' } })) ?? undefined, 'the delivery recorded as succeeded');
  });
});
