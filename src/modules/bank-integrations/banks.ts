import { BIC_RE } from '../bank-accounts/bank-accounts.rules.ts';

/**
 * The banks a client account can integrate with (spec 002 "Integration records", Bank): reference
 * data kept in the code. BICs are the banks' SWIFT codes as published in the SWIFT BIC directory
 * (swift.com "BIC search") and in each bank's own "SWIFT/BIC" page; Norwegian BICs have country code
 * NO, and the catalogue holds the 11-character form (branch XXX, the head office). `organization.id`
 * is our stable slug for the bank; `logo` is the bank's favicon on its own website.
 *
 * One bank needs division details for its integration agreement (`requiresDivision`): Handelsbanken,
 * whose corporate customers belong to a branch office ("kontor") that runs the agreement, so the
 * agreement names that division by number and name.
 */
export interface Bank {
  bic: string;
  organization: { id: string; name: string; logo: string; website: string; country: string };
  /** integration_config must carry division_number and division_name (strings) when enabling */
  requiresDivision: boolean;
}

const bank = (bic: string, id: string, name: string, website: string, requiresDivision = false): Bank => ({
  bic,
  organization: { id, name, logo: `${website}/favicon.ico`, website, country: 'NO' },
  requiresDivision,
});

export const BANKS: readonly Bank[] = [
  bank('DNBANOKKXXX', 'dnb', 'DNB Bank ASA', 'https://www.dnb.no'),
  bank('NDEANOKKXXX', 'nordea', 'Nordea Bank Abp, filial i Norge', 'https://www.nordea.no'),
  bank('SPSONO22XXX', 'sparebank1', 'SpareBank 1 SR-Bank ASA', 'https://www.sparebank1.no'),
  bank('HANDNOKKXXX', 'handelsbanken', 'Handelsbanken (Svenska Handelsbanken AB, filial Norge)', 'https://www.handelsbanken.no', true),
  bank('DABANO22XXX', 'danske-bank', 'Danske Bank A/S, filial Norge', 'https://danskebank.no'),
  bank('SPAVNOBBXXX', 'sparebanken-vest', 'Sparebanken Vest', 'https://www.spv.no'),
];

/** The first 8 characters of a BIC: bank, country and location; the branch does not name another bank. */
export const bicPrefix = (bic: string): string => bic.slice(0, 8);

/** ISO 9362 syntax: 8 or 11 characters, upper case (lower case is accepted and upper-cased). */
export function parseBic(raw: string): string | null {
  const bic = raw.trim().toUpperCase();
  return BIC_RE.test(bic) ? bic : null;
}

/** The catalogue's bank for a syntactically valid BIC (8 or 11 characters), matched on its 8-character prefix. */
export const bankByBic = (bic: string): Bank | undefined => BANKS.find((b) => bicPrefix(b.bic) === bicPrefix(bic));

/** The integration_settings key of a bank's integration. */
export const bankIntegrationKey = (b: Bank): string => `bank:${b.bic}`;

/** The billing add-on a client account has while any bank integration is active. */
export const BANK_INTEGRATION_ADD_ON = 'BANK_INTEGRATION';

/** The only form a bank has (spec 002: "form_type: integration-agreement"). */
export const PDF_FORM_TYPES = ['integration-agreement'] as const;
