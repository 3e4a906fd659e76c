import type { NextFunction, RequestHandler, Response } from 'express';
import { ServiceUnavailableError } from './errors.ts';

/**
 * Admission control: at most `concurrency` requests are worked on at once; the others wait in one
 * first-in-first-out queue, and a request that cannot be started in time is answered at once with
 * 503 and Retry-After instead of hanging until the client gives up.
 *
 * Why: the database is the bottleneck (PGlite has one connection, PostgreSQL a small pool). Without a
 * gate, 200 connections all start work, every one of them waits on the database, nobody finishes in
 * time and memory grows with the backlog; with it, the requests inside run at the database's speed
 * and the rest are either served in arrival order or told to come back.
 *
 * A queued request is refused (503) when
 *   - the queue already holds `queueLimit` requests (memory stays bounded), or
 *   - its expected wait (its place in the queue × the recent time per request ÷ concurrency) is
 *     beyond `maxWaitMs`: it would time out anyway, so it learns that now, not after `maxWaitMs`, or
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
  /** requests worked on at once; 0 turns the gate off */
  concurrency: number;
  /** requests waiting at most */
  queueLimit: number;
  /** how long a request may wait for its turn, in milliseconds */
  maxWaitMs: number;
  /** refuse new requests while the event loop lags more than this (ms); 0: never */
  maxEventLoopDelayMs?: number;
}

export interface AdmissionStats {
  active: number;
  queued: number;
  shed: number;
  /** the event loop's recent delay (ms), when it is watched */
  eventLoopDelayMs: number;
}

interface Waiter {
  start: () => void;
  refuse: () => void;
  timer: NodeJS.Timeout;
  gone: boolean;
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

/** how often the event loop's delay is read */
const LAG_SAMPLE_MS = 100;

/** weight of the newest sample in the moving average of the time per request */
const SMOOTHING = 0.1;

/** Refusals go to next(error): the app's error handler answers them in the entry point's shape. */
export function admissionControl(options: AdmissionOptions): Admission {
  const { concurrency, queueLimit, maxWaitMs, maxEventLoopDelayMs = 0 } = options;
  let active = 0;
  let shed = 0;
  let averageMs = 0;
  let waiting = 0; // queued waiters still wanting a turn
  const queue: Waiter[] = [];
  let head = 0; // index of the first waiter; the array is compacted when half of it is spent

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
  const refuseWith = (next: NextFunction, why: string) => {
    shed++;
    next(new ServiceUnavailableError(`The server is busy (${why}); retry after ${retryAfterSeconds()} s`, retryAfterSeconds()));
  };

  const release = () => {
    active--;
    while (head < queue.length && active < concurrency) {
      const waiter = queue[head++];
      if (waiter.gone) continue;
      waiter.gone = true;
      waiting--;
      clearTimeout(waiter.timer);
      waiter.start();
    }
    if (head > 64 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  };

  const begin = (res: Response, next: NextFunction) => {
    active++;
    const started = performance.now();
    let done = false;
    res.once('close', () => {
      if (done) return;
      done = true;
      const ms = performance.now() - started;
      averageMs = averageMs === 0 ? ms : averageMs + SMOOTHING * (ms - averageMs);
      release();
    });
    next();
  };

  const middleware: RequestHandler = (req, res, next) => {
    if (concurrency <= 0) return begin(res, next);
    if (maxEventLoopDelayMs > 0 && lagMs > maxEventLoopDelayMs) return refuseWith(next, `the event loop lags ${Math.round(lagMs)} ms`);
    if (active < concurrency) return begin(res, next);
    if (waiting >= queueLimit) return refuseWith(next, `${waiting} requests are waiting`);
    const expectedMs = ((waiting + 1) * averageMs) / concurrency;
    if (expectedMs > maxWaitMs) return refuseWith(next, `the expected wait of ${Math.round(expectedMs)} ms is beyond ${maxWaitMs} ms`);
    const waiter: Waiter = {
      start: () => begin(res, next),
      refuse: () => refuseWith(next, `no turn within ${maxWaitMs} ms`),
      timer: setTimeout(() => leave(true), maxWaitMs),
      gone: false,
    };
    const leave = (answer: boolean) => {
      if (waiter.gone) return;
      waiter.gone = true;
      waiting--;
      clearTimeout(waiter.timer);
      if (answer) waiter.refuse();
    };
    // A client that hangs up while queued needs no answer and no work.
    res.once('close', () => leave(false));
    queue.push(waiter);
    waiting++;
  };

  return {
    middleware,
    stats: () => ({ active, queued: waiting, shed, eventLoopDelayMs: Math.round(lagMs) }),
    close: () => clearInterval(sampler),
    forgetDelay() {
      lagMs = 0;
      last = performance.now();
    },
  };
}
