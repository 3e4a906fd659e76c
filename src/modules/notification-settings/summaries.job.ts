import { defineJob, type JobContext } from '../../jobs/jobs.ts';
import { sendRoleChangeSummaries, sendWeeklyTodoSummaries, type SummaryRun } from './summaries.ts';

/**
 * The payload of a summary job. The schedule sends none: the run's "now" is then the time the
 * schedule created the job (so a run delayed by a restart still summarises its own period). A run
 * enqueued by hand may give `now` (ISO 8601) and limit itself to some client accounts.
 */
export interface SummaryJobData {
  now?: string;
  clientAccountIds?: number[];
}

function runClock(data: SummaryJobData, createdOn: Date): Date {
  if (data.now === undefined) return createdOn;
  const now = new Date(data.now);
  if (Number.isNaN(now.getTime())) throw new Error(`now must be an ISO 8601 time; got ${JSON.stringify(data.now).slice(0, 60)}`);
  return now;
}

const run =
  (send: typeof sendWeeklyTodoSummaries) =>
  async (data: SummaryJobData, { service, config, job, logger }: JobContext): Promise<SummaryRun> => {
    const result = await send(service, { now: runClock(data, job.createdOn), baseUrl: config.baseUrl, clientAccountIds: data.clientAccountIds ?? null });
    if (result.sent) logger.info({ ...result }, `${job.name}: summaries sent`);
    return result;
  };

/**
 * `notifications.weekly-todo`: Mondays at 05:00 UTC (06:00 or 07:00 in Norway), WEEKLY_TODO to
 * client account owners. A failed run is retried (every delivery already made stays made; the rest
 * follow), and a second run of the same week sends nothing twice.
 */
export const weeklyTodoJob = defineJob<SummaryJobData>('notifications.weekly-todo', run(sendWeeklyTodoSummaries), {
  schedule: '0 5 * * 1',
  retryLimit: 5,
  retryDelay: 300,
  retryBackoff: true,
});

/** `notifications.role-changes`: daily at 05:00 UTC, ORGANIZATIONAL_ROLE_CHANGES about the day before. */
export const roleChangesJob = defineJob<SummaryJobData>('notifications.role-changes', run(sendRoleChangeSummaries), {
  schedule: '0 5 * * *',
  retryLimit: 5,
  retryDelay: 300,
  retryBackoff: true,
});
