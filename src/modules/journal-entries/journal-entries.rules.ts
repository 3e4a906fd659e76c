import { z } from 'zod';
import { Decimal } from '@prisma/client/runtime/client';
import { pageArgs } from '../../shared/pagination.ts';
import { currencyCode, decimal, evenWithIssues, flag, id, immutable, optionalText, required } from '../../shared/validation.ts';
import { formatDate } from '../../shared/scalars.ts';
import { asLineKind, DIMENSION_KIND_NAMES } from './dimensions.ts';
import { isBalanceAccount } from '../ledger-accounts/account-classes.ts';

/** An amount in the accounting currency: at most 2 decimals, never negative (spec 001 "Journal entries"). */
const amount = decimal({ precision: 18, scale: 2 }).refine((d) => !d.isNegative(), 'must not be negative (use the other side)');
/** An amount in the line's currency: up to 3 decimals here; the currency's own minor units are checked by the service. */
const amountFc = decimal({ precision: 18, scale: 3 }).refine((d) => !d.isNegative(), 'must not be negative (use the other side)');
/** Tax information may be negative (a credit note's VAT). */
const taxAmount = decimal({ precision: 18, scale: 2 }).nullish();
const taxAmountFc = decimal({ precision: 18, scale: 3 }).nullish();

const lineNumber = z.number().int('must be a whole number').positive('must be a positive number');

const dimensionInput = z.object({
  // GraphQL's DimensionType (BUSINESS_PARTNER) or the line type itself (businesspartner, from jobs and services)
  type: z.preprocess(asLineKind, z.enum(DIMENSION_KIND_NAMES as [string, ...string[]], { error: `must be one of ${DIMENSION_KIND_NAMES.join(', ')}` })),
  id,
  /** read-only (the record's name): ignored when a client sends a line back */
  name: z.unknown().optional(),
});

/**
 * The spec's `cancelled` string of a journal entry (spec 001: "'Y' on a cancelled original, 'C'
 * internally on a cancellation entry", else null). GraphQL shows it as it is and, beside it, as the
 * booleans `isCancelled` and `isCancellation` (CANCELLATION_FLAGS).
 */
export const CANCELLED = 'Y';
export const CANCELLATION = 'C';
export const CANCELLATION_FLAGS = {
  isCancelled: { description: "The entry is cancelled: a reversal entry undoes it (cancelled 'Y')", resolve: (e: { cancelled: string | null }) => e.cancelled === CANCELLED },
  isCancellation: { description: "The entry is the reversal that cancels another entry (cancelled 'C')", resolve: (e: { cancelled: string | null }) => e.cancelled === CANCELLATION },
} as const;

export const MAX_LINES = 5000;

const lineInput = z
  .object({
    lineId: lineNumber.nullish(),
    postingDate: z.date(required),
    accountId: id.nullish(),
    accountCode: z.string().trim().min(1, 'must not be empty').max(10, 'must be at most 10 characters').nullish(),
    description: optionalText(1000),
    debit: amount,
    credit: amount,
    debitFc: amountFc.nullish(),
    creditFc: amountFc.nullish(),
    currencyCode: currencyCode.nullish(),
    exchangeRate: decimal({ precision: 18, scale: 6 }).refine((d) => d.isPositive() && !d.isZero(), 'must be greater than 0').nullish(),
    taxCode: z.string().trim().min(1, 'must not be empty').max(10, 'must be at most 10 characters').nullish(),
    taxCodeId: id.nullish(),
    taxBaseAmount: taxAmount,
    taxBaseAmountFc: taxAmountFc,
    taxAmount,
    taxAmountFc,
    taxLine: flag,
    taxForLine: lineNumber.nullish(),
    quantity: decimal({ precision: 18, scale: 6 }).nullish(),
    dimensions: z.array(dimensionInput).max(DIMENSION_KIND_NAMES.length, `at most one dimension of each of the ${DIMENSION_KIND_NAMES.length} types`).nullish(),
  })
  .superRefine((line, ctx) => {
    if (line.accountId == null && line.accountCode == null) ctx.addIssue({ code: 'custom', path: ['accountCode'], message: 'account_code (or account_id) is required' });
    if (line.debit instanceof Decimal && line.credit instanceof Decimal && !line.debit.isZero() && !line.credit.isZero()) {
      ctx.addIssue({ code: 'custom', path: ['credit'], message: 'a line has either a debit or a credit amount; the other must be 0' });
    }
    if (line.debitFc instanceof Decimal && line.creditFc instanceof Decimal && !line.debitFc.isZero() && !line.creditFc.isZero()) {
      ctx.addIssue({ code: 'custom', path: ['creditFc'], message: 'a line has either a debit_fc or a credit_fc amount; the other must be 0' });
    }
    const seen = new Set<string>();
    for (const [k, d] of (line.dimensions ?? []).entries()) {
      if (typeof d?.type !== 'string') continue;
      if (seen.has(d.type)) ctx.addIssue({ code: 'custom', path: ['dimensions', k, 'type'], message: `a line carries at most one ${d.type} dimension` });
      seen.add(d.type);
    }
  }, evenWithIssues);

