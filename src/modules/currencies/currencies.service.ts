import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { RequestContext } from '../../shared/context.ts';
import { NotFoundError } from '../../shared/errors.ts';

/** ISO 4217 currencies: system-wide reference data, readable by any caller. */
type Query = { select?: PrismaNS.CurrencySelect };

/** All currencies, by code (a short fixed list: not paged). */
export async function listCurrencies(ctx: RequestContext, _args: object = {}, query: Query = {}) {
  return ctx.db.currency.findMany({ ...query, orderBy: { code: 'asc' } });
}

/** A currency by its code, case-insensitive. */
export async function getCurrency(ctx: RequestContext, args: { code: string }, query: Query = {}) {
  const code = args.code.trim().toUpperCase();
  const currency = await ctx.db.currency.findUnique({ ...query, where: { code } });
  if (!currency) throw new NotFoundError(`Currency ${code}`);
  return currency;
}
