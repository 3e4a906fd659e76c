import { builder } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { getUnit, listUnits, UNIT_PAGE_LIMITS } from './units.service.ts';

/** Units of measure: system-wide and read-only (UN/ECE Recommendation 20/21 codes). */
export const Unit = builder.prismaObject('Unit', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    symbol: t.exposeString('symbol'),
    unEceRec20Code: t.exposeString('unEceRec20Code', { description: 'UN/ECE Recommendation 20 code, e.g. H87 piece, HUR hour' }),
    unEceRec21Code: t.exposeString('unEceRec21Code', { nullable: true, description: 'UN/ECE Recommendation 21 package code, when the unit is a package' }),
    description: t.exposeString('description'),
  }),
});

const UnitPage = pageType('UnitPage', Unit);

builder.queryFields((t) => ({

  units: t.field({
    type: UnitPage,
    extensions: pageCost(UNIT_PAGE_LIMITS),
    description: 'All units (page-based; per_page defaults to 100, at most 100).',
    args: {
      orderBy: t.arg.stringList({ description: 'e.g. ["symbol"] or ["-description"]' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listUnits(ctx, args, nodesQuery(ctx, info)),
  }),
  unit: t.prismaField({
    nullable: true,
    type: 'Unit',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getUnit(ctx, args, query),
  }),
}));
