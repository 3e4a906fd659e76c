import { nodesQuery, pageType, windowArgs } from '../../shared/page-type.ts';
import { wholeList } from '../../shared/pagination.ts';
import { builder } from '../../builder.ts';
import { getCurrency, listCurrencies } from './currencies.service.ts';

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

/** currencies: a bounded list read whole, answered as a connection as every list. */
const CurrencyList = pageType('CurrencyPage', Currency);

builder.queryFields((t) => ({

  currencies: t.field({
    type: CurrencyList,
    description: 'All currencies, by code.',
    args: windowArgs(t),
    resolve: (_root, args, ctx, info) => wholeList(args, (filters) => listCurrencies(ctx, filters, nodesQuery(ctx, info))),
  }),
  currency: t.prismaField({
    nullable: true,
    type: 'Currency',
    args: { code: t.arg.string({ required: true, description: 'ISO 4217 code, case-insensitive' }) },
    resolve: (query, _root, args, ctx) => getCurrency(ctx, args, query),
  }),
}));
