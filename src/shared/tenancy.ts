import type { Db } from '../db/database.ts';
import { ForbiddenError, NotFoundError } from './errors.ts';
import type { RequestContext } from './context.ts';

/**
 * Tenancy, in one place. The eligible client accounts of a user are
 *   - every account where the user holds a role (AA, CA, BK or EM), plus
 *   - every account served by a provider account where the user holds AA or BK.
 * Services call `requireAccount` / `requireOwned` for every tenant-owned read and write; the GraphQL
 * object types check the same rule again on each object they return (src/builder.ts, `tenantScoped`).
 */
export async function eligibleAccountIds(prisma: Db, userId: number): Promise<ReadonlySet<number>> {
  const memberships = await prisma.membership.findMany({ where: { userId }, select: { clientAccountId: true, role: true } });
  const ids = new Set(memberships.map((m) => m.clientAccountId));
  const providerIds = [...new Set(memberships.filter((m) => m.role === 'AA' || m.role === 'BK').map((m) => m.clientAccountId))];
  if (providerIds.length) {
    const served = await prisma.providerRelationship.findMany({
      where: { providerAccountId: { in: providerIds } },
      select: { clientAccountId: true },
    });
    for (const s of served) ids.add(s.clientAccountId);
  }
  return ids;
}

export async function canAccessAccount(ctx: RequestContext, clientAccountId: number): Promise<boolean> {
  return (await ctx.eligibleAccounts()).has(clientAccountId);
}

/** 403 unless the client account is one of the caller's eligible accounts (existing or not). */
export async function requireAccount(ctx: RequestContext, clientAccountId: number): Promise<void> {
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
  await requireAccount(ctx, row.clientAccountId);
  return row;
}
