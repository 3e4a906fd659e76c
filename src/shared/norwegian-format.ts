import { Decimal } from './scalars.ts';

/**
 * Norwegian number and date formatting, the one place the HTML page, the PDF and the presenters'
 * subtitles write a figure or a date as text (Excel gets real numbers and dates with number formats
 * instead, xlsx.ts). Money: `1 234,50` with a non-breaking space between thousands and a comma before
 * the two decimals, `-1 234,50` for negatives (a hyphen-minus: Helvetica's WinAnsi encoding in the
 * PDF has no U+2212). Read as an exact decimal and rounded to øre, so 1000000000003584.01 prints
 * every digit and a float like 0.1 + 0.2 prints 0,30.
 */

/** U+00A0: a thousands group never breaks across lines. */
export const THOUSANDS_SEPARATOR = '\u00a0';

const groupThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, THOUSANDS_SEPARATOR);

/**
 * A figure of a report's JSON as an exact decimal: the decimal string the routes answer
 * ("1000000000003584.01"), the balance sheet's JSON number (as its text, String() of the adapter's
 * JsonNumber), or a number. Anything else, an empty text or null is 0.
 */
export function decimalOf(value: unknown): Decimal {
  if (value === null || value === undefined || value === '') return new Decimal(0);
  try {
    return new Decimal(String(value));
  } catch {
    return new Decimal(0);
  }
}

/** A money cell: the figure with its two decimals, as text ('1250.50'); the renderers read it exactly. */
export const moneyCell = (value: unknown): string => {
  const d = decimalOf(value).toDecimalPlaces(2);
  return (d.isZero() ? new Decimal(0) : d).toFixed(2);
};

/** 1234.5 or '1234.50' → '1 234,50', -0.004 → '0,00' (never '-0,00'). */
export function formatMoney(amount: number | string): string {
  const text = moneyCell(amount);
  const [kroner, ore] = text.replace(/^-/, '').split('.');
  return `${text.startsWith('-') ? '-' : ''}${groupThousands(kroner)},${ore}`;
}

/** Whole numbers (voucher numbers, counts) without grouping, as Excel's `0` format shows them. */
export const formatInteger = (value: number): string => String(Math.round(value));

/** 'YYYY-MM-DD' → 'dd.mm.yyyy'; anything else is returned as given. */
export function formatDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  return m ? `${m[3]}.${m[2]}.${m[1]}` : iso;
}

/** '999999999' → '999 999 999' (a normal space: it is text in a sentence); other values as given. */
export function formatOrganizationNumber(value: string): string {
  const digits = value.replace(/\s/g, '');
  return /^\d{9}$/.test(digits) ? `${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)}` : value;
}
