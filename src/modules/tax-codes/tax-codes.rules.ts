import { z } from 'zod';
import { TaxDirection } from '../../generated/prisma/enums.ts';
import { STANDARD_TAX_CODES } from '../../reference-data/index.ts';
import { formatDate } from '../../shared/scalars.ts';
import { decimal, evenWithIssues, flag, id, nonEmptyText, optionalText, parse, required } from '../../shared/validation.ts';

/** The rate of a tax code on a date: the period whose bounds (inclusive, open when null) contain it. */
export function rateInForce<R extends { validFrom: Date | null; validTo: Date | null }>(rates: readonly R[], on: Date): R | null {
  const t = on.getTime();
  return rates.find((r) => (!r.validFrom || r.validFrom.getTime() <= t) && (!r.validTo || r.validTo.getTime() >= t)) ?? null;
}

/** Today's date at UTC midnight, the form @db.Date columns come back in. */
export function today(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** Tax codes in the order people read them: numeric codes by number (1, 3, 11, 33), then the others by text. */
export function compareTaxCodes(a: { code: string }, b: { code: string }): number {
  const na = /^\d+$/.test(a.code) ? Number(a.code) : null;
  const nb = /^\d+$/.test(b.code) ? Number(b.code) : null;
  if (na !== null && nb !== null) return na - nb || a.code.localeCompare(b.code);
  if (na !== null) return -1;
  if (nb !== null) return 1;
  return a.code.localeCompare(b.code);
}

export interface Period {
  validFrom: Date | null;
  validTo: Date | null;
}

/** A period whose bounds are reversed (validFrom after validTo). Equal bounds are a one-day period. */
export const isReversed = (p: Period): boolean =>
  p.validFrom instanceof Date && p.validTo instanceof Date && p.validFrom.getTime() > p.validTo.getTime();

/**
 * The first pair of periods (indexes into `periods`) that share a day, or null when none do. Bounds
 * are inclusive and null is open, so [null, 2020-12-31] and [2020-12-31, null] overlap on 2020-12-31.
 */
export function overlappingPeriods(periods: readonly Period[]): [number, number] | null {
  const start = (p: Period) => p.validFrom?.getTime() ?? -Infinity;
  const end = (p: Period) => p.validTo?.getTime() ?? Infinity;
  const order = periods.map((_, i) => i).sort((i, j) => start(periods[i]!) - start(periods[j]!) || i - j);
  for (let k = 1; k < order.length; k++) {
    const prev = order[k - 1]!;
    const next = order[k]!;
    if (start(periods[next]!) <= end(periods[prev]!)) return [Math.min(prev, next), Math.max(prev, next)];
  }
  return null;
}

/** SAF-T StandardTaxCode values a tax code may report as: the 30 standard codes, or NA (not applicable). */
export const STANDARD_TAX_CODE_VALUES: ReadonlySet<string> = new Set([...STANDARD_TAX_CODES.map((t) => t.code), 'NA']);

/** A custom tax code: 1 to 10 letters, digits, '.', '_' or '-', starting with a letter or digit. */
export const TAX_CODE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,9}$/;

export const REVERSED_PERIOD_MESSAGE = 'must not be before validFrom';

/** validTo not before validFrom, on an object with both (given or stored). */
const validPeriod = (p: { validFrom?: Date | null; validTo?: Date | null }, ctx: z.RefinementCtx) => {
  if (isReversed({ validFrom: p.validFrom ?? null, validTo: p.validTo ?? null })) {
    ctx.issues.push({ code: 'custom', path: ['validTo'], message: REVERSED_PERIOD_MESSAGE, input: p.validTo });
  }
};

const showPeriod = (p: Period) => `${p.validFrom ? formatDate(p.validFrom) : 'open'}..${p.validTo ? formatDate(p.validTo) : 'open'}`;

/**
 * A rate history: each rate 0 to 100 percent with at most 2 decimals, each period with validFrom on or
 * before validTo, and no two periods sharing a day (bounds inclusive, null open).
 */
export const rateHistory = z
  .array(
    z
      .object({
        ratePercent: decimal({ precision: 5, scale: 2, min: 0, max: 100 }),
        validFrom: z.date().nullish(),
        validTo: z.date().nullish(),
      })
      .superRefine(validPeriod, evenWithIssues),
  )
  .superRefine((rates, ctx) => {
    const periods = rates.map((r) => ({ validFrom: r.validFrom ?? null, validTo: r.validTo ?? null }));
    const clash = overlappingPeriods(periods);
    if (clash) {
      const [a, b] = clash;
      ctx.issues.push({ code: 'custom', input: rates, message: `rate periods ${a} (${showPeriod(periods[a]!)}) and ${b} (${showPeriod(periods[b]!)}) overlap` });
    }
  });

/** A rate history checked (throws one ValidationError naming each rate), with open bounds as null. */
export function checkRates(rates: unknown, field = 'rates') {
  return parse(rateHistory, rates, [field]).map((r) => ({ ratePercent: r.ratePercent, validFrom: r.validFrom ?? null, validTo: r.validTo ?? null }));
}

const taxCodeFields = {
  name: nonEmptyText(250),
  nameEn: optionalText(250),
  isActive: z.boolean(required),
  validFrom: z.date().nullish(),
  validTo: z.date().nullish(),
};

/** The inputs of every tax code operation (the GraphQL fields' arguments). */
export const taxCodeRules = {
  list: z.object({ clientAccountId: id, isActive: z.boolean().nullish() }),
  create: z.object({
    input: z
      .object({
        clientAccountId: id,
        code: z.string(required).trim().regex(TAX_CODE_RE, "must be 1 to 10 letters, digits, '.', '_' or '-'"),
        standardTaxCode: z
          .string(required)
          .trim()
          .toUpperCase()
          .refine((c) => STANDARD_TAX_CODE_VALUES.has(c), `must be one of the SAF-T standard tax codes (${[...STANDARD_TAX_CODE_VALUES].join(', ')})`),
        direction: z.enum(TaxDirection, required),
        ...taxCodeFields,
        isActive: flag,
        /** omitted or empty: the code computes no VAT */
        rates: rateHistory.nullish(),
      })
      .superRefine(validPeriod, evenWithIssues),
  }),
  update: z.object({ id, input: z.object(taxCodeFields).partial() }),
  setRates: z.object({ taxCodeId: id, rates: rateHistory }),
};
