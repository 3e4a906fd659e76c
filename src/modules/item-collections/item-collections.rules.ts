/**
 * Pure rules of item collection entries (spec 001 "Item collection and entry").
 */

/** Months between invoices of a recurring entry: 1 monthly, 3 quarterly, 6 half-yearly, 12 yearly. */
export const MIN_RECURRING_INTERVAL = 1;
export const MAX_RECURRING_INTERVAL = 12;

/** recurring_interval is stored null when omitted and then treated as 1 (monthly). */
export const effectiveRecurringInterval = (interval: number | null | undefined): number => interval ?? 1;

/** A recurring period may be open at either end; when both are set the end is not before the start. */
export const recurringPeriodIsValid = (start: Date | null | undefined, end: Date | null | undefined): boolean =>
  !start || !end || end.getTime() >= start.getTime();
