import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, checkUnique, parse, validate, type Args } from '../../shared/validation.ts';
import { compareTaxCodes, isReversed, REVERSED_PERIOD_MESSAGE, taxCodeRules as rules } from './tax-codes.rules.ts';

type Query = { include?: PrismaNS.TaxCodeInclude; select?: PrismaNS.TaxCodeSelect };

/** The tax codes of a client account, as people read them (a short list: not paged). */
export async function listTaxCodes(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, isActive } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const codes = await ctx.db.taxCode.findMany({ ...query, where: { clientAccountId, ...(isActive == null ? {} : { isActive }) } });
  return codes.sort(compareTaxCodes);
}

export async function getTaxCode(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Tax code', await ctx.db.taxCode.findUnique({ ...query, where: { id } }));
}

/** Open bounds as null, as the columns store them. */
const period = (p: { validFrom?: Date | null; validTo?: Date | null }) => ({ validFrom: p.validFrom ?? null, validTo: p.validTo ?? null });

/** A custom tax code of a client account with its rate history. */
export async function createTaxCode(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const { input } = await check(tx, parsed, {
      check: ({ input }, _found, issues) => checkUnique(tx, issues, { model: 'taxCode', what: 'tax code', clientAccountId, field: 'code', value: input.code }),
    });
    const { rates, validFrom, validTo, ...fields } = input;
    const created = await tx.db.taxCode.create({ data: { ...fields, ...period({ validFrom, validTo }) }, select: { id: true } });
    return replaceRates(tx, created.id, rates ?? [], query);
  });
}

export async function updateTaxCode(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const current = await getTaxCode(tx, args);
    const { input } = await check(tx, parsed, {
      check: ({ input }, _found, issues) => {
        const next = { validFrom: input.validFrom !== undefined ? input.validFrom : current.validFrom, validTo: input.validTo !== undefined ? input.validTo : current.validTo };
        if (isReversed(period(next))) issues.add(['validTo'], REVERSED_PERIOD_MESSAGE);
      },
    });
    return tx.db.taxCode.update({ ...query, where: { id: current.id }, data: input });
  });
}

/**
 * Replaces the rate history of a tax code (standard codes too: rates change with the law). The new
 * periods must not overlap.
 */
export async function setTaxRates(ctx: RequestContext, args: Args<typeof rules.setRates>, query: Query = {}) {
  const parsed = parse(rules.setRates, args);
  return inTransaction(ctx, async (tx) => {
    await getTaxCode(tx, { id: args.taxCodeId });
    const { taxCodeId, rates } = await check(tx, parsed);
    return replaceRates(tx, taxCodeId, rates, query);
  });
}

async function replaceRates(tx: RequestContext, taxCodeId: number, rates: { ratePercent: PrismaNS.Decimal; validFrom?: Date | null; validTo?: Date | null }[], query: Query) {
  await tx.db.taxRate.deleteMany({ where: { taxCodeId } });
  if (rates.length) await tx.db.taxRate.createMany({ data: rates.map((r) => ({ ratePercent: r.ratePercent, ...period(r), taxCodeId })) });
  return tx.db.taxCode.findUniqueOrThrow({ ...query, where: { id: taxCodeId } });
}
