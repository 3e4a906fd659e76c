import type { Role } from '../../generated/prisma/enums.ts';
import { InvitationStatus } from '../../generated/prisma/enums.ts';
import { builder, publicField, tenantScoped } from '../../builder.ts';
import { cursorArgs, nodesQuery, offsetPageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { ROLE_IDS, ROLE_NAMES } from '../client-accounts/client-accounts.rules.ts';
import { UserRef } from '../users/users.types.ts';
import { canBeAccepted, effectiveStatus, INVITATION_PAGE_LIMITS, invitationRules as rules, isExpired, isPending } from './invitations.rules.ts';
import { acceptInvitation, cancelInvitation, createInvitation, getInvitation, getPublicInvitation, listInvitations, type AcceptedInvitation } from './invitations.service.ts';

export const InvitationStatusEnum = builder.enumType('InvitationStatus', {
  description:
    'PENDING (sent, can be accepted until expires_at), ACCEPTED (a user was created with the role), EXPIRED (expires_at passed while pending), CANCELLED (by DELETE, or by a newer invitation to the same address and account)',
  values: Object.values(InvitationStatus),
});

/** A role as an invitation shows it: `{id, name}` with the code as its name (spec 002). */
const InvitationRole = builder.objectRef<Role>('InvitationRole').implement({
  description: 'The role an invitation gives: 2 AA Accountant, 3 CA Client Account Owner, 4 BK Bookkeeper, 5 EM Employee.',
  fields: (t) => ({
    id: t.int({ description: 'The role id: 2, 3, 4 or 5', resolve: (role) => ROLE_IDS[role] }),
    name: t.string({ description: 'The role code: AA, CA, BK or EM', resolve: (role) => role }),
    description: t.string({ resolve: (role) => ROLE_NAMES[role] }),
  }),
});

/**
 * The fields every view of an invitation computes from its status and expiry at the moment of
 * asking (the managers' Invitation and the token holder's PublicInvitation).
 */
const InvitationState = builder.interfaceRef<{ status: InvitationStatus; expiresAt: Date; role: Role }>('InvitationState').implement({
  description: "An invitation's state now: a pending invitation past expires_at is EXPIRED.",
  fields: (t) => ({
    status: t.field({ type: InvitationStatusEnum, description: 'A pending invitation past expires_at is EXPIRED', resolve: (i) => effectiveStatus(i) }),
    isExpired: t.boolean({ description: 'expires_at has passed', resolve: (i) => isExpired(i) }),
    isPending: t.boolean({ description: 'status is PENDING', resolve: (i) => isPending(i) }),
    canBeAccepted: t.boolean({ description: 'pending and not expired: the token can be accepted now', resolve: (i) => canBeAccepted(i) }),
    role: t.field({ type: InvitationRole, resolve: (i) => i.role }),
  }),
});

export const Invitation = builder.prismaObject('Invitation', {
  ...tenantScoped,
  interfaces: [InvitationState],
  description: "An invitation to join a client account with a role (spec 002). Seen by the account's managers only.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    invitedEmail: t.exposeString('invitedEmail', { description: 'The address invited (the create input calls it email)' }),
    clientAccountId: t.exposeInt('clientAccountId'),
    roleId: t.int({ description: '2 AA, 3 CA, 4 BK, 5 EM', resolve: (i) => ROLE_IDS[i.role] }),
    token: t.exposeString('token', { description: 'The secret of the invitation link: 64 hexadecimal characters' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: '7 days after creation; never extended' }),
    invitedById: t.exposeInt('invitedById', { nullable: true }),
    acceptedById: t.exposeInt('acceptedById', { nullable: true }),
    acceptedAt: t.expose('acceptedAt', { type: 'DateTime', nullable: true }),
    clientAccount: t.relation('clientAccount'),
    invitedBy: t.field({
      type: UserRef,
      nullable: true,
      select: { invitedBy: { select: { id: true, email: true, firstName: true, lastName: true } } },
      resolve: (i) => i.invitedBy,
    }),
    acceptedBy: t.field({
      type: UserRef,
      nullable: true,
      description: 'The user created by accepting it',
      select: { acceptedBy: { select: { id: true, email: true, firstName: true, lastName: true } } },
      resolve: (i) => i.acceptedBy,
    }),
  }),
});

/** A client account as an invitation's token holder sees it. */
const InvitationClientAccount = builder.objectRef<{ id: number; displayName: string; uniqueName: string }>('InvitationClientAccount').implement({
  description: 'The client account an invitation is for, as anyone holding its token sees it.',
  fields: (t) => ({ id: t.exposeInt('id'), displayName: t.exposeString('displayName'), uniqueName: t.exposeString('uniqueName') }),
});

type PublicInvitationShape = Awaited<ReturnType<typeof getPublicInvitation>>;

