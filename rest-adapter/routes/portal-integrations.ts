import { defineOperations } from '../operation.ts';

// spec 002 "Integrations": govportal (status, authorize, reportees, parties, system users),
// taxauthority property search, idprovider (status, authorize), dialogplatform dialogs
const SYSTEM_USER_FIELDS = /* GraphQL */ `
  fragment SystemUserFields on GovportalSystemUser {
    id
    external_ref: externalRef
    system_id: systemId
    org_number: orgNumber
    client_account_id: clientAccountId
    status
    confirm_url: confirmUrl
    redirect_url: redirectUrl
    rights { resource scope }
    created_at: createdAt
    updated_at: updatedAt
  }`;

/** the optional client_account_id of a person's login operations */
const ACCOUNT =
  'client_account_id (optional, as integrators send it with every call): one of your client accounts, 403 for another; the login is the person’s, so it changes nothing else.';

const LOGIN =
  'The browser comes back to /public/v2/integrations/{service}/callback, which stores the connection for you (a login is a person’s) and shows a "connected" page, or sends the browser to return_to.';

export const portalIntegrationOperations = defineOperations([
  {
    method: 'GET',
    path: '/integrations/govportal/status',
    summary: `Whether you are connected to the government portal: {connected, end_session_url} (the national login’s logout URL; null when not connected). ${ACCOUNT}`,
    document: /* GraphQL */ `query GetGovportalStatus($clientAccountId: Int) { govportalStatus(clientAccountId: $clientAccountId) { connected end_session_url: endSessionUrl } }`,
  },
  {
    method: 'POST',
    path: '/integrations/govportal/authorize',
    summary: `Start connecting to the government portal: answers {authorization_url}; redirect the user there (the national login). ${LOGIN} Body (optional): return_to, client_account_id. ${ACCOUNT}`,
    document: /* GraphQL */ `mutation CreateGovportalAuthorization($returnTo: String, $clientAccountId: Int) { authorizeGovportal(returnTo: $returnTo, clientAccountId: $clientAccountId) { authorization_url: authorizationUrl } }`,
  },
  {
    method: 'GET',
    path: '/integrations/govportal/reportees',
    summary: `Whom you may act for at the government portal: the portal’s HAL+JSON list of reportees, unchanged. 403 without a valid portal access token. ${ACCOUNT}`,
    document: /* GraphQL */ `query ListGovportalReportees($clientAccountId: Int) { govportalReportees(clientAccountId: $clientAccountId) }`,
  },
  {
    method: 'GET',
    path: '/integrations/govportal/parties',
    summary: `Your authorized parties at the government portal, as the portal answers them. 403 without a valid portal access token; 500 when the portal fails. ${ACCOUNT}`,
    document: /* GraphQL */ `query ListGovportalParties($clientAccountId: Int) { govportalParties(clientAccountId: $clientAccountId) }`,
  },
  {
    method: 'GET',
    path: '/integrations/govportal/system-users',
    summary:
      'System users of the client accounts you manage, newest first, as {items, page, per_page, total}. client_account_id (optional) lists only that account’s, each status synced from the portal first; page (1), per_page (100).',
    document: /* GraphQL */ `
      query ListGovportalSystemUsers($clientAccountId: Int, $page: Int, $perPage: Int) {
        govportalSystemUsers(clientAccountId: $clientAccountId, page: $page, perPage: $perPage) { items: nodes { ...SystemUserFields } page per_page: perPage total }
      }
      ${SYSTEM_USER_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/integrations/govportal/system-users',
    summary:
      'Ask the government portal for a system user of a client account’s organization, with the rights this system needs (property search, dialogs). Body: client_account_id (required), redirect_url (optional). 201 with the system user, status New, with confirm_url where the organization approves it (New → Pending → Active). 400 missing id, no organization, or the request failed; 403; 404.',
    bodyNamesRecords: true,
    status: 201,
    document: /* GraphQL */ `
      mutation CreateGovportalSystemUser($clientAccountId: Int!, $redirectUrl: String) {
        createGovportalSystemUser(clientAccountId: $clientAccountId, redirectUrl: $redirectUrl) { ...SystemUserFields }
      }
      ${SYSTEM_USER_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/integrations/govportal/system-users/:id',
    summary: 'A system user by its UUID, its status synced from the portal. 400 when the portal fails; 403; 404.',
    document: /* GraphQL */ `
      query GetGovportalSystemUser($id: String!) { govportalSystemUser(id: $id) { ...SystemUserFields } }
      ${SYSTEM_USER_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/integrations/taxauthority/eiendom/soek/:inntektsaar',
    summary:
      'Property search at the tax authority for an income year (inntektsaar, an integer), passed through: the upstream result unchanged. Query: client_account_id and query (both required). Needs an active system user of the account with the property-search right (403 otherwise). 400 bad input or upstream failure.',
    document: /* GraphQL */ `
      query ListTaxauthorityProperties($inntektsaar: Int!, $clientAccountId: Int!, $query: String!) {
        taxauthorityPropertySearch(inntektsaar: $inntektsaar, clientAccountId: $clientAccountId, query: $query)
      }`,
  },
  {
    method: 'GET',
    path: '/integrations/idprovider/status',
    summary: `Whether you are logged in with the national login: {connected, end_session_url}. ${ACCOUNT}`,
    document: /* GraphQL */ `query GetIdproviderStatus($clientAccountId: Int) { idproviderStatus(clientAccountId: $clientAccountId) { connected end_session_url: endSessionUrl } }`,
  },
  {
    method: 'POST',
    path: '/integrations/idprovider/authorize',
    summary: `Start a national login: answers {authorization_url}; redirect the user there. ${LOGIN} Body (optional): return_to, client_account_id. ${ACCOUNT}`,
    document: /* GraphQL */ `mutation CreateIdproviderAuthorization($returnTo: String, $clientAccountId: Int) { authorizeIdprovider(returnTo: $returnTo, clientAccountId: $clientAccountId) { authorization_url: authorizationUrl } }`,
  },
  {
    method: 'GET',
    path: '/integrations/dialogplatform/dialogs',
    summary:
      'Live search of the client account’s organization’s dialogs at the government dialog platform. Query: client_account_id (required), status (e.g. InProgress, Completed), service_resource. Needs an active system user with the dialogs right (403 otherwise). Response {items: [{id, status, service_resource, title, sender_name, party, created_at, updated_at, due_at}]}.',
    document: /* GraphQL */ `
      query ListDialogplatformDialogs($clientAccountId: Int!, $status: String, $serviceResource: String) {
        dialogplatformDialogs(clientAccountId: $clientAccountId, status: $status, serviceResource: $serviceResource) {
          items { id status service_resource: serviceResource title sender_name: senderName party created_at: createdAt updated_at: updatedAt due_at: dueAt }
        }
      }`,
  },
]);
