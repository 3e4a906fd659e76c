BEGIN;

-- CreateEnum
CREATE TYPE "TaxReturnStatus" AS ENUM ('DRAFT', 'SUBMITTED', 'APPROVED', 'REJECTED', 'CANCELLED', 'IMPORTED');

-- CreateTable
CREATE TABLE "tax_returns" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "reporting_year" INTEGER NOT NULL,
    "from_date" DATE NOT NULL,
    "to_date" DATE NOT NULL,
    "tax_authority_reference" VARCHAR(100),
    "portal_instance_id" VARCHAR(100),
    "status" "TaxReturnStatus" NOT NULL,
    "submitted_at" TIMESTAMPTZ(3),
    "error_message" VARCHAR(4000),
    "receipt_voucher_id" INTEGER,
    "innsendingsformaal" VARCHAR(20) NOT NULL DEFAULT 'egenfastsetting',
    "corrects_id" INTEGER,
    "data" JSONB,
    "findings" JSONB NOT NULL DEFAULT '[]',
    "portal_status" VARCHAR(20),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tax_returns_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tax_returns_receipt_voucher_id_key" ON "tax_returns"("receipt_voucher_id");

-- CreateIndex
CREATE INDEX "tax_returns_client_account_id_reporting_year_status_idx" ON "tax_returns"("client_account_id", "reporting_year", "status");

-- CreateIndex
CREATE INDEX "tax_returns_status_idx" ON "tax_returns"("status");

-- CreateIndex
CREATE UNIQUE INDEX "tax_returns_client_account_id_portal_instance_id_key" ON "tax_returns"("client_account_id", "portal_instance_id");

-- AddForeignKey
ALTER TABLE "tax_returns" ADD CONSTRAINT "tax_returns_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tax_returns" ADD CONSTRAINT "tax_returns_receipt_voucher_id_fkey" FOREIGN KEY ("receipt_voucher_id") REFERENCES "vouchers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tax_returns" ADD CONSTRAINT "tax_returns_corrects_id_fkey" FOREIGN KEY ("corrects_id") REFERENCES "tax_returns"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tax_returns" ADD CONSTRAINT "tax_returns_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

COMMIT;
