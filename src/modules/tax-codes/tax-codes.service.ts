import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { TaxDirection } from '../../generated/prisma/enums.ts';
import { STANDARD_TAX_CODES } from '../../reference-data/index.ts';
import type { RequestContext } from '../../shared/context.ts';
import { checkDecimal } from '../../shared/decimals.ts';
import { ValidationError } from '../../shared/errors.ts';
import type { Decimal } from '../../shared/scalars.ts';
import { formatDate } from '../../shared/scalars.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { compareTaxCodes, isReversed, overlappingPeriods } from './tax-codes.rules.ts';

type Query = { include?: PrismaNS.TaxCodeInclude; select?: PrismaNS.TaxCodeSelect };

/** SAF-T StandardTaxCode values a tax code may report as: the 30 standard codes, or NA (not applicable). */
export const STANDARD_TAX_CODE_VALUES: ReadonlySet<string> = new Set([...STANDARD_TAX_CODES.map((t) => t.code), 'NA']);

/** A custom tax code: 1 to 10 letters, digits, '.', '_' or '-', starting with a letter or digit. */
export const TAX_CODE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,9}$/;

export async function listTaxCodes(ctx: RequestContext, args: { clientAccountId: number; isActive?: boolean | null }, query: Query = {}) {
  await requireAccount(ctx, args.clientAccountId);
  const codes = await ctx.db.taxCode.findMany({
    ...query,
    where: { clientAccountId: args.clientAccountId, ...(args.isActive == null ? {} : { isActive: args.isActive }) },
  });
  return codes.sort(compareTaxCodes);
}

export async function getTaxCode(ctx: RequestContext, id: number, query: Query = {}) {
  return requireOwned(ctx, 'Tax code', await ctx.db.taxCode.findUnique({ ...query, where: { id } }));
}

export interface TaxRateInput {
  ratePercent: Decimal;
  validFrom?: Date | null;
  validTo?: Date | null;
}

export interface CreateTaxCodeInput {
  clientAccountId: number;
  code: string;
  standardTaxCode: string;
  direction: TaxDirection;
  name: string;
  nameEn?: string | null;
  validFrom?: Date | null;
  validTo?: Date | null;
  isActive?: boolean | null;
  rates?: readonly TaxRateInput[] | null;
}

export interface UpdateTaxCodeInput {
  name?: string | null;
  nameEn?: string | null;
  isActive?: boolean | null;
  validFrom?: Date | null;
  validTo?: Date | null;
}

/**
 * A rate history: each rate 0 to 100 percent with at most 2 decimals, each period with validFrom on or
 * before validTo, and no two periods sharing a day (bounds inclusive, null open).
 */
export function checkRates(rates: readonly TaxRateInput[], field = 'rates'): { ratePercent: Decimal; validFrom: Date | null; validTo: Date | null }[] {
  const out = rates.map((r, i) => {
    const path = [field, String(i)];
    const ratePercent = checkDecimal([...path, 'ratePercent'].join('.'), r.ratePercent, { precision: 5, scale: 2 });
    if (ratePercent.isNegative() || ratePercent.greaterThan(100)) {
      throw ValidationError.field([...path, 'ratePercent'], 'must be between 0 and 100');
    }
    const period = { ratePercent, validFrom: r.validFrom ?? null, validTo: r.validTo ?? null };
    if (isReversed(period)) throw ValidationError.field([...path, 'validTo'], 'must not be before validFrom');
    return period;
  });
  const clash = overlappingPeriods(out);
  if (clash) {
    const show = (i: number) => `${out[i]!.validFrom ? formatDate(out[i]!.validFrom!) : 'open'}..${out[i]!.validTo ? formatDate(out[i]!.validTo!) : 'open'}`;
    throw ValidationError.field(field, `rate periods ${clash[0]} (${show(clash[0])}) and ${clash[1]} (${show(clash[1])}) overlap`);
  }
  return out;
}

function requireName(name: string | null | undefined): string {
  const n = name?.trim();
  if (!n) throw ValidationError.field('name', 'must not be empty');
  if (n.length > 250) throw ValidationError.field('name', 'must be at most 250 characters');
  return n;
}

