import { builder, tenantScoped } from '../../builder.ts';
import type { RequestContext } from '../../shared/context.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { clientAccountRules as rules, isProviderIndustryCode, ROLE_IDS, ROLE_NAMES } from './client-accounts.rules.ts';
import { AutonomyLevel } from '../items/items.types.ts';
import {
  CLIENT_ACCOUNT_PAGE_LIMITS,
  createClientAccount,
  getClientAccount,
  grantRole,
  linkProvider,
  listClientAccounts,
  listEligibleClientAccounts,
  revokeRole,
  unlinkProvider,
  updateClientAccount,
} from './client-accounts.service.ts';

export const RoleEnum = builder.enumType('Role', {
  values: Object.fromEntries(
    (['AA', 'CA', 'BK', 'EM'] as const).map((r) => [r, { value: r, description: `${ROLE_IDS[r]} ${ROLE_NAMES[r]}` }]),
  ) as Record<'AA' | 'CA' | 'BK' | 'EM', { value: 'AA' | 'CA' | 'BK' | 'EM'; description: string }>,
});

export const ClientAccount = builder.prismaObject('ClientAccount', {
  runScopesOnType: true,
  authScopes: (account) => ({ account: account.id }),
  description: 'A company or accounting firm. Provider accounts (industry code 69.2xx) serve other accounts.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    displayName: t.exposeString('displayName'),
    uniqueName: t.exposeString('uniqueName'),
    organizationNumber: t.exposeString('organizationNumber', { nullable: true }),
    industryCode: t.exposeString('industryCode', { nullable: true, description: 'SN2007 industrial classification, e.g. 69.201' }),
    isProvider: t.boolean({ description: 'An accounting or auditing firm (69.2xx)', resolve: (a) => isProviderIndustryCode(a.industryCode) }),
    vatLiable: t.exposeBoolean('vatLiable'),
    accountingCurrency: t.exposeString('accountingCurrency'),
    lockDate: t.expose('lockDate', { type: 'Date', nullable: true, description: 'Postings dated on or before this date are locked' }),
    defaultAutonomyLevel: t.expose('defaultAutonomyLevel', { type: AutonomyLevel }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    memberships: t.relation('memberships', { query: { orderBy: [{ role: 'asc' }, { id: 'asc' }] } }),
  }),
});

// Added after the type: the fields return the type itself.
builder.prismaObjectFields(ClientAccount, (t) => ({
  providers: t.field({
    type: [ClientAccount],
    description: 'Provider accounts serving this account, of those the caller is eligible for',
    select: (_args, _ctx, nestedSelection) => ({
      providers: { select: { providerAccount: nestedSelection(true) }, orderBy: { providerAccount: { displayName: 'asc' } } },
    }),
    resolve: async (a, _args, ctx) => onlyEligible(ctx, a.providers.map((p) => p.providerAccount)),
  }),
  servedAccounts: t.field({
    type: [ClientAccount],
    description: 'Client accounts this provider account serves, of those the caller is eligible for',
    select: (_args, _ctx, nestedSelection) => ({
      servedAccounts: { select: { clientAccount: nestedSelection(true) }, orderBy: { clientAccount: { displayName: 'asc' } } },
    }),
    resolve: async (a, _args, ctx) => onlyEligible(ctx, a.servedAccounts.map((s) => s.clientAccount)),
  }),
}));

/**
 * Related client accounts the caller may see. ClientAccount is checked per object (its own id), so an
 * account the caller is not eligible for would fail the whole list; it is left out instead.
 */
async function onlyEligible<T extends { id: number }>(ctx: RequestContext, accounts: T[]): Promise<T[]> {
  const eligible = await ctx.eligibleAccounts();
  return accounts.filter((a) => eligible.has(a.id));
}

