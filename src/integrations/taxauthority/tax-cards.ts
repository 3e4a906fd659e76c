import { z } from 'zod';
import { UpstreamError, type Connector } from '../connector.ts';

/**
 * The tax authority's tax cards for employers (skattekort til arbeidsgiver): an employer asks, with
 * the service's own credentials (HTTP Basic) on behalf of its organisation number, for the tax card of
 * one employee (by national identity number) for an income year. The person number goes in the body,
 * never in a URL. The authority answers the card, or 404 when it knows no such person or year.
 *
 * A card says how tax is withheld (forskuddstrekk): by a withholding table (trekktabell: the table
 * number and the percentage used for other income), by a percentage (trekkprosent), or not until an
 * exemption amount is used up (frikort, frikortbeloep; null: no limit).
 */
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

export const forskuddstrekkSchema = z
  .object({
    trekkode: z.string(),
    trekktabell: z.object({ tabellnummer: z.string().regex(/^\d{4}$/), prosentsats: z.number().min(0).max(100), antallMaanederForTrekk: z.number() }).optional(),
    trekkprosent: z.object({ prosentsats: z.number().min(0).max(100) }).optional(),
    frikort: z.object({ frikortbeloep: z.number().min(0).nullable() }).optional(),
  })
  .loose()
  .refine((t) => [t.trekktabell, t.trekkprosent, t.frikort].filter(Boolean).length === 1, 'must hold exactly one of trekktabell, trekkprosent, frikort');

export const taxCardSchema = z
  .object({
    inntektsaar: z.number().int(),
    arbeidsgiveridentifikator: z.object({ organisasjonsnummer: z.string() }),
    arbeidstakeridentifikator: z.string(),
    resultatPaaForespoersel: z.literal('skattekortopplysningerOK'),
    skattekort: z.object({
      utstedtDato: isoDate,
      skattekortidentifikator: z.string(),
      forskuddstrekk: z.array(forskuddstrekkSchema).min(1),
    }),
  })
  .loose();
export type TaxCardAnswer = z.infer<typeof taxCardSchema>;

/** The card, or null when the authority has none for the person and year (its 404). */
export async function fetchTaxCard(c: Connector, q: { orgNumber: string; nationalIdNumber: string; year: number }): Promise<TaxCardAnswer | null> {
  const what = 'POST /tax-cards/requests';
  const res = await c.request('POST', '/tax-cards/requests', {
    body: { organisasjonsnummer: q.orgNumber, inntektsaar: q.year, arbeidstakeridentifikator: q.nationalIdNumber },
    accept: [404],
  });
  if (res.status === 404) return null;
  const parsed = taxCardSchema.safeParse(res.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new UpstreamError(c.service, 'malformed', `The tax authority answered a tax card in an unexpected shape${at}: ${issue?.message ?? 'invalid'} (${what})`, res.status);
  }
  return parsed.data;
}
