import { randomInt, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Prisma } from '../../src/db/database.ts';
import { idempotency, isWriteMethod, keepRawBody } from '../../src/http/idempotency.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { openTestDatabase, targets } from '../support/harness.ts';

// The middleware on its own, in small apps that stand in for server processes: handlers that wait
// for the test make "still running" deterministic, and one that drops the connection stands in for
// a process that died mid-request.

interface Reply {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** A handler that runs only when the test lets it: `entered` resolves when one call has begun. */
function heldHandler(answer: (res: Response) => void) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered!: () => void;
  const started = new Promise<void>((resolve) => (entered = resolve));
  const state = {
    calls: 0,
    started,
    open,
    handler: (async (_req, res) => {
      state.calls++;
      entered();
      await gate;
      answer(res);
    }) as RequestHandler,
  };
  return state;
}

const servers: Server[] = [];
const logger = createLogger('silent');

/** One "server process": a user context as the bearer middleware would set it, JSON with the bytes kept, the middleware, a JSON error handler. */
async function startKeyedApp(prisma: Prisma, handler: RequestHandler, options: { lockMs?: number } = {}) {
  const app = express();
  app.use((req, _res, next) => {
    (req as Request & { ctx: unknown }).ctx = { logger, actor: { userId: Number(req.get('x-user')) } };
    next();
  });
  app.use(express.json({ verify: keepRawBody }));
  app.use(idempotency({ prisma, isWrite: isWriteMethod, lockMs: options.lockMs }));
  app.all('/work', handler);
  app.use((err: { status?: number; message: string }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ error: err.message, status: err.status ?? 500 });
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/work`;
  return async (user: number, key: string, init: { body?: string; contentType?: string } = {}): Promise<Reply> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'x-user': String(user), 'idempotency-key': key, 'content-type': init.contentType ?? 'application/json' },
      body: init.body ?? '{"amount":"10.00"}',
    });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe.each(targets())('idempotency middleware (%s)', (target) => {
  let db: Database;
  const user = () => randomInt(1_000_000, 2_000_000_000);
  const row = (userId: number) => db.prisma.idempotencyKey.findUnique({ where: { userId_key: { userId, key: 'k' } } });

  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(() => db?.close());

  it('"a repeat while the first is still running → 409": then, once it has answered, the repeat is the replay; the handler ran once', async () => {
    const held = heldHandler((res) => res.status(201).json({ id: 7 }));
    const call = await startKeyedApp(db.prisma, held.handler);
    const u = user();
    const first = call(u, 'k');
    await held.started;
    const repeat = await call(u, 'k');
    expect(repeat.status).toBe(409);
    expect(repeat.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(repeat.bytes.toString())).toEqual({ error: expect.stringContaining('still being processed'), status: 409 });
    expect(await row(u)).toMatchObject({ responseStatus: null, lockToken: expect.any(String) });

    held.open();
    const answered = await first;
    expect(answered.status).toBe(201);
    const replay = await call(u, 'k');
    expect(replay.status).toBe(201);
    expect(replay.bytes.equals(answered.bytes)).toBe(true);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(held.calls).toBe(1);
  });

  it('the lock of a request that still runs is renewed: after several lock periods a repeat is still a 409', async () => {
    const held = heldHandler((res) => res.status(200).json({ ok: true }));
    const call = await startKeyedApp(db.prisma, held.handler, { lockMs: 600 });
    const u = user();
    const first = call(u, 'k');
    await held.started;
    await sleep(1500);
    expect((await call(u, 'k')).status).toBe(409);
    held.open();
    expect((await first).status).toBe(200);
    expect(held.calls).toBe(1);
  });

  it.each([
    [403, 'released (no row)', null],
    [201, 'stored', 201],
  ])('an answer written as graphql-yoga writes it (the body by res.write, then an empty res.end) reaches the client only once the key is settled: %i is %s', async (status, _what, stored) => {
    // the release or store made slow: the client must not have its answer before it is done
    const slow = new Proxy(db.prisma, {
      get: (target, name, receiver) =>
        name === '$executeRaw'
          ? (...args: unknown[]) => sleep(300).then(() => (target.$executeRaw as (...a: unknown[]) => Promise<number>)(...args))
          : Reflect.get(target, name, receiver),
    });
    const call = await startKeyedApp(slow as Prisma, (_req, res) => {
      const body = Buffer.from(JSON.stringify({ status }));
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(body.length) });
      res.write(body);
      res.end();
    });
    const u = user();
    const answered = await call(u, 'k');
    expect(answered.status).toBe(status);
    expect(JSON.parse(answered.bytes.toString())).toEqual({ status });
    const after = await row(u);
    if (stored === null) expect(after).toBeNull();
    else expect(after?.responseStatus).toBe(stored);
  });

  it('"a stale running row must not block the key forever": a request that never answers (its process gone) leaves a lock that lapses, and the retry runs', async () => {
    let calls = 0;
    const call = await startKeyedApp(
      db.prisma,
      (req, res) => {
        if (++calls === 1) return req.socket.destroy(); // dies mid-request: no answer, no renewal
        res.status(201).json({ attempt: calls });
      },
      { lockMs: 1000 },
    );
    const u = user();
    await expect(call(u, 'k')).rejects.toThrow();
    expect((await call(u, 'k')).status).toBe(409); // the lock still holds
    await sleep(1100);
    const retried = await call(u, 'k');
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(retried.bytes.toString())).toEqual({ attempt: 2 });
    expect((await call(u, 'k')).headers.get('idempotent-replayed')).toBe('true');
    expect(calls).toBe(2);
  });

  it('a stale running row of another request is still a 422, not taken over', async () => {
    const call = await startKeyedApp(db.prisma, (_req, res) => res.json({}));
    const u = user();
    await db.prisma.idempotencyKey.create({
      data: { userId: u, key: 'k', fingerprint: 'f'.repeat(64), lockToken: randomUUID(), lockedUntil: new Date(Date.now() - 60_000), expiresAt: new Date(Date.now() + 3_600_000) },
    });
    expect((await call(u, 'k')).status).toBe(422);
  });

  it.each([500, 503, 401, 403, 429])('an answer %i is not stored: the key is free again and the retry runs', async (status) => {
    let calls = 0;
    const call = await startKeyedApp(db.prisma, (_req, res) => {
      res.status(++calls === 1 ? status : 201).json({ attempt: calls });
    });
    const u = user();
    expect((await call(u, 'k')).status).toBe(status);
    expect(await row(u)).toBeNull();
    const retried = await call(u, 'k');
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect((await call(u, 'k')).headers.get('idempotent-replayed')).toBe('true');
    expect(calls).toBe(2);
  });

  it.each([400, 404, 409, 422])('an answer %i is stored and replayed', async (status) => {
    let calls = 0;
    const call = await startKeyedApp(db.prisma, (_req, res) => {
      res.status(status).json({ attempt: ++calls });
    });
    const u = user();
    const first = await call(u, 'k');
    const replay = await call(u, 'k');
    expect([first.status, replay.status]).toEqual([status, status]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(calls).toBe(1);
  });

  it('"without changing a byte": the answer written in several chunks (bytes, a latin1 string, utf-8) is passed on and replayed exactly, with its content type', async () => {
    const call = await startKeyedApp(db.prisma, (_req, res) => {
      res.status(202).setHeader('Content-Type', 'application/x-custom; charset=latin1');
      res.write(Buffer.from([0, 255, 1]));
      res.write('æøå', 'latin1');
      res.end('ø\n');
    });
    const u = user();
    const expected = Buffer.concat([Buffer.from([0, 255, 1]), Buffer.from('æøå', 'latin1'), Buffer.from('ø\n')]);
    const first = await call(u, 'k');
    expect(first.bytes.equals(expected)).toBe(true);
    const replay = await call(u, 'k');
    expect(replay.status).toBe(202);
    expect(replay.bytes.equals(expected)).toBe(true);
    expect(replay.headers.get('content-type')).toBe('application/x-custom; charset=latin1');
  });

  it('the fingerprint covers the body bytes: the same JSON with other whitespace is another request (422)', async () => {
    const call = await startKeyedApp(db.prisma, (_req, res) => res.json({}));
    const u = user();
    expect((await call(u, 'k', { body: '{"a":1}' })).status).toBe(200);
    expect((await call(u, 'k', { body: '{ "a": 1 }' })).status).toBe(422);
  });

  it('a body the fingerprint cannot cover (one the JSON parser left unread, such as multipart) → 400 naming the header', async () => {
    let calls = 0;
    const call = await startKeyedApp(db.prisma, (_req, res) => res.json({ calls: ++calls }));
    const res = await call(user(), 'k', { contentType: 'multipart/form-data; boundary=x', body: '--x\r\n\r\nv\r\n--x--' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.bytes.toString()).error).toContain('Idempotency-Key');
    expect(calls).toBe(0);
  });

  it('"the claim is atomic across processes": 10 identical requests at once on two app instances run the handler once; the others hear 409', async () => {
    // PGlite belongs to one process, so there both instances share the client; on PostgreSQL the
    // second has its own connection pool.
    const other = target === 'postgres' ? await openTestDatabase(target) : undefined;
    try {
      const held = heldHandler((res) => res.status(201).json({ id: 1 }));
      const calls = [await startKeyedApp(db.prisma, held.handler), await startKeyedApp((other ?? db).prisma, held.handler)];
      const u = user();
      const replies = Array.from({ length: 10 }, (_, i) => calls[i % 2](u, 'k'));
      await held.started;
      // nine answer while the one that claimed the key waits
      const settled = await Promise.all(replies.map((p) => Promise.race([p, sleep(2000).then(() => 'waiting' as const)])));
      expect(settled.filter((r) => r === 'waiting')).toHaveLength(1);
      expect(settled.filter((r) => r !== 'waiting').map((r) => (r as Reply).status)).toEqual(Array(9).fill(409));
      held.open();
      expect((await Promise.all(replies)).map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
      expect(held.calls).toBe(1);
    } finally {
      await other?.close();
    }
  });
});
