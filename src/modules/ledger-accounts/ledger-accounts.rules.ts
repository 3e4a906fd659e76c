import { z } from 'zod';
import { AccountType, DimensionType } from '../../generated/prisma/enums.ts';
import { pageArgs } from '../../shared/pagination.ts';
import { filterText, flag, id, immutable, nonEmptyText, optionalText, required } from '../../shared/validation.ts';

/**
 * Account codes follow the Norwegian standard numbering: 4 digits (sub-accounts up to 8), the first
 * digit the account class 1-8.
 */
export const ACCOUNT_CODE_RE = /^[1-8]\d{3,7}$/;

/**
 * Account types a code may have, by its class (first digit):
 *   1 assets; 2 equity and liabilities; 3 operating income; 4-7 operating expenses;
 *   8 financial items and tax (income or expense), and in 88xx-89xx the result for the year and its
 *   appropriations, which the default chart (and SAF-T, resultatDisponering) keeps as EQUITY.
 */
export function allowedAccountTypes(code: string): readonly AccountType[] {
  switch (code[0]) {
    case '1':
      return ['ASSET'];
    case '2':
      return ['LIABILITY', 'EQUITY'];
    case '3':
      return ['INCOME'];
    case '4':
    case '5':
    case '6':
    case '7':
      return ['EXPENSE'];
    case '8':
      return code[1] === '8' || code[1] === '9' ? ['INCOME', 'EXPENSE', 'EQUITY'] : ['INCOME', 'EXPENSE'];
    default:
      return [];
  }
}

/** Why a code/type pair is not allowed, or null when it is. */
export function accountCodeError(code: string, accountType: AccountType): string | null {
  if (!ACCOUNT_CODE_RE.test(code)) return 'must be 4 to 8 digits starting with 1-8';
  const allowed = allowedAccountTypes(code);
  if (!allowed.includes(accountType)) {
    return `an account in class ${code[0]} must have type ${allowed.join(' or ')}, not ${accountType}`;
  }
  return null;
}

/** SAF-T grouping category and code go together: both or neither. */
export function saftGroupingError(category: string | null | undefined, code: string | null | undefined): string | null {
  return !category === !code ? null : 'saftGroupingCategory and saftGroupingCode must both be set or both be empty';
}

/**
 * The tax-code whitelist of an account: a posting line on the account may use a tax code when the
 * whitelist is empty (any code) or contains it. A line without a tax code is always allowed here.
 */
export function isTaxCodeAllowed(account: { allowedTaxCodes: readonly { taxCodeId: number }[] }, taxCodeId: number | null | undefined): boolean {
  if (taxCodeId == null || account.allowedTaxCodes.length === 0) return true;
  return account.allowedTaxCodes.some((a) => a.taxCodeId === taxCodeId);
}

/** The mandatory dimensions of an account that a posting line does not carry, in enum order. */
export function missingDimensions(
  account: { mandatoryDimensions: readonly { dimensionType: DimensionType }[] },
  providedDimensions: Iterable<DimensionType>,
): DimensionType[] {
  const provided = new Set(providedDimensions);
  return sortDimensions(account.mandatoryDimensions.map((d) => d.dimensionType).filter((d) => !provided.has(d)));
}

const DIMENSION_ORDER: readonly DimensionType[] = ['PROJECT', 'DEPARTMENT', 'BUSINESS_PARTNER', 'EMPLOYEE', 'BANK_ACCOUNT', 'ASSET', 'TAG', 'ITEM'];

/** Distinct dimensions in enum order (PROJECT, DEPARTMENT, BUSINESS_PARTNER, EMPLOYEE, BANK_ACCOUNT, ASSET, TAG, ITEM). */
export function sortDimensions(dimensions: Iterable<DimensionType>): DimensionType[] {
  const set = new Set(dimensions);
  return DIMENSION_ORDER.filter((d) => set.has(d));
}

/** An account as it is or will be after a change: what the rules across its fields need. */
export interface AccountState {
  code: string;
  accountType: AccountType;
  saftGroupingCategory?: string | null;
  saftGroupingCode?: string | null;
  defaultTaxCodeId?: number | null;
  allowedTaxCodeIds?: readonly number[] | null;
}

/**
 * The rules across an account's fields: code and type agree (reported on accountType when the type
 * is what changed), SAF-T grouping is both-or-neither, and the default tax code is in a non-empty whitelist.
 */
export function accountStateIssues(a: AccountState, typeChanged: boolean): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  const codeError = ACCOUNT_CODE_RE.test(a.code) ? accountCodeError(a.code, a.accountType) : null;
  if (codeError) issues.push({ path: [typeChanged ? 'accountType' : 'code'], message: codeError });
  const saftError = saftGroupingError(a.saftGroupingCategory, a.saftGroupingCode);
  if (saftError) issues.push({ path: ['saftGroupingCode'], message: saftError });
  const whitelist = { allowedTaxCodes: (a.allowedTaxCodeIds ?? []).map((taxCodeId) => ({ taxCodeId })) };
  if (!isTaxCodeAllowed(whitelist, a.defaultTaxCodeId)) {
    issues.push({ path: ['defaultTaxCodeId'], message: `the default tax code ${a.defaultTaxCodeId} must be one of the allowed tax codes` });
  }
  return issues;
}

const accountFields = {
  name: nonEmptyText(250),
  accountType: z.enum(AccountType, required),
  /** SAF-T 1.30 GroupingCategory and GroupingCode: both or neither */
  saftGroupingCategory: optionalText(60),
  saftGroupingCode: optionalText(10),
  /** a tax code of the same client account; in allowedTaxCodeIds when that is not empty */
  defaultTaxCodeId: id.nullish(),
  isActive: z.boolean(required),
  /** replaces the set */
  mandatoryDimensions: z.array(z.enum(DimensionType)).nullish(),
  /** replaces the whitelist; empty allows any tax code */
  allowedTaxCodeIds: z.array(id).nullish(),
};

/** The inputs of every ledger account operation (the GraphQL fields' arguments). */
export const accountRules = {
  list: z.object({
    clientAccountId: id,
    accountType: z.enum(AccountType).nullish(),
    /** default true; null lists active and inactive accounts */
    isActive: z.boolean().nullish(),
    /** lowest code, inclusive */
    codeFrom: filterText,
    /** highest code, inclusive, together with its sub-accounts (codeTo 1999 includes 19990) */
    codeTo: filterText,
    /** matches code and name, case-insensitive */
    freeText: filterText,
    ...pageArgs,
  }),
  create: z.object({
    input: z
      .object({
        clientAccountId: id,
        code: z.string(required).trim().regex(ACCOUNT_CODE_RE, 'must be 4 to 8 digits starting with 1-8'),
        ...accountFields,
        isActive: flag,
      })
      .superRefine((a, ctx) => {
        for (const issue of accountStateIssues(a, true)) ctx.issues.push({ code: 'custom', input: a, ...issue });
      }),
  }),
  update: z.object({
    id,
    /** omitted fields keep their value; code and clientAccountId may be sent back but not changed */
    input: z.object(accountFields).partial().extend({ clientAccountId: immutable, code: immutable }),
  }),
};
