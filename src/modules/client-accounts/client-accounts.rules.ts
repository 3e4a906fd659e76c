import type { Role } from '../../generated/prisma/enums.ts';

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
