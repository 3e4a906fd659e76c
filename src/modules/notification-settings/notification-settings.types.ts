import { nodesQuery, pageType, windowArgs } from '../../shared/page-type.ts';
import { wholeList } from '../../shared/pagination.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { listCost } from '../../shared/query-limits.ts';
import { NOTIFICATION_TYPES } from './notification-settings.rules.ts';
import { listNotificationSettings, updateNotificationSetting } from './notification-settings.service.ts';

// spec 002 "Notification setting", "Notification settings"

export const NotificationTypeEnum = builder.enumType('NotificationType', {
  values: {
    WEEKLY_TODO: {
      description:
        "Mondays, to the client account's owners (CA), only when something needs attention: open tasks, unreconciled bank transactions, open voucher questions, draft journal entries and vouchers, with counts and links. E-mail only",
    },
    ORGANIZATIONAL_ROLE_CHANGES: {
      description: "Daily, to the users of a provider account (every role): roles added or removed at its clients the day before, only on days with changes. E-mail only",
    },
  } satisfies Record<(typeof NOTIFICATION_TYPES)[number], { description: string }>,
});

export const NotificationSetting = builder.prismaObject('NotificationSetting', {
  ...tenantScoped,
  description: "A user's choice for one notification type at one client account. A type without a stored setting is enabled on every channel; push has no effect for the two types.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    user: t.field({ type: UserRef, resolve: async (r, _a, ctx) => (await loadUser(ctx, r.userId))! }),
    userId: t.exposeInt('userId', { description: 'Always the caller' }),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    notificationType: t.expose('notificationType', { type: NotificationTypeEnum }),
    emailEnabled: t.exposeBoolean('emailEnabled'),
    pushEnabled: t.exposeBoolean('pushEnabled', { description: 'Stored; no effect for the two types (e-mail only)' }),
  }),
});

const UpdateNotificationSettingInput = builder.inputType('UpdateNotificationSettingInput', {
  description: 'Both flags are required.',
  fields: (t) => ({
    emailEnabled: t.boolean({ required: true }),
    pushEnabled: t.boolean({ required: true }),
  }),
});

/** notificationSettings: a bounded list read whole, answered as a connection as every list. */
const NotificationSettingList = pageType('NotificationSettingPage', NotificationSetting);

builder.queryFields((t) => ({

  notificationSettings: t.field({
    type: NotificationSettingList,
    extensions: listCost(NOTIFICATION_TYPES.length),
    description: "The caller's stored notification settings at a client account; types without a stored setting are absent (they are enabled).",
    args: { clientAccountId: t.arg.int({ required: true }), ...windowArgs(t) },
    resolve: (_root, args, ctx, info) => wholeList(args, (filters) => listNotificationSettings(ctx, filters, nodesQuery(ctx, info))),
  }),
}));

builder.mutationFields((t) => ({
  updateNotificationSetting: t.prismaField({
    type: 'NotificationSetting',
    description: "Creates or replaces the caller's setting for a notification type at a client account.",
    args: {
      clientAccountId: t.arg.int({ required: true }),
      notificationType: t.arg({ type: NotificationTypeEnum, required: true }),
      input: t.arg({ type: UpdateNotificationSettingInput, required: true }),
    },
    resolve: (query, _root, args, ctx) => updateNotificationSetting(ctx, args, query),
  }),
}));
