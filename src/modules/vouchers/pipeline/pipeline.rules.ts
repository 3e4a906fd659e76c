import { isValidOrganizationNumber } from '../../../shared/norwegian-ids.ts';

/**
 * The voucher pipeline's rules as pure functions of a voucher's text (the PDF text layer): the
 * document type, the total amount and the document date. They read Norwegian and English; where the
 * text says nothing they answer null rather than guess.
 */

/** spec 001 "Document types": the ones the text can tell. */
export type GuessedType = 'APINV' | 'APCRN' | 'APCIN' | 'APPIN' | 'APDEB' | 'RECPT' | 'ARINV' | 'ARCRN' | 'ARCIN' | 'ARPIN' | 'ARDEB';

/**
 * Keywords in the order they are tried: the more specific first ("kreditfaktura" and "kontantfaktura"
 * contain "faktura"). Each gives the payable type and the receivable one (a document the client
 * account issued itself).
 */
const TYPE_KEYWORDS: { pattern: RegExp; payable: GuessedType; receivable: GuessedType }[] = [
  { pattern: /\b(kreditnota|kreditfaktura|kreditering|credit\s*note|credit\s*memo)\b/u, payable: 'APCRN', receivable: 'ARCRN' },
  { pattern: /\b(proforma(faktura)?|pro\s*forma)\b/u, payable: 'APPIN', receivable: 'ARPIN' },
  { pattern: /\b(kontantfaktura|kontantsalg|cash\s*invoice)\b/u, payable: 'APCIN', receivable: 'ARCIN' },
  { pattern: /\b(inkassovarsel|inkasso|debt\s*collection)\b/u, payable: 'APDEB', receivable: 'ARDEB' },
  { pattern: /\b(kvittering|salgskvittering|receipt)\b/u, payable: 'RECPT', receivable: 'ARCIN' },
  { pattern: /\b(faktura|fakturanummer|fakturanr|invoice)\b/u, payable: 'APINV', receivable: 'ARINV' },
];

/**
 * Norwegian organisation numbers in the text: nine digits, written together or as 3+3+3 (with
 * spaces or dots), optionally as a VAT number (NO 123 456 789 MVA). Only numbers that pass the
 * modulus-11 check (Brønnøysundregistrene) count, so account and phone numbers rarely do.
 */
export function organizationNumbers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\d.])(\d{3})[ .\u00a0]?(\d{3})[ .\u00a0]?(\d{3})(?![\d,]|\.\d)/gu)) {
    const digits = m[1] + m[2] + m[3];
    if (validOrganizationNumber(digits) && !out.includes(digits)) out.push(digits);
  }
  return out;
}

/** Organisation numbers are issued from 8xx xxx xxx and 9xx xxx xxx, with a mod-11 check digit. */
const validOrganizationNumber = (digits: string): boolean => /^[89]/.test(digits) && isValidOrganizationNumber(digits);

/**
 * The document type the text suggests. A document whose first organisation number (the seller's, at
 * the top of an invoice or receipt) is the client account's own is a sales document: ARINV, ARCRN …
 * (a receipt the company issued is a cash sale, ARCIN); otherwise a purchase (APINV, APCRN, RECPT …).
 * null when no keyword is found.
 */
export function guessDocumentType(text: string, ownOrganizationNumber?: string | null): GuessedType | null {
  const lower = text.normalize('NFC').toLowerCase();
  const rule = TYPE_KEYWORDS.find((k) => k.pattern.test(lower));
  if (!rule) return null;
  const own = ownOrganizationNumber?.replace(/\D/g, '');
  const seller = organizationNumbers(text)[0];
  return own && seller === own ? rule.receivable : rule.payable;
}

/** An amount as written in Norway or abroad: 1 234,50 · 1.234,50 · 1,234.50 · 1234.50 · 1234,- · 1234 */
const AMOUNT = String.raw`(-?\d{1,3}(?:[ .,\u00a0]\d{3})+(?:[.,]\d{1,2})?|-?\d+(?:[.,]\d{1,2})?)(?:,-)?`;

/** Labels of a document's total, the strongest first; "sum eks. mva" (the net sum) is not one. */
const TOTAL_LABELS = [
  String.raw`(?:totalt\s+)?å\s+betale`,
  String.raw`beløp\s+å\s+betale`,
  String.raw`amount\s+due`,
  String.raw`total\s+(?:amount|due)`,
  String.raw`sum\s+(?:inkl\.?|inklusive)\s*(?:mva|moms)?`,
  String.raw`totalsum`,
  String.raw`totalbeløp`,
  String.raw`totalt`,
  String.raw`total`,
  String.raw`sum(?!\s+(?:eks|ekskl|excl|netto))`,
  String.raw`beløp`,
];

/**
 * "1 234,50" → "1234.50": the last separator followed by one or two digits is the decimal mark;
 * every other space, dot or comma groups thousands. null when it is not a number.
 */
