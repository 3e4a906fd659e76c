import { nodesQuery, pageType, windowArgs } from '../../shared/page-type.ts';
import { wholeList } from '../../shared/pagination.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { listCost } from '../../shared/query-limits.ts';
import { fixed, formatFixed } from '../../shared/scalars.ts';
import { createTaxCode, getTaxCode, listTaxCodes, setTaxRates, updateTaxCode } from './tax-codes.service.ts';
import { rateInForce, taxCodeRules as rules, today } from './tax-codes.rules.ts';

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
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    code: t.exposeString('code'),
    standardTaxCode: t.exposeString('standardTaxCode', { description: 'SAF-T StandardTaxCode' }),
    name: t.exposeString('name'),
    nameEn: t.exposeString('nameEn', { nullable: true }),
    direction: t.expose('direction', { type: TaxDirection }),
    validFrom: t.expose('validFrom', { type: 'Date', nullable: true }),
    validTo: t.expose('validTo', { type: 'Date', nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    rates: t.relation('rates', {
      // the query cost's assumed length: VAT rates change rarely (the standard codes have at most 5 periods)
      extensions: listCost(10),
      query: { orderBy: [{ validFrom: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }] },
    }),
    rate: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Percentage in force on the date (default today); null when the code has no rate then.',
      args: { on: t.arg({ type: 'Date' }) },
      select: { rates: true },
      resolve: (code, args) => {
        const rate = rateInForce(code.rates, args.on ?? today())?.ratePercent;
        return rate ? formatFixed(rate, 2) : null;
      },
    }),
  }),
});

// Field rules (code format, standard codes, rates and periods) are the arguments' schemas in tax-codes.rules.ts.

const TaxRateInput = builder.inputType('TaxRateInput', {
  description: 'One period of a rate history; bounds inclusive, null is open. Periods of one code must not overlap.',
  fields: (t) => ({
    ratePercent: t.field({ type: 'Decimal', required: true, description: '0 to 100, at most 2 decimals' }),
    validFrom: t.field({ type: 'Date' }),
    validTo: t.field({ type: 'Date' }),
  }),
});

const CreateTaxCodeInput = builder.inputType('CreateTaxCodeInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    code: t.string({ required: true, description: "Unique in the client account: 1 to 10 letters, digits, '.', '_' or '-'" }),
    standardTaxCode: t.string({ required: true, description: 'SAF-T StandardTaxCode the code reports as (0, 1, 3, ... 92), or NA' }),
    direction: t.field({ type: TaxDirection, required: true }),
    name: t.string({ required: true }),
    nameEn: t.string(),
    validFrom: t.field({ type: 'Date' }),
    validTo: t.field({ type: 'Date' }),
    isActive: t.boolean(),
    rates: t.field({ type: [TaxRateInput], description: 'Rate history; omitted or empty: the code computes no VAT' }),
  }),
});

const UpdateTaxCodeInput = builder.inputType('UpdateTaxCodeInput', {
  description: 'Fields to change; omitted fields keep their value. Rates change with setTaxRates.',
  fields: (t) => ({
    name: t.string(),
    nameEn: t.string(),
    isActive: t.boolean(),
    validFrom: t.field({ type: 'Date' }),
    validTo: t.field({ type: 'Date' }),
  }),
});

/** taxCodes: a bounded list read whole, answered as a connection as every list. */
const TaxCodeList = pageType('TaxCodePage', TaxCode);

builder.queryFields((t) => ({

  taxCodes: t.field({
    type: TaxCodeList,
    description: 'The VAT codes of a client account, by code.',
    args: { clientAccountId: t.arg.int({ required: true }), isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all codes' }), ...windowArgs(t) },
    resolve: (_root, args, ctx, info) => wholeList(args, (filters) => listTaxCodes(ctx, filters, nodesQuery(ctx, info))),
  }),
  taxCode: t.prismaField({
    nullable: true,
    type: 'TaxCode',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getTaxCode(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createTaxCode: t.prismaField({
    type: 'TaxCode',
    description: 'A custom tax code of a client account, with its rate history.',
    args: { input: t.arg({ type: CreateTaxCodeInput, required: true }) },
    resolve: (query, _root, args, ctx) => createTaxCode(ctx, args, query),
  }),
  updateTaxCode: t.prismaField({
    type: 'TaxCode',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateTaxCodeInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateTaxCode(ctx, args, query),
  }),
  setTaxRates: t.prismaField({
    type: 'TaxCode',
    description: 'Replaces the rate history of a tax code (standard codes too: the law changes); periods must not overlap.',
    args: { taxCodeId: t.arg.int({ required: true }), rates: t.arg({ type: [TaxRateInput], required: true }) },
    resolve: (query, _root, args, ctx) => setTaxRates(ctx, args, query),
  }),
}));
