BEGIN;

-- CreateTable
CREATE TABLE "webhooks" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "url" VARCHAR(2000) NOT NULL,
    "types" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "description" VARCHAR(500),
    "secret" VARCHAR(100) NOT NULL,
    "previous_secret" VARCHAR(100),
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_reason" VARCHAR(500),
    "failing_since" TIMESTAMPTZ(3),
    "last_position" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" SERIAL NOT NULL,
    "webhook_id" INTEGER NOT NULL,
    "change_id" BIGINT NOT NULL,
    "position" BIGINT NOT NULL,
    "message_id" VARCHAR(60) NOT NULL,
    "payload" TEXT NOT NULL,
    "status" VARCHAR(10) NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "attempts" JSONB NOT NULL DEFAULT '[]',
    "last_status_code" INTEGER,
    "next_attempt_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhooks_client_account_id_idx" ON "webhooks"("client_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_message_id_key" ON "webhook_deliveries"("message_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_status_position_idx" ON "webhook_deliveries"("webhook_id", "status", "position");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_change_id_key" ON "webhook_deliveries"("webhook_id", "change_id");

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
