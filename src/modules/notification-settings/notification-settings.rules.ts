import { z } from 'zod';
import { id } from '../../shared/validation.ts';

/** spec 002 "Notification setting": both types are e-mail summaries sent by scheduled jobs. */
export const NOTIFICATION_TYPES = ['WEEKLY_TODO', 'ORGANIZATIONAL_ROLE_CHANGES'] as const;
export type NotificationTypeCode = (typeof NOTIFICATION_TYPES)[number];

const flag = (field: string) => z.boolean({ error: (i) => (i.input == null ? 'is required' : `${field} must be true or false`) });

/** The inputs of the notification setting operations (the GraphQL fields' arguments). */
export const notificationSettingRules = {
  list: z.object({ clientAccountId: id }),
  update: z.object({
    clientAccountId: id,
    notificationType: z.enum(NOTIFICATION_TYPES, { error: () => `must be one of ${NOTIFICATION_TYPES.join(', ')}` }),
    /** both required (spec 002: "400 … email_enabled or push_enabled missing or not boolean") */
    input: z.object({ emailEnabled: flag('email_enabled'), pushEnabled: flag('push_enabled') }),
  }),
};
