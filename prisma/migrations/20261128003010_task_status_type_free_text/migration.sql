BEGIN;

-- status and task_type are free text (spec 002: "Allowed values of task status and task_type: not
-- shown"): the stored enum values stay as they are, and the index on (client_account_id, status) is rebuilt
ALTER TABLE "tasks" ALTER COLUMN "status" DROP DEFAULT,
  ALTER COLUMN "status" TYPE VARCHAR(50) USING "status"::text,
  ALTER COLUMN "status" SET DEFAULT 'OPEN',
  ALTER COLUMN "task_type" DROP DEFAULT,
  ALTER COLUMN "task_type" TYPE VARCHAR(100) USING "task_type"::text,
  ALTER COLUMN "task_type" SET DEFAULT 'GENERAL';

DROP TYPE "TaskStatus";
DROP TYPE "TaskType";

COMMIT;
