import { builder } from '../../builder.ts';
import { checkedPageWindow, parseOrderBy } from '../../shared/pagination.ts';
import { legacyPageType } from '../../shared/page-type.ts';
import { NotFoundError } from '../../shared/errors.ts';

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

const UnitPage = legacyPageType('UnitPage', 'Unit', (ctx) => ctx.db.unit);

export const UNIT_ORDER = { id: 'id', symbol: 'symbol', description: 'description', un_ece_rec_20_code: 'unEceRec20Code' };

builder.queryFields((t) => ({
  units: t.field({
    type: UnitPage,
    description: 'All units (page-based; per_page defaults to 100, at most 100).',
    args: {
      orderBy: t.arg.stringList({ description: 'e.g. ["symbol"] or ["-description"]' }),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args) => ({
      where: {},
      orderBy: parseOrderBy(args.orderBy, UNIT_ORDER, ['id']),
      window: checkedPageWindow(args, { defaultPerPage: 100, maxPerPage: 100 }),
    }),
  }),
  unit: t.prismaField({
    type: 'Unit',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const unit = await ctx.db.unit.findUnique({ ...query, where: { id: args.id } });
      if (!unit) throw new NotFoundError('Unit');
      return unit;
    },
  }),
}));
