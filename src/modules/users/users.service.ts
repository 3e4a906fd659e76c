import type { Prisma } from '../../db/database.ts';
import { ConflictError, ValidationError } from '../../shared/errors.ts';
import { hashPassword } from '../../shared/passwords.ts';
import { isEmailAddress } from '../../shared/email.ts';

export interface CreateUserInput {
  email: string;
  password: string;
  firstName?: string | null;
  lastName?: string | null;
}

export const MIN_PASSWORD_LENGTH = 8;

export async function createUser(prisma: Prisma, input: CreateUserInput) {
  const email = input.email.trim().toLowerCase();
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

export async function userByEmail(prisma: Prisma, email: string) {
  return prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
}
