BEGIN;

-- task_type is free text (spec 002 lists no values): the stored enum values stay as they are
ALTER TABLE "worker_tasks" ALTER COLUMN "task_type" TYPE VARCHAR(100) USING "task_type"::text;
DROP TYPE "WorkerTaskType";

COMMIT;
