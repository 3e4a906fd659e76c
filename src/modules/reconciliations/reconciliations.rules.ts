import { cursorRules } from '../../shared/pagination.ts';
import { z } from 'zod';
import { Decimal } from '@prisma/client/runtime/client';
import { decimal, evenWithIssues, id, required } from '../../shared/validation.ts';
import type { ChainLine } from '../journal-entries/ledger-chain.ts';

// spec 001 "Reconciliation" and "Reconciliations": the inputs of every operation, and the pure rules
// of an entry's amounts (the line's side, the implied rate, the remaining open amount) and of the
// balance, so the service only reads and writes.

export const MAX_ENTRY_LINES = 1000;

/** Reconciliation lists count pages from 0 (spec 001: "page (default 0)"). */
const pageFromZero = z.number().int('must be an integer of at least 0').min(0, 'must be an integer of at least 0').nullish();
const perPage = z.number().int('must be an integer of at least 1').min(1, 'must be an integer of at least 1').nullish();

const local = decimal({ precision: 18, scale: 2 }).refine((d) => !d.isNegative(), 'must not be negative').nullish();
const foreign = decimal({ precision: 18, scale: 3 }).refine((d) => !d.isNegative(), 'must not be negative').nullish();

const entryLine = z.object({
  journalEntryLineId: id,
  /** defaults to the line's entry; when given it must be it */
  journalEntryId: id.nullish(),
  debit: local,
  credit: local,
  debitFc: foreign,
  creditFc: foreign,
  /** defaults to the line's rate (information: the line's implied rate governs the amounts) */
  exchangeRate: decimal({ precision: 18, scale: 6 }).refine((d) => d.isPositive() && !d.isZero(), 'must be greater than 0').nullish(),
});

export type EntryLineInput = z.output<typeof entryLine>;

/** At least two (spec); a proposal on an unbooked bank transaction may name one open item, the payment being the other. */
const entryLinesOf = (min: 1 | 2) => z
  .array(entryLine, required)
  .min(min, min === 2 ? 'a reconciliation needs at least two entry lines' : 'a proposal names at least one open item')
  .max(MAX_ENTRY_LINES, `a reconciliation has at most ${MAX_ENTRY_LINES} entry lines`)
  .superRefine((lines, ctx) => {
    const seen = new Map<number, number>();
    for (const [i, l] of lines.entries()) {
      if (typeof l?.journalEntryLineId !== 'number') continue;
      const first = seen.get(l.journalEntryLineId);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: [i, 'journalEntryLineId'], message: `journal entry line ${l.journalEntryLineId} is already entry line ${first}` });
      else seen.set(l.journalEntryLineId, i);
    }
  }, evenWithIssues);

const createInput = (min: 1 | 2) =>
  z.object({
    clientAccountId: id,
    date: z.date(required),
    entryLines: entryLinesOf(min),
    /** drafts come only from the automatic matching process: false (or nothing) is all a client may send */
    isDraft: z
      .boolean()
      .nullish()
      .refine((v) => v !== true, 'cannot be set: a reconciliation created here is committed; drafts come only from the automatic matching process'),
  });

export const reconciliationRules = {
  list: z.object({
    clientAccountId: id,
    dateFrom: z.date().nullish(),
    dateTo: z.date().nullish(),
    journalEntryLineId: id.nullish(),
    journalEntryId: id.nullish(),
    isDraft: z.boolean().nullish(),
    isDeleted: z.boolean().nullish(),
    page: pageFromZero,
    perPage,
    ...cursorRules,
  }),
  create: z.object({ input: createInput(2) }),
  /** what the matcher proposes about a bank transaction not yet booked: its open items only */
  proposeForPayment: z.object({ input: createInput(1) }),
  /** PATCH: exactly `{is_draft: false}`; true is refused by the service (after the deleted check, which comes first) */
  commit: z.object({ id, isDraft: z.boolean(required) }),
  remove: z.object({ id }),
  openItems: z.object({
    clientAccountId: id,
    accountId: id.nullish(),
    accountCode: z.string().trim().max(10, 'must be at most 10 characters').nullish(),
    businessPartnerId: id.nullish(),
    dateTo: z.date().nullish(),
  }),
};

// ── Open items ───────────────────────────────────────────────────────────────────────────────────

/**
 * SQL over `journal_entry_lines l` joined to its `journal_entries e`: an open item is a posted line of
 * an entry that is neither cancelled ('Y') nor a cancellation ('C'), with an amount not yet
 * reconciled. One of debit and credit is zero, so their sum is the line's amount.
 */
