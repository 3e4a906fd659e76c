import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import { createLoaders, type Loaders } from './loaders.ts';
import { eligibleAccountIds } from './tenancy.ts';

export type Scope = 'read' | 'write';

/** Who is calling: resolved from the bearer token by src/shared/authentication.ts. */
export interface Actor {
  userId: number;
  scopes: ReadonlySet<Scope>;
  /** OAuth client the token was issued to; null for session tokens */
  clientId: string | null;
  tokenKind: 'session' | 'jwt';
  /** the session row behind a session token (null for other tokens) */
  sessionId: number | null;
}

/** The per-request context shared by /graphql, the REST adapter and any in-process caller. */
export interface RequestContext {
  /** the database client, or the transaction client inside `inTransaction` */
  db: Db;
  actor: Actor;
  requestId: string;
  logger: Logger;
  loaders: Loaders;
  /** eligible client accounts of the actor, computed once per request */
  eligibleAccounts(): Promise<ReadonlySet<number>>;
  /** forget the computed set after a change of memberships or provider links in this request */
  invalidateEligibleAccounts(): void;
}

export function createRequestContext(args: { db: Db; actor: Actor; requestId: string; logger: Logger }): RequestContext {
  let eligible: Promise<ReadonlySet<number>> | undefined;
  return {
    ...args,
    loaders: createLoaders(args.db),
    eligibleAccounts: () => (eligible ??= eligibleAccountIds(args.db, args.actor.userId)),
    invalidateEligibleAccounts: () => {
      eligible = undefined;
    },
  };
}
