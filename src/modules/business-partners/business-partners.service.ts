import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { digitsOnly } from '../../shared/norwegian-ids.ts';
import { findPage, pageWindow, toOrderBy, type PageLimits } from '../../shared/pagination.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { BUSINESS_PARTNER_ORDER, businessPartnerRules as rules } from './business-partners.rules.ts';

type Query = { include?: PrismaNS.BusinessPartnerInclude; select?: PrismaNS.BusinessPartnerSelect };

export const BUSINESS_PARTNER_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

export async function listBusinessPartners(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, isActive = true, freeText, orderBy, page, perPage, first, after, last, before, ...flags } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.BusinessPartnerWhereInput = { clientAccountId };
  for (const [flag, value] of Object.entries(flags)) if (value != null) Object.assign(where, { [flag]: value });
  if (isActive !== null) where.isActive = isActive;
  const text = freeText?.trim();
  if (text) {
    const digits = digitsOnly(text);
    where.OR = [
      { name: { contains: text, mode: 'insensitive' } },
      { email: { contains: text, mode: 'insensitive' } },
      ...(/^\d+$/.test(digits) ? [{ organizationNumber: { contains: digits } }] : []),
    ];
  }
  return findPage(
    pageWindow({ page, perPage, first, after, last, before }, BUSINESS_PARTNER_PAGE_LIMITS),
    (w) => ctx.db.businessPartner.findMany({ ...query, where, orderBy: toOrderBy(orderBy, BUSINESS_PARTNER_ORDER, ['name']), ...w }),
    () => ctx.db.businessPartner.count({ where }),
  );
}

export async function getBusinessPartner(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Business partner', await ctx.db.businessPartner.findUnique({ ...query, where: { id } }));
}

/** A parsed address as a complete row: a given type replaces the stored one entirely (NO by default). */
const addressRow = <A extends { countryCode?: string | null }>(a: A) => ({ line1: null, line2: null, postalCode: null, city: null, ...a, countryCode: a.countryCode ?? 'NO' });

/** Creates a business partner with its addresses. */
export async function createBusinessPartner(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    await requireAccount(tx, args.input.clientAccountId);
    const { input } = await check(tx, parsed);
    const { addresses, ...fields } = input;
    const user = auditUserId(tx);
    return tx.db.businessPartner.create({
      ...query,
      data: { ...fields, createdById: user, updatedById: user, ...(addresses?.length ? { addresses: { create: addresses.map(addressRow) } } : {}) },
    });
  });
}

function assertMayDeactivate(partner: { isSelf: boolean }): void {
  if (partner.isSelf) throw ValidationError.field('isActive', 'the company itself (isSelf) cannot be deactivated');
}

export async function updateBusinessPartner(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const partner = await getBusinessPartner(tx, args);
    const { input } = await check(tx, parsed, { immutable: { clientAccountId: partner.clientAccountId } });
    const { addresses, clientAccountId: _immutable, ...fields } = input;
    if (fields.isActive === false) assertMayDeactivate(partner);
    await tx.db.businessPartner.update({ where: { id: partner.id }, data: { ...fields, updatedById: auditUserId(tx) } });
    for (const address of (addresses ?? []).map(addressRow)) {
      await tx.db.businessPartnerAddress.upsert({
        where: { businessPartnerId_addressType: { businessPartnerId: partner.id, addressType: address.addressType } },
        create: { ...address, businessPartnerId: partner.id },
        update: address,
      });
    }
    return tx.db.businessPartner.findUniqueOrThrow({ ...query, where: { id: partner.id } });
  });
}

/**
 * Marks a business partner as an employee (is_employee) unless it is one already. Spec 002 names a
 * payroll contract's business_partner_id "the employee": an active contract makes its partner one, in
 * the contract's transaction (`tx`); deactivating the contract does not unmark it.
 */
export async function markEmployee(tx: RequestContext, businessPartnerId: number): Promise<void> {
  await tx.db.businessPartner.updateMany({ where: { id: businessPartnerId, isEmployee: false }, data: { isEmployee: true, updatedById: auditUserId(tx) } });
}

/** The client account's own business partner (is_self, made with the account), or null when it has none. */
export function ownBusinessPartner(ctx: RequestContext, clientAccountId: number) {
  return ctx.db.businessPartner.findFirst({ where: { clientAccountId, isSelf: true }, select: { id: true, name: true }, orderBy: { id: 'asc' } });
}

/**
 * Records a business partner as its client account's own (is_self). The caller holds the account's
 * lock (lockClientAccount) and has found it without one, so an account keeps at most one.
 */
export async function recordOwnBusinessPartner(tx: RequestContext, businessPartnerId: number): Promise<void> {
  await tx.db.businessPartner.update({ where: { id: businessPartnerId }, data: { isSelf: true, updatedById: auditUserId(tx) }, select: { id: true } });
}

/** Deactivation keeps the record (documents, bank accounts and collections may refer to it). */
export async function deactivateBusinessPartner(ctx: RequestContext, args: { id: number }, query: Query = {}) {
  return inTransaction(ctx, async (tx) => {
    assertMayDeactivate(await getBusinessPartner(tx, args));
    return tx.db.businessPartner.update({ ...query, where: { id: args.id }, data: { isActive: false, updatedById: auditUserId(tx) } });
  });
}
