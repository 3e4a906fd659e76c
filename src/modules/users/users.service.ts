import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { ConflictError, NotFoundError } from '../../shared/errors.ts';
import { hashPassword, verifyPassword } from '../../shared/passwords.ts';
import { parse, check, validate, type Args } from '../../shared/validation.ts';
import { forgetCachedSessions } from '../../http/session-cache.ts';
import { normalizeEmail, userRules as rules } from './users.rules.ts';

/** A user as others see it: no password hash. */
const PUBLIC = { id: true, email: true, firstName: true, lastName: true } as const;

/** The user with this email (any case, surrounding spaces ignored), or null. */
export function findUserByEmail(ctx: RequestContext, { email }: { email: string }) {
  return ctx.db.user.findUnique({ where: { email: normalizeEmail(email) } });
}

/** The user with this email, or 404. */
export async function getUserByEmail(ctx: RequestContext, args: { email: string }) {
  const user = await findUserByEmail(ctx, args);
  if (!user) throw new NotFoundError(`User ${args.email}`);
  return user;
}

/** A user who can log in (the admin CLI and tests; there is no sign-up). */
export async function createUser(ctx: RequestContext, args: Args<typeof rules.create>) {
  return inTransaction(ctx, async (tx) => {
    const { input } = await validate(tx, rules.create, args, {
      check: async ({ input }) => {
        if (await findUserByEmail(tx, input)) throw new ConflictError(`A user with email ${input.email} already exists`);
      },
    });
    const { password, ...fields } = input;
    return tx.db.user.create({ data: { ...fields, passwordHash: await hashPassword(password) }, select: { ...PUBLIC, createdAt: true } });
  });
}

/** The caller's own names; null or empty clears one. */
export async function updateProfile(ctx: RequestContext, args: Args<typeof rules.updateMe>) {
  const parsed = parse(rules.updateMe, args);
  return inTransaction(ctx, async (tx) => {
    const { input } = await check(tx, parsed);
    return tx.db.user.update({ where: { id: tx.actor.userId }, data: input, select: PUBLIC });
  });
}

/**
 * Changes the caller's password after checking the current one, and ends every other session of the
 * user in the same transaction (the session making the request stays valid). Each attempt counts
 * against the user's password-check limit first, right or wrong, outside the transaction so that a
 * wrong one (which rolls back) still counts.
 */
export async function changePassword(ctx: RequestContext, args: Args<typeof rules.changePassword>): Promise<boolean> {
  const parsed = parse(rules.changePassword, args);
  await ctx.limits.passwordCheck.hit(String(ctx.actor.userId));
  const changed = await inTransaction(ctx, async (tx) => {
    const { userId, sessionId } = tx.actor;
    const { input } = await check(tx, parsed, {
      check: async ({ input }, _found, issues) => {
        const user = await tx.db.user.findUniqueOrThrow({ where: { id: userId }, select: { passwordHash: true } });
        if (!(await verifyPassword(user.passwordHash, input.currentPassword))) issues.add(['currentPassword'], 'is not correct');
      },
    });
    await tx.db.user.update({ where: { id: userId }, data: { passwordHash: await hashPassword(input.newPassword) } });
    await tx.db.session.deleteMany({ where: { userId, ...(sessionId ? { id: { not: sessionId } } : {}) } });
    return true;
  });
  // committed: this process stops accepting the ended sessions now, not when their cache entries expire
  forgetCachedSessions(ctx.actor.userId);
  return changed;
}
