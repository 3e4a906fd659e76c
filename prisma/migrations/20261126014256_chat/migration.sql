BEGIN;

-- CreateEnum
CREATE TYPE "ChatToolMode" AS ENUM ('PREVIEW', 'WRITE');

-- AlterTable
ALTER TABLE "files" ADD COLUMN     "chat_message_id" INTEGER;

-- CreateTable
CREATE TABLE "chat_threads" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "provider_client_account_id" INTEGER,
    "subject" VARCHAR(500),
    "relation_type" VARCHAR(50),
    "relation_id" INTEGER,
    "is_completed" BOOLEAN NOT NULL DEFAULT false,
    "is_archived" BOOLEAN NOT NULL DEFAULT false,
    "last_message_created_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "chat_threads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "chat_messages" (
    "id" SERIAL NOT NULL,
    "thread_id" INTEGER NOT NULL,
    "from_user_id" INTEGER,
    "message" TEXT,
    "is_draft" BOOLEAN NOT NULL DEFAULT false,
    "approves_message_id" INTEGER,
    "tool_calls" JSONB,
    "tool_results" JSONB,
    "previews" JSONB,
    "tool_mode" "ChatToolMode",
    "action_items" JSONB,
    "action_mode" VARCHAR(10),
    "action_error" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "chat_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "chat_participants" (
    "id" SERIAL NOT NULL,
    "thread_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,

    CONSTRAINT "chat_participants_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "chat_threads_client_account_id_last_message_created_at_idx" ON "chat_threads"("client_account_id", "last_message_created_at");

-- CreateIndex
CREATE INDEX "chat_threads_client_account_id_relation_type_relation_id_idx" ON "chat_threads"("client_account_id", "relation_type", "relation_id");

-- CreateIndex
CREATE INDEX "chat_threads_provider_client_account_id_idx" ON "chat_threads"("provider_client_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "chat_messages_approves_message_id_key" ON "chat_messages"("approves_message_id");

-- CreateIndex
CREATE INDEX "chat_messages_thread_id_created_at_idx" ON "chat_messages"("thread_id", "created_at");

-- CreateIndex
CREATE INDEX "chat_messages_from_user_id_idx" ON "chat_messages"("from_user_id");

-- CreateIndex
CREATE INDEX "chat_participants_user_id_idx" ON "chat_participants"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "chat_participants_thread_id_user_id_key" ON "chat_participants"("thread_id", "user_id");

-- CreateIndex
CREATE INDEX "files_chat_message_id_idx" ON "files"("chat_message_id");

-- AddForeignKey
ALTER TABLE "chat_threads" ADD CONSTRAINT "chat_threads_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chat_threads" ADD CONSTRAINT "chat_threads_provider_client_account_id_fkey" FOREIGN KEY ("provider_client_account_id") REFERENCES "client_accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "chat_threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_from_user_id_fkey" FOREIGN KEY ("from_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_approves_message_id_fkey" FOREIGN KEY ("approves_message_id") REFERENCES "chat_messages"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chat_participants" ADD CONSTRAINT "chat_participants_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "chat_threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chat_participants" ADD CONSTRAINT "chat_participants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "files" ADD CONSTRAINT "files_chat_message_id_fkey" FOREIGN KEY ("chat_message_id") REFERENCES "chat_messages"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "chat_threads"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Backfill: every task has a chat thread (spec 002 "Tasks"), also those created before chat existed.
-- A task's thread is about the task (relation_type 'task', relation_id the task's id).
WITH "created" AS (
    INSERT INTO "chat_threads" ("client_account_id", "provider_client_account_id", "subject", "relation_type", "relation_id", "created_at", "created_by_id", "updated_at")
    SELECT t."client_account_id", p."id", LEFT(t."title", 500), 'task', t."id", t."created_at", t."created_by_id", CURRENT_TIMESTAMP
    FROM "tasks" t LEFT JOIN "client_accounts" p ON p."id" = t."provider_client_account_id"
    WHERE t."thread_id" IS NULL
    RETURNING "id", "relation_id"
)
UPDATE "tasks" SET "thread_id" = "created"."id" FROM "created" WHERE "tasks"."id" = "created"."relation_id";

COMMIT;
