import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { DEFAULT_CHART_OF_ACCOUNTS, DEFAULT_MANDATORY_DIMENSIONS, STANDARD_TAX_CODES } from '../../reference-data/index.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { digitsOnly } from '../../shared/norwegian-ids.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import { parseDateString } from '../../shared/scalars.ts';
import { isSystem, lockClientAccount, requireAccount } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { getUserByEmail } from '../users/users.service.ts';
import { addMembership, removeMembership } from './memberships.ts';
import {
  clientAccountRules as rules,
  isManageable,
  isProviderIndustryCode,
  MANAGER_ROLES,
  PROVIDER_STAFF_ROLES,
  providerChangeError,
  roleNeedsProvider,
  slugify,
} from './client-accounts.rules.ts';

type ClientAccountQuery = { include?: PrismaNS.ClientAccountInclude; select?: PrismaNS.ClientAccountSelect };
type MembershipQuery = { include?: PrismaNS.MembershipInclude; select?: PrismaNS.MembershipSelect };

const date = (s: string | null) => (s ? parseDateString(s) : null);

// ── Reads ────────────────────────────────────────────────────────────────────────────────────────

export const CLIENT_ACCOUNT_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

/** The caller's eligible client accounts (see src/shared/tenancy.ts), by display name. */
export async function listClientAccounts(ctx: RequestContext, args: Args<typeof rules.list>, query: ClientAccountQuery = {}) {
  const { isProvider, freeText, ...window } = parse(rules.list, args);
  const and: PrismaNS.ClientAccountWhereInput[] = [{ id: { in: [...(await ctx.eligibleAccounts())] } }];
  // Industry codes are validated as NN.N{1,3}, so "starts with 69.2" is exactly the 69.2xx rule.
  if (isProvider === true) and.push({ industryCode: { startsWith: '69.2' } });
  if (isProvider === false) and.push({ OR: [{ industryCode: null }, { NOT: { industryCode: { startsWith: '69.2' } } }] });
  const text = freeText?.trim();
  if (text) {
    and.push({
      OR: [
        { displayName: { contains: text, mode: 'insensitive' } },
        { uniqueName: { contains: text, mode: 'insensitive' } },
        { organizationNumber: { contains: digitsOnly(text) || text } },
      ],
    });
  }
  const where = { AND: and };
  return findPage(
    pageWindow(window, CLIENT_ACCOUNT_PAGE_LIMITS),
    (w) => ctx.db.clientAccount.findMany({ ...query, where, orderBy: [{ displayName: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.clientAccount.count({ where }),
  );
}

/** All eligible client accounts of the caller, by display name (not paged: `me.clientAccounts`). */
export async function listEligibleClientAccounts(ctx: RequestContext, _args: object = {}, query: ClientAccountQuery = {}) {
  return ctx.db.clientAccount.findMany({ ...query, where: { id: { in: [...(await ctx.eligibleAccounts())] } }, orderBy: { displayName: 'asc' } });
}

export async function getClientAccount(ctx: RequestContext, { id }: { id: number }, query: ClientAccountQuery = {}) {
  await requireAccount(ctx, id);
  return ctx.db.clientAccount.findUniqueOrThrow({ ...query, where: { id } });
}

// ── Permissions ──────────────────────────────────────────────────────────────────────────────────

/**
 * Managers of an account may change its settings and memberships: holders of CA, AA or BK on it, and
 * AA/BK staff of a provider serving it (the account must be eligible too). Employees (EM) and
 * read-only eligibility do not suffice. The system manages every account.
 */
export async function requireManager(ctx: RequestContext, clientAccountId: number): Promise<void> {
  await requireAccount(ctx, clientAccountId);
  if (isSystem(ctx)) return;
  const userId = ctx.actor.userId;
  const direct = await ctx.db.membership.findFirst({ where: { userId, clientAccountId, role: { in: [...MANAGER_ROLES] } }, select: { id: true } });
  if (direct) return;
  const viaProvider = await ctx.db.providerRelationship.findFirst({
    where: { clientAccountId, providerAccount: { memberships: { some: { userId, role: { in: [...PROVIDER_STAFF_ROLES] } } } } },
    select: { id: true },
  });
  if (!viaProvider) throw new ForbiddenError(`You cannot manage client account ${clientAccountId}`);
}

/**
 * The client account's organization number, for what acts for its organization upstream (a filing,
 * pre-filled data, a system user): 400 naming `what` when the account has none.
 */
export async function requireOrganizationNumber(ctx: RequestContext, clientAccountId: number, what: string): Promise<string> {
  const account = await ctx.db.clientAccount.findUnique({ where: { id: clientAccountId }, select: { organizationNumber: true } });
  if (!account) throw new NotFoundError(`Client account ${clientAccountId}`);
  if (!account.organizationNumber) {
    throw ValidationError.field('clientAccountId', `client account ${clientAccountId} has no organization number; ${what} needs one (set its organization_number)`);
  }
  return account.organizationNumber;
}

/**
 * The client accounts the caller manages (requireManager's rule for each): where the caller holds CA,
 * AA or BK, and those served by a provider where the caller holds AA or BK. The system: null (all).
 */
export async function managedAccountIds(ctx: RequestContext): Promise<ReadonlySet<number> | null> {
  if (isSystem(ctx)) return null;
  const userId = ctx.actor.userId;
  const memberships = await ctx.db.membership.findMany({ where: { userId, role: { in: [...MANAGER_ROLES] } }, select: { clientAccountId: true, role: true } });
  const ids = new Set(memberships.map((m) => m.clientAccountId));
  const providers = memberships.filter((m) => PROVIDER_STAFF_ROLES.includes(m.role)).map((m) => m.clientAccountId);
  if (providers.length) {
    const served = await ctx.db.providerRelationship.findMany({ where: { providerAccountId: { in: providers } }, select: { clientAccountId: true } });
    for (const s of served) ids.add(s.clientAccountId);
  }
  return ids;
}

/** A provider account (69.2xx) where the caller holds AA or BK (the system: any provider account). */
async function requireProviderStaff(ctx: RequestContext, providerAccountId: number, field = 'providerAccountId'): Promise<void> {
  if (!isSystem(ctx)) {
    const staff = await ctx.db.membership.findFirst({
      where: { userId: ctx.actor.userId, clientAccountId: providerAccountId, role: { in: [...PROVIDER_STAFF_ROLES] } },
      select: { id: true },
    });
    if (!staff) throw new ForbiddenError(`You must hold AA or BK on provider account ${providerAccountId}`);
  }
  const provider = await ctx.db.clientAccount.findUnique({ where: { id: providerAccountId }, select: { industryCode: true } });
  if (!provider) throw new NotFoundError(`Client account ${providerAccountId}`);
  if (!isProviderIndustryCode(provider.industryCode)) {
    throw ValidationError.field(field, `client account ${providerAccountId} is not a provider account (industry code 69.2xx)`);
  }
}


/** 400 unless someone can still manage the account (run inside the changing transaction, after the change). */
async function assertStillManageable(tx: RequestContext, clientAccountId: number, what: string): Promise<void> {
  const managerMemberships = await tx.db.membership.count({ where: { clientAccountId, role: { in: [...MANAGER_ROLES] } } });
  const staffedProviders = await tx.db.providerRelationship.count({
    where: { clientAccountId, providerAccount: { memberships: { some: { role: { in: [...PROVIDER_STAFF_ROLES] } } } } },
  });
  if (!isManageable({ managerMemberships, staffedProviders })) {
    throw new ValidationError(
      `${what} would leave client account ${clientAccountId} without anyone able to manage it (no CA, AA or BK on it and no provider with AA/BK staff serving it)`,
    );
  }
}

/** 409 when another client account has the organization number. */
async function assertOrganizationNumberFree(tx: RequestContext, organizationNumber: string | null | undefined, exceptId?: number) {
  if (!organizationNumber) return;
  const other = await tx.db.clientAccount.findUnique({ where: { organizationNumber }, select: { id: true } });
  if (other && other.id !== exceptId) throw new ConflictError(`A client account with organization number ${organizationNumber} already exists`);
}

// ── Writes ───────────────────────────────────────────────────────────────────────────────────────

async function freeUniqueName(tx: RequestContext, base: string): Promise<string> {
  const taken = new Set((await tx.db.clientAccount.findMany({ where: { uniqueName: { startsWith: base } }, select: { uniqueName: true } })).map((r) => r.uniqueName));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/**
 * A new client account with its default chart of accounts (each account mapped to its SAF-T grouping
 * code), the standard VAT codes with their rate history and the company itself as a business partner,
 * in one transaction. A user creating it becomes its CA; with providerAccountId (where the user holds
 * AA or BK) the provider serves it from the start. The system (CLI, tests) creates it without members.
 */
export async function createClientAccount(ctx: RequestContext, args: Args<typeof rules.create>, query: ClientAccountQuery = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const { input } = await check(tx, parsed, {
      references: ({ input }) => [{ path: ['accountingCurrency'], model: 'currency', id: input?.accountingCurrency }],
      check: async ({ input }) => {
        await assertOrganizationNumberFree(tx, input.organizationNumber);
        if (input.uniqueName && (await tx.db.clientAccount.findUnique({ where: { uniqueName: input.uniqueName }, select: { id: true } }))) {
          throw new ConflictError(`The unique name '${input.uniqueName}' is taken`);
        }
        if (input.providerAccountId != null) await requireProviderStaff(tx, input.providerAccountId);
      },
    });
    const { providerAccountId, uniqueName, accountingCurrency, ...settings } = input;
    const account = await tx.db.clientAccount.create({
      data: { ...settings, uniqueName: uniqueName ?? (await freeUniqueName(tx, slugify(settings.displayName))), accountingCurrency: accountingCurrency ?? 'NOK' },
    });
    await insertDefaults(tx, account);
    if (!isSystem(tx)) await addMembership(tx, { userId: tx.actor.userId, clientAccountId: account.id, role: 'CA' }, { select: { id: true } });
    if (providerAccountId != null) await tx.db.providerRelationship.create({ data: { providerAccountId, clientAccountId: account.id } });
    tx.invalidateEligibleAccounts();
    return tx.db.clientAccount.findUniqueOrThrow({ ...query, where: { id: account.id } });
  });
}

/** The default chart of accounts, the standard tax codes with their rates, and the company as a business partner. */
async function insertDefaults(tx: RequestContext, account: { id: number; displayName: string; organizationNumber: string | null }) {
  await tx.db.taxCode.createMany({
    data: STANDARD_TAX_CODES.map((t) => ({
      clientAccountId: account.id,
      code: t.code,
      standardTaxCode: t.code,
      name: t.name,
      nameEn: t.nameEn,
      direction: t.direction,
      validFrom: date(t.validFrom),
      validTo: date(t.validTo),
    })),
  });
  const taxCodes = await tx.db.taxCode.findMany({ where: { clientAccountId: account.id }, select: { id: true, code: true } });
  const taxCodeId = new Map(taxCodes.map((t) => [t.code, t.id]));
  await tx.db.taxRate.createMany({
    data: STANDARD_TAX_CODES.flatMap((t) =>
      t.rates.map((r) => ({ taxCodeId: taxCodeId.get(t.code)!, ratePercent: r.ratePercent, validFrom: date(r.validFrom), validTo: date(r.validTo) })),
    ),
  });
  await tx.db.account.createMany({
    data: DEFAULT_CHART_OF_ACCOUNTS.map((a) => ({
      clientAccountId: account.id,
      code: a.code,
      name: a.name,
      accountType: a.accountType,
      saftGroupingCategory: a.saftGroupingCategory,
      saftGroupingCode: a.saftGroupingCode,
      defaultTaxCodeId: a.defaultTaxCode ? (taxCodeId.get(a.defaultTaxCode) ?? null) : null,
    })),
  });
  const mandatory = await tx.db.account.findMany({
    where: { clientAccountId: account.id, code: { in: Object.keys(DEFAULT_MANDATORY_DIMENSIONS) } },
    select: { id: true, code: true },
  });
  await tx.db.accountMandatoryDimension.createMany({
    data: mandatory.flatMap((a) => DEFAULT_MANDATORY_DIMENSIONS[a.code].map((dimensionType) => ({ accountId: a.id, dimensionType }))),
  });
  await tx.db.businessPartner.create({
    data: { clientAccountId: account.id, name: account.displayName, organizationNumber: account.organizationNumber, isSelf: true },
  });
}

/** Settings of a client account; managers only. The company itself, as a business partner, follows name and number. */
export async function updateClientAccount(ctx: RequestContext, args: Args<typeof rules.update>, query: ClientAccountQuery = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    await requireManager(tx, args.id);
    const { id, input } = await check(tx, parsed, {
      check: async ({ id, input }, _found, issues) => {
        await assertOrganizationNumberFree(tx, input.organizationNumber, id);
        // the lock date: wait for postings in flight (they read the row FOR SHARE), so none commits into a period this locks
        if (input.lockDate !== undefined || input.industryCode !== undefined) await lockClientAccount(tx, id);
        if (input.industryCode === undefined) return;
        const current = await tx.db.clientAccount.findUniqueOrThrow({ where: { id }, select: { industryCode: true } });
        const error = providerChangeError(current.industryCode, input.industryCode, {
          staffMemberships: await tx.db.membership.count({ where: { clientAccountId: id, role: { in: [...PROVIDER_STAFF_ROLES] } } }),
          servedAccounts: await tx.db.providerRelationship.count({ where: { providerAccountId: id } }),
        });
        if (error) issues.add(['industryCode'], error);
      },
    });
    const self: PrismaNS.BusinessPartnerUpdateManyMutationInput = {};
    if (input.displayName !== undefined) self.name = input.displayName;
    if (input.organizationNumber !== undefined) self.organizationNumber = input.organizationNumber;
    if (Object.keys(self).length) await tx.db.businessPartner.updateMany({ where: { clientAccountId: id, isSelf: true }, data: self });
    return tx.db.clientAccount.update({ ...query, where: { id }, data: input });
  });
}

/** Gives the user with the email a role on a client account; managers only; AA/BK only on provider accounts. */
export async function grantRole(ctx: RequestContext, args: Args<typeof rules.grantRole>, query: MembershipQuery = {}) {
  const parsed = parse(rules.grantRole, args);
  return inTransaction(ctx, async (tx) => {
    const { input } = await check(tx, parsed);
    const { clientAccountId, role } = input;
    await requireManager(tx, clientAccountId);
    const user = await getUserByEmail(tx, input);
    await lockClientAccount(tx, clientAccountId);
    const account = await tx.db.clientAccount.findUniqueOrThrow({ where: { id: clientAccountId }, select: { industryCode: true } });
    if (roleNeedsProvider(role) && !isProviderIndustryCode(account.industryCode)) {
      throw ValidationError.field('role', `${role} can only be held on a provider account (industry code 69.2xx)`);
    }
    const membership = await addMembership(tx, { userId: user.id, clientAccountId, role }, query);
    tx.invalidateEligibleAccounts();
    return membership;
  });
}

/**
 * Takes a role from the user with the email; managers only. 404 when the user does not hold it; 400
 * when nobody would be left able to manage the account (isManageable).
 */
export async function revokeRole(ctx: RequestContext, args: Args<typeof rules.revokeRole>): Promise<boolean> {
  const parsed = parse(rules.revokeRole, args);
  return inTransaction(ctx, async (tx) => {
    const { input } = await check(tx, parsed);
    await requireManager(tx, input.clientAccountId);
    const user = await getUserByEmail(tx, input);
    return removeManagement(tx, input.clientAccountId, `Revoking ${input.role} from ${input.email}`, async () => {
      const removed = await removeMembership(tx, { userId: user.id, clientAccountId: input.clientAccountId, role: input.role });
      if (!removed) throw new NotFoundError(`Role ${input.role} of ${input.email} on client account ${input.clientAccountId}`);
    });
  });
}

/** Removes a membership or provider link (`remove`), refused when nobody would be left able to manage the account. */
async function removeManagement(tx: RequestContext, clientAccountId: number, what: string, remove: () => Promise<void>): Promise<true> {
  await lockClientAccount(tx, clientAccountId);
  await remove();
  await assertStillManageable(tx, clientAccountId, what);
  tx.invalidateEligibleAccounts();
  return true;
}

/**
 * Makes a provider account (69.2xx) serve a client account: the caller manages the client account
 * and holds AA or BK on the provider. Linking again is a no-op. Returns the link.
 */
export async function linkProvider(ctx: RequestContext, args: Args<typeof rules.linkProvider>) {
  const parsed = parse(rules.linkProvider, args);
  return inTransaction(ctx, async (tx) => {
    const { input } = await check(tx, parsed);
    const { providerAccountId, clientAccountId } = input;
    if (providerAccountId === clientAccountId) throw ValidationError.field('clientAccountId', 'an account cannot serve itself');
    await requireManager(tx, clientAccountId);
    await requireProviderStaff(tx, providerAccountId);
    await lockClientAccount(tx, clientAccountId);
    const link = await tx.db.providerRelationship.upsert({
      where: { providerAccountId_clientAccountId: input },
      create: input,
      update: {},
    });
    tx.invalidateEligibleAccounts();
    return link;
  });
}

/** Ends a provider link (same permissions as linking); 400 when nobody would be left able to manage the client. */
export async function unlinkProvider(ctx: RequestContext, args: Args<typeof rules.unlinkProvider>): Promise<boolean> {
  const parsed = parse(rules.unlinkProvider, args);
  return inTransaction(ctx, async (tx) => {
    const { input } = await check(tx, parsed);
    await requireManager(tx, input.clientAccountId);
    await requireProviderStaff(tx, input.providerAccountId);
    return removeManagement(tx, input.clientAccountId, `Unlinking provider ${input.providerAccountId}`, async () => {
      const { count } = await tx.db.providerRelationship.deleteMany({ where: input });
      if (!count) throw new NotFoundError(`Provider link ${input.providerAccountId} -> ${input.clientAccountId}`);
    });
  });
}
