import pg from 'pg';
import type { Database, Prisma } from '../../db/database.ts';
import type { Db } from '../../db/database.ts';
import { AppError, RateLimitedError, ServiceUnavailableError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import { sequenceChanges } from './changes.service.ts';

/**
 * The notification channel of the change feed (migration `*_changes_notify`), sent at commit when the
 * sequencer positioned changes, one per client account: `<client_account_id>:<highest position>`.
 */
export const CHANGE_CHANNELS = { sequenced: 'changes_sequenced' } as const;

/** how long a burst of writes is gathered before the sequencer runs for it (ms) */
const SEQUENCE_DEBOUNCE_MS = 25;
/**
 * How often a process with subscribers looks for changes not sequenced yet (ms): one indexed EXISTS
 * each time. Writes notify nothing themselves (a NOTIFY would serialise every writing transaction's
 * commit on PostgreSQL's notification lock), so this bounds how late a change reaches a subscriber.
 */
const SEQUENCE_POLL_MS = 200;
/** the first wait before the listening connection is opened again after it failed; doubles up to RECONNECT_MAX_MS */
const RECONNECT_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/**
 * Open subscriptions of one user (or OAuth client) in one process at most: each is a connection and
 * reads on every change of its account, and one caller's thousand streams must not crowd out the rest.
 */
export const MAX_SUBSCRIPTIONS_PER_CALLER = 20;

/** A subscriber of one client account's changes: told the highest position sequenced. */
type Wake = (position: bigint) => void;

/** An open LISTEN: one connection on PostgreSQL, the embedded engine's listener on PGlite. */
interface Listening {
  close(): Promise<void>;
}

/**
 * The change feed's notifications in one server process: one LISTEN for all its subscribers (a
 * dedicated connection on PostgreSQL, not one per subscriber), opened with the first subscriber and
 * closed with the last, so a process without subscribers holds nothing.
 *
 * - Every SEQUENCE_POLL_MS while it has subscribers, the process runs the sequencer (a cheap EXISTS
 *   when nothing is pending), so a change committed by any process reaches a subscriber within a
 *   fraction of a second instead of at the next minute's `changes.sequence` job. Its positions notify
 *   in turn.
 * - `changes_sequenced` (positions assigned, by whatever process ran the sequencer): the subscribers
 *   of that client account are woken, and each reads on from its own cursor through the feed's read.
 * - After the connection was lost and is back, every subscriber is woken and the sequencer runs: a
 *   notification sent meanwhile is lost, a read from the cursor is not.
 *
 * The subscribers' reads take turns (`turn`): at most `concurrency` at once, first come first
 * served, one page a turn, so one subscriber with a backlog does not keep the others waiting.
 */
export class ChangeListener {
  private readonly byAccount = new Map<number, Set<Wake>>();
  private readonly byCaller = new Map<string, number>();
  private count = 0;
  private listening?: Promise<Listening | undefined>;
  /** bumped on every open and close: a connection opened for an older generation closes itself */
  private generation = 0;
  private reconnectMs = RECONNECT_MS;
  private reconnectTimer?: NodeJS.Timeout;
  private sequenceTimer?: NodeJS.Timeout;
  private pollTimer?: NodeJS.Timeout;
  private sequencing = false;
  private sequenceAgain = false;
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly db: Pick<Database, 'kind' | 'pglite' | 'connectionString' | 'prisma'>,
    private readonly logger: Logger,
    /** subscriber reads at once (PGlite runs one query at a time anyway) */
    private readonly concurrency = db.kind === 'pglite' ? 1 : 4,
  ) {}

  /** the subscribers in this process */
  get subscribers(): number {
    return this.count;
  }

  /** whether this process holds a LISTEN (a connection on PostgreSQL) */
  get isListening(): boolean {
    return this.listening !== undefined;
  }

  /**
   * Registers a subscriber of a client account for a caller (starting the LISTEN with the first); the
   * function returned unregisters it (ending the LISTEN with the last). Calling it twice is harmless.
   * 429 beyond MAX_SUBSCRIPTIONS_PER_CALLER of the caller's.
   */
  subscribe(clientAccountId: number, caller: string, wake: Wake): () => void {
    const held = this.byCaller.get(caller) ?? 0;
    if (held >= MAX_SUBSCRIPTIONS_PER_CALLER) {
      throw new RateLimitedError(30, `At most ${MAX_SUBSCRIPTIONS_PER_CALLER} subscriptions may be open at once; close one first`);
    }
    this.byCaller.set(caller, held + 1);
    let wakes = this.byAccount.get(clientAccountId);
    if (!wakes) this.byAccount.set(clientAccountId, (wakes = new Set()));
    wakes.add(wake);
    if (++this.count === 1) this.start();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      wakes.delete(wake);
      const left = (this.byCaller.get(caller) ?? 1) - 1;
      if (left > 0) this.byCaller.set(caller, left);
      else this.byCaller.delete(caller);
      if (wakes.size === 0 && this.byAccount.get(clientAccountId) === wakes) this.byAccount.delete(clientAccountId);
      if (--this.count === 0) this.stop();
    };
  }

  /**
   * Resolves once this process LISTENs (at once when it does already): a subscriber starts reading
   * only then, or a change written while the connection was being opened would wake nobody. A 503
   * when the LISTEN cannot be opened now (it is retried meanwhile).
   */
  async ready(): Promise<void> {
    const listening = await this.listening;
    if (!listening) throw new ServiceUnavailableError('Subscriptions are unavailable for the moment: the database\'s notifications cannot be listened to; retry in a few seconds', 5);
  }

  /** Runs `work` in its turn: at most `concurrency` at once, in the order asked. */
  async turn<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    else await new Promise<void>((resolve) => this.queue.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next(); // the turn passes on: `running` stays
      else this.running--;
    }
  }

  private start(): void {
    const generation = ++this.generation;
    if (!this.pollTimer) {
      this.pollTimer = setInterval(() => this.pending(), SEQUENCE_POLL_MS);
      this.pollTimer.unref();
    }
    this.listening = this.open(generation).then(
      (l) => {
        this.reconnectMs = RECONNECT_MS;
        return l;
      },
      (e: unknown) => {
        this.logger.warn({ err: e }, 'change subscriptions: could not LISTEN; retrying');
        this.reconnect(generation);
        return undefined;
      },
    );
  }

  private stop(): void {
    ++this.generation;
    clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.sequenceTimer);
    this.sequenceTimer = undefined;
    const listening = this.listening;
    this.listening = undefined;
    void listening?.then((l) => l?.close()).catch((e: unknown) => this.logger.warn({ err: e }, 'change subscriptions: closing the LISTEN failed'));
  }

  /** The connection is lost (or could not be opened): open it again while there are subscribers, then catch up. */
  private reconnect(generation: number): void {
    if (generation !== this.generation || this.count === 0) return;
    const lost = this.listening;
    this.listening = undefined;
    void lost?.then((l) => l?.close()).catch(() => undefined);
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      if (generation !== this.generation || this.count === 0) return;
      this.start();
      void this.listening?.then((l) => {
        if (!l) return;
        this.pending(); // what was written meanwhile
        this.wakeAll(); // what was sequenced meanwhile
      });
    }, this.reconnectMs);
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MAX_MS);
  }

  private async open(generation: number): Promise<Listening> {
    const onNotice = (channel: string, payload: string) => {
      if (generation !== this.generation) return;
      if (channel === CHANGE_CHANNELS.sequenced) this.sequenced(payload);
    };
    if (this.db.pglite) {
      const pglite = this.db.pglite;
      const off = [await pglite.listen(CHANGE_CHANNELS.sequenced, (p) => onNotice(CHANGE_CHANNELS.sequenced, p))];
      return {
        close: async () => {
          if (pglite.closed) return;
          for (const unlisten of off) await unlisten();
        },
      };
    }
    if (!this.db.connectionString) throw new Error('change subscriptions: no connection string to LISTEN with');
    // its own connection, outside the pool: a LISTEN belongs to a session, and the pool's connections are lent to anyone
    const client = new pg.Client({ connectionString: this.db.connectionString, keepAlive: true, application_name: 'regnskap changes listener' });
    let closing = false;
    let ready = false; // until LISTEN ran, a failure is the caller's (open rejects)
    client.on('notification', (m) => onNotice(m.channel, m.payload ?? ''));
    const lost = (e?: unknown) => {
      if (closing || !ready) return;
      closing = true;
      this.logger.warn({ err: e }, 'change subscriptions: the LISTEN connection was lost; reconnecting');
      this.reconnect(generation);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNELS.sequenced}`);
    } catch (e) {
      closing = true;
      await client.end().catch(() => undefined);
      throw e;
    }
    ready = true;
    return {
      close: async () => {
        closing = true;
        await client.end();
      },
    };
  }

  /** Changes may be pending: run the sequencer soon, once for a burst, never twice at once. */
  private pending(): void {
    if (this.count === 0) return;
    if (this.sequencing || this.sequenceTimer) {
      this.sequenceAgain = true;
      return;
    }
    this.sequenceTimer = setTimeout(() => void this.sequence(), SEQUENCE_DEBOUNCE_MS);
  }

  private async sequence(): Promise<void> {
    this.sequenceTimer = undefined;
    this.sequencing = true;
    try {
      do {
        this.sequenceAgain = false;
        await sequenceChanges(this.db.prisma, this.logger);
      } while (this.sequenceAgain && this.count > 0);
    } catch (e) {
      this.logger.error({ err: e }, 'change subscriptions: the sequencer failed; the changes.sequence job runs it again within a minute');
    } finally {
      this.sequencing = false;
    }
  }

  private sequenced(payload: string): void {
    const m = /^(\d+):(\d+)$/.exec(payload);
    if (!m) return;
    const wakes = this.byAccount.get(Number(m[1]));
    if (!wakes) return;
    const position = BigInt(m[2]);
    for (const wake of [...wakes]) wake(position);
  }

  private wakeAll(): void {
    for (const wakes of this.byAccount.values()) for (const wake of [...wakes]) wake(-1n);
  }
}

const listeners = new WeakMap<object, ChangeListener>();

/**
 * The process's listener for a database, made once (apps started on one database share it): the app
 * calls it at start, the subscription field finds it by the request's database client.
 */
export function serveChangeSubscriptions(db: Pick<Database, 'kind' | 'pglite' | 'connectionString' | 'prisma'>, logger: Logger): ChangeListener {
  let listener = listeners.get(db.prisma);
  if (!listener) listeners.set(db.prisma, (listener = new ChangeListener(db, logger)));
  return listener;
}

/** The listener serving `db` (the request context's client); an error when no app serves subscriptions on it. */
export function changeListenerOf(db: Db | Prisma): ChangeListener {
  const listener = listeners.get(db);
  if (!listener) throw new AppError('Subscriptions are not served on this entry point', 400, 'common.bad_request');
  return listener;
}
