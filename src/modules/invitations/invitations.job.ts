import type { Prisma } from '../../db/database.ts';
import { defineJob } from '../../jobs/jobs.ts';
import { jobMessageId } from '../../mail/mail.job.ts';
import { invitationMail } from './invitations.mail.ts';
import { canBeAccepted, invitationLink, type MailLanguage } from './invitations.rules.ts';

export interface SendInvitationJobData {
  invitationId: number;
  /** from the creating request's Accept-Language */
  language: MailLanguage;
}

/**
 * `invitations.send`: the invitation e-mail with the accept link (INVITATION_URL with the token),
 * enqueued in the transaction that created the invitation, so a rollback sends nothing and a failing
 * mail server never fails the creation (spec 002: "failure does not block creation"). The message is
 * written from the stored invitation when the job runs: one cancelled, accepted or expired meanwhile
 * (a newer invitation to the same address cancels it) is not sent. A failed send is retried (30 s,
 * doubling, eight times); the Message-ID comes from the job id, so a second run after a crash
 * between the send and its bookkeeping is shown once.
 */
export const sendInvitationJob = defineJob<SendInvitationJobData>(
  'invitations.send',
  async ({ invitationId, language }, { prisma, mailer, config, job }) => {
    const invitation = await prisma.invitation.findUnique({
      where: { id: invitationId },
      include: { clientAccount: { select: { displayName: true } }, invitedBy: { select: { firstName: true, lastName: true, email: true } } },
    });
    if (!invitation) return { skipped: `invitation ${invitationId} no longer exists` };
    if (!canBeAccepted(invitation)) return { skipped: `invitation ${invitationId} can no longer be accepted (${invitation.status}, expires ${invitation.expiresAt.toISOString()})` };
    const inviter = invitation.invitedBy;
    const inviterName = inviter ? [inviter.firstName, inviter.lastName].filter(Boolean).join(' ') || inviter.email : null;
    const { subject, text } = invitationMail(language, {
      accountName: invitation.clientAccount.displayName,
      role: invitation.role,
      inviterName,
      link: invitationLink(config.invitationUrl, invitation.token),
      expiresAt: invitation.expiresAt,
    });
    const sent = await mailer.send({ to: invitation.invitedEmail, subject, text }, { messageId: jobMessageId(config.mailFrom, job.id) });
    return { messageId: sent.messageId, to: invitation.invitedEmail, language };
  },
  { retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 5 * 60 },
);

/** Stores EXPIRED on every PENDING invitation past its expiry; returns how many. */
export async function expireInvitations(prisma: Prisma): Promise<number> {
  const { count } = await prisma.invitation.updateMany({ where: { status: 'PENDING', expiresAt: { lte: new Date() } }, data: { status: 'EXPIRED' } });
  return count;
}

/**
 * `invitations.expire`, every 10 minutes once for all processes: the stored status catches up with
 * the clock (spec 002: "Transition to the stored status EXPIRED: not shown"). Every answer already
 * shows such an invitation as EXPIRED (effectiveStatus), so nothing waits for this job; it keeps the
 * column true for whoever reads the table. A failed run is not retried: the next one comes soon.
 */
export const expireInvitationsJob = defineJob(
  'invitations.expire',
  async (_data, { prisma, logger }) => {
    const expired = await expireInvitations(prisma);
    if (expired) logger.info({ expired }, 'invitations expired');
    return { expired };
  },
  { schedule: '*/10 * * * *', retryLimit: 0 },
);
