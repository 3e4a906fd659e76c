// Jobs another module enqueues, by name and data: a module starts another module's job through
// these, never by importing the job's module (which would tie the two modules into a cycle). The
// job's own module defines it under the same name (defineJob(VOUCHER_PIPELINE.name, …)).

/** A job's queue name with the type of its data. */
export interface JobName<T extends object> {
  readonly name: string;
  /** never set: carries the data type */
  readonly data?: T;
}

const jobName = <T extends object>(name: string): JobName<T> => ({ name });

/** `vouchers.process`: the pipeline of an uploaded voucher (src/modules/vouchers/pipeline/pipeline.job.ts). */
export const VOUCHER_PIPELINE = jobName<{ voucherId: number }>('vouchers.process');
