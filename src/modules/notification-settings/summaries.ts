import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import type { NotificationType, Role, RoleChangeKind } from '../../generated/prisma/enums.ts';
import { queueMail } from '../../mail/mail.job.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { parseDateString } from '../../shared/scalars.ts';
import { CLOSED_TASK_STATUSES } from '../tasks/tasks.rules.ts';
import { emailOptOuts, optOutKey } from './notification-settings.service.ts';
import {
  dayBefore,
  mailAddress,
  needsAttention,
  roleChangesMail,
  weeklyTodoMail,
  weekOf,
  type Recipient,
  type RoleChangeLine,
  type TodoCounts,
} from './summaries.rules.ts';

const sql = PrismaNS.sql;

/** What a summary run did. */
export interface SummaryRun {
  /** the period summarised: the week's Monday or the day (YYYY-MM-DD, Europe/Oslo) */
  period: string;
  /** mails enqueued by this run */
  sent: number;
  /** recipients who turned e-mail off for the type at the account */
  optedOut: number;
  /** recipients a run for the same period already sent to */
  alreadySent: number;
}

export interface SummaryOptions {
  /** the run's clock: the period is derived from it (the job passes its payload's or its scheduled time) */
  now: Date;
  /** links in the mail point here (BASE_URL) */
  baseUrl: string;
  /** only these client accounts (WEEKLY_TODO: the accounts summarised; ORGANIZATIONAL_ROLE_CHANGES: the provider accounts) */
  clientAccountIds?: readonly number[] | null;
}

/**
 * One summary to one user about one client account for one period, at most once: the delivery row
 * (unique per user, account, type and period) and the mail job are written in one transaction, so
 * a second run of the same period — or a concurrent one — finds the row and sends nothing.
 */
async function deliver(
  ctx: RequestContext,
  d: { userId: number; clientAccountId: number; type: NotificationType; period: string; summary: PrismaNS.InputJsonValue; mail: MailMessage },
): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    const key = { userId: d.userId, clientAccountId: d.clientAccountId, notificationType: d.type, period: parseDateString(d.period) };
    const { count } = await tx.db.notificationDelivery.createMany({ data: [{ ...key, summary: d.summary }], skipDuplicates: true });
    if (!count) return false;
    const mailJobId = await queueMail(tx, d.mail);
    await tx.db.notificationDelivery.update({ where: { userId_clientAccountId_notificationType_period: key }, data: { mailJobId }, select: { id: true } });
    return true;
  });
}

/** Sends what is due to each recipient; counts what happened. */
async function deliverAll(
  ctx: RequestContext,
  type: NotificationType,
  period: string,
  deliveries: { userId: number; clientAccountId: number; summary: PrismaNS.InputJsonValue; mail: () => MailMessage }[],
): Promise<SummaryRun> {
  const optOuts = await emailOptOuts(ctx, type, [...new Set(deliveries.map((d) => d.clientAccountId))]);
  const run: SummaryRun = { period, sent: 0, optedOut: 0, alreadySent: 0 };
  for (const d of deliveries) {
    if (optOuts.has(optOutKey(d.userId, d.clientAccountId))) run.optedOut++;
    else if (await deliver(ctx, { ...d, type, period, mail: d.mail() })) run.sent++;
    else run.alreadySent++;
  }
  return run;
}

const scope = (column: PrismaNS.Sql, ids: readonly number[] | null | undefined) => (ids ? sql`AND ${column} = ANY(${[...ids]}::int[])` : sql``);

/**
 * WEEKLY_TODO (Mondays): to every owner (CA) of a client account where something needs attention —
 * open tasks (any status but COMPLETED or CANCELLED, a client's own too), bank transactions not
 * fully booked (amount ≠ external_reconciled_amount), open questions about vouchers that are not
 * deleted, vouchers in DRAFT, draft journal entries — one mail per owner and account with the counts and links.
 */
export async function sendWeeklyTodoSummaries(ctx: RequestContext, options: SummaryOptions): Promise<SummaryRun> {
  const monday = weekOf(options.now);
  const accounts = await ctx.db.$queryRaw<({ id: number; displayName: string } & TodoCounts)[]>`
    SELECT ca.id, ca.display_name AS "displayName",
      (SELECT count(*)::int FROM tasks t WHERE t.client_account_id = ca.id AND t.status <> ALL(${[...CLOSED_TASK_STATUSES]}::text[])) AS "openTasks",
      (SELECT count(*)::int FROM bank_transactions b WHERE b.client_account_id = ca.id AND b.amount <> b.external_reconciled_amount) AS "unreconciledBankTransactions",
      (SELECT count(*)::int FROM voucher_questions q JOIN vouchers v ON v.id = q.voucher_id
        WHERE q.client_account_id = ca.id AND q.status = 'OPEN' AND v.status <> 'DELETED') AS "openVoucherQuestions",
      (SELECT count(*)::int FROM vouchers v WHERE v.client_account_id = ca.id AND v.status = 'DRAFT') AS "draftVouchers",
      (SELECT count(*)::int FROM journal_entries e WHERE e.client_account_id = ca.id AND e.is_draft) AS "draftJournalEntries"
    FROM client_accounts ca
    WHERE EXISTS (SELECT 1 FROM memberships m WHERE m.client_account_id = ca.id AND m.role = 'CA') ${scope(sql`ca.id`, options.clientAccountIds)}
    ORDER BY ca.id`;
  const due = accounts.filter(needsAttention);
  const owners = await ctx.db.membership.findMany({
    where: { role: 'CA', clientAccountId: { in: due.map((a) => a.id) } },
    select: { clientAccountId: true, userId: true, user: { select: { email: true, firstName: true, lastName: true } } },
    orderBy: [{ clientAccountId: 'asc' }, { userId: 'asc' }],
  });
  const byId = new Map(due.map((a) => [a.id, a]));
  return deliverAll(
    ctx,
    'WEEKLY_TODO',
    monday,
    owners.map((o) => {
      const { id, displayName, ...counts } = byId.get(o.clientAccountId)!;
      return {
        userId: o.userId,
        clientAccountId: id,
        summary: { ...counts },
        mail: () => ({ to: mailAddress(o.user), ...weeklyTodoMail({ recipient: o.user, account: { id, displayName }, counts, monday, baseUrl: options.baseUrl }) }),
      };
    }),
  );
}

