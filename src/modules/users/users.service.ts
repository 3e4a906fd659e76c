import type { Db, Prisma } from '../../db/database.ts';
import { ConflictError, ValidationError } from '../../shared/errors.ts';
import { hashPassword, verifyPassword } from '../../shared/passwords.ts';
import type { RequestContext } from '../../shared/context.ts';
import { isEmailAddress } from '../../shared/email.ts';

export interface CreateUserInput {
  email: string;
  password: string;
  firstName?: string | null;
  lastName?: string | null;
}

export const MIN_PASSWORD_LENGTH = 8;

/** Emails are stored and looked up lower-cased and trimmed. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export function userByEmail(prisma: Db, email: string) {
  return prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
}

export async function createUser(prisma: Prisma, input: CreateUserInput) {
  const email = normalizeEmail(input.email);
  if (!isEmailAddress(email)) throw ValidationError.field('email', 'must be a valid email address');
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw ValidationError.field('password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (await prisma.user.findUnique({ where: { email }, select: { id: true } })) {
    throw new ConflictError(`A user with email ${email} already exists`);
  }
  return prisma.user.create({
    data: { email, passwordHash: await hashPassword(input.password), firstName: input.firstName ?? null, lastName: input.lastName ?? null },
    select: { id: true, email: true, firstName: true, lastName: true, createdAt: true },
  });
}


const PUBLIC = { id: true, email: true, firstName: true, lastName: true } as const;

/** The caller's own names; null clears one. */
export async function updateProfile(ctx: RequestContext, input: { firstName?: string | null; lastName?: string | null }) {
  const data: { firstName?: string | null; lastName?: string | null } = {};
  for (const key of ['firstName', 'lastName'] as const) {
    const v = input[key];
    if (v === undefined) continue;
    const trimmed = v?.trim() || null;
    if (trimmed && trimmed.length > 100) throw ValidationError.field(key, 'must be at most 100 characters');
    data[key] = trimmed;
  }
  return ctx.db.user.update({ where: { id: ctx.actor.userId }, data, select: PUBLIC });
}

/**
 * Changes the caller's password after checking the current one, and ends every other session of the
 * user in the same transaction (the session making the request stays valid).
 */
export async function changePassword(ctx: RequestContext, input: { currentPassword: string; newPassword: string }): Promise<boolean> {
  const user = await ctx.db.user.findUniqueOrThrow({ where: { id: ctx.actor.userId }, select: { passwordHash: true } });
  if (!(await verifyPassword(user.passwordHash, input.currentPassword))) throw ValidationError.field('currentPassword', 'is not correct');
  if (input.newPassword.length < MIN_PASSWORD_LENGTH) throw ValidationError.field('newPassword', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (input.newPassword === input.currentPassword) throw ValidationError.field('newPassword', 'must differ from the current password');
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.$transaction([
    ctx.db.user.update({ where: { id: ctx.actor.userId }, data: { passwordHash } }),
    ctx.db.session.deleteMany({ where: { userId: ctx.actor.userId, ...(ctx.actor.sessionId ? { id: { not: ctx.actor.sessionId } } : {}) } }),
  ]);
  return true;
}
