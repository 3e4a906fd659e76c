import { defineJob } from '../../jobs/jobs.ts';
import { runGarnishmentFetch } from './payroll-garnishments.service.ts';

export interface GarnishmentFetchJobData {
  /** the PayrollGarnishmentFetchRun the request recorded */
  runId: number;
}

/**
 * `payroll.fetch-garnishments`: one fetch run (POST /payroll/garnishments/fetch, GraphQL
 * fetchPayrollGarnishments). A failed call to the tax authority is not retried: the run is recorded
 * FAILED with the error and nothing else is written; the client asks again. Anything else that fails
 * (the database) is recorded on the run too and the job is retried.
 */
export const fetchGarnishmentsJob = defineJob<GarnishmentFetchJobData>(
  'payroll.fetch-garnishments',
  async ({ runId }, { service, logger, job }) => {
    const outcome = await runGarnishmentFetch(service, runId);
    if (outcome.status === 'FAILED') logger.warn({ ...outcome }, `${job.name}: the tax authority could not be asked`);
    return outcome;
  },
  { retryLimit: 2, retryDelay: 30, retryBackoff: true, external: true },
);
