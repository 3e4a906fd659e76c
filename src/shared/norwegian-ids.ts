/** Check digits of Norwegian identifiers (all mod 11). */
function mod11(digits: string, weights: number[]): number | null {
  const sum = weights.reduce((acc, w, i) => acc + w * Number(digits[i]), 0);
  const check = 11 - (sum % 11);
  if (check === 11) return 0;
  if (check === 10) return null; // no valid number has this remainder
  return check;
}

/** Organisasjonsnummer: 9 digits, the last a mod-11 check digit (weights 3 2 7 6 5 4 3 2). */
export function isValidOrganizationNumber(value: string): boolean {
  return /^\d{9}$/.test(value) && mod11(value, [3, 2, 7, 6, 5, 4, 3, 2]) === Number(value[8]);
}

/** Bank account number: 11 digits, the last a mod-11 check digit (weights 5 4 3 2 7 6 5 4 3 2). */
export function isValidBankAccountNumber(value: string): boolean {
  return /^\d{11}$/.test(value) && mod11(value, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) === Number(value[10]);
}

/** Fødselsnummer / D-nummer: 11 digits with two mod-11 check digits. */
export function isValidNationalIdNumber(value: string): boolean {
  if (!/^\d{11}$/.test(value)) return false;
  const k1 = mod11(value, [3, 7, 6, 1, 8, 9, 4, 5, 2]);
  const k2 = mod11(value, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]);
  return k1 === Number(value[9]) && k2 === Number(value[10]);
}

/** Accepts common spellings ("923 609 016", "1503.12.34567") and returns the bare digits. */
export const digitsOnly = (value: string): string => value.replace(/[\s.\-]/g, '');
