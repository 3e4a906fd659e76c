import { z } from 'zod';
import { digitsOnly, isValidBankAccountNumber } from '../../shared/norwegian-ids.ts';
import { currencyCode, flag, id, immutable, optionalText, required } from '../../shared/validation.ts';

/**
 * Bank accounts: field shapes and the inputs of every operation, parsed by GraphQL and by the service
 * (which the admin CLI and seeds call directly).
 */

/** The ledger account an own bank account posts to when none is given (bank deposits). */
export const DEFAULT_BANK_LEDGER_CODE = '1920';
export const DEFAULT_BANK_CURRENCY = 'NOK';

/** ISO 9362: bank (4 letters), country (2 letters), location (2), optional branch (3); upper case. */
export const BIC_RE = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/** The usual Norwegian spelling of an account number: 1503.20.12342. */
export const formatBankAccountNumber = (digits: string): string =>
  /^\d{11}$/.test(digits) ? `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6)}` : digits;

/** 11 digits with a mod-11 check digit; "1503.20.12342" and spaces are accepted, the digits stored. */
const accountNumber = z
  .string(required)
  .trim()
  .refine(
    (v) => isValidBankAccountNumber(digitsOnly(v)),
    'must be an 11-digit Norwegian bank account number with a valid mod-11 check digit, e.g. 1503.20.12342',
  )
  .transform(digitsOnly);

const bankAccountFields = {
  /** null: one of the company's own accounts; otherwise a partner of the same client account */
  businessPartnerId: id.nullish(),
  name: optionalText(150),
  /** ISO 9362, upper case; empty clears it */
  bic: z
    .string()
    .trim()
    .refine((v) => v === '' || BIC_RE.test(v), 'must be a BIC (ISO 9362): 8 or 11 upper-case letters and digits, e.g. DNBANOKK')
    .transform((v) => v || null)
    .nullish(),
  /** from the currencies table; NOK when omitted or null */
  currencyCode: currencyCode.nullish(),
  /**
   * Own accounts only: an active ASSET account of the same client account. Omitted on an own
   * account without one: the account with code 1920. Partners' accounts have none.
   */
  ledgerAccountId: id.nullish(),
};

/** The inputs of every bank account operation (the GraphQL fields' arguments). */
export const bankAccountRules = {
  list: z
    .object({
      clientAccountId: id,
      businessPartnerId: id.nullish(),
      /** true: the company's own accounts; false: partners' accounts; null/omitted: both */
      own: z.boolean().nullish(),
      /** default true; null lists active and inactive accounts */
      isActive: z.boolean().nullish(),
    })
    .refine((a) => !(a.own === true && a.businessPartnerId != null), {
      path: ['own'],
      message: 'own accounts have no business partner: do not combine own: true with businessPartnerId',
    }),
  create: z.object({ input: z.object({ clientAccountId: id, accountNumber, ...bankAccountFields }) }),
  update: z.object({
    id,
    /** omitted fields keep their value; clientAccountId may be sent back but not changed */
    input: z.object({ ...bankAccountFields, accountNumber: accountNumber.optional(), clientAccountId: immutable, isActive: flag }),
  }),
};
