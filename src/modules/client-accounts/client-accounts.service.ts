import type { Prisma, Db, Tx } from '../../db/database.ts';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { AutonomyLevel, Role } from '../../generated/prisma/enums.ts';
import { DEFAULT_CHART_OF_ACCOUNTS, STANDARD_TAX_CODES } from '../../reference-data/index.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { digitsOnly, isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';
import type { RequestContext } from '../../shared/context.ts';
import { checkedPageWindow, type PageSource } from '../../shared/pagination.ts';
import { parseDateString } from '../../shared/scalars.ts';
import { requireAccount } from '../../shared/tenancy.ts';
import { userByEmail } from '../users/users.service.ts';
import {
  isIndustryCode,
  isManageable,
  isProviderIndustryCode,
  MANAGER_ROLES,
  PROVIDER_STAFF_ROLES,
  providerChangeError,
  roleNeedsProvider,
  slugify,
} from './client-accounts.rules.ts';

export interface CreateClientAccountInput {
  displayName: string;
  uniqueName?: string | null;
  organizationNumber?: string | null;
  industryCode?: string | null;
  vatLiable?: boolean | null;
  accountingCurrency?: string | null;
}

const date = (s: string | null) => (s ? parseDateString(s) : null);

/** The client or a transaction's client: the exported helpers work inside a caller's transaction too. */

export function normalizeOrganizationNumber(value: string | null | undefined, field = 'organizationNumber'): string | null {
  if (value == null || value === '') return null;
  const digits = digitsOnly(value);
  if (!isValidOrganizationNumber(digits)) throw ValidationError.field(field, 'must be a valid 9-digit Norwegian organization number (mod-11 check digit)');
  return digits;
}

async function assertCurrency(prisma: Db, code: string, field: string): Promise<string> {
  const c = code.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(c) || !(await prisma.currency.findUnique({ where: { code: c }, select: { id: true } }))) {
    throw ValidationError.field(field, `unknown ISO 4217 currency '${code}'`);
  }
  return c;
}

