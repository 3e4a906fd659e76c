import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { AddressType } from '../../generated/prisma/enums.ts';
import type { RequestContext } from '../../shared/context.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { digitsOnly } from '../../shared/norwegian-ids.ts';
import { checkedPageWindow, parseOrderBy, type PageSource } from '../../shared/pagination.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { addressShapes, partnerShapes } from './business-partners.rules.ts';

/** orderBy names of businessPartners (snake_case like the REST API; camelCase is accepted too). */
export const BUSINESS_PARTNER_ORDER: Record<string, string> = {
  id: 'id',
  name: 'name',
  organization_number: 'organizationNumber',
  email: 'email',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

export interface ListBusinessPartnersArgs {
  clientAccountId: number;
  isCustomer?: boolean | null;
  isSupplier?: boolean | null;
  isEmployee?: boolean | null;
  isShareholder?: boolean | null;
  /** default true; null lists active and inactive partners */
  isActive?: boolean | null;
  /** matches name and email (case-insensitive) and the organization number (spaces ignored) */
  freeText?: string | null;
  orderBy?: readonly string[] | null;
  page?: number | null;
  perPage?: number | null;
}

export async function listBusinessPartners(ctx: RequestContext, args: ListBusinessPartnersArgs): Promise<PageSource> {
  await requireAccount(ctx, args.clientAccountId);
  const where: PrismaNS.BusinessPartnerWhereInput = { clientAccountId: args.clientAccountId };
  for (const flag of ['isCustomer', 'isSupplier', 'isEmployee', 'isShareholder'] as const) {
    const value = args[flag];
    if (value != null) where[flag] = value;
  }
  const isActive = args.isActive === undefined ? true : args.isActive;
  if (isActive !== null) where.isActive = isActive;
  const text = args.freeText?.trim();
  if (text) {
    const or: PrismaNS.BusinessPartnerWhereInput[] = [
      { name: { contains: text, mode: 'insensitive' } },
      { email: { contains: text, mode: 'insensitive' } },
    ];
    const digits = digitsOnly(text);
    if (/^\d+$/.test(digits)) or.push({ organizationNumber: { contains: digits } });
    where.OR = or;
  }
  return {
    where,
    orderBy: parseOrderBy(args.orderBy, BUSINESS_PARTNER_ORDER, ['name']),
    window: checkedPageWindow(args, { defaultPerPage: 50, maxPerPage: 100 }),
  };
}

/** The client or a transaction's client: the create function works inside a caller's transaction too. */

type Query = { include?: PrismaNS.BusinessPartnerInclude; select?: PrismaNS.BusinessPartnerSelect };

export async function getBusinessPartner(ctx: RequestContext, id: number, query: Query = {}) {
  return requireOwned(ctx, 'Business partner', await ctx.db.businessPartner.findUnique({ ...query, where: { id } }));
}

export interface AddressInput {
  addressType: AddressType;
  line1?: string | null;
  line2?: string | null;
  postalCode?: string | null;
  city?: string | null;
  /** ISO 3166-1 alpha-2, upper case; NO when omitted */
  countryCode?: string | null;
}

export interface BusinessPartnerFields {
  name?: string | null;
  /** 9 digits with a valid mod-11 check digit; spaces and dots are accepted, digits are stored */
  organizationNumber?: string | null;
  /** 11 digits with both check digits; spaces are accepted, digits are stored */
  nationalIdNumber?: string | null;
  email?: string | null;
  phone?: string | null;
  isCustomer?: boolean | null;
  isSupplier?: boolean | null;
  isEmployee?: boolean | null;
  isShareholder?: boolean | null;
  /** each given type (POSTAL, DELIVERY, VISITING) is created or replaced; other types are kept */
  addresses?: readonly AddressInput[] | null;
}

export interface CreateBusinessPartnerInput extends BusinessPartnerFields {
  clientAccountId: number;
  name: string;
}

export interface UpdateBusinessPartnerInput extends BusinessPartnerFields {
  /** accepted only when equal to the partner's own: clientAccountId is immutable */
  clientAccountId?: number | null;
  /** true reactivates a deactivated partner */
  isActive?: boolean | null;
}

/** Parses `value` with a shape from business-partners.rules.ts; the first issue becomes a 400. */
function check<S extends z.ZodType>(schema: S, path: (string | number)[], value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw ValidationError.field(path.map(String), result.error.issues[0]?.message ?? 'is invalid');
  return result.data;
}

/** '' and null clear an optional text field. */
const orNull = (value: string | null | undefined): string | null => (value ? value : null);

function partnerData(f: BusinessPartnerFields): PrismaNS.BusinessPartnerUncheckedUpdateInput {
  const data: PrismaNS.BusinessPartnerUncheckedUpdateInput = {};
  if (f.name !== undefined) data.name = check(partnerShapes.name, ['name'], f.name);
  if (f.organizationNumber !== undefined) {
    const v = orNull(check(partnerShapes.organizationNumber, ['organizationNumber'], f.organizationNumber));
    data.organizationNumber = v && digitsOnly(v);
  }
  if (f.nationalIdNumber !== undefined) {
    const v = orNull(check(partnerShapes.nationalIdNumber, ['nationalIdNumber'], f.nationalIdNumber));
    data.nationalIdNumber = v && digitsOnly(v);
  }
  if (f.email !== undefined) data.email = orNull(check(partnerShapes.email, ['email'], f.email));
  if (f.phone !== undefined) data.phone = orNull(check(partnerShapes.phone, ['phone'], f.phone));
  for (const flag of ['isCustomer', 'isSupplier', 'isEmployee', 'isShareholder'] as const) {
    if (f[flag] != null) data[flag] = f[flag];
  }
  return data;
}

type AddressRow = Omit<PrismaNS.BusinessPartnerAddressUncheckedCreateInput, 'id' | 'businessPartnerId'> & { addressType: AddressType };

/** The given addresses as complete rows (a given type replaces the stored one entirely). */
function addressRows(addresses: readonly AddressInput[] | null | undefined): AddressRow[] {
  const seen = new Set<AddressType>();
  return (addresses ?? []).map((a, i) => {
    const at = (field: string) => ['addresses', i, field];
    if (!a.addressType) throw ValidationError.field(at('addressType').map(String), 'is required (POSTAL, DELIVERY or VISITING)');
    if (seen.has(a.addressType)) throw ValidationError.field(at('addressType').map(String), `${a.addressType} is given more than once`);
    seen.add(a.addressType);
    return {
      addressType: a.addressType,
      line1: orNull(check(addressShapes.line1, at('line1'), a.line1)),
      line2: orNull(check(addressShapes.line2, at('line2'), a.line2)),
      postalCode: orNull(check(addressShapes.postalCode, at('postalCode'), a.postalCode)),
      city: orNull(check(addressShapes.city, at('city'), a.city)),
      countryCode: check(addressShapes.countryCode, at('countryCode'), a.countryCode) ?? 'NO',
    };
  });
}

export interface CreateBusinessPartnerOptions {
  /** recorded as created_by / updated_by; null for the admin CLI and seeds */
  actorUserId?: number | null;
  query?: Query;
}

/**
 * Creates a business partner with its addresses. No tenancy check: for trusted callers (admin CLI,
 * seeds) and for `createBusinessPartnerAs`, which checks the actor's access first.
 */
export async function createBusinessPartner(prisma: Db, input: CreateBusinessPartnerInput, options: CreateBusinessPartnerOptions = {}) {
  if (!(await prisma.clientAccount.findUnique({ where: { id: input.clientAccountId }, select: { id: true } }))) {
    throw new NotFoundError(`Client account ${input.clientAccountId}`);
  }
  const data = partnerData(input) as PrismaNS.BusinessPartnerUncheckedCreateInput;
  const addresses = addressRows(input.addresses);
  const actor = options.actorUserId ?? null;
  return prisma.businessPartner.create({
    ...options.query,
    data: {
      ...data,
      clientAccountId: input.clientAccountId,
      createdById: actor,
      updatedById: actor,
      ...(addresses.length ? { addresses: { create: addresses } } : {}),
    },
  });
}

/** createBusinessPartner on behalf of the request's actor (403 for an account they cannot access). */
export async function createBusinessPartnerAs(ctx: RequestContext, input: CreateBusinessPartnerInput, query: Query = {}) {
  await requireAccount(ctx, input.clientAccountId);
  return createBusinessPartner(ctx.db, input, { actorUserId: ctx.actor.userId, query });
}

export async function updateBusinessPartner(ctx: RequestContext, id: number, input: UpdateBusinessPartnerInput, query: Query = {}) {
  const partner = await getBusinessPartner(ctx, id);
  if (input.clientAccountId != null && input.clientAccountId !== partner.clientAccountId) {
    throw ValidationError.field('clientAccountId', 'cannot be changed');
  }
  const data = partnerData(input);
  if (input.isActive != null) {
    if (!input.isActive) assertMayDeactivate(partner);
    data.isActive = input.isActive;
  }
  const addresses = addressRows(input.addresses);
  return ctx.db.$transaction(async (tx) => {
    await tx.businessPartner.update({ where: { id }, data: { ...data, updatedById: ctx.actor.userId } });
    for (const address of addresses) {
      await tx.businessPartnerAddress.upsert({
        where: { businessPartnerId_addressType: { businessPartnerId: id, addressType: address.addressType } },
        create: { ...address, businessPartnerId: id },
        update: address,
      });
    }
    return tx.businessPartner.findUniqueOrThrow({ ...query, where: { id } });
  });
}

function assertMayDeactivate(partner: { isSelf: boolean }): void {
  if (partner.isSelf) throw ValidationError.field('isActive', 'the company itself (isSelf) cannot be deactivated');
}

/** Deactivation keeps the record (documents, bank accounts and collections may refer to it). */
export async function deactivateBusinessPartner(ctx: RequestContext, id: number, query: Query = {}) {
  assertMayDeactivate(await getBusinessPartner(ctx, id));
  return ctx.db.businessPartner.update({ ...query, where: { id }, data: { isActive: false, updatedById: ctx.actor.userId } });
}
