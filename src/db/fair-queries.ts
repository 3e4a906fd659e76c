import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { currentKey } from '../http/admission.ts';

/**
 * Database queries in fair turns. Admission control (src/http/admission.ts) bounds how many
 * requests of a user run at once, but one GraphQL request of 99 aliases sends some 300 queries at
 * once, and the database takes them first come, first served: PGlite's one connection and the pg
 * pool's queue are FIFO, so another user's query waited behind all of them and its request took as
 * long as the whole heavy one (the fairness bench: ~2 s). Here the queries outside transactions wait
 * for one of `slots` turns (PGlite 1, PostgreSQL the pool's connections), in one queue per admission
 * key served round robin: another user's query waits for the queries running now, not for the
 * backlog. A key that had nothing waiting is served before the keys with a backlog (as fq_codel
 * serves new flows first): a light request's query waits for the queries running, not for one more
 * of each heavy user's. Queries of no request (jobs, start-up) share the key ''.
 *
 * Queries inside a transaction never wait here: the transaction holds PGlite's lock (or a pool
 * connection), and making its next query wait behind one that waits for that lock would deadlock.
 */
/**
 * Every FairQueue of the process together, read by the metrics (src/observability/metrics.ts):
 * the turns there are, the queries holding one, the queries waiting for one.
 */
export const queryTurns = { slots: 0, running: 0, waiting: 0 };

export class FairQueue {
  private running = 0;
  /** waiting starts per key, oldest first */
  private readonly waiting = new Map<string, (() => void)[]>();
  /** keys that had nothing waiting when their query came: served first, in arrival order, then into the ring */
  private readonly fresh: string[] = [];
  /** the keys with a backlog, served in turn from `cursor` */
  private readonly ring: string[] = [];
  private cursor = 0;

  /**
   * `deferHandOff`: a finished query's turn is handed on one turn of the event loop later
   * (setImmediate), not at once. A request's queries run one after another: the next one is asked
   * for in the continuation of the last one's result, after the turn would have gone to a query
   * already waiting. On PGlite (one turn) a light request then waited for one of the heavy user's
   * queries between each two of its own; deferred, its next query is asked for first, as a key
   * with nothing waiting, and runs next. (A turn of the event loop costs PGlite nothing: its
   * queries yield one before they run anyway, src/db/database.ts.)
   */
  constructor(
    private readonly slots: number,
    private readonly deferHandOff = false,
  ) {}

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (this.running < this.slots && !this.waiting.size) this.running++;
    else {
      queryTurns.waiting++;
      await new Promise<void>((start) => this.enqueue(key, start)).finally(() => queryTurns.waiting--);
    }
    queryTurns.running++;
    try {
      return await work();
    } finally {
      queryTurns.running--;
      this.running--;
      if (!this.deferHandOff) this.next();
      else if (this.waiting.size) setImmediate(() => this.next());
    }
  }

  /** queries waiting for a turn (tests) */
  get queued(): number {
    let n = 0;
    for (const q of this.waiting.values()) n += q.length;
    return n;
  }

  private enqueue(key: string, start: () => void): void {
    const queue = this.waiting.get(key);
    if (queue) queue.push(start);
    else {
      this.waiting.set(key, [start]);
      this.fresh.push(key);
    }
  }

  private next(): void {
    while (this.running < this.slots && this.fresh.length) {
      const key = this.fresh.shift()!;
      const queue = this.waiting.get(key)!;
      const start = queue.shift()!;
      if (queue.length) this.ring.push(key);
      else this.waiting.delete(key);
      this.running++;
      start();
    }
    while (this.running < this.slots && this.ring.length) {
      if (this.cursor >= this.ring.length) this.cursor = 0;
      const key = this.ring[this.cursor];
      const queue = this.waiting.get(key)!;
      const start = queue.shift()!;
      if (queue.length) this.cursor++;
      else {
        this.waiting.delete(key);
        this.ring.splice(this.cursor, 1);
      }
      this.running++;
      start();
    }
  }
}

/**
 * The adapter's own queries (not its transactions', which are other objects) take turns in a
 * FairQueue of `slots`, keyed by the admission key of the request that sends them.
 */
export function fairQueries<A extends SqlDriverAdapter>(adapter: A, slots: number, options: { deferHandOff?: boolean } = {}): A {
  const a = adapter as A & { performIO?: (query: unknown) => Promise<unknown> };
  const performIO = a.performIO;
  if (typeof performIO !== 'function') throw new Error('the Prisma driver adapter changed: no performIO to schedule (src/db/fair-queries.ts)');
  const queue = new FairQueue(slots, options.deferHandOff);
  queryTurns.slots += slots;
  a.performIO = (query: unknown) => queue.run(currentKey() ?? '', () => performIO.call(a, query));
  const dispose = a.dispose;
  let disposed = false;
  a.dispose = () => {
    if (!disposed) queryTurns.slots -= slots;
    disposed = true;
    return dispose.call(a);
  };
  return adapter;
}
