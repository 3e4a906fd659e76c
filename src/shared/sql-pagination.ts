import { Prisma as PrismaNS } from '../generated/prisma/client.ts';
import type { RequestContext } from './context.ts';
import type { RowId } from './pagination.ts';

/**
 * findPage's `position` for a list read by SQL of its own: the 0-based index of a row in
 * `ORDER BY order` over `from` (a FROM … WHERE clause) now, or null when the row is no longer listed.
 * `order` must be the list's own order, with expressions rather than output aliases.
 */
export const sqlPosition =
  (ctx: RequestContext, idColumn: PrismaNS.Sql, from: PrismaNS.Sql, order: PrismaNS.Sql[]) =>
  async (id: RowId): Promise<number | null> => {
    const [row] = await ctx.db.$queryRaw<{ n: bigint | number }[]>`
      SELECT n FROM (SELECT ${idColumn} AS id, row_number() OVER (ORDER BY ${PrismaNS.join(order, ', ')}) - 1 AS n ${from}) o WHERE id = ${id}`;
    return row ? Number(row.n) : null;
  };
