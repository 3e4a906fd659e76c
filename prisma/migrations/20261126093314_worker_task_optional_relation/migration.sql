BEGIN;

-- AlterTable
ALTER TABLE "worker_tasks" ALTER COLUMN "relation_type" DROP NOT NULL,
ALTER COLUMN "relation_id" DROP NOT NULL;

COMMIT;