export type LineInput = z.output<typeof lineInput>;

/** Sum of debits minus sum of credits, exactly (Decimal, not floating point). */
export function difference(lines: readonly { debit: Decimal; credit: Decimal }[]): { debit: Decimal; credit: Decimal; difference: Decimal } {
  let debit = new Decimal(0);
  let credit = new Decimal(0);
  for (const l of lines) {
    debit = debit.plus(l.debit);
    credit = credit.plus(l.credit);
  }
  return { debit, credit, difference: debit.minus(credit) };
}

/** "lines do not balance: debit 125.00, credit 120.00, difference 5.00" or null when they balance to the øre. */
export function balanceError(lines: readonly { debit: Decimal; credit: Decimal }[]): string | null {
  const d = difference(lines);
  if (d.difference.isZero()) return null;
  return `lines do not balance in the accounting currency: debit ${d.debit.toFixed(2)}, credit ${d.credit.toFixed(2)}, difference ${d.difference.toFixed(2)}`;
}

/** The rules an entry's lines keep together: balance, distinct line ids, tax_for_line naming a line of the entry. */
function entryLineRules(lines: readonly LineInput[], ctx: z.RefinementCtx) {
  const ids = lines.map((l, i) => l.lineId ?? i + 1);
  const seen = new Set<number>();
  for (const [i, lineId] of ids.entries()) {
    if (seen.has(lineId)) ctx.addIssue({ code: 'custom', path: ['lines', i, 'lineId'], message: `line_id ${lineId} is used by another line of the entry` });
    seen.add(lineId);
  }
  for (const [i, l] of lines.entries()) {
    if (l.taxForLine != null && !seen.has(l.taxForLine)) {
      ctx.addIssue({ code: 'custom', path: ['lines', i, 'taxForLine'], message: `names line_id ${l.taxForLine}, which is not a line of the entry` });
    }
    if (l.taxForLine != null && l.taxForLine === ids[i]) ctx.addIssue({ code: 'custom', path: ['lines', i, 'taxForLine'], message: 'a line cannot carry its own VAT' });
  }
  const error = balanceError(lines);
  if (error) ctx.addIssue({ code: 'custom', path: ['lines'], message: error });
}

const lines = z
  .array(lineInput, required)
  .min(2, 'an entry needs at least two lines (a debit and a credit)')
  .max(MAX_LINES, `an entry has at most ${MAX_LINES} lines`);

const entryFields = {
  description: optionalText(1000),
  voucherId: id.nullish(),
  /** what the entry belongs to (e.g. document, bank_transaction); free text, lower-case by convention */
  relationType: z.string().trim().max(50, 'must be at most 50 characters').transform((v) => v || null).nullish(),
  relationId: id.nullish(),
  /** false (the default) posts the entry; true keeps it as a draft */
  isDraft: flag,
  /** the opening balance of its year (our extension; false by default, so spec 001's clients see no change) */
  isOpeningBalance: flag,
};

