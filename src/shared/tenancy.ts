import type { Db } from '../db/database.ts';
import { ForbiddenError, NotFoundError } from './errors.ts';
import type { RequestContext } from './context.ts';

/**
 * Tenancy, in one place. The eligible client accounts of a user are
 *   - every account where the user holds a role (AA, CA, BK or EM), plus
 *   - every account served by a provider account where the user holds AA or BK.
 * Services call `requireAccount` / `requireOwned` for every tenant-owned read and write; the GraphQL
 * object types check the same rule again on each object they return (src/builder.ts, `tenantScoped`).
 * The system context (admin CLI, jobs) may reach every account.
 */
export async function eligibleAccountIds(db: Db, userId: number): Promise<ReadonlySet<number>> {
  const memberships = await db.membership.findMany({ where: { userId }, select: { clientAccountId: true, role: true } });
  const ids = new Set(memberships.map((m) => m.clientAccountId));
  const providerIds = [...new Set(memberships.filter((m) => m.role === 'AA' || m.role === 'BK').map((m) => m.clientAccountId))];
  if (providerIds.length) {
    const served = await db.providerRelationship.findMany({
      where: { providerAccountId: { in: providerIds } },
      select: { clientAccountId: true },
    });
    for (const s of served) ids.add(s.clientAccountId);
  }
  return ids;
}

/** Trusted in-process callers (systemContext): every tenancy and manager check lets them through. */
export const isSystem = (ctx: RequestContext): boolean => ctx.actor.tokenKind === 'system';

export async function canAccessAccount(ctx: RequestContext, clientAccountId: number): Promise<boolean> {
  return isSystem(ctx) || (await ctx.eligibleAccounts()).has(clientAccountId);
}

/**
 * The same answer as canAccessAccount, synchronously once the request knows its eligible accounts
 * (a service has checked the account before returning rows, so it nearly always does): the GraphQL
 * backstop checks every returned object, and a promise per object made each one wait its own turn.
 */
export function accountAccess(ctx: RequestContext, clientAccountId: number): boolean | Promise<boolean> {
  if (isSystem(ctx)) return true;
  const known = ctx.knownEligibleAccounts();
  return known ? known.has(clientAccountId) : canAccessAccount(ctx, clientAccountId);
}

/**
 * 403 unless the client account is one of the caller's eligible accounts (existing or not). The
 * system reaches every account, so for it a missing account is a 404.
 */
export async function requireAccount(ctx: RequestContext, clientAccountId: number): Promise<void> {
  if (isSystem(ctx)) {
    const exists = await ctx.db.clientAccount.findUnique({ where: { id: clientAccountId }, select: { id: true } });
    if (!exists) throw new NotFoundError(`Client account ${clientAccountId}`);
    return;
  }
  if (!(await canAccessAccount(ctx, clientAccountId))) {
    throw new ForbiddenError(`You do not have access to client account ${clientAccountId}`);
  }
}

/** 404 when the row is missing, 403 when it belongs to an account the caller cannot access. */
export async function requireOwned<T extends { clientAccountId: number }>(
  ctx: RequestContext,
  what: string,
  row: T | null | undefined,
): Promise<T> {
  if (!row) throw new NotFoundError(what);
  if (!(await canAccessAccount(ctx, row.clientAccountId))) {
    throw new ForbiddenError(`You do not have access to client account ${row.clientAccountId}`);
  }
  return row;
}

/**
 * The client accounts a list covers: those asked for (each must be the caller's, else 403), or every
 * eligible one; null means all (the system).
 */
export async function listedAccounts(ctx: RequestContext, asked: readonly number[] | null | undefined): Promise<number[] | null> {
  if (asked?.length) {
    for (const id of asked) if (!(await canAccessAccount(ctx, id))) throw new ForbiddenError(`You do not have access to client account ${id}`);
    return [...new Set(asked)];
  }
  if (isSystem(ctx)) return null;
  return [...(await ctx.eligibleAccounts())];
}

/** Does the provider account serve the client account (spec 000: a provider account serves other client accounts)? */
export async function providerServes(db: Db, providerAccountId: number, clientAccountId: number): Promise<boolean> {
  const link = await db.providerRelationship.findUnique({
    where: { providerAccountId_clientAccountId: { providerAccountId, clientAccountId } },
    select: { id: true },
  });
  return !!link;
}

/**
 * Locks a client account's row until the transaction ends: serialises the changes of one account
 * that a check-then-write could otherwise let through twice (two revocations of the last owner, two
 * enablings adding two add-ons, two original tax returns for one year).
 */
export async function lockClientAccount(tx: RequestContext, clientAccountId: number): Promise<void> {
  await tx.db.$queryRaw`SELECT id FROM client_accounts WHERE id = ${clientAccountId} FOR UPDATE`;
}
