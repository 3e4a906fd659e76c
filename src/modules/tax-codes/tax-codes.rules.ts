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
