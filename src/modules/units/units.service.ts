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

type UnitRow = PrismaNS.UnitGetPayload<object>;

/**
 * A unit by id from the app's reference cache (every unit, loaded in one statement the first time),
 * synchronously once loaded. An id the cache lacks (a unit a newer deployment added) loads the units
 * once more. What embeds a unit (items' sales and stock units, collection entries) resolves it here
 * instead of a relation query of its own; their foreign keys guarantee it exists.
 */
export function unitById(ctx: RequestContext, id: number): UnitRow | Promise<UnitRow> {
  return ctx.reference.peek<Map<number, UnitRow>>('units')?.get(id) ?? loadUnit(ctx, id);
}

function loadUnit(ctx: RequestContext, id: number): UnitRow | Promise<UnitRow> {
  const load = async () => new Map((await ctx.db.unit.findMany()).map((u) => [u.id, u]));
  const found = (units: Map<number, UnitRow>, retry: boolean): UnitRow | Promise<UnitRow> => {
    const unit = units.get(id);
    if (unit) return unit;
    if (!retry) throw new NotFoundError(`Unit ${id}`);
    ctx.reference.forget('units');
    const again = ctx.reference.get('units', load);
    return again instanceof Map ? found(again, false) : again.then((u) => found(u, false));
  };
  const units = ctx.reference.get('units', load);
  return units instanceof Map ? found(units, true) : units.then((u) => found(u, true));
}

export async function getUnit(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  const unit = await ctx.db.unit.findUnique({ ...query, where: { id } });
  if (!unit) throw new NotFoundError('Unit');
  return unit;
}