export const Membership = builder.prismaObject('Membership', {
  ...tenantScoped,
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    role: t.expose('role', { type: RoleEnum }),
    roleId: t.int({ description: '2 AA, 3 CA, 4 BK, 5 EM', resolve: (m) => ROLE_IDS[m.role] }),
    user: t.field({
      type: UserRef,
      select: { user: { select: { id: true, email: true, firstName: true, lastName: true } } },
      resolve: (m) => m.user,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const Me = builder.objectRef<{ userId: number }>('Me').implement({
  description: 'The caller: user, token scopes and eligible client accounts.',
  fields: (t) => ({
    user: t.field({
      type: UserRef,
      resolve: async (me, _a, ctx) => (await loadUser(ctx, me.userId))!,
    }),
    scopes: t.stringList({ resolve: (_me, _a, ctx) => [...ctx.actor.scopes].sort() }),
    clientAccounts: t.prismaField({
      type: ['ClientAccount'],
      description: 'Eligible client accounts: own memberships plus accounts served by provider accounts where the user is AA or BK',
      resolve: (query, _me, args, ctx) => listEligibleClientAccounts(ctx, args, query),
    }),
  }),
});

const ClientAccountPage = pageType('ClientAccountPage', ClientAccount);

// Field rules (names, organization number, SN2007 codes) are the arguments' schemas in client-accounts.rules.ts.

const CreateClientAccountInput = builder.inputType('CreateClientAccountInput', {
  fields: (t) => ({
    displayName: t.string({ required: true }),
    uniqueName: t.string({ description: 'Lower-case letters, digits and -; derived from displayName when omitted' }),
    organizationNumber: t.string({ description: '9 digits with a valid mod-11 check digit; spaces allowed' }),
    industryCode: t.string({ description: 'SN2007, e.g. 69.201 (69.2xx makes it a provider account)' }),
    vatLiable: t.boolean(),
    accountingCurrency: t.string({ description: 'ISO 4217, NOK by default' }),
    providerAccountId: t.int({ description: 'A provider account where the caller holds AA or BK; it will serve the new account' }),
  }),
});

const UpdateClientAccountInput = builder.inputType('UpdateClientAccountInput', {
  description: 'Fields to change; omitted fields keep their value.',
  fields: (t) => ({
    displayName: t.string(),
    organizationNumber: t.string({ description: 'null clears it' }),
    industryCode: t.string({ description: 'null clears it; may not leave 69.2xx while the account has AA/BK members or serves accounts' }),
    vatLiable: t.boolean(),
    lockDate: t.field({ type: 'Date', description: 'Postings dated on or before it are locked; may move either way; null clears it' }),
    defaultAutonomyLevel: t.field({ type: AutonomyLevel }),
  }),
});

const RoleAssignmentInput = builder.inputType('RoleAssignmentInput', {
  fields: (t) => ({
    email: t.string({ required: true, description: 'Email of an existing user' }),
    clientAccountId: t.int({ required: true }),
    role: t.field({ type: RoleEnum, required: true, description: 'AA and BK only on provider accounts' }),
  }),
});

const ProviderLinkInput = builder.inputType('ProviderLinkInput', {
  fields: (t) => ({
    providerAccountId: t.int({ required: true, description: 'A provider account (69.2xx) where the caller holds AA or BK' }),
    clientAccountId: t.int({ required: true, description: 'An account the caller manages' }),
  }),
});

builder.queryFields((t) => ({

  me: t.field({ type: Me, resolve: (_r, _a, ctx) => ({ userId: ctx.actor.userId }) }),

  clientAccounts: t.field({
    type: ClientAccountPage,
    extensions: pageCost(CLIENT_ACCOUNT_PAGE_LIMITS),
    description:
      "The caller's eligible client accounts, by display name: accounts where the caller holds any role, plus accounts served by a provider account where the caller holds AA or BK.",
    args: {
      isProvider: t.arg.boolean({ description: 'true: provider accounts (69.2xx) only; false: the others' }),
      freeText: t.arg.string({ description: 'Matches display name, unique name and organization number' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_r, args, ctx, info) => listClientAccounts(ctx, args, nodesQuery(ctx, info)),
  }),
  clientAccount: t.prismaField({
    nullable: true,
    type: 'ClientAccount',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _r, args, ctx) => getClientAccount(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createClientAccount: t.prismaField({
    type: 'ClientAccount',
    description: 'A new client account with the default chart of accounts and the standard tax codes; the caller becomes its CA.',
    args: { input: t.arg({ type: CreateClientAccountInput, required: true }) },
    resolve: (query, _r, args, ctx) => createClientAccount(ctx, args, query),
  }),
  updateClientAccount: t.prismaField({
    type: 'ClientAccount',
    description: 'Settings of a client account; managers only (CA, AA or BK on it, or AA/BK of a provider serving it).',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateClientAccountInput, required: true }) },
    resolve: (query, _r, args, ctx) => updateClientAccount(ctx, args, query),
  }),
  grantRole: t.prismaField({
    type: 'Membership',
    description: 'Gives a user a role on a client account; managers only. Granting a role the user holds is a no-op.',
    args: { input: t.arg({ type: RoleAssignmentInput, required: true }) },
    resolve: (query, _r, args, ctx) => grantRole(ctx, args, query),
  }),
  revokeRole: t.boolean({
    description: 'Takes a role from a user; managers only. Refused when nobody would be left able to manage the account.',
    args: { input: t.arg({ type: RoleAssignmentInput, required: true }) },
    resolve: (_r, args, ctx) => revokeRole(ctx, args),
  }),
  linkProvider: t.prismaField({
    type: 'ClientAccount',
    description: 'Makes a provider account serve a client account; returns the client account.',
    args: { input: t.arg({ type: ProviderLinkInput, required: true }) },
    resolve: async (query, _r, args, ctx) => {
      await linkProvider(ctx, args);
      return getClientAccount(ctx, { id: args.input.clientAccountId }, query);
    },
  }),
  unlinkProvider: t.boolean({
    description: 'Ends a provider relationship. Refused when nobody would be left able to manage the client account.',
    args: { input: t.arg({ type: ProviderLinkInput, required: true }) },
    resolve: (_r, args, ctx) => unlinkProvider(ctx, args),
  }),
}));
