import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Actor } from '../shared/context.ts';
import { ServiceUnavailableError } from '../shared/errors.ts';

/**
 * Admission control: at most `concurrency` slots of work at once; the requests that cannot start
 * wait, and a request that cannot be started in time is answered at once with 503 and Retry-After
 * instead of hanging until the client gives up.
 *
 * Why: the database is the bottleneck (PGlite has one connection, PostgreSQL a small pool). Without a
 * gate, 200 connections all start work, every one of them waits on the database, nobody finishes in
 * time and memory grows with the backlog; with it, the requests inside run at the database's speed
 * and the rest are either served in turn or told to come back.
 *
 * Fair shares. Every request is admitted under a key: its user, its OAuth client (a client_credentials
 * token) or its address (`requestKeys` below). One key holds at most `perKey` slots at once (its
 * share); its surplus waits in the key's own queue, and the queues are served round robin, one
 * request per key in turn, not in arrival order. So one user's burst of 100 requests takes its share
 * and queues the rest, and another user's request starts as soon as a slot is free instead of
 * behind the 100.
 *
 * Weights. A request holds one slot; work known to be heavy holds more (`weigh`): a /graphql query
 * whose cost is beyond a threshold, a report rendered as a file, an export, an upload. A weight is
 * known only after admission (once the query is parsed, once the Accept header picked a file), so
 * the request gives its slot back and waits at the head of its key's queue until `weight` slots are
 * free, of its key's share and of the whole; weights are capped at the share. A request waiting to
 * grow holds nothing, so two of one user's requests each waiting to grow cannot block each other.
 * A heavy request is passed by lighter ones that fit where it does not yet; once it has waited half
 * of `maxWaitMs`, nothing else starts until it fits, so it is not starved.
 *
 * A queued request is refused (503) when
 *   - the queues already hold `queueLimit` requests (memory stays bounded), or
 *   - its expected wait (the requests served before it in the round robin × the recent time per
 *     request ÷ concurrency, or its own key's backlog ÷ its share, whichever is longer) is beyond
 *     `maxWaitMs`: it would time out anyway, so it learns that now, not after `maxWaitMs`, or
 *   - it has waited `maxWaitMs`.
 * A client that disconnects while queued leaves the queue without costing any work.
 *
 * The queue only sees requests Node has read. When the process itself is the bottleneck (the
 * embedded database runs its queries on this thread), requests wait unseen in the kernel while the
 * event loop is busy, and by the time they are read they have waited for seconds. So the event loop's
 * delay is watched too: while it is beyond `maxEventLoopDelayMs`, new requests are answered 503 at
 * once, which is cheap, drains the backlog fast and lets the admitted requests finish.
 */
export interface AdmissionOptions {
  /** slots of work at once; 0 turns the gate off */
  concurrency: number;
  /** requests waiting at most */
  queueLimit: number;
  /** how long a request may wait for its turn, in milliseconds */
  maxWaitMs: number;
  /** refuse new requests while the event loop lags more than this (ms); 0: never */
  maxEventLoopDelayMs?: number;
  /** slots one key may hold at once, its share (default: all of them) */
  perKey?: number;
  /** the key a request is admitted under (default: one key for every request) */
  keyOf?: (req: Request) => string;
}

export interface AdmissionStats {
  /** slots in use (a weighted request holds several) */
  active: number;
  queued: number;
  shed: number;
  /** the event loop's recent delay (ms), when it is watched */
  eventLoopDelayMs: number;
  /** per key with requests at work or waiting: its slots in use and its waiting requests */
  keys: Record<string, { active: number; queued: number }>;
}

export interface Admission {
  middleware: RequestHandler;
  stats(): AdmissionStats;
  /** stops watching the event loop */
  close(): void;
  /**
   * Forgets the delay read so far: the server calls it when it starts listening, so that the first
   * requests are not refused for the delay its own start-up caused (loading code, installing the job
   * queue's schema), which is no load.
   */
  forgetDelay(): void;
}

interface Waiter {
  key: KeyState;
  /** slots it needs to start */
  weight: number;
  /** when it began to wait (performance.now()) */
  since: number;
  start: () => void;
  refuse: () => void;
  timer: NodeJS.Timeout;
  gone: boolean;
}

interface KeyState {
  name: string;
  /** slots its requests hold */
  active: number;
  /** its waiters, oldest first from `head` (gone ones are skipped when they reach the head) */
  queue: (Waiter | undefined)[];
  head: number;
  /** its waiters still wanting a turn */
  waiting: number;
  /** in the round robin */
  ready: boolean;
}

