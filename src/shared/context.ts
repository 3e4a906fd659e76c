import type { Logger } from 'pino';
import type { Db, Prisma } from '../db/database.ts';
import { createLoaders, type Loaders } from './loaders.ts';
import { createLogger } from './logger.ts';
import { eligibleAccountIds } from './tenancy.ts';
import { ReferenceCache } from './reference-cache.ts';
import type { FileServices } from '../modules/files/file-services.ts';
import type { UserTokenIssuer } from '../modules/oauth/user-tokens.ts';
import type { Integrations } from '../integrations/integrations.ts';

export type Scope = 'read' | 'write';

/** Who is calling: resolved from the bearer token by src/http/authentication.ts, or the system itself. */
export interface Actor {
  /** the user; for the system (admin CLI, jobs, seeds) the user it acts for, or 0 (audit columns stay null) */
  userId: number;
  scopes: ReadonlySet<Scope>;
  /** OAuth client the token was issued to; null for session tokens */
  clientId: string | null;
  /** a client_credentials token: the client acts as its owner user (admission control gives it a share of its own) */
  clientCredentials?: boolean;
  /**
   * 'system': trusted in-process callers, which every tenancy and manager check lets through;
   * 'delegated': a job acting for a user with the scopes of the request that started it (the chat
   * assistant), checked as that user
   */
  tokenKind: 'session' | 'jwt' | 'system' | 'anonymous' | 'delegated';
  /** the session row behind a session token (null for other tokens) */
  sessionId: number | null;
  /** resource identifiers a JWT access token is bound to (normalised); session tokens have none */
  audience?: readonly string[];
}

/** Counts one attempt of a limited operation under a key; throws RateLimitedError over the limit. */
export interface AttemptLimiter {
  hit(key: string): Promise<void>;
}

/**
 * Limits that services apply themselves, where no middleware sees the operation: the password check
 * of changePassword (src/http/rate-limit.ts, createAttemptLimiter). The app gives request contexts
 * its limiters; system contexts and contexts built without them have none.
 */
export interface ServiceLimits {
  passwordCheck: AttemptLimiter;
}

const UNLIMITED: ServiceLimits = { passwordCheck: { hit: async () => {} } };

/** The context every service operation takes: from /graphql, the REST adapter, the CLI, jobs or MCP tools. */
export interface RequestContext {
  /** the database client, or the transaction client inside `inTransaction` */
  db: Db;
  actor: Actor;
  requestId: string;
  logger: Logger;
  /** per-request DataLoaders, reading through `db` */
  loaders: Loaders;
  /** eligible client accounts of the actor, computed once per request (and again inside a transaction that changed them) */
  eligibleAccounts(): Promise<ReadonlySet<number>>;
  /** the eligible accounts when this request has already computed them, else undefined (no query) */
  knownEligibleAccounts(): ReadonlySet<number> | undefined;
  /** forget the computed set after a change of memberships or provider links in this request */
  invalidateEligibleAccounts(): void;
  /** the limits services apply themselves (see ServiceLimits) */
  limits: ServiceLimits;
  /** reference rows loaded once per app and database (units), see reference-cache.ts */
  reference: ReferenceCache;
  /** the file store and URL signer (src/modules/files/file-services.ts); absent where no files are served */
  files?: FileServices;
  /** issues OAuth tokens for a user (an accepted invitation, src/modules/oauth/user-tokens.ts); absent outside the app */
  userTokens?: UserTokenIssuer;
  /** the request's Accept-Language header, for what a service writes in a language (an invitation's e-mail) */
  acceptLanguage?: string;
  /** the connectors to external services (src/integrations/integrations.ts); absent where none are called */
  integrations?: Integrations;
  /**
   * Is the token this request came with still valid (not expired, not revoked)? For what outlives
   * its request (a subscription's stream); absent where no token was shown (system contexts).
   */
  credentialsValid?: () => Promise<boolean>;
}

