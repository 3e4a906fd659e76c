import { builder, tenantScoped } from '../../builder.ts';
import type { Dialog } from '../../integrations/dialogplatform/dialogs.ts';
import type { SystemUserRight as Right } from '../../integrations/govportal/portal.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import type { Page } from '../../shared/pagination.ts';
import { SYSTEM_USER_PAGE_LIMITS } from './portal-integrations.rules.ts';
import {
  connectionStatus,
  createSystemUser,
  getSystemUser,
  govportalParties,
  govportalReportees,
  listSystemUsers,
  propertySearch,
  searchDialogs,
  startLogin,
} from './portal-integrations.service.ts';

// spec 002 "Integrations" (govportal, idprovider, taxauthority property search, dialogplatform) and
// "Integration records" (System user, Dialog search item)

const ConnectionStatus = builder.objectRef<{ connected: boolean; endSessionUrl: string | null }>('PortalConnectionStatus').implement({
  description: "Whether the caller (a person) is connected: a token that has not expired, or one the national login can refresh.",
  fields: (t) => ({
    connected: t.exposeBoolean('connected'),
    endSessionUrl: t.exposeString('endSessionUrl', { nullable: true, description: "The national login's logout URL for this login (send the browser there to log out); null when not connected" }),
  }),
});

const AuthorizationUrl = builder.objectRef<{ authorizationUrl: string }>('AuthorizationUrl').implement({
  description: "Where to send the person's browser: the national login's page. It comes back to our callback, which stores the connection.",
  fields: (t) => ({ authorizationUrl: t.exposeString('authorizationUrl') }),
});

const SystemUserRight = builder.objectRef<Right>('SystemUserRight').implement({
  description: 'A right of a system user: a portal resource, and the token scope it grants our system.',
  fields: (t) => ({
    resource: t.exposeString('resource', { description: 'e.g. taxauthority-property-search, dialogplatform-dialogs' }),
    scope: t.exposeString('scope', { description: 'e.g. taxauthority:eiendom, dialogplatform:dialogs.read' }),
  }),
});