/** An admitted request's hold on the gate: the slots it holds and how to ask for more. */
interface Ticket {
  weight: number;
  grow(weight: number): Promise<void>;
  release(): void;
}

const TICKET = Symbol('admission.ticket');
type Ticketed = Request & { [TICKET]?: Ticket };

/**
 * Lets an admitted request hold `weight` slots of its key's share (capped at the share) before it
 * does heavy work: resolves at once when it holds that many already or no gate admitted it (the gate
 * is off, /health); otherwise when it is its turn. Rejects with ServiceUnavailableError (503) when
 * its turn does not come within the gate's `maxWaitMs`, or when the client hangs up meanwhile.
 */
export function weigh(req: Request, weight: number): Promise<void> {
  const ticket = (req as Ticketed)[TICKET];
  return ticket && weight > ticket.weight ? ticket.grow(weight) : Promise.resolve();
}

/**
 * An admitted request whose response lives on, waiting for events rather than working (a GraphQL
 * subscription's event stream, once it is established), gives its slots back: it holds none of its
 * user's share while it lasts, and its duration is not counted in the time per request that the
 * expected waits are estimated from. Nothing when no gate admitted it.
 */
export function release(req: Request): void {
  (req as Ticketed)[TICKET]?.release();
}

/** the key of the admitted request the code now running works for */
const working = new AsyncLocalStorage<string>();

/**
 * The admission key of the request the current code works for (undefined outside requests, or
 * with the gate off): the database serves the queries of different keys in turn (src/db/fair-queries.ts).
 */
export const currentKey = (): string | undefined => working.getStore();

/** how often the event loop's delay is read */
const LAG_SAMPLE_MS = 100;

/** weight of the newest sample in the moving average of the time per request */
const SMOOTHING = 0.1;

