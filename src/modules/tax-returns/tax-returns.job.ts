import { defineJob, type JobContext } from '../../jobs/jobs.ts';
import { refreshSubmittedTaxReturns } from './tax-returns.service.ts';

/** A run enqueued by hand may limit itself to some client accounts; the schedule sends nothing. */
export interface TaxReturnRefreshData {
  clientAccountIds?: number[];
}

/**
 * `tax-returns.refresh`: hourly at minute 17, every SUBMITTED tax return with a portal instance id
 * is read at the portal and moves to APPROVED, REJECTED or CANCELLED when the authority has decided
 * (spec 002: "portal calls that take time run as jobs"). One return the portal cannot answer for is
 * logged and left SUBMITTED; the next run tries it again.
 */
export const taxReturnRefreshJob = defineJob<TaxReturnRefreshData>(
  'tax-returns.refresh',
  async (data, { service, logger, job }: JobContext) => {
    const result = await refreshSubmittedTaxReturns(service, { clientAccountIds: data?.clientAccountIds ?? null });
    if (result.checked) logger.info({ ...result }, `${job.name}: submitted tax returns refreshed from the portal`);
    return result;
  },
  { schedule: '17 * * * *', retryLimit: 0 },
);
