import type { Webhook as WebhookRow } from '../../generated/prisma/client.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { recordById } from '../../shared/record-by-id.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { DELIVERY_PAGE_LIMITS, WEBHOOK_PAGE_LIMITS } from './webhooks.rules.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  updateWebhook,
} from './webhooks.service.ts';

/** Webhooks: signed POSTs of a client account's changes (our extension, not in spec 000); see the module README. */

export const Webhook = builder.prismaObject('Webhook', {
  ...tenantScoped,
  description: 'A subscription to the changes of a client account, delivered as signed POSTs (Standard Webhooks). The secret is shown only when created or rotated.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    url: t.exposeString('url', { description: 'https and public unless the server allows private URLs (WEBHOOK_ALLOW_PRIVATE_URLS)' }),
    types: t.exposeStringList('types', { description: 'Change types delivered (README, "Change types"); empty: every type' }),
    description: t.exposeString('description', { nullable: true }),
    enabled: t.exposeBoolean('enabled', { description: 'false after 3 days of failed deliveries or when a manager disabled it' }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    failingSince: t.expose('failingSince', { type: 'DateTime', nullable: true, description: 'The first failed attempt since the last success; null while deliveries succeed' }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', { type: 'DateTime', nullable: true, description: 'Until then the secret before the last rotation signs too' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

type WithSecret = WebhookRow & { secret: string };

/** A webhook with its secret: what creating it and rotating its secret answer, the only times the secret is shown. */
const WebhookWithSecret = builder.objectRef<WithSecret>('WebhookWithSecret').implement({
  ...tenantScoped,
  description: 'A webhook as created or rotated, with its signing secret (`whsec_` + base64), shown this once.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, w, _a, ctx) => recordById(ctx, 'clientAccount', w.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    url: t.exposeString('url'),
    types: t.exposeStringList('types'),
    description: t.exposeString('description', { nullable: true }),
    enabled: t.exposeBoolean('enabled'),
    secret: t.exposeString('secret', { description: 'Verify deliveries with it (Standard Webhooks); it is not shown again' }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

interface AttemptRow {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

const DeliveryAttempt = builder.objectRef<AttemptRow>('WebhookDeliveryAttempt').implement({
  description: 'One POST of a delivery.',
  fields: (t) => ({
    at: t.field({ type: 'DateTime', resolve: (a) => new Date(a.at) }),
    statusCode: t.int({ nullable: true, description: "The receiver's status; null when none came (timeout, refused, URL refused)", resolve: (a) => a.status_code }),
    error: t.string({ nullable: true, resolve: (a) => a.error }),
    durationMs: t.int({ resolve: (a) => a.duration_ms }),
  }),
});

// Reached only through its webhook (listDeliveries checks the webhook's account and manager).
export const WebhookDelivery = builder.prismaObject('WebhookDelivery', {
  description: 'One change to deliver to a webhook: one message, the same webhook-id on every attempt.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    webhook: t.relation('webhook'),
    webhookId: t.exposeInt('webhookId'),
    changeId: t.string({ description: 'The change delivered (the feed item id)', resolve: (d) => String(d.changeId) }),
    messageId: t.exposeString('messageId', { description: 'The webhook-id header, the same on every attempt' }),
    status: t.exposeString('status', { description: 'pending, succeeded or failed' }),
    attemptCount: t.exposeInt('attemptCount'),
    attempts: t.field({ type: [DeliveryAttempt], resolve: (d) => d.attempts as unknown as AttemptRow[] }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const WebhookPage = pageType('WebhookPage', Webhook);
const WebhookDeliveryPage = pageType('WebhookDeliveryPage', WebhookDelivery);

const CreateWebhookInput = builder.inputType('CreateWebhookInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    url: t.string({ required: true, description: 'https and public (checked after DNS resolution) unless WEBHOOK_ALLOW_PRIVATE_URLS' }),
    types: t.stringList({ description: 'Change types to deliver; omitted or empty: every type' }),
    description: t.string(),
  }),
});

const UpdateWebhookInput = builder.inputType('UpdateWebhookInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    url: t.string(),
    types: t.stringList(),
    description: t.string(),
    enabled: t.boolean({ description: 'true re-enables a disabled webhook; false disables it' }),
  }),
});

builder.queryFields((t) => ({
  webhooks: t.field({
    type: WebhookPage,
    extensions: pageCost(WEBHOOK_PAGE_LIMITS),
    description: "A client account's webhooks, oldest first (its managers only).",
    args: { clientAccountId: t.arg.int({ required: true }), ...cursorArgs(t), page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, args, ctx, info) => listWebhooks(ctx, args, nodesQuery(ctx, info)),
  }),
  webhook: t.prismaField({
    nullable: true,
    type: 'Webhook',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getWebhook(ctx, args, query),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryPage,
    extensions: pageCost(DELIVERY_PAGE_LIMITS),
    description: "A webhook's deliveries, newest first, with every attempt.",
    args: { webhookId: t.arg.int({ required: true }), ...cursorArgs(t), page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, args, ctx, info) => listDeliveries(ctx, args, nodesQuery(ctx, info)),
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WebhookWithSecret,
    args: { input: t.arg({ type: CreateWebhookInput, required: true }) },
    resolve: (_root, args, ctx) => createWebhook(ctx, args),
  }),
  updateWebhook: t.prismaField({
    type: 'Webhook',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateWebhookInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateWebhook(ctx, args, query),
  }),
  deleteWebhook: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => !!(await deleteWebhook(ctx, args)),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookWithSecret,
    description: 'A new secret, shown once; the previous one keeps signing beside it for 24 hours.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => rotateWebhookSecret(ctx, args),
  }),
  retryWebhookDelivery: t.prismaField({
    type: 'WebhookDelivery',
    description: 'Sends a delivery again now, with the same webhook-id.',
    args: { webhookId: t.arg.int({ required: true }), deliveryId: t.arg.int({ required: true }) },
    resolve: (_query, _root, args, ctx) => retryDelivery(ctx, args),
  }),
}));
