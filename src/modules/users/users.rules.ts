import { z } from 'zod';
import { isEmailAddress } from '../../shared/email.ts';
import { optionalText, required } from '../../shared/validation.ts';

export const MIN_PASSWORD_LENGTH = 8;

/** Emails are stored and looked up lower-cased and trimmed. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** An e-mail address as users are stored: trimmed, lower-cased, checked. */
export const emailAddress = z.string(required).trim().toLowerCase().refine(isEmailAddress, 'must be a valid email address');
/** A new password: at least MIN_PASSWORD_LENGTH characters. */
export const password = z.string(required).min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`);
/** a first or last name; empty or null clears it */
const name = optionalText(100);

/** The inputs of every user operation (the GraphQL fields' arguments; createUser is the admin CLI's). */
export const userRules = {
  create: z.object({ input: z.object({ email: emailAddress, password, firstName: name, lastName: name }) }),
  updateMe: z.object({ input: z.object({ firstName: name, lastName: name }) }),
  /** the new password may be the current one: changing it ends the user's other sessions, which is a reason to "change" to the same */
  changePassword: z.object({ input: z.object({ currentPassword: z.string(required), newPassword: password }) }),
};