/**
 * ORGANIZATIONAL_ROLE_CHANGES (daily): to every user of each provider account, whatever their role
 * there (spec 002: "daily summary to users of a provider account"), the roles added or removed the day
 * before (Europe/Oslo) at the client accounts it serves now; nothing on a day without changes. Who
 * does not want it turns e-mail off for the type at the provider account.
 */
export async function sendRoleChangeSummaries(ctx: RequestContext, options: SummaryOptions): Promise<SummaryRun> {
  const day = dayBefore(options.now);
  const changes = await ctx.db.$queryRaw<
    { id: number; providerAccountId: number; clientAccountId: number; userId: number; role: Role; change: RoleChangeKind; changedById: number | null }[]
  >`
    SELECT rc.id, pr.provider_account_id AS "providerAccountId", rc.client_account_id AS "clientAccountId", rc.user_id AS "userId",
           rc.role::text AS role, rc.change::text AS change, rc.changed_by_id AS "changedById"
      FROM role_changes rc
      JOIN provider_relationships pr ON pr.client_account_id = rc.client_account_id
     WHERE rc.changed_at >= (${day}::date)::timestamp AT TIME ZONE 'Europe/Oslo'
       AND rc.changed_at < (${day}::date + 1)::timestamp AT TIME ZONE 'Europe/Oslo'
       ${scope(sql`pr.provider_account_id`, options.clientAccountIds)}
     ORDER BY pr.provider_account_id, rc.client_account_id, rc.changed_at, rc.id`;
  if (!changes.length) return { period: day, sent: 0, optedOut: 0, alreadySent: 0 };

  const providerIds = [...new Set(changes.map((c) => c.providerAccountId))];
  const accountIds = [...new Set([...providerIds, ...changes.map((c) => c.clientAccountId)])];
  const userIds = [...new Set(changes.flatMap((c) => (c.changedById ? [c.userId, c.changedById] : [c.userId])))];
  const [accounts, people, staff] = await Promise.all([
    ctx.db.clientAccount.findMany({ where: { id: { in: accountIds } }, select: { id: true, displayName: true, organizationNumber: true } }),
    ctx.db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true, firstName: true, lastName: true } }),
    ctx.db.membership.findMany({
      where: { clientAccountId: { in: providerIds } },
      distinct: ['userId', 'clientAccountId'],
      select: { clientAccountId: true, userId: true, user: { select: { email: true, firstName: true, lastName: true } } },
      orderBy: [{ clientAccountId: 'asc' }, { userId: 'asc' }],
    }),
  ]);
  const account = new Map(accounts.map((a) => [a.id, a]));
  // a user deleted since: the log keeps the id, the mail says so
  const person = new Map<number, Recipient>(people.map((p) => [p.id, p]));
  const personOf = (id: number): Recipient => person.get(id) ?? { email: `bruker ${id} (slettet)`, firstName: null, lastName: null };

  return deliverAll(
    ctx,
    'ORGANIZATIONAL_ROLE_CHANGES',
    day,
    staff.map((s) => {
      const mine = changes.filter((c) => c.providerAccountId === s.clientAccountId);
      const clients = [...new Set(mine.map((c) => c.clientAccountId))].map((id) => ({
        displayName: account.get(id)!.displayName,
        organizationNumber: account.get(id)!.organizationNumber,
        changes: mine
          .filter((c) => c.clientAccountId === id)
          .map((c): RoleChangeLine => ({ role: c.role, change: c.change, person: personOf(c.userId), changedBy: c.changedById ? personOf(c.changedById) : null })),
      }));
      return {
        userId: s.userId,
        clientAccountId: s.clientAccountId,
        summary: { roleChangeIds: mine.map((c) => c.id) },
        mail: () => ({
          to: mailAddress(s.user),
          ...roleChangesMail({ recipient: s.user, provider: account.get(s.clientAccountId)!, day, clients, baseUrl: options.baseUrl }),
        }),
      };
    }),
  );
}
