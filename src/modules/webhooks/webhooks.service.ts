import type { Db } from '../../db/database.ts';
import type { Prisma as PrismaNS, Webhook, WebhookDelivery } from '../../generated/prisma/client.ts';
import { enqueue } from '../../jobs/jobs.ts';
import { queueMail } from '../../mail/mail.job.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { findPage, pageWindow } from '../../shared/pagination.ts';
import { requireOwned } from '../../shared/tenancy.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { sequenceChanges, type Change } from '../changes/changes.service.ts';
import { requireManager } from '../client-accounts/client-accounts.service.ts';
import { newSecret, post, signedHeaders, type AttemptResult } from './delivery.ts';
import { resolveWebhookUrl, systemResolver, type Resolver, type ResolvedTarget } from './url-guard.ts';
import {
  DEFAULT_RETRY_DELAYS_MS,
  DELIVERY_PAGE_LIMITS,
  DELIVERY_TIMEOUT_MS,
  DISABLE_AFTER_MS,
  SECRET_OVERLAP_MS,
  WEBHOOK_PAGE_LIMITS,
  webhookRules as rules,
} from './webhooks.rules.ts';

type Query = { include?: never; select?: never } | Record<string, unknown>;

/**
 * What delivery depends on, set at boot from the configuration (createApp) and replaced by tests:
 * the clock, the retry schedule and the resolver are injectable so a test walks three days of
 * failures without waiting.
 */
export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE_URLS */
  allowPrivateUrls: boolean;
  resolver: Resolver;
  /** the wait before attempt n+2 after attempt n+1 failed; its length + 1 is the number of attempts */
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  disableAfterMs: number;
  now: () => Date;
}

export const webhookSettings: WebhookSettings = {
  allowPrivateUrls: false,
  resolver: systemResolver,
  retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
  timeoutMs: DELIVERY_TIMEOUT_MS,
  disableAfterMs: DISABLE_AFTER_MS,
  now: () => new Date(),
};

export function configureWebhooks(settings: Partial<WebhookSettings>): void {
  Object.assign(webhookSettings, settings);
}

const checkUrl = (url: string) => resolveWebhookUrl(url, { allowPrivate: webhookSettings.allowPrivateUrls, resolver: webhookSettings.resolver });

/** The change JSON a delivery POSTs: the feed's REST item (snake_case, ids not bodies). */
export function changePayload(c: Pick<Change, 'id' | 'occurredAt' | 'clientAccountId' | 'type' | 'resource' | 'resourceId' | 'action' | 'actorId'>): string {
  return JSON.stringify({
    id: String(c.id),
    occurred_at: c.occurredAt.toISOString(),
    client_account_id: c.clientAccountId,
    type: c.type,
    resource: c.resource,
    resource_id: c.resourceId,
    action: c.action,
    actor_id: c.actorId,
  });
}

// ── Subscriptions ────────────────────────────────────────────────────────────────────────────────

/** GET /webhooks: the webhooks of a client account, oldest first. Managers only (they hold secrets and reach out). */
export async function listWebhooks(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const a = parse(rules.list, args);
  await requireManager(ctx, a.clientAccountId);
  const where = { clientAccountId: a.clientAccountId };
  return findPage(
    pageWindow(a, WEBHOOK_PAGE_LIMITS),
    (w) => ctx.db.webhook.findMany({ ...query, where, orderBy: { id: 'asc' }, ...w }),
    () => ctx.db.webhook.count({ where }),
  );
}

/** 404 when missing, 403 for another account's or for a caller who does not manage the account. */
export async function getWebhook(ctx: RequestContext, { id }: { id: number }, query: Query = {}): Promise<Webhook> {
  const row = await requireOwned(ctx, `Webhook ${id}`, (await ctx.db.webhook.findUnique({ ...query, where: { id } })) as Webhook | null);
  await requireManager(ctx, row.clientAccountId);
  return row;
}

/**
 * The highest position once every change committed so far is sequenced: a new webhook is sent the
 * changes after its creation, not the account's history (the feed has that).
 */
async function currentPosition(db: Db): Promise<bigint> {
  await sequenceChanges(db);
  const rows = await db.$queryRawUnsafe<{ p: bigint | null }[]>('SELECT max(position) AS p FROM changes');
  return rows[0]?.p != null ? BigInt(rows[0].p) : 0n;
}

