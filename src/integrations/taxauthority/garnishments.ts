import { z } from 'zod';
import type { Connector } from '../connector.ts';

/**
 * The tax authority's garnishment orders (trekkpålegg: utleggstrekk, bidragstrekk, trekk for
 * restskatt) that an employer must deduct from its employees' pay. The employer asks on behalf of its
 * organisation number, with our service's credentials (HTTP Basic), and names the persons it employs
 * (their national identity numbers, in the body so they never appear in a URL):
 *
 *   POST /garnishments/search {org_number, person_numbers: [11 digits]}
 *     → {org_number, retrieved_at, orders: [Order]}
 *
 * The answer lists every order the authority holds for the employer now: an order it no longer lists
 * has been lifted. It may list orders for persons the employer did not name (the authority knows the
 * employment relations from the a-melding). Every order's shape is checked here; anything else is a
 * 'malformed' UpstreamError.
 */

const amount = z.string().regex(/^\d{1,10}(\.\d{1,2})?$/, 'must be a positive amount with at most 2 decimals');
const percentage = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,2})?$/, 'must be a percentage with at most 2 decimals')
  .refine((v) => Number(v) > 0 && Number(v) <= 100, 'must be more than 0 and at most 100');
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

export const GARNISHMENT_DEDUCTION_TYPES = ['FIXED', 'PERCENTAGE'] as const;

export const garnishmentOrderSchema = z
  .looseObject({
    /** the authority's id of the order: our external_id */
    order_id: z.string().min(1).max(100),
    /** raised by the authority on every change of the order */
    version: z.number().int().min(1),
    /** the order's running number among the person's orders (løpenummer) */
    sequence_number: z.number().int().min(1),
    person_number: z.string().regex(/^\d{11}$/, 'must be 11 digits'),
    /** UTLEGGSTREKK, BIDRAGSTREKK, RESTSKATT … (passed on as the authority names it) */
    garnishment_type: z.string().min(1).max(50),
    deduction_type: z.enum(GARNISHMENT_DEDUCTION_TYPES),
    /** FIXED: per pay period */
    amount: amount.nullable(),
    /** PERCENTAGE: of net pay */
    percentage: percentage.nullable(),
    /** lower is deducted first */
    priority: z.number().int().min(0).max(10_000),
    creditor: z
      .looseObject({
        organization_number: z.string().regex(/^\d{9}$/, 'must be 9 digits'),
        name: z.string().min(1).max(250),
        bank_account_number: z.string().regex(/^\d{11}$/, 'must be 11 digits').nullable(),
      })
      .nullable(),
    /** KID or message for the payment to the creditor */
    payment_reference: z.string().max(50).nullable(),
    case_number: z.string().max(50).nullable(),
    valid_from: date,
    valid_to: date.nullable(),
  })
  .superRefine((o, ctx) => {
    if (o.deduction_type === 'FIXED' && o.amount === null) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'is required for a FIXED order' });
    if (o.deduction_type === 'PERCENTAGE' && o.percentage === null) ctx.addIssue({ code: 'custom', path: ['percentage'], message: 'is required for a PERCENTAGE order' });
    if (o.valid_to !== null && o.valid_to < o.valid_from) ctx.addIssue({ code: 'custom', path: ['valid_to'], message: 'is before valid_from' });
  });
export type GarnishmentOrder = z.infer<typeof garnishmentOrderSchema>;

export const garnishmentAnswerSchema = z.object({
  org_number: z.string(),
  retrieved_at: z.string(),
  orders: z.array(garnishmentOrderSchema).max(10_000),
});
export type GarnishmentAnswer = z.infer<typeof garnishmentAnswerSchema>;

/** The orders the authority holds for the employer (and the persons named). */
export function searchGarnishments(c: Connector, q: { orgNumber: string; personNumbers: readonly string[] }): Promise<GarnishmentAnswer> {
  return c.call(garnishmentAnswerSchema, 'POST', '/garnishments/search', { body: { org_number: q.orgNumber, person_numbers: q.personNumbers } });
}