export function parseAmount(written: string): string | null {
  const s = written.replace(/,-$/, '').replace(/\u00a0/g, ' ').trim();
  const m = /^(-?)([\d ., ]+?)(?:[.,](\d{1,2}))?$/.exec(s);
  if (!m) return null;
  const whole = m[2].replace(/[ .,]/g, '');
  if (!/^\d+$/.test(whole) || whole.length > 15) return null;
  const cents = (m[3] ?? '').padEnd(2, '0');
  return `${m[1]}${whole.replace(/^0+(?=\d)/, '')}.${cents}`;
}

/**
 * The document's total: the amount after the strongest total label found ("Å betale", "Total",
 * "Sum" …; on the same line, after at most a currency and a colon), as a decimal string with two
 * decimals. null when no label is followed by an amount.
 */
export function extractTotalAmount(text: string): string | null {
  const flat = text.normalize('NFC');
  for (const label of TOTAL_LABELS) {
    const re = new RegExp(String.raw`(?<![\p{L}])${label}(?![\p{L}])[^\S\n]*(?:\(?(?:nok|kr\.?|eur|usd|sek|dkk)\)?)?[^\S\n]*[:=]?[^\S\n]*(?:nok|kr\.?)?[^\S\n]*${AMOUNT}`, 'giu');
    for (const m of flat.matchAll(re)) {
      const amount = parseAmount(m[1]);
      if (amount !== null) return amount;
    }
  }
  return null;
}

const MONTHS: Record<string, number> = {
  januar: 1, january: 1, jan: 1,
  februar: 2, february: 2, feb: 2,
  mars: 3, march: 3, mar: 3,
  april: 4, apr: 4,
  mai: 5, may: 5,
  juni: 6, june: 6, jun: 6,
  juli: 7, july: 7, jul: 7,
  august: 8, aug: 8,
  september: 9, sep: 9, sept: 9,
  oktober: 10, october: 10, okt: 10, oct: 10,
  november: 11, nov: 11,
  desember: 12, december: 12, des: 12, dec: 12,
};

/** YYYY-MM-DD when the parts make a real calendar date between 1990 and 2100, else null. */
function isoDate(year: number, month: number, day: number): string | null {
  if (year < 100) year += 2000;
  if (year < 1990 || year > 2100 || month < 1 || month > 12 || day < 1) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return null;
  return date.toISOString().slice(0, 10);
}

/** Every date in the text, in order, with where it starts: 12.03.2026, 12/03/26, 2026-03-12, 12. mars 2026, March 12, 2026. */
function datesIn(text: string): { index: number; date: string }[] {
  const out: { index: number; date: string }[] = [];
  const push = (index: number, date: string | null) => date && out.push({ index, date });
  for (const m of text.matchAll(/(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)/g)) push(m.index!, isoDate(+m[1], +m[2], +m[3]));
  for (const m of text.matchAll(/(?<![\d.])(\d{1,2})[./](\d{1,2})[./](\d{4}|\d{2})(?![\d])/g)) push(m.index!, isoDate(+m[3], +m[2], +m[1]));
  for (const m of text.matchAll(/(?<!\d)(\d{1,2})\.?\s+([\p{L}]+)\.?\s+(\d{4})(?!\d)/gu)) {
    const month = MONTHS[m[2].toLowerCase()];
    if (month) push(m.index!, isoDate(+m[3], month, +m[1]));
  }
  for (const m of text.matchAll(/\b([\p{L}]+)\.?\s+(\d{1,2}),?\s+(\d{4})(?!\d)/gu)) {
    const month = MONTHS[m[1].toLowerCase()];
    if (month) push(m.index!, isoDate(+m[3], month, +m[2]));
  }
  return out.sort((a, b) => a.index - b.index);
}

/** Labels of the document date, and of dates that are not it (due date, period, delivery). */
const DATE_LABEL = /(fakturadato|kvitteringsdato|kjøpsdato|bilagsdato|dokumentdato|invoice\s+date|date\s+of\s+issue|issue\s+date|dato|date)\s*:?\s*$/iu;
const OTHER_DATE_LABEL = /(forfall\w*|due\s+date|betalingsfrist|levering\w*|periode|period|leveringsdato)\s*:?\s*$/iu;

/**
 * The document date: the first date right after a date label ("Fakturadato", "Dato", "Invoice
 * date" …), else the first date not labelled as a due or delivery date. null when there is none.
 */
export function extractDocumentDate(text: string): string | null {
  const flat = text.normalize('NFC');
  const dates = datesIn(flat);
  const before = (index: number) => flat.slice(Math.max(0, index - 30), index);
  const labelled = dates.find((d) => DATE_LABEL.test(before(d.index)) && !OTHER_DATE_LABEL.test(before(d.index)));
  if (labelled) return labelled.date;
  return dates.find((d) => !OTHER_DATE_LABEL.test(before(d.index)))?.date ?? null;
}

/** The text the similarity embedding is made of: the file name (its words) and the text layer. */
export const embeddingText = (fileName: string, text: string | null): string => `${fileName.replace(/\.[a-z0-9]{1,5}$/i, '')}\n${text ?? ''}`;
