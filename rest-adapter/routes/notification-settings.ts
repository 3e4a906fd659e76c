import { defineOperations } from '../operation.ts';

// spec 002 "Notification settings": GET and PUT under /client-accounts/{client_account_id}
const SETTING_FIELDS = /* GraphQL */ `
  fragment NotificationSettingFields on NotificationSetting {
    id
    created_at: createdAt
    user_id: userId
    client_account_id: clientAccountId
    notification_type: notificationType
    email_enabled: emailEnabled
    push_enabled: pushEnabled
  }`;

export const notificationSettingOperations = defineOperations([
  {
    method: 'GET',
    path: '/client-accounts/:client_account_id/notification-settings',
    summary: 'List your stored notification settings at a client account, as an array; types without a stored setting are absent (they are enabled on every channel).',
    document: /* GraphQL */ `
      query ListNotificationSettings($clientAccountId: Int!) { notificationSettings(clientAccountId: $clientAccountId) { nodes { ...NotificationSettingFields } } }
      ${SETTING_FIELDS}`,
  },
  {
    method: 'PUT',
    path: '/client-accounts/:client_account_id/notification-settings/:notification_type',
    summary:
      'Create or replace your setting for a notification type (WEEKLY_TODO, ORGANIZATIONAL_ROLE_CHANGES) at a client account: email_enabled and push_enabled, both booleans, both required. Both types are e-mail summaries: email_enabled false stops them; push_enabled is stored but has no effect. Returns the setting.',
    document: /* GraphQL */ `
      mutation UpdateNotificationSetting($clientAccountId: Int!, $notificationType: NotificationType!, $input: UpdateNotificationSettingInput!) {
        updateNotificationSetting(clientAccountId: $clientAccountId, notificationType: $notificationType, input: $input) { ...NotificationSettingFields }
      }
      ${SETTING_FIELDS}`,
  },
]);