export const GovportalSystemUser = builder.prismaObject('GovportalSystemUser', {
  ...tenantScoped,
  description: "A system user of the government portal: our system acting for a client account's organization with the rights its representative approved. Status synced from the portal on each read.",
  fields: (t) => ({
    id: t.exposeString('id', { description: "The portal's UUID" }),
    externalRef: t.exposeString('externalRef'),
    systemId: t.exposeString('systemId'),
    orgNumber: t.exposeString('orgNumber'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    status: t.exposeString('status', { description: 'New (awaiting user action), Pending (confirmation started), Active (approved), Rejected (refused by the organization)' }),
    confirmUrl: t.exposeString('confirmUrl', { nullable: true, description: "The portal's page where the organization's representative approves the request" }),
    redirectUrl: t.exposeString('redirectUrl', { nullable: true, description: 'Where the portal sends the browser after the decision' }),
    rights: t.field({ type: [SystemUserRight], extensions: listCost(10), resolve: (row) => (Array.isArray(row.rights) ? (row.rights as unknown as Right[]) : []) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SystemUserList = pageType('GovportalSystemUserPage', GovportalSystemUser);
// REST's {items, page, per_page, total} envelope (spec 002), beside the connection's own fields
builder.objectFields(SystemUserList, (t) => ({
  page: t.int({ nullable: true, extensions: { nullOnlyByCursor: true }, description: 'null when read by cursor', resolve: (c) => (c as Page<unknown>).meta?.page ?? null }),
  perPage: t.int({ nullable: true, extensions: { nullOnlyByCursor: true }, description: 'null when read by cursor', resolve: (c) => (c as Page<unknown>).meta?.perPage ?? null }),
  total: t.int({ description: 'Total number of system users listed', resolve: (c) => (c as Page<unknown>).totalCount }),
}));

const DialogItem = builder.objectRef<Dialog>('DialogSearchItem').implement({
  description: "A dialog of the organization at the government dialog platform (a case or message from an agency), as the platform's search answers it.",
  fields: (t) => ({
    id: t.exposeString('id'),
    status: t.exposeString('status', { description: 'e.g. InProgress, Completed, RequiresAttention, Draft, Sent' }),
    serviceResource: t.exposeString('serviceResource', { description: "The agency's service the dialog belongs to (a resource URN)" }),
    title: t.exposeString('title'),
    senderName: t.exposeString('senderName', { nullable: true, description: 'The agency' }),
    party: t.exposeString('party', { description: 'The organization, as a party URN' }),
    createdAt: t.exposeString('createdAt', { description: 'ISO 8601' }),
    updatedAt: t.exposeString('updatedAt', { description: 'ISO 8601' }),
    dueAt: t.exposeString('dueAt', { nullable: true, description: 'ISO 8601; null when nothing is due' }),
  }),
});

const DialogSearchResult = builder.objectRef<{ items: Dialog[] }>('DialogSearchResult').implement({
  fields: (t) => ({ items: t.field({ type: [DialogItem], extensions: listCost(100), resolve: (r) => r.items }) }),
});

/** client_account_id of a person's login operations: optional, checked for access, changes nothing else (the login is the person's) */
const ACCOUNT_ARG = 'Optional: one of your client accounts (403 for another). Integrators may send it with every call; the login and its token are the person’s, so it changes nothing else';

builder.queryFields((t) => ({

  govportalStatus: t.field({
    type: ConnectionStatus,
    description: "Whether you are connected to the government portal (your person's portal token).",
    args: { clientAccountId: t.arg.int({ description: ACCOUNT_ARG }) },
    resolve: (_root, args, ctx) => connectionStatus(ctx, 'govportal', args),
  }),

  idproviderStatus: t.field({
    type: ConnectionStatus,
    description: 'Whether you are logged in with the national login.',
    args: { clientAccountId: t.arg.int({ description: ACCOUNT_ARG }) },
    resolve: (_root, args, ctx) => connectionStatus(ctx, 'idprovider', args),
  }),

  govportalReportees: t.field({
    type: 'JSON',
    description: "Whom you may act for at the government portal: the portal's HAL+JSON as it answered. 403 without a valid portal token.",
    args: { clientAccountId: t.arg.int({ description: ACCOUNT_ARG }) },
    resolve: (_root, args, ctx) => govportalReportees(ctx, args),
  }),

  govportalParties: t.field({
    type: 'JSON',
    description: "Your authorized parties at the government portal, as it answered. 403 without a valid portal token; 500 when the portal fails.",
    args: { clientAccountId: t.arg.int({ description: ACCOUNT_ARG }) },
    resolve: (_root, args, ctx) => govportalParties(ctx, args),
  }),

  govportalSystemUsers: t.field({
    type: SystemUserList,
    extensions: pageCost(SYSTEM_USER_PAGE_LIMITS),
    description: 'System users of the client accounts you manage, newest first; with clientAccountId only its own, each synced from the portal first.',
    args: { clientAccountId: t.arg.int(), page: t.arg.int(), perPage: t.arg.int(), ...cursorArgs(t) },
    resolve: (_root, args, ctx, info) => listSystemUsers(ctx, args, nodesQuery(ctx, info)),
  }),
  govportalSystemUser: t.prismaField({
    nullable: true,
    type: 'GovportalSystemUser',
    description: 'A system user by its UUID, its status synced from the portal.',
    args: { id: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => getSystemUser(ctx, args, query),
  }),

  taxauthorityPropertySearch: t.field({
    type: 'JSON',
    description: "The tax authority's property search for an income year, as the client account's system user (needs an Active one with the property-search right). The upstream result, unchanged.",
    args: {
      inntektsaar: t.arg.int({ required: true, description: 'The income year' }),
      clientAccountId: t.arg.int({ required: true }),
      query: t.arg.string({ required: true, description: 'What to search for (an address, a name)' }),
    },
    resolve: (_root, args, ctx) => propertySearch(ctx, args),
  }),

  dialogplatformDialogs: t.field({
    type: DialogSearchResult,
    description: "A live search of the client account's organization's dialogs at the dialog platform, as its system user (needs an Active one with the dialogs right).",
    args: {
      clientAccountId: t.arg.int({ required: true }),
      status: t.arg.string({ description: 'e.g. InProgress, Completed (comma-separated for several)' }),
      serviceResource: t.arg.string({ description: 'A service resource URN (comma-separated for several)' }),
    },
    resolve: (_root, args, ctx) => searchDialogs(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  authorizeGovportal: t.field({
    type: AuthorizationUrl,
    description: "Starts connecting you to the government portal: send your browser to authorizationUrl (the national login); the callback stores the portal token.",
    args: {
      returnTo: t.arg.string({ description: 'Where the browser goes after the callback: an address of this service or of an origin in CORS_ORIGINS. Default: a page saying you are connected' }),
      clientAccountId: t.arg.int({ description: ACCOUNT_ARG }),
    },
    resolve: (_root, args, ctx) => startLogin(ctx, 'govportal', args),
  }),
  authorizeIdprovider: t.field({
    type: AuthorizationUrl,
    description: 'Starts a national login: send your browser to authorizationUrl; the callback stores the login.',
    args: {
      returnTo: t.arg.string({ description: 'Where the browser goes after the callback: an address of this service or of an origin in CORS_ORIGINS. Default: a page saying you are connected' }),
      clientAccountId: t.arg.int({ description: ACCOUNT_ARG }),
    },
    resolve: (_root, args, ctx) => startLogin(ctx, 'idprovider', args),
  }),
  createGovportalSystemUser: t.prismaField({
    type: 'GovportalSystemUser',
    description: "Asks the portal for a system user of the client account's organization with the rights this system needs (property search, dialogs). It starts New; the organization's representative approves it at confirmUrl.",
    args: {
      clientAccountId: t.arg.int({ required: true }),
      redirectUrl: t.arg.string({ description: 'Where the portal sends the browser after the decision (http or https)' }),
    },
    resolve: (query, _root, args, ctx) => createSystemUser(ctx, args, query),
  }),
}));
