BEGIN;

-- CreateTable
CREATE TABLE "integration_settings" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "integration" VARCHAR(40) NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT false,
    "config" JSONB NOT NULL DEFAULT '{}',
    "state" JSONB NOT NULL DEFAULT '{}',
    "connected_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "integration_settings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing_add_ons" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "code" VARCHAR(40) NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "added_by_id" INTEGER,
    "removed_at" TIMESTAMPTZ(3),
    "removed_by_id" INTEGER,

    CONSTRAINT "billing_add_ons_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "integration_settings_client_account_id_integration_key" ON "integration_settings"("client_account_id", "integration");

-- CreateIndex
CREATE INDEX "billing_add_ons_client_account_id_code_idx" ON "billing_add_ons"("client_account_id", "code");

-- AddForeignKey
ALTER TABLE "integration_settings" ADD CONSTRAINT "integration_settings_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "billing_add_ons" ADD CONSTRAINT "billing_add_ons_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
