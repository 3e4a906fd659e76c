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
export const isReversed = (p: Period): boolean => !!p.validFrom && !!p.validTo && p.validFrom.getTime() > p.validTo.getTime();

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
