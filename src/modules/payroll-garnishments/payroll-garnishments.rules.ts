import { z } from 'zod';
import type { GarnishmentStatus } from '../../generated/prisma/enums.ts';
import { pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { id } from '../../shared/validation.ts';
import type { GarnishmentOrder } from '../../integrations/taxauthority/garnishments.ts';

/** spec 002 "Garnishment": the statuses. Transitions are "not shown": ours are below (planFetch). */
export const GARNISHMENT_STATUSES = ['ACTIVE', 'EXPIRED', 'CANCELLED'] as const satisfies readonly GarnishmentStatus[];

export const GARNISHMENT_STATUS_DESCRIPTIONS: Record<GarnishmentStatus, string> = {
  ACTIVE: 'Listed by the tax authority and valid_to not passed (or none): to be deducted, lowest priority first',
  EXPIRED: 'Its valid_to has passed (a day before today in Norway)',
  CANCELLED: 'The tax authority no longer lists the order (lifted); it is listed again as ACTIVE or EXPIRED if the authority lists it again',
};

export const DEDUCTION_TYPE_DESCRIPTIONS = {
  FIXED: 'amount is deducted each pay period',
  PERCENTAGE: 'percentage of net pay is deducted each pay period',
} as const;

/** GET /payroll/garnishments: page 1, per_page 100 (at most 100), as the payroll contracts list. */
export const GARNISHMENT_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };
export const FETCH_RUN_PAGE_LIMITS: PageLimits = { defaultPerPage: 20, maxPerPage: 100 };

export const payrollGarnishmentRules = {
  list: z.object({
    clientAccountId: id,
    businessPartnerId: id.nullish(),
    status: z.enum(GARNISHMENT_STATUSES).nullish(),
    ...pageArgs,
  }),
  fetch: z.object({ clientAccountId: id }),
  runs: z.object({ clientAccountId: id, ...pageArgs }),
};

// ── The fetch: what the authority's answer changes (pure, so it is tested without a database) ──

/** A stored garnishment as far as the plan needs it. */
export interface StoredGarnishment {
  id: number;
  externalId: string;
  externalVersion: number;
  status: GarnishmentStatus;
}

export interface PlannedWrite {
  order: GarnishmentOrder;
  businessPartnerId: number;
  status: GarnishmentStatus;
}

export interface FetchPlan {
  create: PlannedWrite[];
  /** a newer version, or an order listed again after it was cancelled */
  update: (PlannedWrite & { id: number })[];
  /** only the status moves to EXPIRED (same version, valid_to passed) */
  expire: number[];
  /** ACTIVE orders the authority no longer lists */
  cancel: number[];
  unchanged: number;
  /** orders for persons who are no employee of the account */
  skipped: number;
  listed: number;
}

const toDate = (s: string) => new Date(`${s}T00:00:00.000Z`);

/** ACTIVE until valid_to has passed (valid_to before today), then EXPIRED; a future valid_from is still ACTIVE. */
export const statusOf = (order: Pick<GarnishmentOrder, 'valid_to'>, today: Date): GarnishmentStatus =>
  order.valid_to !== null && toDate(order.valid_to).getTime() < today.getTime() ? 'EXPIRED' : 'ACTIVE';

/**
 * What one answer of the authority does to an account's garnishments (`today`: the date in Norway):
 * - an order for a national id number no employee has: skipped (counted);
 * - an order not stored: created, ACTIVE or EXPIRED by its valid_to;
 * - a stored order with a higher version: updated (every field, raw_response);
 * - a CANCELLED stored order listed again: updated whatever its version (the authority lists it again);
 * - otherwise the same or a lower version: unchanged, except an ACTIVE one whose valid_to has now
 *   passed, which becomes EXPIRED;
 * - an ACTIVE stored order the authority no longer lists: CANCELLED (an EXPIRED one stays EXPIRED:
 *   the authority stops listing orders that ran out);
 * - the same order twice in one answer: the higher version counts.
 */
export function planFetch(stored: readonly StoredGarnishment[], orders: readonly GarnishmentOrder[], employees: ReadonlyMap<string, number>, today: Date): FetchPlan {
  const plan: FetchPlan = { create: [], update: [], expire: [], cancel: [], unchanged: 0, skipped: 0, listed: orders.length };
  const byExternal = new Map(stored.map((s) => [s.externalId, s]));
  const newest = new Map<string, GarnishmentOrder>();
  for (const order of orders) {
    const seen = newest.get(order.order_id);
    if (!seen || order.version > seen.version) newest.set(order.order_id, order);
  }
  for (const order of newest.values()) {
    const businessPartnerId = employees.get(order.person_number);
    if (businessPartnerId === undefined) {
      plan.skipped++;
      continue;
    }
    const status = statusOf(order, today);
    const existing = byExternal.get(order.order_id);
    if (!existing) plan.create.push({ order, businessPartnerId, status });
    else if (order.version > existing.externalVersion || existing.status === 'CANCELLED') plan.update.push({ id: existing.id, order, businessPartnerId, status });
    else if (existing.status === 'ACTIVE' && status === 'EXPIRED') plan.expire.push(existing.id);
    else plan.unchanged++;
  }
  for (const s of stored) if (s.status === 'ACTIVE' && !newest.has(s.externalId)) plan.cancel.push(s.id);
  return plan;
}
