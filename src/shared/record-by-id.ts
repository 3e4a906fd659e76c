import type { RequestContext } from './context.ts';

/** Prisma models a foreign id without a Prisma relation may name (camelCase delegates of `ctx.db`). */
export type RecordModel =
  | 'account'
  | 'bankAccount'
  | 'businessPartner'
  | 'chatMessage'
  | 'clientAccount'
  | 'currency'
  | 'document'
  | 'journalEntry'
  | 'project'
  | 'taxReturn'
  | 'voucher';

/**
 * The record a foreign id names, for a `t.prismaField` whose id column has no Prisma relation (audit
 * and history columns, report rows): `findUnique` with the selection-derived `query`, which Prisma
 * batches per tick into one statement per model and selection, so a list does not become N+1. No
 * tenancy filter here on purpose: the record's own object type checks it on the way out
 * (`tenantScoped`), as for every other path that reaches it.
 */
export function recordById<T = never>(ctx: RequestContext, model: RecordModel, id: number | null | undefined, query: object): Promise<T | null> | null {
  if (id == null) return null;
  const delegate = ctx.db[model] as unknown as { findUnique(args: object): Promise<T | null> };
  return delegate.findUnique({ ...query, where: { id } });
}
