import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { RequestContext } from '../../shared/context.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { findPage, pageWindow, toOrderBy, type PageLimits } from '../../shared/pagination.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { UNIT_ORDER, unitRules } from './units.rules.ts';

/** Units of measure: system-wide and read-only (UN/ECE Recommendation 20/21 codes); any caller may read them. */
type Query = { include?: PrismaNS.UnitInclude; select?: PrismaNS.UnitSelect };

export const UNIT_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

export async function listUnits(ctx: RequestContext, args: Args<typeof unitRules.list>, query: Query = {}) {
  const { orderBy, ...window } = parse(unitRules.list, args);
  return findPage(
    pageWindow(window, UNIT_PAGE_LIMITS),
    (w) => ctx.db.unit.findMany({ ...query, orderBy: toOrderBy(orderBy, UNIT_ORDER, ['id']), ...w }),
    () => ctx.db.unit.count(),
  );
}

export async function getUnit(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  const unit = await ctx.db.unit.findUnique({ ...query, where: { id } });
  if (!unit) throw new NotFoundError('Unit');
  return unit;
}
