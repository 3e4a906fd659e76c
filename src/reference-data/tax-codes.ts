// The SAF-T standard VAT codes (source/Standard_Tax_Codes.csv, all 30 codes) with their rate history.
//
// Names: the Norwegian/English descriptions of the VAT return's code list (source/mvaKodeSAFT_flat.csv),
// which say more than the SAF-T list's generic ones (1, 11 and 13 all read "Fradragsberettiget
// innenlands inngående merverdiavgift" there). Non-breaking spaces in those texts are written as plain
// spaces. Codes the VAT return does not know (0, 7, 20, 21, 22) take the SAF-T list's descriptions,
// made distinct where the list repeats itself: 0 and 20 both read "No VAT treatment" in English, so 0
// gets "(purchases)" (from its Norwegian text) and 20 our translation of its Norwegian text; 21 and 22
// have identical texts, so both get their rate category as a suffix.
//
// Direction: where the code belongs in the VAT return (mvaKodeSAFT's "kodeBrukesTilSpesifiseringAv").
//   OUTPUT  sales and withdrawals, including the zero-rated 5, 51, 52 and code 6 (turnover outside the
//           VAT Act, reported in the return without VAT).
//   INPUT   purchases: domestic input VAT (1, 11, 12, 13), VAT paid on import (14, 15), and the
//           reverse-charge purchases 81-89, 91, 92. Reverse charge computes output VAT on the purchase
//           and, for the "med fradragsrett" codes (81, 83, 86, 88, 91), an equal input VAT deduction;
//           the "uten fradragsrett" codes (82, 84, 87, 89, 92) and the zero-rated 85 give output VAT only.
//   NONE    codes that are not reported in the VAT return and never carry a VAT amount: 0 (purchases
//           without VAT), 7 (income that is not turnover under the VAT Act), 20-22 (the cost of
//           imported goods whose VAT is deducted separately with code 14/15 from the customs declaration).
//
// Rates: each code's `satstype` (from mvaKodeSAFT) joined with source/sats_flat.csv, keeping every
// historical period of that satstype. Zero-rated codes (5, 51, 52, 85) carry the single undated
// 0.00 period of `nullsats`. Codes without a rate have rates []: 0, 6, 7 and 20 have no rate category
// at all; 21 and 22 do have one in the SAF-T list (regular / middle) but only record the basis of an
// import whose VAT is posted with 14/15, so a posting with 21/22 must not compute VAT. Their category
// is kept in the name instead.
//
// validFrom/validTo: the code's validity in mvaKodeSAFT as given (1970-01-01 there means "always");
// null for the codes mvaKodeSAFT does not list and for 12, which it lists without dates.
//
// Rates change through the annual budget; sats.xml was last changed in 2023 (see ./SOURCE.md).

export type TaxDirection = 'INPUT' | 'OUTPUT' | 'NONE';

export interface TaxRatePeriod {
  /** Percent with two decimals: '25.00', '11.11', '0.00'. */
  ratePercent: string;
  /** First day the rate applies ('YYYY-MM-DD'), null when open-ended. */
  validFrom: string | null;
  /** Last day the rate applies ('YYYY-MM-DD', inclusive), null when open-ended. */
  validTo: string | null;
}

export interface DefaultTaxCode {
  code: string;
  name: string;
  nameEn: string;
  direction: TaxDirection;
  validFrom: string | null;
  validTo: string | null;
  rates: readonly TaxRatePeriod[];
}

function period(ratePercent: string, validFrom: string | null, validTo: string | null): TaxRatePeriod {
  return Object.freeze({ ratePercent, validFrom, validTo });
}

// sats.xml by satstype, oldest first (source/sats_flat.csv; validTo inclusive).
const ALMINNELIG: readonly TaxRatePeriod[] = Object.freeze([period('25.00', '2005-01-01', null)]);
const NAERINGSMIDDEL: readonly TaxRatePeriod[] = Object.freeze([period('15.00', '2012-01-01', null)]);
const REDUSERT: readonly TaxRatePeriod[] = Object.freeze([
  period('8.00', '2006-01-01', '2015-12-31'),
  period('10.00', '2016-01-01', '2017-12-31'),
  period('12.00', '2018-01-01', '2020-03-31'),
  period('6.00', '2020-04-01', '2021-09-30'),
  period('12.00', '2021-10-01', null),
]);
const RAAFISK: readonly TaxRatePeriod[] = Object.freeze([period('11.11', '1970-01-01', null)]);
const NULLSATS: readonly TaxRatePeriod[] = Object.freeze([period('0.00', null, null)]);
const NO_RATE: readonly TaxRatePeriod[] = Object.freeze([]);