function nameEnOrNull(nameEn: string | null | undefined): string | null {
  const n = nameEn?.trim() || null;
  if (n && n.length > 250) throw ValidationError.field('nameEn', 'must be at most 250 characters');
  return n;
}

/** A custom tax code of a client account with its rate history, in one transaction. */
export async function createTaxCode(ctx: RequestContext, input: CreateTaxCodeInput, query: Query = {}) {
  await requireAccount(ctx, input.clientAccountId);
  const code = input.code.trim();
  if (!TAX_CODE_RE.test(code)) throw ValidationError.field('code', "must be 1 to 10 letters, digits, '.', '_' or '-'");
  const standardTaxCode = input.standardTaxCode.trim().toUpperCase();
  if (!STANDARD_TAX_CODE_VALUES.has(standardTaxCode)) {
    throw ValidationError.field('standardTaxCode', `must be one of the SAF-T standard tax codes (${[...STANDARD_TAX_CODE_VALUES].join(', ')})`);
  }
  const validity = { validFrom: input.validFrom ?? null, validTo: input.validTo ?? null };
  if (isReversed(validity)) throw ValidationError.field('validTo', 'must not be before validFrom');
  const name = requireName(input.name);
  const nameEn = nameEnOrNull(input.nameEn);
  const rates = checkRates(input.rates ?? []);

  return ctx.db.$transaction(async (tx) => {
    const clash = await tx.taxCode.findUnique({ where: { clientAccountId_code: { clientAccountId: input.clientAccountId, code } }, select: { id: true } });
    if (clash) throw ValidationError.field('code', `'${code}' is already used by tax code ${clash.id}`);
    const created = await tx.taxCode.create({
      data: {
        clientAccountId: input.clientAccountId,
        code,
        standardTaxCode,
        direction: input.direction,
        name,
        nameEn,
        ...validity,
        isActive: input.isActive ?? true,
      },
      select: { id: true },
    });
    if (rates.length) await tx.taxRate.createMany({ data: rates.map((r) => ({ ...r, taxCodeId: created.id })) });
    return tx.taxCode.findUniqueOrThrow({ ...query, where: { id: created.id } });
  });
}

export async function updateTaxCode(ctx: RequestContext, id: number, input: UpdateTaxCodeInput, query: Query = {}) {
  const current = await getTaxCode(ctx, id);
  const data: PrismaNS.TaxCodeUncheckedUpdateInput = {};
  if (input.name !== undefined) data.name = requireName(input.name);
  if (input.nameEn !== undefined) data.nameEn = nameEnOrNull(input.nameEn);
  if (input.isActive === null) throw ValidationError.field('isActive', 'must not be null');
  if (input.isActive !== undefined) data.isActive = input.isActive;
  if (input.validFrom !== undefined) data.validFrom = input.validFrom;
  if (input.validTo !== undefined) data.validTo = input.validTo;
  const validity = {
    validFrom: input.validFrom !== undefined ? input.validFrom : current.validFrom,
    validTo: input.validTo !== undefined ? input.validTo : current.validTo,
  };
  if (isReversed(validity)) throw ValidationError.field('validTo', 'must not be before validFrom');
  return ctx.db.taxCode.update({ ...query, where: { id }, data });
}

/**
 * Replaces the rate history of a tax code (standard codes too: rates change with the law), in one
 * transaction. The new periods must not overlap.
 */
export async function setTaxRates(ctx: RequestContext, taxCodeId: number, rates: readonly TaxRateInput[], query: Query = {}) {
  await getTaxCode(ctx, taxCodeId);
  const checked = checkRates(rates);
  return ctx.db.$transaction(async (tx) => {
    await tx.taxRate.deleteMany({ where: { taxCodeId } });
    if (checked.length) await tx.taxRate.createMany({ data: checked.map((r) => ({ ...r, taxCodeId })) });
    return tx.taxCode.findUniqueOrThrow({ ...query, where: { id: taxCodeId } });
  });
}
