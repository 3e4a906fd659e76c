import { defineOperations } from '../operation.ts';

// Our extension (issue 32, not in spec 000): webhooks of a client account's changes, signed per
// Standard Webhooks. The secret is in the answers of create and rotate-secret only.
const WEBHOOK_FIELDS = /* GraphQL */ `
  fragment WebhookFields on Webhook {
    id
    client_account_id: clientAccountId
    url
    types
    description
    enabled
    disabled_at: disabledAt
    disabled_reason: disabledReason
    failing_since: failingSince
    previous_secret_expires_at: previousSecretExpiresAt
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
  }`;

const WITH_SECRET = /* GraphQL */ `
  fragment WebhookWithSecretFields on WebhookWithSecret {
    id
    client_account_id: clientAccountId
    url
    types
    description
    enabled
    secret
    previous_secret_expires_at: previousSecretExpiresAt
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
  }`;

const DELIVERY_FIELDS = /* GraphQL */ `
  fragment WebhookDeliveryFields on WebhookDelivery {
    id
    webhook_id: webhookId
    change_id: changeId
    message_id: messageId
    status
    attempt_count: attemptCount
    attempts { at status_code: statusCode error duration_ms: durationMs }
    last_status_code: lastStatusCode
    next_attempt_at: nextAttemptAt
    created_at: createdAt
    updated_at: updatedAt
  }`;

export const webhookOperations = defineOperations([
  {
    method: 'GET',
    path: '/webhooks',
    summary: "List a client account's webhooks (its managers only), oldest first, paged. Secrets are not shown.",
    document: /* GraphQL */ `
      query ListWebhooks($clientAccountId: Int!, $page: Int, $perPage: Int) {
        webhooks(clientAccountId: $clientAccountId, page: $page, perPage: $perPage) {
          data: nodes { ...WebhookFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${WEBHOOK_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/webhooks',
    summary: 'Subscribe a URL (https, public) to the changes of a client account, all or the given types. 201 with the signing secret, shown this once.',
    document: /* GraphQL */ `
      mutation CreateWebhook($input: CreateWebhookInput!) { createWebhook(input: $input) { ...WebhookWithSecretFields } }
      ${WITH_SECRET}`,
    status: 201,
  },
  {
    method: 'GET',
    path: '/webhooks/:id',
    summary: 'Get one webhook (without its secret).',
    document: /* GraphQL */ `
      query GetWebhook($id: Int!) { webhook(id: $id) { ...WebhookFields } }
      ${WEBHOOK_FIELDS}`,
  },
  {
    method: 'PATCH',
    path: '/webhooks/:id',
    summary: 'Change a webhook: url (checked again), types, description; enabled true re-enables a disabled one.',
    document: /* GraphQL */ `
      mutation UpdateWebhook($id: Int!, $input: UpdateWebhookInput!) { updateWebhook(id: $id, input: $input) { ...WebhookFields } }
      ${WEBHOOK_FIELDS}`,
  },
  {
    method: 'DELETE',
    path: '/webhooks/:id',
    summary: 'Delete a webhook and its deliveries; nothing more is sent. 204.',
    document: /* GraphQL */ `mutation DeleteWebhook($id: Int!) { deleteWebhook(id: $id) }`,
    status: 204,
  },
  {
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
    summary: 'Replace the signing secret: the new one is answered once; the previous one keeps signing beside it for 24 hours.',
    document: /* GraphQL */ `
      mutation RotateWebhookSecret($id: Int!) { rotateWebhookSecret(id: $id) { ...WebhookWithSecretFields } }
      ${WITH_SECRET}`,
  },
  {
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    summary: "A webhook's deliveries, newest first: status, every attempt's time, status code and error, the next attempt.",
    document: /* GraphQL */ `
      query ListWebhookDeliveries($id: Int!, $page: Int, $perPage: Int) {
        webhookDeliveries(webhookId: $id, page: $page, perPage: $perPage) {
          data: nodes { ...WebhookDeliveryFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${DELIVERY_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/webhooks/:id/deliveries/:delivery_id/retry',
    summary: 'Send a delivery again now, with the same webhook-id, whatever its status.',
    document: /* GraphQL */ `
      mutation RetryWebhookDelivery($id: Int!, $deliveryId: Int!) {
        retryWebhookDelivery(webhookId: $id, deliveryId: $deliveryId) { ...WebhookDeliveryFields }
      }
      ${DELIVERY_FIELDS}`,
  },
]);
