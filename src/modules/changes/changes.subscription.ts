import { builder } from '../../builder.ts';
import type { RequestContext } from '../../shared/context.ts';
import { AppError, UnauthenticatedError } from '../../shared/errors.ts';
import { changeListenerOf, type ChangeListener } from './changes.listener.ts';
import { changesEnd, listChanges, type Change } from './changes.service.ts';
import { ChangeRef } from './changes.types.ts';

/** changes a subscriber reads per turn (the feed's largest page) */
const PAGE = 100;

export const subscriptionTimings = {
  /**
   * how often a subscriber's token and access to its client account are checked again (ms), before
   * its next read: a token expired, revoked or signed out, or a membership removed, ends the stream
   */
  recheckMs: 60_000,
  /** how long a subscriber waits before reading again after the database failed it (ms) */
  retryMs: 1000,
};

export interface ChangeSubscriptionArgs {
  clientAccountId: number;
  types?: string[] | null;
  after?: string | null;
}

/**
 * One subscriber's stream of a client account's changes, in commit order: it waits for the listener
 * to wake it (its account's changes were sequenced, in any process), then reads on from its cursor
 * through the feed's own read (listChanges: the same tenancy, types and order as GET /changes), one
 * page a turn. It buffers at most one page, and reads the next only when the client has taken the
 * last (a slow client slows only itself). `return()` (the client went away) unregisters it at once,
 * also while it waits.
 *
 * An error of the request (the account is no longer the caller's) ends the stream with that error as
 * its last event; a failure of the database is retried after `subscriptionTimings.retryMs`.
 */
class ChangeStream implements AsyncIterableIterator<Change | AppError> {
  private cursor = '';
  private readonly buffer: (Change | AppError)[] = [];
  /** the last page was full: read on without waiting */
  private more = false;
  /** woken since the last read began */
  private due = false;
  /** the highest position notified, and the highest up to which everything has been read */
  private notified = 0n;
  private readUpTo = -1n;
  private checkedAt = Date.now();
  private closed = false;
  private resume?: () => void;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly ctx: RequestContext,
    private readonly args: ChangeSubscriptionArgs,
    private readonly listener: ChangeListener,
  ) {
    // registered before the start is read: nothing sequenced in between is missed
    const caller = ctx.actor.clientCredentials && ctx.actor.clientId ? `client:${ctx.actor.clientId}` : `user:${ctx.actor.userId}`;
    this.unsubscribe = listener.subscribe(args.clientAccountId, caller, (position) => this.wake(position));
  }

  /** Checks the request and finds where to start: after `after` (reading what came since), or at the feed's end now. */
  async start(): Promise<void> {
    await this.listener.ready();
    if (this.args.after != null) {
      this.cursor = this.args.after;
      await this.read();
    } else {
      this.cursor = await changesEnd(this.ctx, { clientAccountId: this.args.clientAccountId, types: this.args.types });
    }
  }

  /** `position` -1: unknown (the listener reconnected), read anyway */
  private wake(position: bigint): void {
    if (position >= 0n && position <= this.readUpTo) return; // read already, by this or another notification
    if (position > this.notified) this.notified = position;
    this.due = true;
    this.resume?.();
  }

  private async read(): Promise<void> {
    const upTo = this.notified;
    this.due = false;
    if (Date.now() - this.checkedAt >= subscriptionTimings.recheckMs) {
      if (this.ctx.credentialsValid && !(await this.ctx.credentialsValid())) {
        throw new UnauthenticatedError('The token of this subscription has expired or was revoked: subscribe again with a valid token');
      }
      this.ctx.invalidateEligibleAccounts(); // listChanges checks the account again
      this.checkedAt = Date.now();
    }
    const page = await this.listener.turn(() =>
      listChanges(this.ctx, { clientAccountId: this.args.clientAccountId, types: this.args.types, after: this.cursor, limit: PAGE }),
    );
    this.buffer.push(...page.nodes);
    this.cursor = page.pagination.nextCursor;
    this.more = page.pagination.hasMore;
    if (!this.more && upTo > this.readUpTo) this.readUpTo = upTo;
  }

  private pause(ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.resume = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (this.resume = undefined));
  }

  async next(): Promise<IteratorResult<Change | AppError>> {
    while (!this.closed) {
      const value = this.buffer.shift();
      if (value) {
        if (value instanceof AppError) this.close();
        return { value, done: false };
      }
      if (!this.more && !this.due) {
        await this.pause();
        continue;
      }
      try {
        await this.read();
      } catch (e) {
        if (e instanceof AppError && e.status < 500) {
          this.buffer.push(e); // its last event
          continue;
        }
        this.ctx.logger.warn({ err: e }, 'change subscription: reading the feed failed; retrying');
        this.due = true;
        await this.pause(subscriptionTimings.retryMs);
      }
    }
    return { value: undefined, done: true };
  }

  return(): Promise<IteratorResult<Change | AppError>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.resume?.();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/**
 * The stream of a subscription to a client account's changes, after the feed's checks (the caller's
 * account, known types, a valid cursor): refused before the stream starts when they fail.
 */
export async function subscribeToChanges(ctx: RequestContext, args: ChangeSubscriptionArgs): Promise<AsyncIterableIterator<Change | AppError>> {
  const stream = new ChangeStream(ctx, args, changeListenerOf(ctx.db));
  try {
    await stream.start();
  } catch (e) {
    stream.close();
    throw e;
  }
  return stream;
}

builder.subscriptionFields((t) => ({
  changes: t.field({
    type: ChangeRef,
    description:
      'The changes of a client account as they are committed, in commit order, from now on (or after a cursor of the changes feed): one event per change, within about a second of its write. Over server-sent events: POST /graphql with Accept: text/event-stream. The same account and types rules as the changes query.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      types: t.arg.stringList({ description: 'Only these change types (README, "Change types"); all by default' }),
      after: t.arg.string({ description: 'Start after this cursor of the changes feed (nextCursor) instead of now: what came since is sent first' }),
    },
    subscribe: (_root, args, ctx) => subscribeToChanges(ctx, args),
    resolve: (event) => {
      if (event instanceof AppError) throw event;
      return event;
    },
  }),
}));