/** POST /webhooks: 201 with the secret, shown this once. The URL is checked (https, public) before anything is written. */
export async function createWebhook(ctx: RequestContext, args: Args<typeof rules.create>) {
  const { input } = parse(rules.create, args);
  await requireManager(ctx, input.clientAccountId);
  await checkUrl(input.url);
  const secret = newSecret();
  const row = await ctx.db.webhook.create({
    data: {
      clientAccountId: input.clientAccountId,
      url: input.url,
      types: [...new Set(input.types ?? [])],
      description: input.description ?? null,
      secret,
      lastPosition: await currentPosition(ctx.db),
      createdById: auditUserId(ctx),
    },
  });
  return { ...row, secret };
}

/** PATCH /webhooks/{id}: url (checked again), types, description, enabled (true re-enables and forgets the failing streak). */
export async function updateWebhook(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const { id, input } = parse(rules.update, args);
  const row = await getWebhook(ctx, { id });
  if (input.clientAccountId != null && input.clientAccountId !== row.clientAccountId) {
    throw ValidationError.field('clientAccountId', 'cannot be changed');
  }
  if (input.url !== undefined) await checkUrl(input.url);
  const data: PrismaNS.WebhookUpdateInput = {};
  if (input.url !== undefined) data.url = input.url;
  if (input.types !== undefined) data.types = [...new Set(input.types ?? [])];
  if (input.description !== undefined) data.description = input.description;
  if (input.enabled === true && !row.enabled) Object.assign(data, { enabled: true, disabledAt: null, disabledReason: null, failingSince: null });
  if (input.enabled === false && row.enabled) Object.assign(data, { enabled: false, disabledAt: webhookSettings.now(), disabledReason: 'disabled by a manager' });
  return ctx.db.webhook.update({ ...query, where: { id }, data });
}

/** DELETE /webhooks/{id}: the webhook and its deliveries; nothing more is sent. */
export async function deleteWebhook(ctx: RequestContext, { id }: { id: number }) {
  const row = await getWebhook(ctx, { id });
  await ctx.db.webhook.delete({ where: { id } });
  return row;
}

/** POST /webhooks/{id}/rotate-secret: a new secret, shown once; the previous one keeps signing for 24 hours beside it. */
export async function rotateWebhookSecret(ctx: RequestContext, { id }: { id: number }) {
  await getWebhook(ctx, { id });
  return inTransaction(ctx, async (tx) => {
    const current = await tx.db.webhook.findUniqueOrThrow({ where: { id } });
    const secret = newSecret();
    const row = await tx.db.webhook.update({
      where: { id },
      data: { secret, previousSecret: current.secret, previousSecretExpiresAt: new Date(webhookSettings.now().getTime() + SECRET_OVERLAP_MS) },
    });
    return { ...row, secret };
  });
}

// ── Deliveries ───────────────────────────────────────────────────────────────────────────────────

/** GET /webhooks/{id}/deliveries: newest first, with every attempt's time and status code. */
export async function listDeliveries(ctx: RequestContext, args: Args<typeof rules.deliveries>, query: Query = {}) {
  const a = parse(rules.deliveries, args);
  await getWebhook(ctx, { id: a.webhookId });
  const where = { webhookId: a.webhookId };
  return findPage(
    pageWindow(a, DELIVERY_PAGE_LIMITS),
    (w) => ctx.db.webhookDelivery.findMany({ ...query, where, orderBy: { id: 'desc' }, ...w }),
    () => ctx.db.webhookDelivery.count({ where }),
  );
}

/** POST /webhooks/{id}/deliveries/{delivery_id}/retry: sends it again now (same webhook-id), whatever its status. */
export async function retryDelivery(ctx: RequestContext, args: Args<typeof rules.retry>) {
  const a = parse(rules.retry, args);
  const webhook = await getWebhook(ctx, { id: a.webhookId });
  return inTransaction(ctx, async (tx) => {
    const found = await tx.db.webhookDelivery.findUnique({ where: { id: a.deliveryId } });
    if (!found || found.webhookId !== webhook.id) throw new NotFoundError(`Delivery ${a.deliveryId} of webhook ${webhook.id}`);
    const row = await tx.db.webhookDelivery.update({ where: { id: found.id }, data: { status: 'pending', nextAttemptAt: webhookSettings.now() } });
    await enqueue(tx, DELIVER_JOB, { webhookId: webhook.id });
    return row;
  });
}

/** The deliver job's name (webhooks.job.ts defines it): services enqueue it by name. */
export const DELIVER_JOB = 'webhooks.deliver';

/**
 * Turns the sequenced changes after each enabled webhook's high-water position into deliveries, in
 * position order (at most `batch` per webhook per run), and moves the position on in the same
 * transaction: a change becomes a delivery once per webhook, whichever process or run gets there.
 * Returns the webhooks that got new deliveries.
 */
