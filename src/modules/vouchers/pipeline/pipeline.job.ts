import { defineJob } from '../../../jobs/jobs.ts';
import { VOUCHER_PIPELINE } from '../../../jobs/names.ts';
import { failVoucherPipeline, runVoucherPipeline } from './pipeline.service.ts';

export type VoucherPipelineJobData = NonNullable<(typeof VOUCHER_PIPELINE)['data']>;

/**
 * `vouchers.process`: the pipeline of an uploaded voucher (pipeline.service.ts), enqueued by
 * POST /files with type VOUCHER in the upload's transaction. Idempotent: a voucher the pipeline has
 * finished (COMPLETED, WAITING_FOR_ANSWER, FAILED, CANCELLED) is left alone, and a run that died half
 * way starts again from the first step. An unexpected error is retried (10 s, 20 s, 40 s); the last
 * run, or an error a retry cannot mend (the file unreadable or gone), marks the voucher FAILED and
 * opens a review task. So does giving the job up without a run (onGiveUp): when the last run never
 * ended because its process died (a file that exhausts the memory kills it), the voucher gets
 * workflow_error "the process stopped while running this job" instead of being run again.
 */
export const voucherPipelineJob = defineJob<VoucherPipelineJobData>(
  VOUCHER_PIPELINE.name,
  (data, ctx) => runVoucherPipeline(ctx, data.voucherId, { lastAttempt: ctx.job.retryCount >= ctx.job.retryLimit }),
  {
    retryLimit: 3,
    retryDelay: 10,
    retryBackoff: true,
    expireInSeconds: 300,
    concurrency: 2,
    onGiveUp: (data, ctx, reason) => failVoucherPipeline(ctx, data.voucherId, reason),
  },
);
