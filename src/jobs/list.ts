import PgBoss from 'pg-boss';
import type { Db } from '../db/database.ts';

export type JobState = keyof PgBoss.JobStates;
export const JOB_STATES = Object.keys(PgBoss.states) as JobState[];

export interface JobRow {
  id: string;
  name: string;
  state: JobState;
  priority: number;
  /** runs after the first so far; retryLimit + 1 when the job was given up in place of a run (its last run never ended) */
  retryCount: number;
  /** the job's own (pg-boss's retry_limit less the attempt that only gives up: queueRetryLimit) */
  retryLimit: number;
  createdOn: Date;
  startAfter: Date;
  startedOn: Date | null;
  completedOn: Date | null;
  /** moved to pgboss.archive (12 hours after completion); kept there 7 days */
  archived: boolean;
  data: unknown;
  /** the handler's result, or the error of the last failed run */
  output: unknown;
}

/** Jobs newest first, from the queue and its archive, for the admin CLI (internal pg-boss queues left out). */
export async function listJobs(db: Db, filter: { state?: JobState; name?: string; limit: number }): Promise<JobRow[]> {
  const columns = `id::text AS id, name, state::text AS state, priority, retry_count AS "retryCount", GREATEST(retry_limit - 1, 0) AS "retryLimit",
    created_on AS "createdOn", start_after AS "startAfter", started_on AS "startedOn", completed_on AS "completedOn", data, output`;
  return db.$queryRawUnsafe<JobRow[]>(
    `SELECT * FROM (
       SELECT ${columns}, false AS archived FROM pgboss.job
       UNION ALL
       SELECT ${columns}, true AS archived FROM pgboss.archive
     ) j
     WHERE name NOT LIKE '\\_\\_pgboss\\_\\_%' AND ($1::text IS NULL OR state = $1) AND ($2::text IS NULL OR name = $2)
     ORDER BY "createdOn" DESC, id
     LIMIT $3`,
    filter.state ?? null,
    filter.name ?? null,
    filter.limit,
  );
}