/** The inputs of every journal entry operation (the GraphQL fields' arguments). */
export const journalEntryRules = {
  list: z.object({
    clientAccountId: id,
    dateFrom: z.date().nullish(),
    dateTo: z.date().nullish(),
    relationType: z.string().max(50, 'must be at most 50 characters').nullish(),
    relationId: id.nullish(),
    includeDrafts: z.boolean().nullish(),
    ...pageArgs,
  }),
  create: z.object({
    input: z.object({ clientAccountId: id, ...entryFields, lines }).superRefine((e, ctx) => entryLineRules(e.lines, ctx)),
  }),
  update: z.object({
    id,
    /** replaces the draft: every line is sent; client_account_id may be sent back but not changed */
    input: z.object({ clientAccountId: immutable, ...entryFields, lines }).superRefine((e, ctx) => entryLineRules(e.lines, ctx)),
  }),
  cancel: z.object({
    id,
    /** only 'Y' acts; anything else (or nothing but the key) is a no-op */
    cancelled: z
      .unknown()
      .refine((v) => v !== undefined, 'is required')
      .refine((v) => typeof v !== 'string' || v.length <= 100, 'must be at most 100 characters (Y cancels)')
      .refine((v) => typeof v !== 'object' || v === null, "must be a scalar ('Y' cancels)")
      .optional(),
    cancellationReason: z.string().trim().max(1000, 'must be at most 1000 characters').nullish(),
  }),
  post: z.object({ id }),
  balance: z.object({
    clientAccountId: id,
    accountId: id.nullish(),
    accountCode: z.string().trim().max(10).nullish(),
    dateFrom: z.date().nullish(),
    dateTo: z.date().nullish(),
    includeDrafts: z.boolean().nullish(),
  }),
};

// ── Opening balances ──────────────────────────────────────────────────────────────────────────────

/** The year an opening balance dated `date` opens. */
export const openingYear = (date: Date): number => date.getUTCFullYear();

/**
 * What makes an entry an opening balance (README "The ledger"): every line dated the same day, the
 * first of a year (1 January: client accounts have no fiscal year of their own, the reports' years
 * are calendar years), and only balance-sheet accounts (NS 4102 classes 1 and 2: result accounts
 * start every year at zero, so they have no balance to bring in). `accountCode` is the line's
 * account once resolved (undefined when it was not found: that line has its own issue already),
 * `accountField` the field the line named it by.
 */
export function openingBalanceIssues(
  lines: readonly { postingDate: Date; accountCode?: string; accountField?: 'accountCode' | 'accountId' }[],
): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const first = lines[0]?.postingDate;
  for (const [i, l] of lines.entries()) {
    if (first && l.postingDate.getTime() !== first.getTime()) {
      issues.push({ path: ['lines', i, 'postingDate'], message: `every line of an opening balance has the same posting date: ${formatDate(l.postingDate)} differs from the first line's ${formatDate(first)}` });
    } else if (i === 0 && (l.postingDate.getUTCMonth() !== 0 || l.postingDate.getUTCDate() !== 1)) {
      // once, on the first line: the others share its date or are named for differing from it
      issues.push({ path: ['lines', i, 'postingDate'], message: `an opening balance is dated the first day of its year (1 January), not ${formatDate(l.postingDate)}` });
    }
    if (l.accountCode !== undefined && !isBalanceAccount(l.accountCode)) {
      issues.push({ path: ['lines', i, l.accountField ?? 'accountCode'], message: `account ${l.accountCode} is a result account: an opening balance takes balance-sheet accounts only (classes 1 and 2)` });
    }
  }
  return issues;
}

/** "2025-12-31 is in a locked period: the books are locked up to and including 2026-01-31". */
export const lockedMessage = (date: Date, lockDate: Date): string =>
  `${formatDate(date)} is in a locked period: the books are locked up to and including ${formatDate(lockDate)}`;

/** Whether a posting date falls on or before the lock date. */
export const isLocked = (date: Date, lockDate: Date | null): lockDate is Date => lockDate !== null && date.getTime() <= lockDate.getTime();

/** Today in Norway (Europe/Oslo) as a date at UTC midnight, the way Date columns are read. */
export function osloToday(now = new Date()): Date {
  const text = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  return new Date(`${text}T00:00:00.000Z`);
}

/** VAT on a base at a percentage, rounded half away from zero to `scale` decimals. */
export const taxOn = (base: Decimal, ratePercent: Decimal, scale: number): Decimal =>
  base.times(ratePercent).dividedBy(100).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