/** What anyone holding the token sees of an invitation (spec 002, GET /public/v2/invitations/{token}). */
const PublicInvitation = builder.objectRef<PublicInvitationShape>('PublicInvitation').implement({
  interfaces: [InvitationState],
  description: 'An invitation as its token shows it to anyone: no token, no inviter.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    invitedEmail: t.exposeString('invitedEmail'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    acceptedAt: t.expose('acceptedAt', { type: 'DateTime', nullable: true }),
    clientAccount: t.field({ type: InvitationClientAccount, resolve: (i) => i.clientAccount }),
  }),
});

const AcceptedUser = builder.objectRef<AcceptedInvitation['user']>('AcceptedInvitationUser').implement({
  description: 'The user an accepted invitation created.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    firstName: t.exposeString('firstName', { nullable: true }),
    lastName: t.exposeString('lastName', { nullable: true }),
    email: t.exposeString('email'),
    emailVerified: t.exposeBoolean('emailVerified', { description: 'The address is the invited one (the link in that mailbox proved it)' }),
  }),
});

const OauthTokens = builder.objectRef<AcceptedInvitation['tokens']>('OauthTokens').implement({
  description:
    "OAuth tokens of the authorization server for a user: a JWT access token for BASE_URL (read write, 3600 s) and a refresh token of the first-party public client 'invitation' (POST /v2/oauth/token with grant_type=refresh_token, client_id=invitation, no secret).",
  fields: (t) => ({
    accessToken: t.exposeString('accessToken'),
    refreshToken: t.exposeString('refreshToken'),
    tokenType: t.exposeString('tokenType'),
    expiresIn: t.exposeInt('expiresIn', { description: 'Seconds the access token is valid' }),
    scope: t.exposeString('scope'),
  }),
});

const AcceptedInvitationRef = builder.objectRef<AcceptedInvitation>('AcceptedInvitation').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    invitation: t.field({ type: PublicInvitation, resolve: (a) => a.invitation }),
    user: t.field({ type: AcceptedUser, resolve: (a) => a.user }),
    tokens: t.field({ type: OauthTokens, resolve: (a) => a.tokens }),
  }),
});

const InvitationList = offsetPageType('InvitationList', Invitation);

const CreateInvitationInput = builder.inputType('CreateInvitationInput', {
  fields: (t) => ({
    email: t.string({ required: true, description: 'The address to invite; it must not belong to a user yet' }),
    clientAccountId: t.int({ required: true }),
    roleId: t.int({ required: true, description: '2 AA, 3 CA, 4 BK, 5 EM; AA and BK only on provider accounts (69.2xx)' }),
  }),
});

const AcceptInvitationInput = builder.inputType('AcceptInvitationInput', {
  description: 'The new user: names, e-mail (may differ from the invited address) and password (at least 8 characters).',
  fields: (t) => ({
    firstName: t.string({ required: true }),
    lastName: t.string({ required: true }),
    email: t.string({ required: true }),
    password: t.string({ required: true }),
  }),
});

builder.queryFields((t) => ({

  invitations: t.field({
    type: InvitationList,
    extensions: pageCost(INVITATION_PAGE_LIMITS, 'limit'),
    description: 'Invitations of the client accounts the caller manages (or of one of them), newest first; limit 100 by default, at most 1000.',
    args: { clientAccountId: t.arg.int(), status: t.arg({ type: InvitationStatusEnum }), limit: t.arg.int(), offset: t.arg.int(), ...cursorArgs(t) },
    resolve: (_root, args, ctx, info) => listInvitations(ctx, args, nodesQuery(ctx, info)),
  }),
  invitation: t.prismaField({
    nullable: true,
    type: 'Invitation',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getInvitation(ctx, args, query),
  }),
  publicInvitation: t.field({
    nullable: true,
    ...publicField,
    type: PublicInvitation,
    description: 'The invitation a token names, without a bearer token (404 when it names none).',
    args: { token: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => getPublicInvitation(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createInvitation: t.prismaField({
    type: 'Invitation',
    description:
      "Invites an e-mail address to a client account with a role (managers of the account only): token, 7 days, an earlier pending invitation of the address to the account cancelled, the e-mail sent by a job in the language of Accept-Language (no, nb, nn: Norwegian; en: English; otherwise Norwegian).",
    args: { input: t.arg({ type: CreateInvitationInput, required: true }) },
    resolve: (query, _root, args, ctx) => createInvitation(ctx, args, query),
  }),
  cancelInvitation: t.prismaField({
    type: 'Invitation',
    description: 'Cancels a pending or expired invitation (an accepted one cannot be cancelled).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => cancelInvitation(ctx, args, query),
  }),
  acceptInvitation: t.field({
    ...publicField,
    type: AcceptedInvitationRef,
    description: 'Accepts an invitation without a bearer token: creates the user with the role on the account and answers OAuth tokens for the user.',
    args: { token: t.arg.string({ required: true }), input: t.arg({ type: AcceptInvitationInput, required: true }) },
    resolve: (_root, args, ctx) => acceptInvitation(ctx, args),
  }),
}));