interface ContextArgs {
  db: Db;
  actor: Actor;
  requestId: string;
  /** or a function making it on first use (a request that logs nothing makes no child logger) */
  logger: Logger | (() => Logger);
  /** default: the parent's (inside a transaction), else none */
  limits?: ServiceLimits;
  /** the app's (one per database); default: the parent's (inside a transaction), else a new one */
  reference?: ReferenceCache;
  /** default: the parent's (inside a transaction) */
  files?: FileServices;
  /** default: the parent's (inside a transaction) */
  userTokens?: UserTokenIssuer;
  /** default: the parent's (inside a transaction) */
  acceptLanguage?: string;
  /** default: the parent's (inside a transaction) */
  integrations?: Integrations;
  /** default: the parent's (inside a transaction) */
  credentialsValid?: () => Promise<boolean>;
}

/** The memo behind a context's eligibleAccounts(): the pending or settled lookup, and its set once it has arrived. */
interface EligibleMemo {
  value?: Promise<ReadonlySet<number>>;
  resolved?: ReadonlySet<number>;
}
const eligibleMemo = new WeakMap<RequestContext, EligibleMemo>();

function buildContext(args: ContextArgs, parent?: RequestContext): RequestContext {
  const parentMemo = parent && eligibleMemo.get(parent);
  // Inside a transaction a set the request already holds stays valid until a change invalidates it;
  // a fresh one is read through the transaction, so it sees the transaction's own changes.
  const memo: EligibleMemo = { value: parentMemo?.value, resolved: parentMemo?.resolved };
  const lookUp = (): Promise<ReadonlySet<number>> => {
    const pending = eligibleAccountIds(args.db, args.actor.userId).then((set) => {
      if (memo.value === pending) memo.resolved = set; // not when invalidated meanwhile
      return set;
    });
    return pending;
  };
  // the logger and the loaders are made on first use: most requests of a list need neither
  let logger = typeof args.logger === 'function' ? undefined : args.logger;
  let loaders: Loaders | undefined;
  const ctx: RequestContext = {
    db: args.db,
    actor: args.actor,
    requestId: args.requestId,
    get logger() {
      return (logger ??= (args.logger as () => Logger)());
    },
    get loaders() {
      return (loaders ??= createLoaders(args.db));
    },
    limits: args.limits ?? parent?.limits ?? UNLIMITED,
    reference: args.reference ?? parent?.reference ?? new ReferenceCache(),
    files: args.files ?? parent?.files,
    userTokens: args.userTokens ?? parent?.userTokens,
    acceptLanguage: args.acceptLanguage ?? parent?.acceptLanguage,
    integrations: args.integrations ?? parent?.integrations,
    credentialsValid: args.credentialsValid ?? parent?.credentialsValid,
    // a transaction's context answers for its request: what it looks up, the request knows too
    eligibleAccounts: () => {
      if (!memo.value) {
        memo.value = lookUp();
        if (parentMemo && !parentMemo.value) {
          const pending = memo.value;
          parentMemo.value = pending;
          void pending.then(
            (set) => {
              if (parentMemo.value === pending) parentMemo.resolved = set;
            },
            () => undefined,
          );
        }
      }
      return memo.value;
    },
    knownEligibleAccounts: () => memo.resolved,
    invalidateEligibleAccounts: () => {
      memo.value = memo.resolved = undefined;
      parent?.invalidateEligibleAccounts();
    },
  };
  eligibleMemo.set(ctx, memo);
  return ctx;
}

export function createRequestContext(args: ContextArgs): RequestContext {
  return buildContext(args);
}

/**
 * A context for trusted in-process callers (admin CLI, seeds, jobs): every tenancy and manager check
 * lets it through. `actingUserId` is recorded in the audit columns of what it writes (a seed acting
 * for the demo user); without it they stay null.
 */
export function systemContext(db: Db, options: { actingUserId?: number; logger?: Logger; files?: FileServices; integrations?: Integrations } = {}): RequestContext {
  return buildContext({
    files: options.files,
    integrations: options.integrations,
    db,
    actor: { userId: options.actingUserId ?? 0, scopes: new Set<Scope>(['read', 'write']), clientId: null, tokenKind: 'system', sessionId: null },
    requestId: 'system',
    logger: options.logger ?? createLogger('silent'),
  });
}

/** The user recorded in created_by / updated_by: null for the system acting for nobody. */
export const auditUserId = (ctx: RequestContext): number | null => ctx.actor.userId || null;