export const OPEN_ITEM_SQL = 'NOT e.is_draft AND e.cancelled IS NULL AND l.debit + l.credit > l.reconciled_amount';
/** SQL: what is still open of such a line, in the accounting currency. */
export const REMAINING_SQL = 'l.debit + l.credit - l.reconciled_amount';

// ── Amounts ──────────────────────────────────────────────────────────────────────────────────────

/** What an entry's amounts are checked against: its journal line as stored. */
export type LineState = Pick<ChainLine, 'debit' | 'credit' | 'debitFc' | 'creditFc' | 'currencyCode' | 'exchangeRate'> & {
  id: number;
  journalEntryId: number;
  reconciledAmount: Decimal;
  reconciledAmountFc: Decimal;
};

/** An entry with every amount settled: on the line's own side, in both currencies. */
export interface EntryAmounts {
  journalEntryLineId: number;
  journalEntryId: number;
  debit: Decimal;
  credit: Decimal;
  debitFc: Decimal;
  creditFc: Decimal;
  exchangeRate: Decimal;
}

const ZERO = new Decimal(0);
/** One minor unit of the accounting currency (spec 001: the tolerance on the local side). */
export const LOCAL_TOLERANCE = new Decimal('0.01');

const isGiven = (d: Decimal | null | undefined): d is Decimal => d != null;

/** A line's amount on its side and what of it is still open, in both currencies. */
export function openAmounts(line: LineState) {
  const isDebit = !line.debit.isZero() || (line.credit.isZero() && !line.debitFc.isZero());
  const amount = isDebit ? line.debit : line.credit;
  const amountFc = isDebit ? line.debitFc : line.creditFc;
  return { isDebit, amount, amountFc, remaining: amount.minus(line.reconciledAmount), remainingFc: amountFc.minus(line.reconciledAmountFc) };
}

/**
 * The amounts of one entry on `line` (spec 001 "Create body" and "Balancing rules"), or the issue
 * that refuses it. Nothing given: the line's own debit or credit (both currencies). An entry
 * reconciles its line on the line's side. In the accounting currency the local and foreign amounts
 * are one. In a foreign currency the line's implied rate (local ÷ foreign, not the stored
 * exchange_rate) relates them: a missing one is derived with it, and given ones must keep it within
 * one minor unit on the local side. An entry that takes the rest of the line's foreign amount takes
 * the rest of its local amount too, so a line is closed without a residue. Neither may exceed what
 * is still open.
 */
