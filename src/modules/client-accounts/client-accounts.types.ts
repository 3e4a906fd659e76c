import { builder, tenantScoped } from '../../builder.ts';
import { requireAccount } from '../../shared/tenancy.ts';
import { UserRef } from '../users/users.types.ts';
import { isProviderIndustryCode, ROLE_IDS, ROLE_NAMES } from './client-accounts.rules.ts';
import { AutonomyLevel } from '../items/items.types.ts';

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
    memberships: t.relation('memberships'),
  }),
});

export const Membership = builder.prismaObject('Membership', {
  ...tenantScoped,
  fields: (t) => ({
    id: t.exposeInt('id'),
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
      resolve: (me, _a, ctx) => ctx.prisma.user.findUniqueOrThrow({ where: { id: me.userId }, select: { id: true, email: true, firstName: true, lastName: true } }),
    }),
    scopes: t.stringList({ resolve: (_me, _a, ctx) => [...ctx.actor.scopes].sort() }),
    clientAccounts: t.prismaField({
      type: ['ClientAccount'],
      description: 'Eligible client accounts: own memberships plus accounts served by provider accounts where the user is AA or BK',
      resolve: async (query, _me, _a, ctx) =>
        ctx.prisma.clientAccount.findMany({ ...query, where: { id: { in: [...(await ctx.eligibleAccounts())] } }, orderBy: { displayName: 'asc' } }),
    }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({ type: Me, resolve: (_r, _a, ctx) => ({ userId: ctx.actor.userId }) }),
  clientAccount: t.prismaField({
    type: 'ClientAccount',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _r, args, ctx) => {
      await requireAccount(ctx, args.id);
      return ctx.prisma.clientAccount.findUniqueOrThrow({ ...query, where: { id: args.id } });
    },
  }),
}));
