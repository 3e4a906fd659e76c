import { defineOperations } from '../operation.ts';
import { CLIENT_ACCOUNT_SUMMARY_FIELDS } from './client-accounts.ts';

// spec 002 "Invitation" and "Invitations": the fields, relations client_account {id, display_name,
// unique_name}, role {id, name: code}, invited_by {id, first_name, last_name, email}; the detail adds
// accepted_by. Errors {error, status}.
const PERSON = 'id first_name: firstName last_name: lastName email';

const INVITATION_FIELDS = /* GraphQL */ `
  fragment InvitationFields on Invitation {
    id
    created_at: createdAt
    updated_at: updatedAt
    invited_email: invitedEmail
    client_account_id: clientAccountId
    role_id: roleId
    token
    status
    expires_at: expiresAt
    invited_by_id: invitedById
    accepted_by_id: acceptedById
    accepted_at: acceptedAt
    is_expired: isExpired
    is_pending: isPending
    can_be_accepted: canBeAccepted
    client_account: clientAccount { ...ClientAccountSummaryFields }
    role { id name }
    invited_by: invitedBy { ${PERSON} }
  }
  ${CLIENT_ACCOUNT_SUMMARY_FIELDS}`;

/** What anyone holding the token sees (the public summary and the accepted invitation share the account and role). */
const PUBLIC_ACCOUNT_AND_ROLE = 'client_account: clientAccount { id display_name: displayName unique_name: uniqueName } role { id name }';

const ACCEPT_LANGUAGE =
  'The e-mail with the accept link is sent by a job in the language of `Accept-Language`: no, nb or nn → Norwegian (bokmål), en → English, ' +
  'the most preferred one (q-values honoured); without either, Norwegian. A failed send does not fail the request (it is retried).';

export const invitationOperations = defineOperations([
  {
    method: 'POST',
    path: '/invitations',
    summary:
      'Invite an e-mail address to a client account with a role (email, client_account_id, role_id: 2 AA, 3 CA, 4 BK, 5 EM; AA and BK only on provider accounts, 69.2xx). ' +
      "Managers of the account only (CA, AA, BK, or AA/BK of a serving provider): others 403. The address must not belong to a user yet (400: grant that user the role instead). " +
      'A 64-character token, valid 7 days (never extended); an earlier pending invitation of the address to the account is cancelled. ' +
      `${ACCEPT_LANGUAGE} 201 with the invitation, token included.`,
    document: /* GraphQL */ `
      mutation CreateInvitation($input: CreateInvitationInput!) { createInvitation(input: $input) { ...InvitationFields } }
      ${INVITATION_FIELDS}`,
    status: 201,
  },
  {
    method: 'GET',
    path: '/invitations',
    summary:
      'List invitations, newest first: of one client account the caller manages (client_account_id; 403 for another), or of every account the caller manages; ' +
      'status (PENDING, ACCEPTED, EXPIRED, CANCELLED; a pending one past expires_at is EXPIRED), limit (100, at most 1000), offset (0). {invitations, count, limit, offset}.',
    document: /* GraphQL */ `
      query ListInvitations($clientAccountId: Int, $status: InvitationStatus, $limit: Int, $offset: Int) {
        invitations(clientAccountId: $clientAccountId, status: $status, limit: $limit, offset: $offset) {
          invitations: nodes { ...InvitationFields }
          count
          limit
          offset
        }
      }
      ${INVITATION_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/invitations/:id',
    summary: "An invitation with its relations and accepted_by (the user accepting it created); managers of its account only.",
    document: /* GraphQL */ `
      query GetInvitation($id: Int!) { invitation(id: $id) { ...InvitationFields accepted_by: acceptedBy { ${PERSON} } } }
      ${INVITATION_FIELDS}`,
  },
  {
    method: 'DELETE',
    path: '/invitations/:id',
    summary: 'Cancel an invitation: a pending (or expired) one becomes CANCELLED, 200 with it; a cancelled one is answered unchanged; an accepted one is 400.',
    document: /* GraphQL */ `
      mutation CancelInvitation($id: Int!) { cancelInvitation(id: $id) { ...InvitationFields } }
      ${INVITATION_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/invitations/:token',
    public: true,
    summary:
      'The invitation a token names, without a bearer token: id, invited_email, status, expires_at, is_expired, can_be_accepted, client_account, role. 404 for a token that names none.',
    document: /* GraphQL */ `
      query GetPublicInvitation($token: String!) {
        publicInvitation(token: $token) {
          id
          invited_email: invitedEmail
          status
          expires_at: expiresAt
          is_expired: isExpired
          can_be_accepted: canBeAccepted
          ${PUBLIC_ACCOUNT_AND_ROLE}
        }
      }`,
  },
  {
    method: 'POST',
    path: '/invitations/:token/accept',
    public: true,
    summary:
      'Accept an invitation without a bearer token: first_name, last_name, email (may differ from the invited address; must not belong to a user) and password (at least 8 characters), all required. ' +
      'Creates the user with the role on the client account, active at once, and answers the user\'s OAuth tokens: an access token (JWT, 3600 s, read write) and a refresh token of the public client ' +
      "`invitation` (refresh at /v2/oauth/token with grant_type=refresh_token and client_id=invitation, no secret). 404 for a token that names no invitation; 400 when it is accepted, cancelled or expired.",
    document: /* GraphQL */ `
      mutation AcceptInvitation($token: String!, $input: AcceptInvitationInput!) {
        acceptInvitation(token: $token, input: $input) {
          message
          invitation { id status accepted_at: acceptedAt ${PUBLIC_ACCOUNT_AND_ROLE} }
          user { id first_name: firstName last_name: lastName email email_verified: emailVerified }
          tokens { access_token: accessToken refresh_token: refreshToken token_type: tokenType }
        }
      }`,
  },
]);
