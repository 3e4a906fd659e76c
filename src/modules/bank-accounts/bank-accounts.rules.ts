import { z } from 'zod';
import { digitsOnly, isValidBankAccountNumber } from '../../shared/norwegian-ids.ts';

/**
 * Field shapes of bank accounts, used by the GraphQL input types and checked again by the service
 * (the admin CLI calls it directly). They check without transforming; the service normalises.
 */

/** ISO 9362: bank (4 letters), country (2 letters), location (2), optional branch (3); upper case. */
export const BIC_RE = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/** The usual Norwegian spelling of an account number: 1503.20.12342. */
export const formatBankAccountNumber = (digits: string): string =>
  /^\d{11}$/.test(digits) ? `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6)}` : digits;

export const bankAccountShapes = {
  accountNumber: z
    .string({ error: 'is required' })
    .refine(
      (v) => isValidBankAccountNumber(digitsOnly(v.trim())),
      'must be an 11-digit Norwegian bank account number with a valid mod-11 check digit, e.g. 1503.20.12342',
    ),
  name: z.string().trim().max(150, 'must be at most 150 characters').nullish(),
  bic: z
    .string()
    .trim()
    .refine((v) => v === '' || BIC_RE.test(v), 'must be a BIC (ISO 9362): 8 or 11 upper-case letters and digits, e.g. DNBANOKK')
    .nullish(),
  currencyCode: z
    .string()
    .trim()
    .refine((v) => /^[A-Za-z]{3}$/.test(v), 'must be an ISO 4217 currency code, e.g. NOK')
    .nullish(),
};
