import { z } from 'zod';
import type { Connector } from '../connector.ts';
import { findingSchema } from '../govportal/filings.ts';

/**
 * The tax authority's API for a company's tax return: the pre-filled data it holds for an
 * organisation and income year, and its validation of a næringsspesifikasjon before filing. The
 * filing itself goes through the government portal (../govportal/filings.ts, kind `tax-return`),
 * whose data is the næringsspesifikasjon described by `naeringsspesifikasjonSchema` below.
 */

const amount = z.string().regex(/^-?\d+\.\d{2}$/, 'must be an amount in øre, e.g. "1250.00"');

const lineSchema = z.object({
  /** a næringsspesifikasjon grouping code; null for the year's result not yet closed into equity */
  code: z.string().nullable(),
  description: z.string(),
  amount,
  accounts: z.array(z.string()),
});
const sectionSchema = z.object({ lines: z.array(lineSchema), sum: amount });

/**
 * The næringsspesifikasjon as filed (the filing instance's data), snake_case: the income statement
 * (resultatregnskap) and balance sheet (balanse) by grouping code, amounts as decimal strings with
 * two decimals (income, equity and debt positive), and the ledger accounts no code could be found for.
 */
export const naeringsspesifikasjonSchema = z.object({
  form: z.literal('naeringsspesifikasjon'),
  org_number: z.string().nullable(),
  reporting_year: z.number().int(),
  from_date: z.string(),
  to_date: z.string(),
  resultatregnskap: z.object({
    driftsinntekter: sectionSchema,
    driftskostnader: sectionSchema,
    driftsresultat: amount,
    finansinntekter: sectionSchema,
    finanskostnader: sectionSchema,
    netto_finans: amount,
    resultat_foer_skatt: amount,
    skattekostnad: sectionSchema,
    aarsresultat: amount,
    disponering: sectionSchema,
  }),
  balanse: z.object({
    eiendeler: z.object({ anleggsmidler: sectionSchema, omloepsmidler: sectionSchema, sum: amount }),
    egenkapital_og_gjeld: z.object({ egenkapital: sectionSchema, langsiktig_gjeld: sectionSchema, kortsiktig_gjeld: sectionSchema, sum: amount }),
  }),
  unmapped_accounts: z.array(z.object({ account_code: z.string(), account_name: z.string(), amount, reason: z.string() })),
});
export type NaeringsspesifikasjonData = z.infer<typeof naeringsspesifikasjonSchema>;

/** The authority's validation answer: valid when there is no error finding. */
export const validationSchema = z.object({
  valid: z.boolean(),
  findings: z.array(findingSchema),
});
export type TaxValidation = z.infer<typeof validationSchema>;

export function validateTaxReturn(c: Connector, v: { orgNumber: string; incomeYear: number; data: unknown }): Promise<TaxValidation> {
  return c.call(validationSchema, 'POST', '/tax-returns/validation', { body: { org_number: v.orgNumber, income_year: v.incomeYear, data: v.data } });
}

/**
 * The pre-filled data (skattemelding forhåndsutfylt): what third parties reported to the authority
 * for the organisation and income year. The connector checks the envelope (organisation and year);
 * the reported items are passed through as the authority shapes them.
 */
export const prefilledSchema = z
  .object({
    org_number: z.string(),
    income_year: z.number().int(),
  })
  .loose();
export type Prefilled = z.infer<typeof prefilledSchema>;

export function fetchPrefilled(c: Connector, q: { orgNumber: string; incomeYear: number }): Promise<Prefilled> {
  return c.call(prefilledSchema, 'GET', `/tax-returns/${encodeURIComponent(q.orgNumber)}/${q.incomeYear}/prefilled`);
}
