import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admissionControl, weigh, type Admission, type AdmissionOptions } from '../../src/http/admission.ts';
import type { ServiceUnavailableError } from '../../src/shared/errors.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// Hardening: "The server must shed load gracefully (bounded queue / 503 with Retry-After rather than
// timeouts) and not grow without bound".

/**
 * A server whose /work requests finish when the test says so; /heavy/:n?weight=w first holds w
 * slots (`weigh`). The key is the X-Key header (`keyed: true`).
 */
async function gatedServer(options: Omit<AdmissionOptions, 'keyOf'> & { keyed?: boolean }) {
  const app = express();
  const pending: (() => void)[] = [];
  const byNumber = new Map<number, () => void>();
  const admission: Admission = admissionControl({ ...options, ...(options.keyed ? { keyOf: (req) => req.get('x-key') ?? '' } : {}) });
  app.use(admission.middleware);
  const hold = (n: number, res: express.Response) => {
    const finish = () => {
      byNumber.delete(n);
      res.json({ n });
    };
    pending.push(finish);
    byNumber.set(n, finish);
  };
  app.get('/work/:n', (req, res) => hold(Number(req.params.n), res));
  app.get('/heavy/:n', async (req, res, next) => {
    try {
      await weigh(req, Number(req.query.weight));
      hold(Number(req.params.n), res);
    } catch (e) {
      next(e);
    }
  });
  app.use((error: ServiceUnavailableError, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(error.status).set(error.headers).json({ error: error.message, status: error.status });
  });
  const server: Server = createServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const finishOne = async () => {
    while (!pending.length) await new Promise((r) => setTimeout(r, 2));
    const finish = pending.shift()!;
    finish();
  };
  /** finishes request n once it is at work */
  const finish = async (n: number) => {
    while (!byNumber.has(n)) await new Promise((r) => setTimeout(r, 2));
    const done = byNumber.get(n)!;
    pending.splice(pending.indexOf(done), 1);
    done();
  };
  /** the numbers at work now */
  const working = () => [...byNumber.keys()].sort((a, b) => a - b);
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((r) => setTimeout(r, 2));
  };
  return { url, admission, finishOne, finish, working, until, pending, close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

describe('admission control', () => {
  let gate: Awaited<ReturnType<typeof gatedServer>> | undefined;
  afterEach(async () => {
    gate?.pending.splice(0).forEach((finish) => finish());
    gate?.admission.close();
    await gate?.close();
  });

  it('at most `concurrency` requests are worked on; the others wait and are served in arrival order', async () => {
    gate = await gatedServer({ concurrency: 2, queueLimit: 10, maxWaitMs: 10_000 });
    const order: number[] = [];
    const answers = [1, 2, 3, 4, 5].map(async (n) => {
      const res = await fetch(`${gate!.url}/work/${n}`);
      order.push(((await res.json()) as { n: number }).n);
      return res.status;
    });
    await gate.until(() => gate!.admission.stats().queued === 3);
    expect(gate.admission.stats()).toMatchObject({ active: 2, queued: 3 });
    expect(gate.pending).toHaveLength(2);
    for (let i = 0; i < 5; i++) await gate.finishOne();
    expect(await Promise.all(answers)).toEqual([200, 200, 200, 200, 200]);
    expect(order.slice(2)).toEqual([3, 4, 5]);
    expect(gate.admission.stats()).toMatchObject({ active: 0, queued: 0, shed: 0 });
  });

  it('a full queue: 503 with Retry-After at once, nothing worked on', async () => {
    gate = await gatedServer({ concurrency: 1, queueLimit: 1, maxWaitMs: 3000 });
    const first = fetch(`${gate.url}/work/1`);
    const second = fetch(`${gate.url}/work/2`);
    await gate.until(() => gate!.admission.stats().queued === 1);
    const started = performance.now();
    const third = await fetch(`${gate.url}/work/3`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('3');
    expect(await third.json()).toEqual({ error: 'The server is busy (1 requests are waiting); retry after 3 s', status: 503 });
    expect(gate.pending).toHaveLength(1);
    await gate.finishOne();
    await gate.finishOne();
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    expect(gate.admission.stats().shed).toBe(1);
  });

  it('a request that waits longer than maxWaitMs: 503, and it is never worked on', async () => {
    gate = await gatedServer({ concurrency: 1, queueLimit: 10, maxWaitMs: 200 });
    const first = fetch(`${gate.url}/work/1`);
    await gate.until(() => gate!.admission.stats().active === 1);
    const second = await fetch(`${gate.url}/work/2`);
    expect(second.status).toBe(503);
    expect(await second.json()).toEqual({ error: 'The server is busy (no turn within 200 ms); retry after 1 s', status: 503 });
    await gate.finishOne();
    expect((await first).status).toBe(200);
    expect(gate.pending).toHaveLength(0);
  });

  it('when the expected wait is beyond maxWaitMs the answer is 503 at once, not after the wait', async () => {
    gate = await gatedServer({ concurrency: 1, queueLimit: 100, maxWaitMs: 1000 });
    // teach it that a request takes ~600 ms
    const slow = fetch(`${gate.url}/work/0`);
    await gate.until(() => gate!.pending.length === 1);
    await new Promise((r) => setTimeout(r, 600));
    await gate.finishOne();
    await slow;
    const busy = fetch(`${gate.url}/work/1`);
    await gate.until(() => gate!.admission.stats().active === 1);
    const queued = fetch(`${gate.url}/work/2`); // expected wait ~600 ms: queued
    await gate.until(() => gate!.admission.stats().queued === 1);
    const started = performance.now();
    const refused = await fetch(`${gate.url}/work/3`); // expected wait ~1200 ms: refused now
    expect(performance.now() - started).toBeLessThan(500);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^The server is busy \(the expected wait of \d+ ms is beyond 1000 ms\)/);
    await gate.finishOne();
    await gate.finishOne();
    expect([(await busy).status, (await queued).status]).toEqual([200, 200]);
  });

  it('a client that hangs up while queued leaves the queue and costs no work', async () => {
    gate = await gatedServer({ concurrency: 1, queueLimit: 10, maxWaitMs: 10_000 });
    const first = fetch(`${gate.url}/work/1`);
    await gate.until(() => gate!.admission.stats().active === 1);
    const abort = new AbortController();
    const gone = fetch(`${gate.url}/work/2`, { signal: abort.signal }).catch(() => 'aborted');
    await gate.until(() => gate!.admission.stats().queued === 1);
    abort.abort();
    expect(await gone).toBe('aborted');
    await gate.until(() => gate!.admission.stats().queued === 0);
    await gate.finishOne();
    expect((await first).status).toBe(200);
    const third = fetch(`${gate.url}/work/3`);
    await gate.finishOne();
    expect(await (await third).json()).toEqual({ n: 3 });
  });

  it('while the event loop lags beyond maxEventLoopDelayMs, new requests get 503 at once; then they are served again', async () => {
    gate = await gatedServer({ concurrency: 4, queueLimit: 10, maxWaitMs: 5000, maxEventLoopDelayMs: 100 });
    await new Promise((r) => setTimeout(r, 250));
    const blockedUntil = Date.now() + 600;
    while (Date.now() < blockedUntil); // the process is busy: the sampler fires ~500 ms late
    await new Promise((r) => setTimeout(r, 0));
    expect(gate.admission.stats().eventLoopDelayMs).toBeGreaterThan(300);
    const refused = await fetch(`${gate.url}/work/1`);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^The server is busy \(the event loop lags \d+ ms\); retry after 5 s$/);
    await new Promise((r) => setTimeout(r, 1000)); // the reading decays below 100 ms
    const served = fetch(`${gate.url}/work/2`);
    await gate.finishOne();
    expect((await served).status).toBe(200);
  });

  it('forgetDelay (the server calls it when it starts listening): the delay of its own start-up refuses no request', async () => {
    gate = await gatedServer({ concurrency: 4, queueLimit: 10, maxWaitMs: 5000, maxEventLoopDelayMs: 100 });
    await new Promise((r) => setTimeout(r, 250));
    const blockedUntil = Date.now() + 600;
    while (Date.now() < blockedUntil); // start-up work: loading code, installing the job queue's schema
    await new Promise((r) => setTimeout(r, 0));
    expect(gate.admission.stats().eventLoopDelayMs).toBeGreaterThan(300);
    gate.admission.forgetDelay();
    const served = fetch(`${gate.url}/work/1`);
    await gate.finishOne();
    expect((await served).status).toBe(200);
  });

  /** GET as the key `key` (X-Key), not awaited */
  const as = (key: string, path: string) => fetch(`${gate!.url}${path}`, { headers: { 'x-key': key } });

  it('one user holds at most its share (perKey) of the slots: its surplus waits while another user’s request starts at once', async () => {
    gate = await gatedServer({ concurrency: 3, perKey: 2, queueLimit: 10, maxWaitMs: 10_000, keyed: true });
    const a = [as('a', '/work/1'), as('a', '/work/2'), as('a', '/work/3')];
    await gate.until(() => gate!.admission.stats().keys.a?.queued === 1);
    expect(gate.admission.stats()).toMatchObject({ active: 2, queued: 1, keys: { a: { active: 2, queued: 1 } } });
    const b = as('b', '/work/4');
    await gate.until(() => gate!.working().includes(4));
    expect(gate.working()).toEqual([1, 2, 4]);
    await gate.finish(4);
    expect((await b).status).toBe(200);
    await gate.finish(1);
    await gate.finish(2);
    await gate.finish(3);
    expect((await Promise.all(a)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(gate.admission.stats()).toMatchObject({ active: 0, queued: 0, keys: {} });
  });

  it('the users waiting are served in turn, one request each, not in arrival order', async () => {
    gate = await gatedServer({ concurrency: 1, queueLimit: 10, maxWaitMs: 10_000, keyed: true });
    const answers = [as('x', '/work/0')];
    await gate.until(() => gate!.working().includes(0));
    // a's three requests arrive before b's two
    for (const [key, n] of [['a', 1], ['a', 2], ['a', 3], ['b', 4], ['b', 5]] as const) {
      const queued = gate.admission.stats().queued;
      answers.push(as(key, `/work/${n}`));
      await gate.until(() => gate!.admission.stats().queued === queued + 1);
    }
    const order: number[] = [];
    for (let i = 0; i < 5; i++) {
      await gate.finishOne();
      await gate.until(() => gate!.working().length === 1);
      order.push(gate.working()[0]);
    }
    await gate.finishOne();
    expect(order).toEqual([1, 4, 2, 5, 3]);
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('a weighted request gives its slot back and waits first in its user’s queue until `weight` slots of its share are free; lighter requests of others pass it meanwhile', async () => {
    gate = await gatedServer({ concurrency: 4, perKey: 3, queueLimit: 10, maxWaitMs: 10_000, keyed: true });
    const first = as('a', '/work/1');
    await gate.until(() => gate!.working().includes(1));
    const heavy = as('a', '/heavy/2?weight=3');
    await gate.until(() => gate!.admission.stats().keys.a?.queued === 1);
    expect(gate.admission.stats().keys.a).toEqual({ active: 1, queued: 1 });
    const behind = as('a', '/work/3'); // a's share has room for it, but it waits behind a's heavy request
    await gate.until(() => gate!.admission.stats().keys.a?.queued === 2);
    const other = as('b', '/work/4');
    await gate.until(() => gate!.working().includes(4));
    await gate.finish(1);
    await gate.until(() => gate!.working().includes(2));
    expect(gate.admission.stats()).toMatchObject({ active: 4, keys: { a: { active: 3, queued: 1 }, b: { active: 1, queued: 0 } } });
    await gate.finish(2);
    await gate.finish(3);
    await gate.finish(4);
    expect((await Promise.all([first, heavy, behind, other])).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it('two requests of one user each waiting to grow do not block each other (a request waiting to grow holds nothing)', async () => {
    gate = await gatedServer({ concurrency: 4, perKey: 2, queueLimit: 10, maxWaitMs: 10_000, keyed: true });
    const heavies = [as('a', '/heavy/1?weight=2'), as('a', '/heavy/2?weight=2')];
    await gate.until(() => gate!.working().length === 1 && gate!.admission.stats().keys.a?.queued === 1);
    expect(gate.admission.stats().keys.a).toEqual({ active: 2, queued: 1 });
    await gate.finishOne();
    await gate.finishOne();
    expect((await Promise.all(heavies)).map((r) => r.status)).toEqual([200, 200]);
  });

  it('a request that cannot hold its weight within maxWaitMs: 503, and it is never worked on', async () => {
    gate = await gatedServer({ concurrency: 2, perKey: 2, queueLimit: 10, maxWaitMs: 300, keyed: true });
    const first = as('a', '/work/1');
    await gate.until(() => gate!.working().includes(1));
    const heavy = await as('a', '/heavy/2?weight=2');
    expect(heavy.status).toBe(503);
    expect(heavy.headers.get('retry-after')).toBe('1');
    expect(await heavy.json()).toEqual({ error: 'The server is busy (no turn for a request of weight 2 within 300 ms); retry after 1 s', status: 503 });
    await gate.finish(1);
    expect((await first).status).toBe(200);
    expect(gate.working()).toEqual([]);
    expect(gate.admission.stats()).toMatchObject({ active: 0, queued: 0 });
  });

  it('a weighted request that has waited half of maxWaitMs is no longer passed by lighter ones', async () => {
    gate = await gatedServer({ concurrency: 2, perKey: 2, queueLimit: 10, maxWaitMs: 1000, keyed: true });
    const first = as('b', '/work/1');
    await gate.until(() => gate!.working().includes(1));
    const heavy = as('a', '/heavy/2?weight=2');
    await gate.until(() => gate!.admission.stats().keys.a?.queued === 1);
    const light = as('c', '/work/3'); // a free slot: it passes the heavy request
    await gate.until(() => gate!.working().includes(3));
    await gate.finish(3);
    await new Promise((r) => setTimeout(r, 600));
    const late = as('c', '/work/4'); // the heavy request is overdue now: the free slot is kept for it
    await gate.until(() => gate!.admission.stats().keys.c?.queued === 1);
    await gate.finish(1);
    await gate.until(() => gate!.working().includes(2));
    expect(gate.working()).toEqual([2]);
    await gate.finish(2);
    await gate.finish(4);
    expect((await Promise.all([first, heavy, light, late])).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it('concurrency 0 turns the gate off', async () => {
    gate = await gatedServer({ concurrency: 0, queueLimit: 0, maxWaitMs: 1 });
    const answers = [1, 2, 3].map((n) => fetch(`${gate!.url}/work/${n}`));
    await gate.until(() => gate!.pending.length === 3);
    for (let i = 0; i < 3; i++) await gate.finishOne();
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200]);
  });
});

describe.each(targets())('a busy server answers 503 in each entry point’s shape (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    // the queue timeout is the default's (the harness waits longer): Retry-After says 5 s
    app = await startTestApp(target, { env: { REQUEST_CONCURRENCY: '1', REQUEST_QUEUE_LIMIT: '0', REQUEST_QUEUE_TIMEOUT_MS: '5000' } });
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  /** Keeps one request at work: it waits on a lock (PGlite: on its only connection) the test holds. */
  async function withOneRequestAtWork(check: () => Promise<void>) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = app.db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE items IN ACCESS EXCLUSIVE MODE');
        locked();
        await released;
      },
      { timeout: 30_000 },
    );
    await isLocked;
    const busy = app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`, { token: t.user.token });
    await new Promise((r) => setTimeout(r, 200)); // the request is admitted and waits on the lock
    try {
      await check();
    } finally {
      release();
      await holder;
    }
    expect((await busy).status).toBe(200);
  }

  it('REST: 503 {error, status} with Retry-After, documented in the OpenAPI description', async () => {
    await withOneRequestAtWork(async () => {
      const res = await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`, { token: t.user.token });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toEqual({ error: 'The server is busy (0 requests are waiting); retry after 5 s', status: 503 });
    });
  });

  it('GraphQL: 503 as a GraphQL response with code common.unavailable', async () => {
    await withOneRequestAtWork(async () => {
      const res = await app.http('POST', '/graphql', { token: t.user.token, body: { query: '{ __typename }' } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ errors: [{ message: expect.stringMatching(/^The server is busy/), extensions: { code: 'common.unavailable' } }] });
    });
  });

  it('OAuth: 503 temporarily_unavailable (RFC 6749)', async () => {
    await withOneRequestAtWork(async () => {
      const res = await app.http('POST', '/v2/oauth/token', { body: 'grant_type=client_credentials', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/^The server is busy/) });
    });
  });

  it('/health still answers while the server is busy', async () => {
    await withOneRequestAtWork(async () => {
      const res = await app.http('GET', '/health');
      expect(res).toMatchObject({ status: 200, body: { status: 'ok' } });
    });
  });
});
