import { z } from 'zod';
import { InvitationStatus, type Role } from '../../generated/prisma/enums.ts';
import { offsetArgs, type PageLimits } from '../../shared/pagination.ts';
import { id, nonEmptyText, required } from '../../shared/validation.ts';
import { ROLE_IDS } from '../client-accounts/client-accounts.rules.ts';
import { emailAddress, password } from '../users/users.rules.ts';

/** An invitation is valid 7 days from its creation and is never extended (spec 002). */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** GET /invitations: limit 100 by default, at most 1000 (spec 002). */
export const INVITATION_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 1000 };

/** A token as we make them: 32 random bytes in hexadecimal, 64 characters. Anything else names no invitation. */
export const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

/** The role of a role id (spec: 2 AA, 3 CA, 4 BK, 5 EM). */
export const ROLE_BY_ID: ReadonlyMap<number, Role> = new Map(Object.entries(ROLE_IDS).map(([role, roleId]) => [roleId, role as Role]));

const roleId = z
  .number(required)
  .int('must be a whole number')
  .refine((r) => ROLE_BY_ID.has(r), 'must be 2 (AA, accountant), 3 (CA, client account owner), 4 (BK, bookkeeper) or 5 (EM, employee)');

/** What decides an invitation's state at a moment: its stored status and its expiry. */
export interface InvitationState {
  status: InvitationStatus;
  expiresAt: Date;
}

/** The link's 7 days are over (whatever became of the invitation). */
export const isExpired = (i: InvitationState, now = new Date()): boolean => i.expiresAt.getTime() <= now.getTime();

/**
 * The status the API shows: the stored one, except that a PENDING invitation past its expiry is
 * EXPIRED at once (the job `invitations.expire` stores that within minutes), so no answer shows
 * PENDING with is_expired true, whether or not the job has run.
 */
export const effectiveStatus = (i: InvitationState, now = new Date()): InvitationStatus =>
  i.status === InvitationStatus.PENDING && isExpired(i, now) ? InvitationStatus.EXPIRED : i.status;

export const isPending = (i: InvitationState, now = new Date()): boolean => effectiveStatus(i, now) === InvitationStatus.PENDING;

/** Only a pending invitation within its 7 days can be accepted. */
export const canBeAccepted = isPending;

/** Why an invitation cannot be accepted (each a 400 of spec 002), or null when it can. */
export function acceptRefusal(i: InvitationState, now = new Date()): string | null {
  switch (effectiveStatus(i, now)) {
    case InvitationStatus.ACCEPTED:
      return 'This invitation has already been accepted';
    case InvitationStatus.CANCELLED:
      return 'This invitation has been cancelled';
    case InvitationStatus.EXPIRED:
      return `This invitation expired at ${i.expiresAt.toISOString()}: ask for a new one`;
    default:
      return null;
  }
}

/** The languages of the invitation e-mail. */
export type MailLanguage = 'nb' | 'en';

/** Language tags that pick each template (the primary subtag of Accept-Language; spec: "NO, NB, NN all Norwegian"). */
const LANGUAGES: Record<string, MailLanguage> = { no: 'nb', nb: 'nb', nn: 'nb', en: 'en' };

/** Without an Accept-Language naming one of them: Norwegian, the language of the service's users. */
export const DEFAULT_MAIL_LANGUAGE: MailLanguage = 'nb';

/**
 * The e-mail's language from an Accept-Language header (RFC 9110 12.5.4): the most preferred range
 * (highest q, then first) whose primary subtag is no, nb, nn (Norwegian) or en (English); q=0 ranges
 * are refused, `*` and unknown languages are skipped. Nothing usable: DEFAULT_MAIL_LANGUAGE.
 */
export function mailLanguage(acceptLanguage: string | undefined | null): MailLanguage {
  const ranges = (acceptLanguage ?? '')
    .split(',')
    .slice(0, 50)
    .map((part, order) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { primary: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), order };
    })
    .filter((r) => r.q > 0 && Object.hasOwn(LANGUAGES, r.primary))
    .sort((a, b) => b.q - a.q || a.order - b.order);
  return ranges.length ? LANGUAGES[ranges[0].primary] : DEFAULT_MAIL_LANGUAGE;
}

/** The invitation link: the configured template with the token in it. */
export const invitationLink = (template: string, token: string): string => template.replaceAll('{token}', token);

/** The inputs of every invitation operation (the GraphQL fields' arguments). */
export const invitationRules = {
  list: z.object({
    /** one client account the caller manages; omitted: every account the caller manages */
    clientAccountId: id.nullish(),
    status: z.enum(InvitationStatus).nullish(),
    ...offsetArgs,
  }),
  create: z.object({
    input: z.object({
      /** the address invited (stored lower-cased) */
      email: emailAddress,
      clientAccountId: id,
      roleId,
    }),
  }),
  accept: z.object({
    token: z.string(required),
    input: z.object({
      firstName: nonEmptyText(100),
      lastName: nonEmptyText(100),
      /** the new user's address; may differ from the invited one */
      email: emailAddress,
      password: password.max(1000, 'must be at most 1000 characters'),
    }),
  }),
};
