import { lockForTransaction } from '../../shared/advisory-locks.ts';
import { addMembership } from '../client-accounts/memberships.ts';
import { randomBytes } from 'node:crypto';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { InvitationStatus, type Role } from '../../generated/prisma/enums.ts';
import { enqueue } from '../../jobs/jobs.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { findOffsetPage } from '../../shared/pagination.ts';
import { hashPassword } from '../../shared/passwords.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { isProviderIndustryCode, ROLE_NAMES, roleNeedsProvider } from '../client-accounts/client-accounts.rules.ts';
import { managedAccountIds, requireManager } from '../client-accounts/client-accounts.service.ts';
import type { UserTokens } from '../oauth/user-tokens.ts';
import { findUserByEmail } from '../users/users.service.ts';
import { sendInvitationJob } from './invitations.job.ts';
import {
  acceptRefusal,
  INVITATION_PAGE_LIMITS,
  INVITATION_TTL_MS,
  invitationRules as rules,
  mailLanguage,
  ROLE_BY_ID,
  TOKEN_PATTERN,
} from './invitations.rules.ts';

type Query = { include?: PrismaNS.InvitationInclude; select?: PrismaNS.InvitationSelect };

/** A client account as an invitation shows it to anyone holding its token. */
const ACCOUNT_SUMMARY = { select: { id: true, displayName: true, uniqueName: true, industryCode: true } } as const;

// ── Who may see and change invitations ────────────────────────────────────────────────────────────

/**
 * Invitations (and their secret tokens) are for the managers of their client account, the people who
 * may invite: holders of CA, AA or BK on it, and AA/BK staff of a provider serving it. Another
 * account, or an employee (EM) of this one, is 403.
 */
async function requireOwnInvitation(ctx: RequestContext, id: number) {
  const found = await ctx.db.invitation.findUnique({ where: { id }, select: { id: true, clientAccountId: true } });
  if (!found) throw new NotFoundError(`Invitation ${id}`);
  await requireManager(ctx, found.clientAccountId);
  return found;
}

/** PENDING means pending now: not past its expiry. EXPIRED includes PENDING rows past it (effectiveStatus). */
function statusWhere(status: InvitationStatus | null | undefined, now: Date): PrismaNS.InvitationWhereInput {
  switch (status) {
    case undefined:
    case null:
      return {};
    case InvitationStatus.PENDING:
      return { status, expiresAt: { gt: now } };
    case InvitationStatus.EXPIRED:
      return { OR: [{ status }, { status: InvitationStatus.PENDING, expiresAt: { lte: now } }] };
    default:
      return { status };
  }
}

// ── Reads ────────────────────────────────────────────────────────────────────────────────────────

/**
 * GET /invitations: newest first, `limit` (100, at most 1000) from `offset`. With client_account_id
 * the invitations of that account (403 unless the caller manages it), without it those of every
 * account the caller manages.
 */
export async function listInvitations(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, status, ...window } = parse(rules.list, args);
  let accounts: PrismaNS.InvitationWhereInput;
  if (clientAccountId != null) {
    await requireManager(ctx, clientAccountId);
    accounts = { clientAccountId };
  } else {
    const managed = await managedAccountIds(ctx);
    accounts = managed ? { clientAccountId: { in: [...managed] } } : {};
  }
  const where = { AND: [accounts, statusWhere(status, new Date())] };
  return findOffsetPage(
    window,
    INVITATION_PAGE_LIMITS,
    (w) => ctx.db.invitation.findMany({ ...query, where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...w }),
    () => ctx.db.invitation.count({ where }),
  );
}

/** GET /invitations/{id}: 404 when missing, 403 unless the caller manages its client account. */
export async function getInvitation(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  await requireOwnInvitation(ctx, id);
  return ctx.db.invitation.findUniqueOrThrow({ ...query, where: { id } });
}

/**
 * The invitation a token names, for anyone holding it (GET /public/v2/invitations/{token}): 404 for
 * a token that names none (also one that is not 64 hexadecimal characters, without a lookup).
 */
export async function getPublicInvitation(ctx: RequestContext, { token }: { token: string }) {
  if (!TOKEN_PATTERN.test(token)) throw new NotFoundError('Invitation');
  const invitation = await ctx.db.invitation.findUnique({ where: { token }, include: { clientAccount: ACCOUNT_SUMMARY } });
  if (!invitation) throw new NotFoundError('Invitation');
  return invitation;
}

// ── Writes ───────────────────────────────────────────────────────────────────────────────────────

/** 400 when the role is AA or BK and the account is not a provider account (69.2xx). */
function assertRoleFits(role: Role, account: { id: number; industryCode: string | null }, field?: string) {
  if (roleNeedsProvider(role) && !isProviderIndustryCode(account.industryCode)) {
    const message = `${role} (${ROLE_NAMES[role]}) can only be held on a provider account (industry code 69.2xx); client account ${account.id} is not one`;
    throw field ? ValidationError.field(field, message) : new ValidationError(message);
  }
}

/**
 * POST /invitations (managers of the account only): a PENDING invitation with a fresh 64-character
 * token, valid 7 days, and in the same transaction the cancellation of any earlier pending one for
 * the same address and account and the job that e-mails the link (in the language of the request's
 * Accept-Language). The invited address must not belong to a user yet: an existing user gets a role
 * with grantRole instead.
 */