function taxCode(
  code: string,
  name: string,
  nameEn: string,
  direction: TaxDirection,
  validFrom: string | null,
  validTo: string | null,
  rates: readonly TaxRatePeriod[],
): DefaultTaxCode {
  return Object.freeze({ code, name, nameEn, direction, validFrom, validTo, rates });
}

export const STANDARD_TAX_CODES: readonly DefaultTaxCode[] = Object.freeze([
  taxCode('0', 'Ingen merverdiavgiftsbehandling (anskaffelser)', 'No VAT treatment (purchases)', 'NONE', null, null, NO_RATE),
  taxCode('1', 'Kjøp av varer og tjenester med fradragsrett (høy sats)', 'Purchases of goods and services with deductions (standard rate)', 'INPUT', '1970-01-01', null, ALMINNELIG),
  taxCode('3', 'Salg og uttak av varer og tjenester (høy sats)', 'Sales and withdrawals of goods and services (standard rate)', 'OUTPUT', '1970-01-01', null, ALMINNELIG),
  taxCode('5', 'Salg og uttak av varer og tjenester som er fritatt for merverdiavgift (nullsats)', 'Sales and withdrawals of goods and services exempt from value added tax (zero-rate)', 'OUTPUT', '1970-01-01', null, NULLSATS),
  taxCode('6', 'Salg og uttak av varer og tjenester som er unntatt merverdiavgiftsloven', 'Sales and withdrawals of goods and services outside the scope of the Value Added Tax Act', 'OUTPUT', '1970-01-01', null, NO_RATE),
  taxCode('7', 'Ingen merverdiavgiftsbehandling (inntekter)', 'No VAT treatment - no turnover according to the VAT legislation', 'NONE', null, null, NO_RATE),
  taxCode('11', 'Kjøp av varer og tjenester med fradragsrett (middels sats)', 'Purchases of goods and services with deductions (medium rate)', 'INPUT', '2001-07-01', null, NAERINGSMIDDEL),
  taxCode('12', 'Kjøp av fisk og andre marine viltlevende ressurser (11,11 %)', 'Purchase of fish and other marine wildlife resources (11,11 %)', 'INPUT', null, null, RAAFISK),
  taxCode('13', 'Kjøp av varer og tjenester med fradragsrett (lav sats)', 'Purchases of goods and services with deductions (low rate)', 'INPUT', '2004-01-01', null, REDUSERT),
  taxCode('14', 'Fradrag på kjøp av varer fra utlandet (merverdiavgift betalt ved innførsel, høy sats)', 'Deductions on purchases of goods from abroad, value added tax paid upon import (standard rate)', 'INPUT', '2006-01-01', null, ALMINNELIG),
  taxCode('15', 'Fradrag på kjøp av varer fra utlandet (merverdiavgift betalt ved innførsel, middels sats)', 'Deductions on purchases of goods from abroad, value added tax paid upon import (medium rate)', 'INPUT', '2006-01-01', null, NAERINGSMIDDEL),
  taxCode('20', 'Kostnad ved innførsel av varer, ingen merverdiavgiftsbehandling', 'Cost of imported goods, no VAT treatment', 'NONE', null, null, NO_RATE),
  taxCode('21', 'Kostnad ved innførsel av varer (høy sats)', 'Basis on import of goods (standard rate)', 'NONE', null, null, NO_RATE),
  taxCode('22', 'Kostnad ved innførsel av varer (middels sats)', 'Basis on import of goods (medium rate)', 'NONE', null, null, NO_RATE),
  taxCode('31', 'Salg og uttak av varer og tjenester (middels sats)', 'Sales and withdrawals of goods and services (medium rate)', 'OUTPUT', '2001-07-01', null, NAERINGSMIDDEL),
  taxCode('32', 'Salg av fisk og andre marine viltlevende ressurser (11,11 %)', 'Sales of fish and other marine wildlife resources (11,11 %)', 'OUTPUT', '1970-01-01', null, RAAFISK),
  taxCode('33', 'Salg og uttak av varer og tjenester (lav sats)', 'Sales and withdrawals of goods and services (low rate)', 'OUTPUT', '2004-03-01', null, REDUSERT),
  taxCode('51', 'Salg av klimakvoter og gull til næringsdrivende', 'Sales of emission allowances and gold to businesses/self-employed persons', 'OUTPUT', '2017-01-01', null, NULLSATS),
  taxCode('52', 'Salg av varer og tjenester til utlandet som er fritatt for merverdiavgift (nullsats)', 'Sales of goods and services exempt from value added tax to other countries (zero-rate)', 'OUTPUT', '2017-01-01', null, NULLSATS),
  taxCode('81', 'Kjøp av varer fra utlandet med fradragsrett (høy sats)', 'Purchases of goods from abroad with deductions (standard rate)', 'INPUT', '2017-01-01', null, ALMINNELIG),
  taxCode('82', 'Kjøp av varer fra utlandet uten fradragsrett (høy sats)', 'Purchases of goods from abroad without deduction entitlement (standard rate)', 'INPUT', '2017-01-01', null, ALMINNELIG),
  taxCode('83', 'Kjøp av varer fra utlandet med fradragsrett (middels sats)', 'Purchases of goods from abroad with deductions (medium rate)', 'INPUT', '2017-01-01', null, NAERINGSMIDDEL),
  taxCode('84', 'Kjøp av varer fra utlandet uten fradragsrett (middels sats)', 'Purchases of goods from abroad without deduction entitlement (medium rate)', 'INPUT', '2017-01-01', null, NAERINGSMIDDEL),
  taxCode('85', 'Kjøp av varer fra utlandet som det ikke skal beregnes merverdiavgift på (nullsats)', 'Purchases of goods from abroad with a zero-rate', 'INPUT', '2017-01-01', null, NULLSATS),
  taxCode('86', 'Kjøp av tjenester fra utlandet med fradragsrett (høy sats)', 'Purchases of services from abroad with deductions (standard rate)', 'INPUT', '2001-07-01', null, ALMINNELIG),
  taxCode('87', 'Kjøp av tjenester fra utlandet uten fradragsrett (høy sats)', 'Purchases of services from abroad without deduction entitlement (standard rate)', 'INPUT', '2001-07-01', null, ALMINNELIG),
  taxCode('88', 'Kjøp av tjenester fra utlandet med fradragsrett (lav sats)', 'Purchases of services from abroad with deductions (low rate)', 'INPUT', '2001-07-01', null, REDUSERT),
  taxCode('89', 'Kjøp av tjenester fra utlandet uten fradragsrett (lav sats)', 'Purchases of services from abroad without deduction entitlement (low rate)', 'INPUT', '2001-07-01', null, REDUSERT),
  taxCode('91', 'Kjøp av klimakvoter og gull med fradragsrett (høy sats)', 'Purchases of emission allowances and gold with deductions (standard rate)', 'INPUT', '2017-01-01', null, ALMINNELIG),
  taxCode('92', 'Kjøp av klimakvoter og gull uten fradragsrett (høy sats)', 'Purchases of emission allowances and gold without deduction entitlement (standard rate)', 'INPUT', '2017-01-01', null, ALMINNELIG),
]);

function covers(validFrom: string | null, validTo: string | null, date: string): boolean {
  // ISO dates compare correctly as strings.
  return (validFrom === null || validFrom <= date) && (validTo === null || date <= validTo);
}

/**
 * The rate in percent ('25.00') in force for `code` on `date` ('YYYY-MM-DD'), or null when the code
 * has no rate (rates []), the code itself is not valid on that date, or no rate period covers it.
 */
export function rateOn(code: DefaultTaxCode, date: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`rateOn: expected a YYYY-MM-DD date, got "${date}"`);
  if (!covers(code.validFrom, code.validTo, date)) return null;
  const rate = code.rates.find((r) => covers(r.validFrom, r.validTo, date));
  return rate ? rate.ratePercent : null;
}
