import { Prisma as PrismaNS } from '../generated/prisma/client.ts';
import type { RequestContext } from './context.ts';
import { ValidationError } from './errors.ts';

/**
 * spec 001 "States and transitions": a project or department becomes inactive (DELETE, or an update
 * with is_active false) only when no account with a mandatory dimension of its type has a non-zero
 * balance for it; otherwise 400 listing the account codes and balances. One rule for both kinds.
 */
const DIMENSIONS = {
  PROJECT: { column: 'project_id', table: 'projects', what: 'Project', noun: 'project' },
  DEPARTMENT: { column: 'department_id', table: 'departments', what: 'Department', noun: 'department' },
} as const;

export type BalancedDimension = keyof typeof DIMENSIONS;

/** An account's balance (debit − credit) for one dimension record, as the column's text (scale 2). */
export interface DimensionBalance {
  code: string;
  balance: string;
}

/** Only the move from active to inactive is checked: deactivating an inactive record again or activating one never is. */
export const deactivates = (isActive: boolean, requested: boolean | null | undefined): boolean => isActive && requested === false;

/** "Project 12 cannot be deactivated: accounts with a mandatory project dimension have a non-zero balance for it: 1500 1250.00, 2400 -300.00" */
export function deactivationMessage(dimension: BalancedDimension, id: number, balances: readonly DimensionBalance[]): string {
  const { what, noun } = DIMENSIONS[dimension];
  return `${what} ${id} cannot be deactivated: accounts with a mandatory ${noun} dimension have a non-zero balance for it: ${balances.map((b) => `${b.code} ${b.balance}`).join(', ')}`;
}

/**
 * The non-zero balances, per account code, of the posted lines (drafts left out) naming the record,
 * over the accounts whose mandatory dimensions include its type. One statement.
 */
export async function dimensionBalances(ctx: RequestContext, dimension: BalancedDimension, record: { id: number; clientAccountId: number }): Promise<DimensionBalance[]> {
  // the column and the enum literal come from the table above, never from input
  const column = PrismaNS.raw(`l.${DIMENSIONS[dimension].column}`);
  const type = PrismaNS.raw(`'${dimension}'`);
  return ctx.db.$queryRaw<DimensionBalance[]>`
    SELECT a.code, SUM(l.debit - l.credit)::text AS balance
    FROM journal_entry_lines l
    JOIN journal_entries e ON e.id = l.journal_entry_id
    JOIN accounts a ON a.id = l.account_id
    WHERE ${column} = ${record.id}
      AND l.client_account_id = ${record.clientAccountId}
      AND NOT e.is_draft
      AND EXISTS (SELECT 1 FROM account_mandatory_dimensions d WHERE d.account_id = l.account_id AND d.dimension_type = ${type})
    GROUP BY a.code
    HAVING SUM(l.debit - l.credit) <> 0
    ORDER BY a.code`;
}

/**
 * Throws the 400 when `requested` deactivates the record (see `deactivates`) and a mandatory-dimension
 * account has a balance for it. Call it inside the operation's transaction, before the write.
 */
export async function checkDeactivation(
  ctx: RequestContext,
  dimension: BalancedDimension,
  record: { id: number; clientAccountId: number; isActive: boolean },
  requested: boolean | null | undefined,
): Promise<void> {
  if (!deactivates(record.isActive, requested)) return;
  // postings naming the record read it FOR SHARE and refuse an inactive one: locking it first waits
  // for those in flight (their lines count below), and later ones see it inactive
  await ctx.db.$queryRawUnsafe(`SELECT id FROM ${DIMENSIONS[dimension].table} WHERE id = $1 FOR UPDATE`, record.id);
  const balances = await dimensionBalances(ctx, dimension, record);
  if (balances.length) throw new ValidationError(deactivationMessage(dimension, record.id, balances));
}
