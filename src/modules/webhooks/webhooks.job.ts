import { defineJob, enqueue } from '../../jobs/jobs.ts';
import { afterChangesSequenced, sequenceChanges } from '../changes/changes.service.ts';
import { DELIVER_JOB, deliverDue, disableFailingWebhooks, dispatchChanges } from './webhooks.service.ts';

/**
 * `webhooks.dispatch`: sequences committed changes, turns those after each webhook's high-water
 * position into deliveries and starts their webhooks' deliver jobs. Every minute, and at once when a
 * sequencer run (a feed read, another dispatch) has positioned new changes; the position, not the
 * in-memory hook, is what makes it complete: a change missed by a hook (a crash) is picked up by
 * the next run. It also disables the webhooks failing for 3 days (also those with no attempt due)
 * and restarts the deliver job of every webhook with a delivery due (a lost job).
 */
export const dispatchWebhooks = defineJob(
  'webhooks.dispatch',
  async (_data, { prisma }) => {
    await sequenceChanges(prisma);
    await disableFailingWebhooks(prisma);
    await dispatchChanges(prisma);
    const due = await prisma.webhookDelivery.findMany({
      where: { status: 'pending', nextAttemptAt: { lte: new Date() }, webhook: { enabled: true } },
      distinct: ['webhookId'],
      select: { webhookId: true },
    });
    for (const { webhookId } of due) await enqueue(prisma, DELIVER_JOB, { webhookId }, { singletonKey: `webhook-${webhookId}` });
  },
  { schedule: '* * * * *', retryLimit: 1 },
);

/**
 * `webhooks.deliver`: sends one webhook's due deliveries in order (webhooks.service.ts, deliverDue)
 * and comes back when the next retry is due. Its own retries are the schedule's, not pg-boss's.
 */
export const deliverWebhook = defineJob<{ webhookId: number }>(
  DELIVER_JOB,
  async ({ webhookId }, { prisma, metrics }) => {
    const next = await deliverDue(prisma, webhookId, metrics && ((outcome, seconds) => metrics.observeWebhookAttempt(outcome, seconds)));
    if (next) await enqueue(prisma, DELIVER_JOB, { webhookId }, { startAfter: next });
  },
  { retryLimit: 3, retryDelay: 30, expireInSeconds: 15 * 60, concurrency: 4, external: true },
);

afterChangesSequenced.push(async (db, changes) => {
  if (changes.length) await enqueue(db, dispatchWebhooks, {}, { singletonKey: 'webhooks.dispatch' });
});
