BEGIN;

-- CreateEnum
CREATE TYPE "NotificationType" AS ENUM ('WEEKLY_TODO', 'ORGANIZATIONAL_ROLE_CHANGES');

-- CreateEnum
CREATE TYPE "RoleChangeKind" AS ENUM ('ADDED', 'REMOVED');

-- CreateEnum
CREATE TYPE "WorkerTaskStatus" AS ENUM ('PENDING', 'COMPLETED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "WorkerTaskType" AS ENUM ('VOUCHER_CLASSIFICATION', 'VOUCHER_DATA_EXTRACTION', 'VOUCHER_DUPLICATE_CHECK', 'BANK_TRANSACTION_MATCH', 'MANUAL_REVIEW');

-- CreateEnum
CREATE TYPE "WorkerTaskResultStatus" AS ENUM ('SUBMITTED');

-- CreateTable
CREATE TABLE "notification_settings" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "notification_type" "NotificationType" NOT NULL,
    "email_enabled" BOOLEAN NOT NULL,
    "push_enabled" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notification_settings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_deliveries" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "notification_type" "NotificationType" NOT NULL,
    "period" DATE NOT NULL,
    "mail_job_id" VARCHAR(64),
    "summary" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "role_changes" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "role" "Role" NOT NULL,
    "change" "RoleChangeKind" NOT NULL,
    "changed_by_id" INTEGER,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "role_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_tasks" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "status" "WorkerTaskStatus" NOT NULL DEFAULT 'PENDING',
    "task_type" "WorkerTaskType" NOT NULL,
    "relation_type" VARCHAR(50) NOT NULL,
    "relation_id" INTEGER NOT NULL,
    "secondary_relation_type" VARCHAR(50),
    "secondary_relation_id" INTEGER,
    "comment" VARCHAR(2000),
    "consensus_result_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "worker_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_task_results" (
    "id" SERIAL NOT NULL,
    "task_id" INTEGER NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "status" "WorkerTaskResultStatus" NOT NULL DEFAULT 'SUBMITTED',
    "data" JSONB NOT NULL,
    "data_hash" CHAR(64) NOT NULL,
    "submitted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "submitted_by_id" INTEGER,

    CONSTRAINT "worker_task_results_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notification_settings_client_account_id_notification_type_idx" ON "notification_settings"("client_account_id", "notification_type");

-- CreateIndex
CREATE UNIQUE INDEX "notification_settings_user_id_client_account_id_notificatio_key" ON "notification_settings"("user_id", "client_account_id", "notification_type");

-- CreateIndex
CREATE UNIQUE INDEX "notification_deliveries_user_id_client_account_id_notificat_key" ON "notification_deliveries"("user_id", "client_account_id", "notification_type", "period");

-- CreateIndex
CREATE INDEX "role_changes_client_account_id_changed_at_idx" ON "role_changes"("client_account_id", "changed_at");

-- CreateIndex
CREATE INDEX "role_changes_changed_at_idx" ON "role_changes"("changed_at");

-- CreateIndex
CREATE UNIQUE INDEX "worker_tasks_consensus_result_id_key" ON "worker_tasks"("consensus_result_id");

-- CreateIndex
CREATE INDEX "worker_tasks_client_account_id_status_created_at_idx" ON "worker_tasks"("client_account_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "worker_tasks_relation_type_relation_id_idx" ON "worker_tasks"("relation_type", "relation_id");

-- CreateIndex
CREATE INDEX "worker_task_results_task_id_submitted_by_id_idx" ON "worker_task_results"("task_id", "submitted_by_id");

-- CreateIndex
CREATE INDEX "worker_task_results_submitted_by_id_idx" ON "worker_task_results"("submitted_by_id");

-- AddForeignKey
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "role_changes" ADD CONSTRAINT "role_changes_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "worker_tasks" ADD CONSTRAINT "worker_tasks_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "worker_tasks" ADD CONSTRAINT "worker_tasks_consensus_result_id_fkey" FOREIGN KEY ("consensus_result_id") REFERENCES "worker_task_results"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "worker_task_results" ADD CONSTRAINT "worker_task_results_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "worker_tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