export async function dispatchChanges(db: Db, batch = 1000): Promise<number[]> {
  const hooks = await db.webhook.findMany({ where: { enabled: true }, select: { id: true } });
  const touched: number[] = [];
  for (const { id } of hooks) {
    const made = await db.$transaction(async (tx) => {
      const [w] = await tx.$queryRawUnsafe<{ client_account_id: number; types: string[]; last_position: bigint; enabled: boolean }[]>(
        'SELECT client_account_id, types, last_position, enabled FROM webhooks WHERE id = $1 FOR UPDATE',
        id,
      );
      if (!w?.enabled) return 0;
      const changes = await tx.$queryRawUnsafe<{ id: bigint; position: bigint; occurred_at: Date; client_account_id: number; type: string; resource: string; resource_id: string; action: Change['action']; actor_id: number | null }[]>(
        `SELECT id, position, occurred_at, client_account_id, type, resource, resource_id, action, actor_id FROM changes
          WHERE client_account_id = $1 AND position > $2 AND (cardinality($3::text[]) = 0 OR type = ANY($3::text[]))
          ORDER BY position LIMIT $4`,
        w.client_account_id,
        BigInt(w.last_position),
        w.types ?? [],
        batch,
      );
      if (changes.length === 0) return 0;
      const now = webhookSettings.now();
      await tx.webhookDelivery.createMany({
        data: changes.map((c) => ({
          webhookId: id,
          changeId: BigInt(c.id),
          position: BigInt(c.position),
          messageId: `msg_${id}_${c.id}`,
          payload: changePayload({ id: c.id, occurredAt: c.occurred_at, clientAccountId: c.client_account_id, type: c.type, resource: c.resource, resourceId: c.resource_id, action: c.action, actorId: c.actor_id }),
          nextAttemptAt: now,
        })),
        skipDuplicates: true,
      });
      await tx.webhook.update({ where: { id }, data: { lastPosition: BigInt(changes.at(-1)!.position) } });
      await enqueue(tx, DELIVER_JOB, { webhookId: id }, { singletonKey: `webhook-${id}` });
      return changes.length;
    });
    if (made) touched.push(id);
  }
  return touched;
}

interface Attempt {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** The secrets that sign now: the current one, and the previous one within its 24 hours. */
function signingSecrets(w: Webhook, now: Date): string[] {
  return w.previousSecret && w.previousSecretExpiresAt && w.previousSecretExpiresAt > now ? [w.secret, w.previousSecret] : [w.secret];
}

/**
 * Sends a webhook's due deliveries, oldest change first, and stops at the first that fails, so a
 * receiver sees one subscription's changes in order (a delivery whose schedule is exhausted is
 * marked failed and the next goes on). Each attempt resolves and checks the URL again and connects
 * to that address. Returns when the next attempt is due (null: nothing pending), for the job to
 * come back then. A webhook failing for `disableAfterMs` without a success is disabled, its pending
 * deliveries marked failed, and the manager who created it (else the account's owners) mailed.
 */
export async function deliverDue(db: Db, webhookId: number, observe?: (outcome: 'succeeded' | 'failed', seconds: number) => void): Promise<Date | null> {
  for (;;) {
    const w = await db.webhook.findUnique({ where: { id: webhookId } });
    if (!w?.enabled) return null;
    const now = webhookSettings.now();
    const head = await db.webhookDelivery.findFirst({ where: { webhookId, status: 'pending' }, orderBy: { position: 'asc' } });
    if (!head) return null;
    if (head.nextAttemptAt && head.nextAttemptAt > now) return head.nextAttemptAt;
    // a lease: another run that reads the same head finds it taken (at least once, never twice at once)
    const lease = new Date(now.getTime() + webhookSettings.timeoutMs * 3);
    const claimed = await db.webhookDelivery.updateMany({
      where: { id: head.id, status: 'pending', OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: now } }] },
      data: { nextAttemptAt: lease },
    });
    if (claimed.count === 0) return lease;
    const result = await attempt(w, head, now);
    observe?.(result.ok ? 'succeeded' : 'failed', result.durationMs / 1000);
    const ok = await record(db, w, head, now, result);
    if (!ok) {
      const next = await db.webhookDelivery.findUnique({ where: { id: head.id }, select: { nextAttemptAt: true, status: true } });
      if (next?.status === 'pending') return next.nextAttemptAt;
    }
  }
}

async function attempt(w: Webhook, d: WebhookDelivery, now: Date): Promise<AttemptResult> {
  let target: ResolvedTarget;
  try {
    target = await checkUrl(w.url);
  } catch (e) {
    return { statusCode: null, ok: false, error: `refused: ${(e as Error).message}`, durationMs: 0 };
  }
  return post(target, signedHeaders(signingSecrets(w, now), d.messageId, now, d.payload), d.payload, webhookSettings.timeoutMs);
}

