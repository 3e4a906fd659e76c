import { builder, tenantScoped } from '../../builder.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { fixed } from '../../shared/scalars.ts';
import { rateInForce, today } from './tax-codes.rules.ts';

export const TaxDirection = builder.enumType('TaxDirection', {
  values: { INPUT: { description: 'Purchases: input VAT' }, OUTPUT: { description: 'Sales: output VAT' }, NONE: { description: 'Not reported in the VAT return' } } as const,
});

export const TaxRate = builder.prismaObject('TaxRate', {
  description: 'The percentage of a tax code over a validity period (bounds inclusive; null is open).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    ratePercent: t.field({ type: 'Decimal', resolve: fixed('ratePercent', 2) }),
    validFrom: t.expose('validFrom', { type: 'Date', nullable: true }),
    validTo: t.expose('validTo', { type: 'Date', nullable: true }),
  }),
});

export const TaxCode = builder.prismaObject('TaxCode', {
  ...tenantScoped,
  description: 'A VAT code of a client account, reported as its SAF-T standard tax code.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId'),
    code: t.exposeString('code'),
    standardTaxCode: t.exposeString('standardTaxCode', { description: 'SAF-T StandardTaxCode' }),
    name: t.exposeString('name'),
    nameEn: t.exposeString('nameEn', { nullable: true }),
    direction: t.expose('direction', { type: TaxDirection }),
    validFrom: t.expose('validFrom', { type: 'Date', nullable: true }),
    validTo: t.expose('validTo', { type: 'Date', nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    rates: t.relation('rates', { query: { orderBy: [{ validFrom: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }] } }),
    rate: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Percentage in force on the date (default today); null when the code has no rate then.',
      args: { on: t.arg({ type: 'Date' }) },
      select: { rates: true },
      resolve: (code, args) => rateInForce(code.rates, args.on ?? today())?.ratePercent.toFixed(2) ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  taxCodes: t.prismaField({
    type: ['TaxCode'],
    description: 'The VAT codes of a client account, by code.',
    args: { clientAccountId: t.arg.int({ required: true }), isActive: t.arg.boolean({ defaultValue: true }) },
    resolve: async (query, _root, args, ctx) => {
      await requireAccount(ctx, args.clientAccountId);
      const codes = await ctx.prisma.taxCode.findMany({
        ...query,
        where: { clientAccountId: args.clientAccountId, ...(args.isActive == null ? {} : { isActive: args.isActive }) },
      });
      return codes.sort((a, b) => Number(a.code) - Number(b.code) || a.code.localeCompare(b.code));
    },
  }),
  taxCode: t.prismaField({
    type: 'TaxCode',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, args, ctx) =>
      requireOwned(ctx, 'Tax code', await ctx.prisma.taxCode.findUnique({ ...query, where: { id: args.id } })),
  }),
}));
