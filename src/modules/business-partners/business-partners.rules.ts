import { z } from 'zod';
import { AddressType } from '../../generated/prisma/enums.ts';
import { isEmailAddress } from '../../shared/email.ts';
import { digitsOnly, isValidNationalIdNumber } from '../../shared/norwegian-ids.ts';
import { orderByNames, pageArgs } from '../../shared/pagination.ts';
import { filterText, flag, id, immutable, nonEmptyText, optionalChecked as optional, organizationNumber } from '../../shared/validation.ts';

/**
 * Business partners and their addresses: field shapes and the inputs of every operation. GraphQL and
 * the service (which the admin CLI and seeds call directly) parse with the same schemas.
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

const partnerFields = {
  name: nonEmptyText(250),
  organizationNumber,
  nationalIdNumber: optional(
    (v) => isValidNationalIdNumber(digitsOnly(v)),
    'must be a valid 11-digit Norwegian national identity number (both check digits)',
    digitsOnly,
  ),
  email: optional(isEmailAddress, 'must be a valid email address (at most 254 characters)'),
  phone: optional((v) => v.length <= 40, 'must be at most 40 characters'),
  isCustomer: flag,
  isSupplier: flag,
  isEmployee: flag,
  isShareholder: flag,
};

const maxLength = (n: number) => optional((v) => v.length <= n, `must be at most ${n} characters`);

/** An address of a type; a given type replaces the stored address of that type entirely. */
const address = z.object({
  addressType: z.enum(AddressType, { error: (i) => (i.input == null ? 'is required (POSTAL, DELIVERY or VISITING)' : undefined) }),
  line1: maxLength(250),
  line2: maxLength(250),
  postalCode: maxLength(20),
  city: maxLength(100),
  /** NO when omitted */
  countryCode: z.string().refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code in upper case, e.g. NO').nullish(),
});

/** At most one address of each type. */
const addresses = z.array(address).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((a, i) => {
    if (seen.has(a.addressType)) ctx.issues.push({ code: 'custom', path: [i, 'addressType'], message: `${a.addressType} is given more than once`, input: a });
    seen.add(a.addressType);
  });
});

/** orderBy names of businessPartners (snake_case like the REST API; camelCase is accepted too). */
export const BUSINESS_PARTNER_ORDER: Record<string, string> = {
  id: 'id',
  name: 'name',
  organization_number: 'organizationNumber',
  email: 'email',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

/** The inputs of every business partner operation (the GraphQL fields' arguments). */
export const businessPartnerRules = {
  list: z.object({
    clientAccountId: id,
    isCustomer: z.boolean().nullish(),
    isSupplier: z.boolean().nullish(),
    isEmployee: z.boolean().nullish(),
    isShareholder: z.boolean().nullish(),
    /** default true; null lists active and inactive partners */
    isActive: z.boolean().nullish(),
    /** matches name and email (case-insensitive) and the organization number (spaces ignored) */
    freeText: filterText,
    orderBy: orderByNames(BUSINESS_PARTNER_ORDER),
    ...pageArgs,
  }),
  create: z.object({ input: z.object({ clientAccountId: id, ...partnerFields, addresses: addresses.nullish() }) }),
  update: z.object({
    id,
    /** omitted fields keep their value; given address types are replaced, others kept */
    input: z.object({
      ...partnerFields,
      name: partnerFields.name.optional(),
      addresses: addresses.nullish(),
      clientAccountId: immutable,
      /** true reactivates a deactivated partner */
      isActive: flag,
    }),
  }),
};