/** Records an attempt and its consequences in one transaction; true when it succeeded. */
async function record(db: Db, w: Webhook, d: WebhookDelivery, now: Date, r: AttemptResult): Promise<boolean> {
  const entry: Attempt = { at: now.toISOString(), status_code: r.statusCode, error: r.error, duration_ms: r.durationMs };
  const attempts = [...((d.attempts as unknown as Attempt[]) ?? []), entry];
  const count = d.attemptCount + 1;
  await db.$transaction(async (tx) => {
    if (r.ok) {
      await tx.webhookDelivery.update({ where: { id: d.id }, data: { status: 'succeeded', attemptCount: count, attempts: attempts as never, lastStatusCode: r.statusCode, nextAttemptAt: null } });
      if (w.failingSince) await tx.webhook.update({ where: { id: w.id }, data: { failingSince: null } });
      return;
    }
    const delay = webhookSettings.retryDelaysMs[count - 1];
    await tx.webhookDelivery.update({
      where: { id: d.id },
      data: {
        status: delay === undefined ? 'failed' : 'pending',
        attemptCount: count,
        attempts: attempts as never,
        lastStatusCode: r.statusCode,
        nextAttemptAt: delay === undefined ? null : new Date(now.getTime() + delay),
      },
    });
    const failingSince = w.failingSince ?? now;
    if (now.getTime() - failingSince.getTime() >= webhookSettings.disableAfterMs) await disableFailing(tx, w, failingSince, now);
    else if (!w.failingSince) await tx.webhook.update({ where: { id: w.id }, data: { failingSince } });
  });
  return r.ok;
}

/**
 * Disables a webhook that has failed since `failingSince` (3 days ago or more), marks its pending
 * deliveries failed and mails its owner, in the caller's transaction; once only, whoever gets there
 * first (the failed attempt or the sweep): false when it was no longer enabled.
 */
async function disableFailing(tx: Db, w: Webhook, failingSince: Date, now: Date): Promise<boolean> {
  const done = await tx.webhook.updateMany({
    // still enabled, and no success since (which clears failing_since)
    where: { id: w.id, enabled: true, failingSince: { lte: new Date(now.getTime() - webhookSettings.disableAfterMs) } },
    data: { enabled: false, disabledAt: now, disabledReason: `every delivery failed since ${failingSince.toISOString()}`, failingSince },
  });
  if (done.count === 0) return false;
  await tx.webhookDelivery.updateMany({ where: { webhookId: w.id, status: 'pending' }, data: { status: 'failed', nextAttemptAt: null } });
  await mailDisabled(tx, w, failingSince);
  return true;
}

/**
 * Disables every enabled webhook failing for `disableAfterMs` (3 days) without a success, whether
 * or not an attempt is due: a webhook whose last delivery used up its retries and that has no
 * newer change is never attempted again, so a check on failed attempts alone would leave it
 * enabled, and its owner unaware, for good. The dispatch job runs it every minute. Returns the
 * webhooks it disabled.
 */
export async function disableFailingWebhooks(db: Db): Promise<number[]> {
  const now = webhookSettings.now();
  const cutoff = new Date(now.getTime() - webhookSettings.disableAfterMs);
  const failing = await db.webhook.findMany({ where: { enabled: true, failingSince: { lte: cutoff } } });
  const disabled: number[] = [];
  for (const w of failing) {
    if (await db.$transaction((tx) => disableFailing(tx, w, w.failingSince!, now))) disabled.push(w.id);
  }
  return disabled;
}

/** Tells the webhook's creator (or, when that user is gone, the account's owners) that it was disabled. */
async function mailDisabled(tx: Db, w: Webhook, since: Date): Promise<void> {
  const creator = w.createdById ? await tx.user.findUnique({ where: { id: w.createdById }, select: { email: true } }) : null;
  const owners = creator
    ? [creator.email]
    : (await tx.membership.findMany({ where: { clientAccountId: w.clientAccountId, role: 'CA' }, select: { user: { select: { email: true } } } })).map((m) => m.user.email);
  if (owners.length === 0) return;
  await queueMail(tx, {
    to: owners,
    subject: `Webhook ${w.id} disabled: its deliveries have failed for 3 days`,
    text:
      `The webhook ${w.id} (${w.url}) of client account ${w.clientAccountId} has been disabled: every delivery to it has failed since ${since.toISOString()}.\n\n` +
      `GET /api/v2/webhooks/${w.id}/deliveries shows the attempts and the status codes your endpoint answered. ` +
      `Once it answers 2xx again, re-enable it with PATCH /api/v2/webhooks/${w.id} {"enabled": true}; missed changes can be read from GET /api/v2/changes.`,
  });
}