/** A transaction client has no $connect (Prisma denies it inside a transaction). */
export const isTransaction = (db: Db): boolean => typeof (db as { $connect?: unknown }).$connect !== 'function';

/**
 * Runs `block` in one database transaction with a context bound to it: every check and write in the
 * block sees the same state, and all of it commits or none does. When `ctx` is already bound to a
 * transaction the block joins it, so an operation may call other operations (a voucher booking that
 * posts a journal entry) and they commit or roll back together.
 */
export async function inTransaction<T>(ctx: RequestContext, block: (tx: RequestContext) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  if (isTransaction(ctx.db)) return block(ctx);
  for (let attempt = 1; ; attempt++) {
    const committed: AfterCommit[] = []; // this attempt's: a rolled-back attempt's are dropped
    try {
      const result = await (ctx.db as Prisma).$transaction(
        (tx) => {
          const txCtx = buildContext({ db: tx, actor: ctx.actor, requestId: ctx.requestId, logger: ctx.logger }, ctx);
          afterCommits.set(txCtx, committed);
          return block(txCtx);
        },
        options.timeoutMs ? { timeout: options.timeoutMs, maxWait: options.timeoutMs } : undefined,
      );
      await runAfterCommit(ctx, committed);
      return result;
    } catch (e) {
      // answered 503 (fromPrismaError), which the error renderer does not log as it does a 500: the
      // operator should still see that the database could not keep up
      if ((e as { code?: unknown })?.code === 'P2028') ctx.logger.warn({ err: e }, 'a transaction could not start or finish in time (answered 503)');
      if (attempt >= MAX_ATTEMPTS || !lostRace(e)) throw e;
      ctx.logger.debug({ code: (e as { code?: string }).code, attempt }, 'transaction lost a race; running it again');
    }
  }
}

export interface TransactionOptions {
  /** how long the transaction may run (and wait for a connection) before Prisma rolls it back; default Prisma's 5 s */
  timeoutMs?: number;
}

/** Work to do once a transaction's writes are visible to everyone, with the context outside it. */
type AfterCommit = (ctx: RequestContext) => Promise<void> | void;
const afterCommits = new WeakMap<RequestContext, AfterCommit[]>();

/**
 * Runs `fn` once the transaction `ctx` belongs to has committed (at once when `ctx` is in none),
 * with the context outside the transaction: what must see the committed rows and must not run for a
 * rollback (the chat's message listeners). Inside `inTransaction` it waits for the outermost block;
 * a transaction that runs again forgets what its failed run registered. A failing `fn` is logged and
 * never fails the operation: its writes are committed, and a client seeing an error would repeat them.
 */
export async function afterCommit(ctx: RequestContext, fn: AfterCommit): Promise<void> {
  if (!isTransaction(ctx.db)) return runAfterCommit(ctx, [fn]);
  const pending = afterCommits.get(ctx);
  if (!pending) throw new Error('afterCommit: the transaction was not begun by inTransaction, so its commit cannot be awaited');
  pending.push(fn);
}

async function runAfterCommit(ctx: RequestContext, fns: readonly AfterCommit[]): Promise<void> {
  for (const fn of fns) {
    try {
      await fn(ctx);
    } catch (e) {
      ctx.logger.error({ err: e }, 'work after a commit failed; the committed writes stand');
    }
  }
}

/** How often a transaction that lost a race runs (the first run included). */
const MAX_ATTEMPTS = 3;

/**
 * Did the transaction fail only because a concurrent one committed between its checks and its write?
 * A unique (P2002) or foreign-key (P2003) violation, a write conflict or deadlock (P2034), or
 * PostgreSQL's serialization failure / deadlock. Run again, the operation's own checks see the other
 * transaction's rows and give the answer they give sequentially (400 naming the field, 404), so the
 * status never depends on timing. Nothing outside the database happened in the failed run: it rolled
 * back, jobs included.
 */
function lostRace(e: unknown): boolean {
  const err = e as { code?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown } } } };
  if (err?.code === 'P2002' || err?.code === 'P2003' || err?.code === 'P2034') return true;
  const sqlState = err?.meta?.code ?? err?.meta?.driverAdapterError?.cause?.originalCode;
  return sqlState === '40001' || sqlState === '40P01' || sqlState === '23505' || sqlState === '23503';
}
