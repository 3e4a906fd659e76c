import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { requireAccount } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { notificationSettingRules as rules, type NotificationTypeCode } from './notification-settings.rules.ts';

type Query = { include?: PrismaNS.NotificationSettingInclude; select?: PrismaNS.NotificationSettingSelect };

/** GET /client-accounts/{id}/notification-settings: the caller's stored settings there (types never set are absent). */
export async function listNotificationSettings(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  return ctx.db.notificationSetting.findMany({
    ...query,
    where: { userId: ctx.actor.userId, clientAccountId },
    orderBy: [{ notificationType: 'asc' }, { id: 'asc' }],
  });
}

/** PUT /client-accounts/{id}/notification-settings/{type}: creates or replaces the caller's setting; both flags required. */
export async function updateNotificationSetting(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    await requireAccount(tx, args.clientAccountId);
    const { clientAccountId, notificationType, input } = await check(tx, parsed);
    const userId = tx.actor.userId;
    if (!userId) throw new ValidationError('A notification setting belongs to a user: call this as one');
    const key = { userId, clientAccountId, notificationType };
    return tx.db.notificationSetting.upsert({ ...query, where: { userId_clientAccountId_notificationType: key }, create: { ...key, ...input }, update: input });
  });
}

/**
 * The users who turned e-mail off for a notification type at client accounts, as `user:account`
 * keys: everyone else gets the summary (a type without a stored setting is enabled). Push is not
 * looked at: the two types are e-mail only.
 */
export async function emailOptOuts(ctx: RequestContext, notificationType: NotificationTypeCode, clientAccountIds: readonly number[]): Promise<Set<string>> {
  if (!clientAccountIds.length) return new Set();
  const off = await ctx.db.notificationSetting.findMany({
    where: { notificationType, emailEnabled: false, clientAccountId: { in: [...clientAccountIds] } },
    select: { userId: true, clientAccountId: true },
  });
  return new Set(off.map((s) => optOutKey(s.userId, s.clientAccountId)));
}

export const optOutKey = (userId: number, clientAccountId: number) => `${userId}:${clientAccountId}`;
