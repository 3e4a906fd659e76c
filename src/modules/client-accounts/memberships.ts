import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { Role } from '../../generated/prisma/enums.ts';
import { auditUserId, type RequestContext } from '../../shared/context.ts';

type MembershipQuery = { include?: PrismaNS.MembershipInclude; select?: PrismaNS.MembershipSelect };
interface MembershipKey {
  userId: number;
  clientAccountId: number;
  role: Role;
}

/**
 * Every membership change goes through these two, inside the changing transaction: a role that is
 * really added or removed is recorded in `role_changes` (who, which role, by whom, when), which the
 * daily ORGANIZATIONAL_ROLE_CHANGES summary reads. Granting a role the user holds changes nothing
 * and records nothing. Callers lock the client account first (concurrent changes are serialised).
 */
export async function addMembership(tx: RequestContext, key: MembershipKey, query: MembershipQuery = {}) {
  const existing = await tx.db.membership.findUnique({ where: { userId_clientAccountId_role: key }, select: { id: true } });
  if (existing) return tx.db.membership.findUniqueOrThrow({ ...query, where: { id: existing.id } });
  const membership = await tx.db.membership.create({ ...query, data: key });
  await tx.db.roleChange.create({ data: { ...key, change: 'ADDED', changedById: auditUserId(tx) }, select: { id: true } });
  return membership;
}

/** Removes the role; returns whether the user held it. */
export async function removeMembership(tx: RequestContext, key: MembershipKey): Promise<boolean> {
  const { count } = await tx.db.membership.deleteMany({ where: key });
  if (count) await tx.db.roleChange.create({ data: { ...key, change: 'REMOVED', changedById: auditUserId(tx) }, select: { id: true } });
  return count > 0;
}
