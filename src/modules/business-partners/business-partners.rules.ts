import { z } from 'zod';
import { isEmailAddress } from '../../shared/email.ts';
import { digitsOnly, isValidNationalIdNumber, isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';

/**
 * Field shapes of business partners and their addresses. The GraphQL input types validate with
 * these schemas and the service checks the same schemas again (the admin CLI and other in-process
 * callers reach the service directly), so both entry points give the same messages.
 * The schemas check and trim but do not otherwise transform; the service normalises (digits only).
 */

/** ISO 3166-1 alpha-2: the 249 officially assigned codes. */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

export const isCountryCode = (value: string): boolean => COUNTRY_CODES.has(value);


/** An empty string clears an optional field; anything else must pass `test`. */
const optional = (test: (value: string) => boolean, message: string) =>
  z
    .string()
    .trim()
    .refine((v) => v === '' || test(v), message)
    .nullish();

export const partnerShapes = {
  name: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(250, 'must be at most 250 characters'),
  organizationNumber: optional(
    (v) => isValidOrganizationNumber(digitsOnly(v)),
    'must be a valid 9-digit Norwegian organization number (mod-11 check digit)',
  ),
  nationalIdNumber: optional(
    (v) => isValidNationalIdNumber(digitsOnly(v)),
    'must be a valid 11-digit Norwegian national identity number (both check digits)',
  ),
  email: optional(isEmailAddress, 'must be a valid email address (at most 254 characters)'),
  phone: optional((v) => v.length <= 40, 'must be at most 40 characters'),
};

const maxLength = (n: number) => optional((v) => v.length <= n, `must be at most ${n} characters`);

export const addressShapes = {
  line1: maxLength(250),
  line2: maxLength(250),
  postalCode: maxLength(20),
  city: maxLength(100),
  countryCode: z
    .string()
    .refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code in upper case, e.g. NO')
    .nullish(),
};
