import { z } from 'zod';
import type { Connector } from '../connector.ts';
import type { CallOptions } from './filings.ts';

/**
 * The portal's form catalogue for yearly accounts (årsregnskap): which main form and notes sub-form
 * a reporting year is filed on. The filing itself is a `yearly-accounts` instance (./filings.ts)
 * whose data names these form ids.
 */
export const yearlyAccountFormsSchema = z.object({
  reporting_year: z.number().int(),
  main_form_id: z.string().min(1).max(20),
  sub_form_id: z.string().min(1).max(20),
});
export type YearlyAccountForms = z.infer<typeof yearlyAccountFormsSchema>;

export function yearlyAccountForms(c: Connector, reportingYear: number, o: CallOptions = {}): Promise<YearlyAccountForms> {
  return c.call(yearlyAccountFormsSchema, 'GET', `/forms/yearly-accounts/${reportingYear}`, { token: o.token });
}