/** Refusals go to next(error): the app's error handler answers them in the entry point's shape. */
export function admissionControl(options: AdmissionOptions): Admission {
  const { concurrency, queueLimit, maxWaitMs, maxEventLoopDelayMs = 0, keyOf = () => '' } = options;
  const share = Math.max(1, Math.min(options.perKey ?? concurrency, concurrency));
  let active = 0;
  let shed = 0;
  let averageMs = 0;
  let waiting = 0; // queued waiters still wanting a turn
  const keys = new Map<string, KeyState>();
  /** the keys with waiters, served round robin from `cursor` */
  const ring: KeyState[] = [];
  let cursor = 0;

  // The delay is how late a timer due every LAG_SAMPLE_MS fires; a reading decays by a third per
  // interval, so one late timer counts for a few hundred milliseconds, not until the next reading.
  let lagMs = 0;
  let sampler: NodeJS.Timeout | undefined;
  let last = performance.now();
  if (concurrency > 0 && maxEventLoopDelayMs > 0) {
    sampler = setInterval(() => {
      const now = performance.now();
      lagMs = Math.max(0, now - last - LAG_SAMPLE_MS, (lagMs * 2) / 3);
      last = now;
    }, LAG_SAMPLE_MS).unref();
  }

  const retryAfterSeconds = () => Math.max(1, Math.ceil(maxWaitMs / 1000));
  const busy = (why: string) => {
    shed++;
    return new ServiceUnavailableError(`The server is busy (${why}); retry after ${retryAfterSeconds()} s`, retryAfterSeconds());
  };

  const keyState = (name: string): KeyState => {
    let key = keys.get(name);
    if (!key) keys.set(name, (key = { name, active: 0, queue: [], head: 0, waiting: 0, ready: false }));
    return key;
  };
  /** a key with nothing at work and nobody waiting is dropped (memory stays bounded by the requests in flight) */
  const forget = (key: KeyState) => {
    if (key.active === 0 && key.waiting === 0 && !key.ready && keys.get(key.name) === key) keys.delete(key.name);
  };
  const fits = (key: KeyState, weight: number) => key.active + weight <= share && active + weight <= concurrency;

  /** the key's first waiter still wanting a turn (gone ones dropped) */
  const headOf = (key: KeyState): Waiter | undefined => {
    while (key.head < key.queue.length && (key.queue[key.head] === undefined || key.queue[key.head]!.gone)) key.queue[key.head++] = undefined;
    if (key.head === key.queue.length) {
      key.queue.length = 0;
      key.head = 0;
      return undefined;
    }
    if (key.head > 64 && key.head * 2 > key.queue.length) {
      key.queue.splice(0, key.head);
      key.head = 0;
    }
    return key.queue[key.head];
  };

  const enqueue = (waiter: Waiter, first: boolean) => {
    const key = waiter.key;
    if (first && key.head > 0) key.queue[--key.head] = waiter;
    else if (first) key.queue.unshift(waiter);
    else key.queue.push(waiter);
    key.waiting++;
    waiting++;
    if (!key.ready) {
      key.ready = true;
      ring.push(key);
    }
  };

  const leave = (waiter: Waiter) => {
    waiter.gone = true;
    waiter.key.waiting--;
    waiting--;
    clearTimeout(waiter.timer);
  };

  /** A heavy waiter that has waited half of maxWaitMs (and fits its share): it is served before anyone else. */
  const overdue = (key: KeyState, waiter: Waiter) =>
    waiter.weight > 1 && key.active + waiter.weight <= share && performance.now() - waiter.since > maxWaitMs / 2;
  /** an overdue heavy waiter the free slots do not fit yet: nothing else starts until they do */
  const blocked = () => ring.some((key) => {
    const waiter = headOf(key);
    return waiter !== undefined && overdue(key, waiter) && !fits(key, waiter.weight);
  });

  const take = (key: KeyState, waiter: Waiter, starting: Waiter[]) => {
    key.queue[key.head++] = undefined;
    leave(waiter);
    key.active += waiter.weight;
    active += waiter.weight;
    starting.push(waiter);
  };

  /**
   * Starts what may start: first an overdue heavy waiter (or nothing, while it does not fit), then the
   * keys with waiters in turn from `cursor`, the head of each when it fits (its key's share and the
   * free slots), one per key per turn; stops after a turn that started nobody.
   */
  const pump = () => {
    const starting: Waiter[] = [];
    let held = false;
    for (const key of ring) {
      const waiter = headOf(key);
      if (!waiter || !overdue(key, waiter)) continue;
      if (!fits(key, waiter.weight)) {
        held = true;
        break;
      }
      take(key, waiter, starting);
    }
    let passed = 0; // keys passed in a row without a start
    while (!held && ring.length && active < concurrency && passed < ring.length) {
      if (cursor >= ring.length) cursor = 0;
      const key = ring[cursor];
      const waiter = headOf(key);
      if (!waiter) {
        ring.splice(cursor, 1);
        key.ready = false;
        forget(key);
        continue;
      }
      if (fits(key, waiter.weight)) {
        take(key, waiter, starting);
        cursor++;
        passed = 0;
      } else {
        cursor++;
        passed++;
      }
    }
    // started after the bookkeeping: a start runs the request's next middleware synchronously
    for (const waiter of starting) waiter.start();
  };

  /** The request holds `weight` slots of `key` until its response is closed. */
  const begin = (req: Request, res: Response, next: NextFunction, key: KeyState) => {
    const started = performance.now();
    let done = false;
    const end = (counted: boolean) => {
      if (done) return;
      done = true;
      if (counted) {
        const ms = performance.now() - started;
        averageMs = averageMs === 0 ? ms : averageMs + SMOOTHING * (ms - averageMs);
      }
      key.active -= ticket.weight;
      active -= ticket.weight;
      ticket.weight = 0;
      forget(key);
      pump();
    };
    const ticket: Ticket = { weight: 1, grow: (weight) => (done ? Promise.resolve() : grow(ticket, key, res, weight)), release: () => end(false) };
    (req as Ticketed)[TICKET] = ticket;
    res.once('close', () => end(true));
    // everything the request does from here on, its database queries included, knows its key
    working.run(key.name, next);
  };

  /** Re-admission with a weight: the slot is given back and the request waits first in its key's queue. */
  const grow = (ticket: Ticket, key: KeyState, res: Response, asked: number): Promise<void> => {
    const weight = Math.min(Math.ceil(asked), share);
    if (weight <= ticket.weight || res.writableEnded) return Promise.resolve();
    key.active -= ticket.weight;
    active -= ticket.weight;
    ticket.weight = 0;
    return new Promise<void>((resolve, reject) => {
      wait(
        key,
        weight,
        true,
        () => {
          ticket.weight = weight;
          resolve();
        },
        () => reject(busy(`no turn for a request of weight ${weight} within ${maxWaitMs} ms`)),
        res,
        () => reject(new ServiceUnavailableError('The client went away while the request waited for its turn', retryAfterSeconds())),
      );
    });
  };

  /**
   * Queues a waiter of `key` for `weight` slots (at the head of its key's queue when `first`): `start`
   * when its turn comes, `refuse` after maxWaitMs, `gone` (if given) when the client hangs up meanwhile.
   */
  const wait = (key: KeyState, weight: number, first: boolean, start: () => void, refuse: () => void, res: Response, gone?: () => void) => {
    const waiter: Waiter = {
      key,
      weight,
      since: performance.now(),
      start,
      refuse,
      timer: setTimeout(() => {
        if (waiter.gone) return;
        leave(waiter);
        waiter.refuse();
        pump();
      }, maxWaitMs),
      gone: false,
    };
    res.once('close', () => {
      if (waiter.gone) return;
      leave(waiter);
      gone?.();
      pump();
    });
    enqueue(waiter, first);
    pump();
  };

  /** The expected wait of a new waiter of `key`: the round robin serves about this many before it. */
  const expectedWaitMs = (key: KeyState): number => {
    const place = key.waiting;
    let before = place;
    for (const other of ring) if (other !== key) before += Math.min(other.waiting, place + 1);
    const overall = ((before + 1) * averageMs) / concurrency;
    const own = ((key.active + place + 1 - share) * averageMs) / share;
    return Math.max(overall, own);
  };

  const middleware: RequestHandler = (req, res, next) => {
    if (concurrency <= 0) return next();
    if (maxEventLoopDelayMs > 0 && lagMs > maxEventLoopDelayMs) return next(busy(`the event loop lags ${Math.round(lagMs)} ms`));
    const key = keyState(keyOf(req));
    if (key.waiting === 0 && fits(key, 1) && !blocked()) {
      key.active++;
      active++;
      return begin(req, res, next, key);
    }
    if (waiting >= queueLimit) {
      forget(key);
      return next(busy(`${waiting} requests are waiting`));
    }
    const expectedMs = expectedWaitMs(key);
    if (expectedMs > maxWaitMs) {
      forget(key);
      return next(busy(`the expected wait of ${Math.round(expectedMs)} ms is beyond ${maxWaitMs} ms`));
    }
    // a client that hangs up while queued needs no answer and no work
    wait(key, 1, false, () => begin(req, res, next, key), () => next(busy(`no turn within ${maxWaitMs} ms`)), res);
  };

  return {
    middleware,
    stats: () => ({
      active,
      queued: waiting,
      shed,
      eventLoopDelayMs: Math.round(lagMs),
      keys: Object.fromEntries([...keys.values()].filter((k) => k.active || k.waiting).map((k) => [k.name, { active: k.active, queued: k.waiting }])),
    }),
    close: () => clearInterval(sampler),
    forgetDelay() {
      lagMs = 0;
      last = performance.now();
    },
  };
}

