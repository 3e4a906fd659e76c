import { builder } from '../../builder.ts';
import { NotFoundError } from '../../shared/errors.ts';

/** ISO 4217 currencies: system-wide reference data, readable by any caller with `read`. */
export const Currency = builder.prismaObject('Currency', {
  description: 'An ISO 4217 currency.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    code: t.exposeString('code', { description: 'ISO 4217 alphabetic code, e.g. NOK' }),
    name: t.exposeString('name'),
    minorUnits: t.exposeInt('minorUnits', { description: 'Number of decimals (NOK 2, JPY 0)' }),
  }),
});

builder.queryFields((t) => ({
  currencies: t.prismaField({
    type: ['Currency'],
    description: 'All currencies, by code.',
    resolve: (query, _root, _args, ctx) => ctx.db.currency.findMany({ ...query, orderBy: { code: 'asc' } }),
  }),
  currency: t.prismaField({
    type: 'Currency',
    args: { code: t.arg.string({ required: true, description: 'ISO 4217 code, case-insensitive' }) },
    resolve: async (query, _root, args, ctx) => {
      const code = args.code.trim().toUpperCase();
      const currency = await ctx.db.currency.findUnique({ ...query, where: { code } });
      if (!currency) throw new NotFoundError(`Currency ${code}`);
      return currency;
    },
  }),
}));