export async function createInvitation(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const { input } = await check(tx, parsed);
    const { email, clientAccountId } = input;
    await requireManager(tx, clientAccountId);
    await lockForTransaction(tx, 'invitation', clientAccountId);
    const role = ROLE_BY_ID.get(input.roleId)!;
    const account = await tx.db.clientAccount.findUniqueOrThrow({ where: { id: clientAccountId }, select: { id: true, industryCode: true } });
    assertRoleFits(role, account, 'roleId');
    if (await findUserByEmail(tx, { email })) {
      throw ValidationError.field('email', `a user with the e-mail address ${email} already exists: give that user the role with grantRole instead`);
    }
    const now = new Date();
    await tx.db.invitation.updateMany({
      where: { clientAccountId, invitedEmail: email, status: InvitationStatus.PENDING, expiresAt: { gt: now } },
      data: { status: InvitationStatus.CANCELLED },
    });
    const invitation = await tx.db.invitation.create({
      data: {
        invitedEmail: email,
        clientAccountId,
        role,
        token: randomBytes(32).toString('hex'),
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        createdAt: now,
        invitedById: auditUserId(tx),
      },
      select: { id: true },
    });
    await enqueue(tx, sendInvitationJob, { invitationId: invitation.id, language: mailLanguage(tx.acceptLanguage) });
    return tx.db.invitation.findUniqueOrThrow({ ...query, where: { id: invitation.id } });
  });
}

/**
 * DELETE /invitations/{id}: a pending (or expired) invitation becomes CANCELLED and is answered; one
 * cancelled already is answered as it is; an accepted one is 400 (its user holds the role: revoke
 * that instead).
 */
export async function cancelInvitation(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return inTransaction(ctx, async (tx) => {
    const { clientAccountId } = await requireOwnInvitation(tx, id);
    await lockForTransaction(tx, 'invitation', clientAccountId);
    const { status } = await tx.db.invitation.findUniqueOrThrow({ where: { id }, select: { status: true } });
    if (status === InvitationStatus.ACCEPTED) {
      throw new ValidationError(`Invitation ${id} has already been accepted and cannot be cancelled (revoke the role of its user instead)`);
    }
    if (status === InvitationStatus.CANCELLED) return tx.db.invitation.findUniqueOrThrow({ ...query, where: { id } });
    return tx.db.invitation.update({ ...query, where: { id }, data: { status: InvitationStatus.CANCELLED } });
  });
}

/** What accepting answers (spec 002): the invitation, the new user and the user's OAuth tokens. */
export interface AcceptedInvitation {
  message: string;
  invitation: Awaited<ReturnType<typeof getPublicInvitation>>;
  user: { id: number; firstName: string | null; lastName: string | null; email: string; emailVerified: boolean };
  tokens: UserTokens;
}

/**
 * POST /public/v2/invitations/{token}/accept (no token needed): creates the user (the e-mail may
 * differ from the invited address, and must not belong to a user yet), gives the user the role on
 * the client account at once and marks the invitation ACCEPTED, in one transaction that holds the
 * invitation's row, so a second accept waits and then finds it accepted. Then the user's OAuth
 * tokens are issued (src/modules/oauth/user-tokens.ts). `email_verified` is true when the user's
 * address is the invited one: the link in that mailbox was the proof.
 *
 * Refusals: 404 for a token that names no invitation, 400 when it is accepted, cancelled or
 * expired, when the e-mail belongs to a user, or when the role no longer fits the account (AA or BK
 * on an account that stopped being a provider). The password is hashed only for an invitation that
 * can be accepted, so an unknown token costs one lookup.
 */
export async function acceptInvitation(ctx: RequestContext, args: Args<typeof rules.accept>): Promise<AcceptedInvitation> {
  const { token, input } = parse(rules.accept, args);
  const issuer = ctx.userTokens;
  if (!issuer) throw new Error('acceptInvitation needs a context that can issue OAuth tokens (userTokens)');
  const before = await getPublicInvitation(ctx, { token });
  const refusal = acceptRefusal(before);
  if (refusal) throw new ValidationError(refusal);
  const passwordHash = await hashPassword(input.password);

  const { user, invitationId } = await inTransaction(ctx, async (tx) => {
    await tx.db.$queryRaw`SELECT id FROM invitations WHERE id = ${before.id} FOR UPDATE`;
    const invitation = await getPublicInvitation(tx, { token });
    const again = acceptRefusal(invitation);
    if (again) throw new ValidationError(again);
    assertRoleFits(invitation.role, invitation.clientAccount);
    if (await findUserByEmail(tx, input)) throw ValidationError.field('email', `a user with the e-mail address ${input.email} already exists: sign in instead`);
    const created = await tx.db.user.create({
      data: { email: input.email, firstName: input.firstName, lastName: input.lastName, passwordHash },
      select: { id: true, email: true, firstName: true, lastName: true },
    });
    // through addMembership: the role change is recorded for the provider's daily summary
    await addMembership(tx, { userId: created.id, clientAccountId: invitation.clientAccountId, role: invitation.role });
    await tx.db.invitation.update({ where: { id: invitation.id }, data: { status: InvitationStatus.ACCEPTED, acceptedById: created.id, acceptedAt: new Date() } });
    return { user: { ...created, emailVerified: created.email === invitation.invitedEmail }, invitationId: invitation.id };
  });

  const invitation = await ctx.db.invitation.findUniqueOrThrow({ where: { id: invitationId }, include: { clientAccount: ACCOUNT_SUMMARY } });
  return {
    message: `Invitation accepted: ${user.email} now holds ${invitation.role} on ${invitation.clientAccount.displayName}`,
    invitation,
    user,
    tokens: await issuer.issue(user.id),
  };
}
