// ISO 4217 currencies a Norwegian business commonly invoices or pays in. `minorUnits` is the number of
// decimals ISO 4217 gives the currency (JPY, KRW and ISK have none). Names are the ISO 4217 English
// currency names. NOK first, then the Nordic currencies, then the rest alphabetically.

export interface CurrencyDefinition {
  code: string;
  name: string;
  minorUnits: number;
}

function currency(code: string, name: string, minorUnits = 2): CurrencyDefinition {
  return Object.freeze({ code, name, minorUnits });
}

export const CURRENCIES: readonly CurrencyDefinition[] = Object.freeze([
  currency('NOK', 'Norwegian Krone'),
  currency('SEK', 'Swedish Krona'),
  currency('DKK', 'Danish Krone'),
  currency('ISK', 'Iceland Krona', 0),
  currency('EUR', 'Euro'),
  currency('AED', 'UAE Dirham'),
  currency('AUD', 'Australian Dollar'),
  currency('BRL', 'Brazilian Real'),
  currency('CAD', 'Canadian Dollar'),
  currency('CHF', 'Swiss Franc'),
  currency('CNY', 'Yuan Renminbi'),
  currency('CZK', 'Czech Koruna'),
  currency('GBP', 'Pound Sterling'),
  currency('HKD', 'Hong Kong Dollar'),
  currency('HUF', 'Forint'),
  currency('IDR', 'Rupiah'),
  currency('ILS', 'New Israeli Sheqel'),
  currency('INR', 'Indian Rupee'),
  currency('JPY', 'Yen', 0),
  currency('KRW', 'Won', 0),
  currency('MXN', 'Mexican Peso'),
  currency('MYR', 'Malaysian Ringgit'),
  currency('NZD', 'New Zealand Dollar'),
  currency('PHP', 'Philippine Peso'),
  currency('PLN', 'Zloty'),
  currency('RON', 'Romanian Leu'),
  currency('SAR', 'Saudi Riyal'),
  currency('SGD', 'Singapore Dollar'),
  currency('THB', 'Baht'),
  currency('TRY', 'Turkish Lira'),
  currency('USD', 'US Dollar'),
  currency('ZAR', 'Rand'),
]);

const MINOR_UNITS = new Map(CURRENCIES.map((c) => [c.code, c.minorUnits]));

/** The decimals of an ISO 4217 currency (NOK 2, JPY 0); 2 for one not in the list. */
export const minorUnitsOf = (code: string): number => MINOR_UNITS.get(code.trim()) ?? 2;
