import { z } from 'zod';
import { AutonomyLevel, Role } from '../../generated/prisma/enums.ts';
import { pageArgs } from '../../shared/pagination.ts';
import { currencyCode, filterText, flag, id, nonEmptyText, optionalChecked, organizationNumber, required } from '../../shared/validation.ts';

/** A provider account is an accounting or auditing firm: industrial classification 69.2xx. */
export const isProviderIndustryCode = (code: string | null | undefined): boolean => !!code && /^69\.2\d{0,3}$/.test(code);

/** SN2007 code as written in Brønnøysund: two digits, a dot, one to three digits (e.g. 69.201). */
export const isIndustryCode = (code: string): boolean => /^\d{2}\.\d{1,3}$/.test(code);

/** Role ids of the spec: 2 AA Accountant, 3 CA Client Account Owner, 4 BK Bookkeeper, 5 EM Employee. */
export const ROLE_IDS: Record<Role, number> = { AA: 2, CA: 3, BK: 4, EM: 5 };
export const ROLE_NAMES: Record<Role, string> = {
  AA: 'Accountant',
  CA: 'Client Account Owner',
  BK: 'Bookkeeper',
  EM: 'Employee',
};

/** AA and BK are roles of an accounting firm's staff: only on provider accounts. */
export const roleNeedsProvider = (role: Role): boolean => role === 'AA' || role === 'BK';

/** A lower-case unique name derived from a display name: "Fjord Regnskap AS" -> "fjord-regnskap-as". */
export function slugify(name: string): string {
  const map: Record<string, string> = { æ: 'ae', ø: 'o', å: 'a', ä: 'a', ö: 'o', ü: 'u' };
  const s = name
    .toLowerCase()
    .replace(/[æøåäöü]/g, (c) => map[c] ?? c)
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return s || 'account';
}

/** Roles that let their holders manage the account they are held on (settings, memberships, providers). */
export const MANAGER_ROLES: readonly Role[] = ['CA', 'AA', 'BK'];

/** Roles on a provider account that reach the accounts it serves (eligibility and management). */
export const PROVIDER_STAFF_ROLES: readonly Role[] = ['AA', 'BK'];

/**
 * Someone must remain able to manage a client account: a holder of CA, AA or BK on it, or a provider
 * serving it that has AA/BK staff. Revoking a role or unlinking a provider may not break this.
 */
export const isManageable = (state: { managerMemberships: number; staffedProviders: number }): boolean =>
  state.managerMemberships > 0 || state.staffedProviders > 0;

/**
 * An account stops being a provider when its industry code leaves 69.2xx. It may not while people
 * hold AA/BK on it or it serves other accounts: those would be left pointing at a non-provider.
 */
export function providerChangeError(
  from: string | null,
  to: string | null,
  state: { staffMemberships: number; servedAccounts: number },
): string | null {
  if (!isProviderIndustryCode(from) || isProviderIndustryCode(to)) return null;
  if (state.staffMemberships > 0) return 'the account has AA/BK memberships, which only a provider account (69.2xx) can hold';
  if (state.servedAccounts > 0) return 'the account serves other client accounts, which only a provider account (69.2xx) can';
  return null;
}

/** SN2007, e.g. 69.201 (69.2xx makes a provider account); empty or null clears it. */
const industryCode = optionalChecked(isIndustryCode, 'must be an SN2007 code such as 69.201');

const settings = {
  displayName: nonEmptyText(250),
  /** 9 digits with a mod-11 check digit, unique among client accounts */
  organizationNumber,
  industryCode,
  vatLiable: z.boolean(required),
};

const roleAssignment = z.object({
  input: z.object({
    /** email of an existing user */
    email: z.string(required),
    clientAccountId: id,
    /** AA and BK only on provider accounts */
    role: z.enum(Role, required),
  }),
});

const providerLink = z.object({ input: z.object({ providerAccountId: id, clientAccountId: id }) });

/** The inputs of every client account operation (the GraphQL fields' arguments). */
export const clientAccountRules = {
  list: z.object({
    /** true: provider accounts only; false: the others; null/undefined: all */
    isProvider: z.boolean().nullish(),
    /** matches display name, unique name and organization number, case-insensitive */
    freeText: filterText,
    ...pageArgs,
  }),
  create: z.object({
    input: z.object({
      ...settings,
      vatLiable: flag,
      /** lower-case letters, digits and -; derived from displayName when omitted */
      uniqueName: z
        .string()
        .trim()
        .toLowerCase()
        .regex(/^[a-z0-9][a-z0-9-]{0,99}$/, 'must be lower-case letters, digits and -')
        .nullish(),
      /** ISO 4217, NOK by default */
      accountingCurrency: currencyCode.nullish(),
      /** a provider account where the caller holds AA or BK; it will serve the new account */
      providerAccountId: id.nullish(),
    }),
  }),
  update: z.object({
    id,
    /** omitted fields keep their value; null clears organizationNumber, industryCode and lockDate */
    input: z.object(settings).partial().extend({
      /** postings dated on or before it are locked; may move either way */
      lockDate: z.date().nullish(),
      defaultAutonomyLevel: z.enum(AutonomyLevel, required).optional(),
    }),
  }),
  grantRole: roleAssignment,
  revokeRole: roleAssignment,
  linkProvider: providerLink,
  unlinkProvider: providerLink,
};
