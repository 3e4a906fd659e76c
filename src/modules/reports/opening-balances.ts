import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { formatDate } from '../../shared/scalars.ts';

const sql = PrismaNS.sql;

/**
 * Where a period's figures draw the line between its incoming balance and its movement, for the
 * reports, the SAF-T file and (through the reports) the yearly accounts: one rule, written once.
 *
 * A period starting on `from` has as incoming balance every line dated before it and the lines of
 * an opening-balance entry (journal_entries.is_opening_balance, README "The ledger") dated on it;
 * its movement is every other line dated from `from` to its end. An opening balance is dated
 * 1 January, so a year (or a period from 1 January) opens with it and never shows it as the year's
 * debits and credits; a period that starts later has it before its start anyway; and one starting
 * before it (a two-year report) shows it as movement, so incoming + movement = outgoing holds for
 * every period. The balance on a day is the incoming balance of the next day: the closing balance
 * of 31 December includes the opening balance of 1 January (yearly accounts' previous year).
 * A cancelled opening balance's reversal carries the flag and is dated the day of the cancellation:
 * the same rule places it, so with cancelled entries included the two net out in every period's
 * outgoing balance.
 *
 * Every fragment reads the line as `l` (journal_entry_lines); `date` is an ISO date (YYYY-MM-DD).
 * An opening balance is found by a semi-join on the client account's few flagged entries
 * (index (client_account_id, is_opening_balance)), so report queries keep reading lines alone.
 */

/** The line belongs to an opening-balance entry dated `date`. */
export const openingLineOn = (clientAccountId: number, date: string): PrismaNS.Sql =>
  sql`(l.posting_date = ${date}::date AND l.journal_entry_id IN (
        SELECT o.id FROM journal_entries o WHERE o.client_account_id = ${clientAccountId} AND o.is_opening_balance))`;

/** The line is in the incoming balance of a period starting `from`. */
export const incomingOf = (clientAccountId: number, from: string): PrismaNS.Sql =>
  sql`(l.posting_date < ${from}::date OR ${openingLineOn(clientAccountId, from)})`;

/** The line is movement of the period [from, to]. */
export const movementOf = (clientAccountId: number, from: string, to: string): PrismaNS.Sql =>
  sql`(l.posting_date BETWEEN ${from}::date AND ${to}::date AND NOT ${openingLineOn(clientAccountId, from)})`;

/** The line is in the balance at the end of `day`: dated on or before it, or an opening balance of the next day. */
export const balanceAt = (clientAccountId: number, day: Date): PrismaNS.Sql =>
  sql`(l.posting_date <= ${formatDate(day)}::date OR ${openingLineOn(clientAccountId, formatDate(new Date(day.getTime() + 86_400_000)))})`;
