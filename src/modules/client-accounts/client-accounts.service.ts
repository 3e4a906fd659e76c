import type { Prisma } from '../../db/database.ts';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { Role } from '../../generated/prisma/enums.ts';
import { DEFAULT_CHART_OF_ACCOUNTS, STANDARD_TAX_CODES } from '../../reference-data/index.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { digitsOnly, isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';
import { parseDateString } from '../../shared/scalars.ts';
import { isIndustryCode, isProviderIndustryCode, roleNeedsProvider, slugify } from './client-accounts.rules.ts';

export interface CreateClientAccountInput {
  displayName: string;
  uniqueName?: string | null;
  organizationNumber?: string | null;
  industryCode?: string | null;
  vatLiable?: boolean | null;
  accountingCurrency?: string | null;
}

const date = (s: string | null) => (s ? parseDateString(s) : null);

type Tx = PrismaNS.TransactionClient;
/** The client or a transaction's client: the exported helpers work inside a caller's transaction too. */
type Db = Prisma | Tx;

export async function normalizeOrganizationNumber(value: string | null | undefined, field = 'organizationNumber'): Promise<string | null> {
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
  const organizationNumber = await normalizeOrganizationNumber(input.organizationNumber);
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
  const user = await prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
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
