import { createHash } from 'node:crypto';
import { isValidNationalIdNumber, isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';
import type { TaxCardAnswer } from './tax-cards.ts';

/**
 * The tax authority's tax cards for employers, simulated (see ./tax-cards.ts). The card follows from
 * the person number and the income year alone (a hash of both): one person in eight has a frikort
 * (exemption card, fribeløp 65 000), two in eight a percentage card (20–45 %), the rest a table card
 * (tables 8010–8400, 30–45 % for other income); issued in early December of the year before.
 *
 * Unknown to the sandbox (404): a person whose individual number (digits 7–9 of the national identity
 * number) is 000, and any year before 2019 or after next year. A malformed organisation or person
 * number, or no year, is a 400.
 */
export const UNKNOWN_INDIVIDUAL_NUMBER = '000';
export const FIRST_TAX_CARD_YEAR = 2019;

export function sandboxTaxCard(orgNumber: string, nationalIdNumber: string, year: number): TaxCardAnswer {
  const h = createHash('sha256').update(`skattekort:${nationalIdNumber}:${year}`).digest();
  const kind = h[0]! % 8;
  const trekk =
    kind === 0
      ? { frikort: { frikortbeloep: 65_000 } }
      : kind <= 2
        ? { trekkprosent: { prosentsats: 20 + (h[2]! % 26) } }
        : { trekktabell: { tabellnummer: String(8010 + (h[3]! % 40) * 10), prosentsats: 30 + (h[4]! % 16), antallMaanederForTrekk: 10.5 } };
  return {
    inntektsaar: year,
    arbeidsgiveridentifikator: { organisasjonsnummer: orgNumber },
    arbeidstakeridentifikator: nationalIdNumber,
    resultatPaaForespoersel: 'skattekortopplysningerOK',
    skattekort: {
      utstedtDato: `${year - 1}-12-${String(1 + (h[5]! % 10)).padStart(2, '0')}`,
      skattekortidentifikator: String(h.readUInt32BE(8)),
      forskuddstrekk: [{ trekkode: 'loennFraHovedarbeidsgiver', ...trekk }],
    },
  };
}

defineSandbox('taxauthority', (router) => {
  router.post('/tax-cards/requests', (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const org = typeof b.organisasjonsnummer === 'string' ? b.organisasjonsnummer : '';
    const person = typeof b.arbeidstakeridentifikator === 'string' ? b.arbeidstakeridentifikator : '';
    const year = b.inntektsaar;
    if (!isValidOrganizationNumber(org)) return sandboxError(res, 400, 'organisasjonsnummer must be a valid organisation number');
    if (!isValidNationalIdNumber(person)) return sandboxError(res, 400, 'arbeidstakeridentifikator must be a valid national identity number');
    if (typeof year !== 'number' || !Number.isInteger(year)) return sandboxError(res, 400, 'inntektsaar must be a year');
    if (person.slice(6, 9) === UNKNOWN_INDIVIDUAL_NUMBER) return sandboxError(res, 404, 'The tax authority knows no person with this number');
    if (year < FIRST_TAX_CARD_YEAR || year > new Date().getUTCFullYear() + 1) return sandboxError(res, 404, `No tax cards for ${year}`);
    res.json(sandboxTaxCard(org, person, year));
  });
});
