import { defineJob, type JobContext } from '../../jobs/jobs.ts';
import { fetchEmployeeTaxCard, reportContractEnd } from './payroll-tax-cards.service.ts';

export interface FetchTaxCardData {
  clientAccountId: number;
  businessPartnerId: number;
  year: number;
}

/**
 * `payroll.fetch-tax-card`: enqueued when a contract is created (active or not) or activated (spec 002
 * "Queues a background fetch of tax cards for the current tax year"); fetches the employee's tax card
 * for the year through the taxauthority connector and stores it (payroll_tax_cards). An upstream
 * failure is recorded on the card's row and retried (5 retries, 30 s doubling).
 */
export const fetchTaxCardJob = defineJob<FetchTaxCardData>(
  'payroll.fetch-tax-card',
  async (data, { service, logger, job }: JobContext) => {
    const status = await fetchEmployeeTaxCard(service, data);
    logger.info({ ...data, status }, `${job.name}: tax card ${status}`);
    return { status };
  },
  { retryLimit: 5, retryDelay: 30, retryBackoff: true, external: true },
);

export interface ReportEmploymentEndData {
  contractId: number;
}

/**
 * `payroll.report-employment-end`: enqueued when an active contract is deactivated (spec 002 "States
 * and transitions": "Employment end reported to the tax authority with the end date"); the outcome
 * is recorded on the contract (employmentEndReportStatus, …ReportedAt, …Reference, …ReportError,
 * …ReportAttempts). Upstream failures are retried (5 retries, 30 s doubling).
 */
export const reportEmploymentEndJob = defineJob<ReportEmploymentEndData>(
  'payroll.report-employment-end',
  async (data, { service, logger, job }: JobContext) => {
    const status = await reportContractEnd(service, data, { lastAttempt: job.retryCount >= job.retryLimit });
    logger.info({ ...data, status }, `${job.name}: ${status}`);
    return { status };
  },
  { retryLimit: 5, retryDelay: 30, retryBackoff: true, external: true },
);