export function entryAmounts(
  input: EntryLineInput,
  line: LineState,
  accountingCurrency: string,
  minorUnits: number,
): { entry: EntryAmounts } | { field: string; message: string } {
  const { isDebit, amount, amountFc, remaining, remainingFc } = openAmounts(line);
  const side = isDebit ? 'debit' : 'credit';
  const other = isDebit ? 'credit' : 'debit';
  const givenLocal = isDebit ? input.debit : input.credit;
  const givenFc = isDebit ? input.debitFc : input.creditFc;
  const otherLocal = isDebit ? input.credit : input.debit;
  const otherFc = isDebit ? input.creditFc : input.debitFc;
  const nothing = [input.debit, input.credit, input.debitFc, input.creditFc].every((d) => !isGiven(d));

  if ((isGiven(otherLocal) && !otherLocal.isZero()) || (isGiven(otherFc) && !otherFc.isZero())) {
    return { field: other, message: `journal entry line ${line.id} is a ${side} line: it is reconciled with ${side}${isDebit ? '/debit_fc' : '/credit_fc'}, not ${other}` };
  }
  let a: Decimal;
  let f: Decimal;
  if (nothing) {
    a = amount;
    f = amountFc;
  } else if (!isGiven(givenLocal) && !isGiven(givenFc)) {
    return { field: side, message: `entry has no amount: give ${side} (or ${side}_fc) for journal entry line ${line.id}, a ${side} line` };
  } else if (line.currencyCode === accountingCurrency) {
    if (isGiven(givenLocal) && isGiven(givenFc) && !givenLocal.equals(givenFc)) {
      return { field: `${side}Fc`, message: `must equal ${side} (${givenLocal.toFixed(2)}) on a line in the accounting currency ${accountingCurrency}` };
    }
    a = givenLocal ?? givenFc!;
    f = a;
    if (a.decimalPlaces() > 2) return { field: `${side}Fc`, message: `must have at most 2 decimals in ${accountingCurrency}` };
  } else {
    if (amountFc.isZero()) return { field: `${side}Fc`, message: `journal entry line ${line.id} has no ${side}_fc amount to reconcile` };
    // the implied rate, kept as the exact fraction amount / amountFc
    const toLocal = (fc: Decimal) => fc.times(amount).dividedBy(amountFc);
    if (isGiven(givenFc) && givenFc.decimalPlaces() > minorUnits) return { field: `${side}Fc`, message: `must have at most ${minorUnits} decimals in ${line.currencyCode}` };
    if (isGiven(givenLocal) && isGiven(givenFc)) {
      a = givenLocal;
      f = givenFc;
      if (f.equals(remainingFc) && !a.equals(remaining) && a.minus(remaining).abs().lessThanOrEqualTo(LOCAL_TOLERANCE)) a = remaining;
    } else if (isGiven(givenFc)) {
      f = givenFc;
      a = f.equals(remainingFc) ? remaining : toLocal(f).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    } else {
      a = givenLocal!;
      f = a.equals(remaining) ? remainingFc : a.times(amountFc).dividedBy(amount).toDecimalPlaces(minorUnits, Decimal.ROUND_HALF_UP);
    }
    const implied = toLocal(f);
    if (implied.minus(a).abs().greaterThan(LOCAL_TOLERANCE)) {
      return {
        field: side,
        message:
          `FC scaling not preserved: ${f.toFixed(minorUnits)} ${line.currencyCode} at the line's implied rate ` +
          `(${amount.toFixed(2)} / ${amountFc.toFixed(minorUnits)}) is ${implied.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2)} ${accountingCurrency}, not ${a.toFixed(2)} ` +
          `(tolerance ${LOCAL_TOLERANCE.toFixed(2)})`,
      };
    }
  }
  if (a.isZero() && f.isZero()) return { field: side, message: `entry has no amount: ${side} is 0 for journal entry line ${line.id}` };
  if (a.greaterThan(remaining)) {
    return { field: side, message: `${a.toFixed(2)} exceeds the remaining unreconciled amount of journal entry line ${line.id} (${remaining.toFixed(2)} of ${amount.toFixed(2)})` };
  }
  if (f.greaterThan(remainingFc)) {
    return {
      field: `${side}Fc`,
      message: `${f.toFixed(minorUnits)} exceeds the remaining unreconciled amount of journal entry line ${line.id} (${remainingFc.toFixed(minorUnits)} ${line.currencyCode} of ${amountFc.toFixed(minorUnits)})`,
    };
  }
  return {
    entry: {
      journalEntryLineId: line.id,
      journalEntryId: line.journalEntryId,
      debit: isDebit ? a : ZERO,
      credit: isDebit ? ZERO : a,
      debitFc: isDebit ? f : ZERO,
      creditFc: isDebit ? ZERO : f,
      exchangeRate: input.exchangeRate ?? line.exchangeRate,
    },
  };
}

// ── Balance ──────────────────────────────────────────────────────────────────────────────────────

export type Balance =
  | { kind: 'balanced' }
  /** one foreign currency, balanced in it, a local residual (debits − credits): an exchange entry offsets it */
  | { kind: 'exchange'; residual: Decimal; currency: string }
  | { kind: 'unbalanced'; message: string };

/**
 * spec 001 "Balancing rules": local amounts must net to zero. All entries in one foreign currency,
 * balanced in it, with only the local side off: the residual is an exchange gain or loss, posted
 * automatically. Several currencies: foreign amounts are not summed, and a local residual must be
 * balanced by an agio/disagio line in the request.
 */
export function balanceOf(entries: readonly (EntryAmounts & { currencyCode: string })[], accountingCurrency: string): Balance {
  const sum = (pick: (e: EntryAmounts) => Decimal) => entries.reduce((s, e) => s.plus(pick(e)), ZERO);
  const residual = sum((e) => e.debit.minus(e.credit));
  if (residual.isZero()) return { kind: 'balanced' };
  const currencies = [...new Set(entries.map((e) => e.currencyCode))];
  const text = `entries do not balance in ${accountingCurrency}: debit ${sum((e) => e.debit).toFixed(2)}, credit ${sum((e) => e.credit).toFixed(2)}, difference ${residual.toFixed(2)}`;
  if (currencies.length === 1 && currencies[0] !== accountingCurrency) {
    const residualFc = sum((e) => e.debitFc.minus(e.creditFc));
    if (residualFc.isZero()) return { kind: 'exchange', residual, currency: currencies[0] };
    return { kind: 'unbalanced', message: `${text}; in ${currencies[0]} the difference is ${residualFc.toFixed(3).replace(/0$/, '')}` };
  }
  if (currencies.length > 1) {
    return { kind: 'unbalanced', message: `${text}; entries in ${currencies.join(', ')} are not summed across currencies: balance the residual with an agio/disagio line (8060/8160) in the request` };
  }
  return { kind: 'unbalanced', message: text };
}