/** Verified tokens remembered for their key (least recently used dropped first). */
const MAX_REMEMBERED_TOKENS = 10_000;

/**
 * The key a request is admitted under (`admissionControl`'s `keyOf`). The gate runs before the
 * bearer middleware, so a token's user is known only once the token has been verified: the bearer
 * middleware then `remember`s it (by a SHA-256 of the Authorization header, never the token
 * itself), and the token's later requests are admitted as `user:<id>`, or `client:<id>` for a
 * client_credentials token (the client acting as its owner gets a share of its own). A request
 * without a token, and a token's first request (or one not seen since it was dropped from the
 * memory of the last 10,000 tokens), is admitted under its address, `address:<ip>` (as
 * TRUST_PROXY reads it). So all of a user's tokens share one share once each has been used once; a
 * user minting new tokens gets, for each one's first request, the share of its address, not one more.
 */
export function requestKeys(maxTokens = MAX_REMEMBERED_TOKENS) {
  const byToken = new Map<string, string>();
  /** the request's token hash, and whether its key was known, from keyOf for remember */
  const seen = new WeakMap<Request, { hash: string; known: boolean }>();
  return {
    keyOf(req: Request): string {
      const authorization = req.headers.authorization;
      if (!authorization) return `address:${req.ip}`;
      const hash = createHash('sha256').update(authorization).digest('base64url');
      const known = byToken.get(hash);
      seen.set(req, { hash, known: known !== undefined });
      if (known === undefined) return `address:${req.ip}`;
      byToken.delete(hash); // most recently used last
      byToken.set(hash, known);
      return known;
    },
    /** The bearer middleware's verified token: its later requests are admitted under its user or client. */
    remember(req: Request, actor: Actor): void {
      const token = seen.get(req);
      if (!token || token.known || (actor.tokenKind !== 'session' && actor.tokenKind !== 'jwt')) return;
      if (byToken.size >= maxTokens) byToken.delete(byToken.keys().next().value!);
      byToken.set(token.hash, actor.clientCredentials && actor.clientId ? `client:${actor.clientId}` : `user:${actor.userId}`);
    },
  };
}
