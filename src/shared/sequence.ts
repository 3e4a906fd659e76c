import type { RequestContext } from './context.ts';

/** The records numbered 1, 2, 3 … per client account, with the table whose numbers seed a new counter. */
const NUMBERED = { project: 'projects', department: 'departments', reconciliation: 'reconciliations' } as const;

export type NumberedKind = keyof typeof NUMBERED;

/**
 * The next sequence number of a kind of record in a client account, from its row in
 * sequence_counters. Call it inside the operation's transaction: the counter row stays locked until
 * the transaction ends, so concurrent creations get distinct numbers and a rolled-back one gives
 * its number back (no gaps). A counter that does not exist yet starts after the highest number in
 * the table.
 */
export async function nextSequenceNumber(ctx: RequestContext, clientAccountId: number, kind: NumberedKind): Promise<number> {
  const rows = await ctx.db.$queryRawUnsafe<{ last_value: number }[]>(
    `INSERT INTO sequence_counters (client_account_id, kind, last_value)
     VALUES ($1, $2, (SELECT COALESCE(MAX(sequence_number), 0) + 1 FROM ${NUMBERED[kind]} WHERE client_account_id = $1))
     ON CONFLICT (client_account_id, kind) DO UPDATE SET last_value = sequence_counters.last_value + 1
     RETURNING last_value`,
    clientAccountId,
    kind,
  );
  return Number(rows[0].last_value);
}
