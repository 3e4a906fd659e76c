// Reference data shipped with the product: default chart of accounts, SAF-T standard VAT codes with
// their rate history, units of measure and currencies. Provenance and terms: ./SOURCE.md.

export { DEFAULT_CHART_OF_ACCOUNTS, DEFAULT_MANDATORY_DIMENSIONS } from './chart-of-accounts.ts';
export type { AccountType, DefaultAccount } from './chart-of-accounts.ts';
export { STANDARD_TAX_CODES, rateOn } from './tax-codes.ts';
export type { DefaultTaxCode, TaxDirection, TaxRatePeriod } from './tax-codes.ts';
export { UNITS } from './units.ts';
export type { UnitDefinition } from './units.ts';
export { CURRENCIES, minorUnitsOf } from './currencies.ts';
export type { CurrencyDefinition } from './currencies.ts';