async function freeUniqueName(prisma: Db, base: string): Promise<string> {
  const taken = new Set(
    (await prisma.clientAccount.findMany({ where: { uniqueName: { startsWith: base } }, select: { uniqueName: true } })).map((r) => r.uniqueName),
  );
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** A validated new client account, ready to insert. */
interface PreparedClientAccount {
  displayName: string;
  uniqueName: string;
  organizationNumber: string | null;
  industryCode: string | null;
  vatLiable: boolean;
  accountingCurrency: string;
}

function checkDisplayName(value: string | null | undefined): string {
  const displayName = value?.trim();
  if (!displayName || displayName.length > 250) throw ValidationError.field('displayName', 'must be 1 to 250 characters');
  return displayName;
}

function checkIndustryCode(value: string | null | undefined): string | null {
  const industryCode = value?.trim() || null;
  if (industryCode && !isIndustryCode(industryCode)) throw ValidationError.field('industryCode', 'must be an SN2007 code such as 69.201');
  return industryCode;
}

async function prepareClientAccount(prisma: Db, input: CreateClientAccountInput): Promise<PreparedClientAccount> {
  const displayName = checkDisplayName(input.displayName);
  const organizationNumber = normalizeOrganizationNumber(input.organizationNumber);
  const industryCode = checkIndustryCode(input.industryCode);
  const accountingCurrency = await assertCurrency(prisma, input.accountingCurrency ?? 'NOK', 'accountingCurrency');
  if (organizationNumber && (await prisma.clientAccount.findUnique({ where: { organizationNumber }, select: { id: true } }))) {
    throw new ConflictError(`A client account with organization number ${organizationNumber} already exists`);
  }
  let uniqueName: string;
  if (input.uniqueName) {
    uniqueName = input.uniqueName.trim().toLowerCase();
    if (!/^[a-z0-9][a-z0-9-]{0,99}$/.test(uniqueName)) throw ValidationError.field('uniqueName', 'must be lower-case letters, digits and -');
    if (await prisma.clientAccount.findUnique({ where: { uniqueName }, select: { id: true } })) {
      throw new ConflictError(`The unique name '${uniqueName}' is taken`);
    }
  } else {
    uniqueName = await freeUniqueName(prisma, slugify(displayName));
  }
  return { displayName, uniqueName, organizationNumber, industryCode, vatLiable: input.vatLiable ?? false, accountingCurrency };
}

/**
 * Inserts a prepared client account with its default chart of accounts (each account mapped to its
 * SAF-T grouping code), the standard VAT codes with their rate history, and the company itself as a
 * business partner. Runs inside the caller's transaction.
 */
async function insertClientAccount(tx: Tx, p: PreparedClientAccount) {
  const account = await tx.clientAccount.create({ data: p });
  await tx.taxCode.createMany({
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
  const taxCodes = await tx.taxCode.findMany({ where: { clientAccountId: account.id }, select: { id: true, code: true } });
  const taxCodeId = new Map(taxCodes.map((t) => [t.code, t.id]));
  await tx.taxRate.createMany({
    data: STANDARD_TAX_CODES.flatMap((t) =>
      t.rates.map((r) => ({ taxCodeId: taxCodeId.get(t.code)!, ratePercent: r.ratePercent, validFrom: date(r.validFrom), validTo: date(r.validTo) })),
    ),
  });
  await tx.account.createMany({
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
  await tx.businessPartner.create({
    data: { clientAccountId: account.id, name: p.displayName, organizationNumber: p.organizationNumber, isSelf: true },
  });
  return account;
}

/**
 * Creates a client account with its default chart of accounts, the standard VAT codes and the company
 * as a business partner, all in one transaction. No membership: the admin CLI and tests grant roles.
 */
export async function createClientAccount(prisma: Prisma, input: CreateClientAccountInput) {
  const prepared = await prepareClientAccount(prisma, input);
  return prisma.$transaction((tx) => insertClientAccount(tx, prepared));
}

export async function findUserOrFail(prisma: Db, email: string) {
  const user = await userByEmail(prisma, email);
  if (!user) throw new NotFoundError(`User ${email}`);
  return user;
}

/** Gives a user a role on a client account. AA and BK only on provider accounts (69.2xx). */
export async function grantRole(prisma: Db, args: { userId: number; clientAccountId: number; role: Role }) {
  const account = await prisma.clientAccount.findUnique({ where: { id: args.clientAccountId } });
  if (!account) throw new NotFoundError(`Client account ${args.clientAccountId}`);
  if (roleNeedsProvider(args.role) && !isProviderIndustryCode(account.industryCode)) {
    throw ValidationError.field('role', `${args.role} can only be held on a provider account (industry code 69.2xx)`);
  }
  return prisma.membership.upsert({
    where: { userId_clientAccountId_role: { userId: args.userId, clientAccountId: args.clientAccountId, role: args.role } },
    create: { userId: args.userId, clientAccountId: args.clientAccountId, role: args.role },
    update: {},
  });
}

/** Records that a provider account (accounting firm) serves a client account. */
export async function linkProvider(prisma: Db, providerAccountId: number, clientAccountId: number) {
  if (providerAccountId === clientAccountId) throw ValidationError.field('clientAccountId', 'an account cannot serve itself');
  // One after the other: `prisma` may be a transaction's client.
  const provider = await prisma.clientAccount.findUnique({ where: { id: providerAccountId } });
  const client = await prisma.clientAccount.findUnique({ where: { id: clientAccountId } });
  if (!provider) throw new NotFoundError(`Client account ${providerAccountId}`);
  if (!client) throw new NotFoundError(`Client account ${clientAccountId}`);
  if (!isProviderIndustryCode(provider.industryCode)) {
    throw ValidationError.field('providerAccountId', `client account ${providerAccountId} is not a provider account (industry code 69.2xx)`);
  }
  return prisma.providerRelationship.upsert({
    where: { providerAccountId_clientAccountId: { providerAccountId, clientAccountId } },
    create: { providerAccountId, clientAccountId },
    update: {},
  });
}

/**
 * Managers of an account may change its settings and memberships: holders of CA, AA or BK on it, and
 * AA/BK staff of a provider serving it. Employees (EM) and read-only eligibility do not suffice.
 */
export async function requireManager(prisma: Db, userId: number, clientAccountId: number): Promise<void> {
  const direct = await prisma.membership.findFirst({
    where: { userId, clientAccountId, role: { in: ['CA', 'AA', 'BK'] } },
    select: { id: true },
  });
  if (direct) return;
  const viaProvider = await prisma.providerRelationship.findFirst({
    where: { clientAccountId, providerAccount: { memberships: { some: { userId, role: { in: ['AA', 'BK'] } } } } },
    select: { id: true },
  });
  if (!viaProvider) throw new ForbiddenError(`You cannot manage client account ${clientAccountId}`);
}

// ── Operations on behalf of a caller (GraphQL, REST, MCP): tenancy and manager checks included ─────

type ClientAccountQuery = { include?: PrismaNS.ClientAccountInclude; select?: PrismaNS.ClientAccountSelect };
type MembershipQuery = { include?: PrismaNS.MembershipInclude; select?: PrismaNS.MembershipSelect };

export interface ListClientAccountsArgs {
  /** true: provider accounts only; false: the others; null/undefined: all */
  isProvider?: boolean | null;
  /** matches display name, unique name and organization number, case-insensitive */
  freeText?: string | null;
  page?: number | null;
  perPage?: number | null;
}

/** The caller's eligible client accounts (see src/shared/tenancy.ts), by display name. */
export async function listClientAccounts(ctx: RequestContext, args: ListClientAccountsArgs): Promise<PageSource> {
  const and: PrismaNS.ClientAccountWhereInput[] = [{ id: { in: [...(await ctx.eligibleAccounts())] } }];
  // Industry codes are validated as NN.N{1,3}, so "starts with 69.2" is exactly the 69.2xx rule.
  if (args.isProvider === true) and.push({ industryCode: { startsWith: '69.2' } });
  if (args.isProvider === false) and.push({ OR: [{ industryCode: null }, { NOT: { industryCode: { startsWith: '69.2' } } }] });
  const text = args.freeText?.trim();
  if (text) {
    and.push({
      OR: [
        { displayName: { contains: text, mode: 'insensitive' } },
        { uniqueName: { contains: text, mode: 'insensitive' } },
        { organizationNumber: { contains: digitsOnly(text) || text } },
      ],
    });
  }
  return {
    where: { AND: and },
    orderBy: [{ displayName: 'asc' }, { id: 'asc' }],
    window: checkedPageWindow(args, { defaultPerPage: 50, maxPerPage: 100 }),
  };
}

export async function getClientAccount(ctx: RequestContext, id: number, query: ClientAccountQuery = {}) {
  await requireAccount(ctx, id);
  return ctx.db.clientAccount.findUniqueOrThrow({ ...query, where: { id } });
}

/** 403 unless the caller holds AA or BK on the provider account itself. */
async function requireProviderStaff(prisma: Db, userId: number, providerAccountId: number): Promise<void> {
  const staff = await prisma.membership.findFirst({
    where: { userId, clientAccountId: providerAccountId, role: { in: [...PROVIDER_STAFF_ROLES] } },
    select: { id: true },
  });
  if (!staff) throw new ForbiddenError(`You must hold AA or BK on provider account ${providerAccountId}`);
}

/** 403 unless the client account is eligible for the caller and the caller manages it (requireManager). */
async function requireManagerOf(ctx: RequestContext, clientAccountId: number): Promise<void> {
  await requireAccount(ctx, clientAccountId);
  await requireManager(ctx.db, ctx.actor.userId, clientAccountId);
}

/** Serialises membership and provider changes of one account (so two revocations cannot both pass). */
async function lockClientAccount(tx: Tx, id: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM client_accounts WHERE id = ${id} FOR UPDATE`;
}

/** 400 unless someone can still manage the account (run inside the changing transaction, after the change). */
async function assertStillManageable(tx: Tx, clientAccountId: number, what: string): Promise<void> {
  const managerMemberships = await tx.membership.count({ where: { clientAccountId, role: { in: [...MANAGER_ROLES] } } });
  const staffedProviders = await tx.providerRelationship.count({
    where: { clientAccountId, providerAccount: { memberships: { some: { role: { in: [...PROVIDER_STAFF_ROLES] } } } } },
  });
  if (!isManageable({ managerMemberships, staffedProviders })) {
    throw new ValidationError(
      `${what} would leave client account ${clientAccountId} without anyone able to manage it (no CA, AA or BK on it and no provider with AA/BK staff serving it)`,
    );
  }
}

export interface CreateClientAccountAsInput extends CreateClientAccountInput {
  /** a provider account where the caller holds AA or BK; the new account is linked to it */
  providerAccountId?: number | null;
}

/**
 * A new client account for the caller, who becomes its CA; with providerAccountId (where the caller
 * must hold AA or BK) the provider serves it from the start. One transaction.
 */
export async function createClientAccountAs(ctx: RequestContext, input: CreateClientAccountAsInput, query: ClientAccountQuery = {}) {
  const userId = ctx.actor.userId;
  const providerAccountId = input.providerAccountId ?? null;
  if (providerAccountId !== null) {
    await requireProviderStaff(ctx.db, userId, providerAccountId);
    const provider = await ctx.db.clientAccount.findUniqueOrThrow({ where: { id: providerAccountId }, select: { industryCode: true } });
    if (!isProviderIndustryCode(provider.industryCode)) {
      throw ValidationError.field('providerAccountId', `client account ${providerAccountId} is not a provider account (industry code 69.2xx)`);
    }
  }
  const prepared = await prepareClientAccount(ctx.db, input);
  return ctx.db.$transaction(async (tx) => {
    const account = await insertClientAccount(tx, prepared);
    await tx.membership.create({ data: { userId, clientAccountId: account.id, role: 'CA' } });
    if (providerAccountId !== null) await tx.providerRelationship.create({ data: { providerAccountId, clientAccountId: account.id } });
    return tx.clientAccount.findUniqueOrThrow({ ...query, where: { id: account.id } });
  }).finally(ctx.invalidateEligibleAccounts);
}

export interface UpdateClientAccountInput {
  displayName?: string | null;
  organizationNumber?: string | null;
  industryCode?: string | null;
  vatLiable?: boolean | null;
  /** a setting: may move forward or back (posting rules enforce it) */
  lockDate?: Date | null;
  defaultAutonomyLevel?: AutonomyLevel | null;
}

/** Settings of a client account; managers only. */
export async function updateClientAccount(ctx: RequestContext, id: number, input: UpdateClientAccountInput, query: ClientAccountQuery = {}) {
  await requireManagerOf(ctx, id);
  for (const key of ['displayName', 'vatLiable', 'defaultAutonomyLevel'] as const) {
    if (input[key] === null) throw ValidationError.field(key, 'must not be null');
  }
  const data: PrismaNS.ClientAccountUpdateInput = {};
  if (input.displayName != null) data.displayName = checkDisplayName(input.displayName);
  if (input.vatLiable != null) data.vatLiable = input.vatLiable;
  if (input.defaultAutonomyLevel != null) data.defaultAutonomyLevel = input.defaultAutonomyLevel;
  if (input.lockDate !== undefined) data.lockDate = input.lockDate;
  if (input.organizationNumber !== undefined) {
    const organizationNumber = normalizeOrganizationNumber(input.organizationNumber);
    if (organizationNumber) {
      const other = await ctx.db.clientAccount.findUnique({ where: { organizationNumber }, select: { id: true } });
      if (other && other.id !== id) throw new ConflictError(`A client account with organization number ${organizationNumber} already exists`);
    }
    data.organizationNumber = organizationNumber;
  }
  const industryCode = input.industryCode === undefined ? undefined : checkIndustryCode(input.industryCode);
  if (industryCode !== undefined) data.industryCode = industryCode;

  return ctx.db.$transaction(async (tx) => {
    if (industryCode !== undefined) {
      await lockClientAccount(tx, id);
      const current = await tx.clientAccount.findUniqueOrThrow({ where: { id }, select: { industryCode: true } });
      const error = providerChangeError(current.industryCode, industryCode, {
        staffMemberships: await tx.membership.count({ where: { clientAccountId: id, role: { in: [...PROVIDER_STAFF_ROLES] } } }),
        servedAccounts: await tx.providerRelationship.count({ where: { providerAccountId: id } }),
      });
      if (error) throw ValidationError.field('industryCode', error);
    }
    // The company itself, as a business partner, carries the account's name and number.
    const self: PrismaNS.BusinessPartnerUpdateManyMutationInput = {};
    if (data.displayName !== undefined) self.name = data.displayName as string;
    if (data.organizationNumber !== undefined) self.organizationNumber = data.organizationNumber as string | null;
    if (Object.keys(self).length) await tx.businessPartner.updateMany({ where: { clientAccountId: id, isSelf: true }, data: self });
    return tx.clientAccount.update({ ...query, where: { id }, data });
  });
}

export interface RoleByEmailInput {
  email: string;
  clientAccountId: number;
  role: Role;
}

/** Grants a role to the user with the email; managers only; AA/BK only on provider accounts. */
export async function grantRoleByEmail(ctx: RequestContext, input: RoleByEmailInput, query: MembershipQuery = {}) {
  await requireManagerOf(ctx, input.clientAccountId);
  const user = await findUserOrFail(ctx.db, input.email);
  const membership = await ctx.db.$transaction(async (tx) => {
    await lockClientAccount(tx, input.clientAccountId);
    return grantRole(tx, { userId: user.id, clientAccountId: input.clientAccountId, role: input.role });
  });
  ctx.invalidateEligibleAccounts();
  return ctx.db.membership.findUniqueOrThrow({ ...query, where: { id: membership.id } });
}

/**
 * Revokes a role; managers only. 404 when the user does not hold it; 400 when nobody would be left
 * able to manage the account (isManageable).
 */
export async function revokeRoleByEmail(ctx: RequestContext, input: RoleByEmailInput): Promise<boolean> {
  await requireManagerOf(ctx, input.clientAccountId);
  const user = await findUserOrFail(ctx.db, input.email);
  await ctx.db.$transaction(async (tx) => {
    await lockClientAccount(tx, input.clientAccountId);
    const key = { userId_clientAccountId_role: { userId: user.id, clientAccountId: input.clientAccountId, role: input.role } };
    const membership = await tx.membership.findUnique({ where: key, select: { id: true } });
    if (!membership) throw new NotFoundError(`Role ${input.role} of ${input.email} on client account ${input.clientAccountId}`);
    await tx.membership.delete({ where: { id: membership.id } });
    await assertStillManageable(tx, input.clientAccountId, `Revoking ${input.role} from ${input.email}`);
  });
  ctx.invalidateEligibleAccounts();
  return true;
}

export interface ProviderLinkInput {
  providerAccountId: number;
  clientAccountId: number;
}

/** Links a provider to a client account: the caller manages the client and holds AA or BK on the provider. */
export async function linkProviderAs(ctx: RequestContext, input: ProviderLinkInput, query: ClientAccountQuery = {}) {
  await requireManagerOf(ctx, input.clientAccountId);
  await requireProviderStaff(ctx.db, ctx.actor.userId, input.providerAccountId);
  await ctx.db.$transaction(async (tx) => {
    await lockClientAccount(tx, input.clientAccountId);
    await linkProvider(tx, input.providerAccountId, input.clientAccountId);
  });
  ctx.invalidateEligibleAccounts();
  return ctx.db.clientAccount.findUniqueOrThrow({ ...query, where: { id: input.clientAccountId } });
}

/** Removes a provider link (same permissions as linking); 400 when nobody would be left able to manage the client. */
export async function unlinkProviderAs(ctx: RequestContext, input: ProviderLinkInput): Promise<boolean> {
  await requireManagerOf(ctx, input.clientAccountId);
  await requireProviderStaff(ctx.db, ctx.actor.userId, input.providerAccountId);
  await ctx.db.$transaction(async (tx) => {
    await lockClientAccount(tx, input.clientAccountId);
    const key = { providerAccountId_clientAccountId: { providerAccountId: input.providerAccountId, clientAccountId: input.clientAccountId } };
    const link = await tx.providerRelationship.findUnique({ where: key, select: { id: true } });
    if (!link) throw new NotFoundError(`Provider link ${input.providerAccountId} -> ${input.clientAccountId}`);
    await tx.providerRelationship.delete({ where: { id: link.id } });
    await assertStillManageable(tx, input.clientAccountId, `Unlinking provider ${input.providerAccountId}`);
  });
  ctx.invalidateEligibleAccounts();
  return true;
}
