BEGIN;

-- CreateEnum
CREATE TYPE "GarnishmentDeductionType" AS ENUM ('FIXED', 'PERCENTAGE');

-- CreateEnum
CREATE TYPE "GarnishmentStatus" AS ENUM ('ACTIVE', 'EXPIRED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "GarnishmentFetchStatus" AS ENUM ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED');

-- CreateTable
CREATE TABLE "payroll_garnishments" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "business_partner_id" INTEGER NOT NULL,
    "external_id" VARCHAR(100) NOT NULL,
    "garnishment_type" VARCHAR(50) NOT NULL,
    "deduction_type" "GarnishmentDeductionType" NOT NULL,
    "amount" DECIMAL(12,2),
    "percentage" DECIMAL(5,2),
    "priority" INTEGER NOT NULL,
    "creditor_id" INTEGER,
    "creditor_bank_account_id" INTEGER,
    "payment_reference" VARCHAR(50),
    "valid_from" DATE NOT NULL,
    "valid_to" DATE,
    "status" "GarnishmentStatus" NOT NULL,
    "case_number" VARCHAR(50),
    "external_version" INTEGER NOT NULL,
    "sequence_number" INTEGER NOT NULL,
    "raw_response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payroll_garnishments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payroll_garnishment_fetch_runs" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "status" "GarnishmentFetchStatus" NOT NULL DEFAULT 'QUEUED',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "listed" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "cancelled" INTEGER NOT NULL DEFAULT 0,
    "expired" INTEGER NOT NULL DEFAULT 0,
    "unchanged" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,

    CONSTRAINT "payroll_garnishment_fetch_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "payroll_garnishments_client_account_id_priority_id_idx" ON "payroll_garnishments"("client_account_id", "priority", "id");

-- CreateIndex
CREATE INDEX "payroll_garnishments_business_partner_id_idx" ON "payroll_garnishments"("business_partner_id");

-- CreateIndex
CREATE UNIQUE INDEX "payroll_garnishments_client_account_id_external_id_key" ON "payroll_garnishments"("client_account_id", "external_id");

-- CreateIndex
CREATE INDEX "payroll_garnishment_fetch_runs_client_account_id_id_idx" ON "payroll_garnishment_fetch_runs"("client_account_id", "id");

-- AddForeignKey
ALTER TABLE "payroll_garnishments" ADD CONSTRAINT "payroll_garnishments_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payroll_garnishments" ADD CONSTRAINT "payroll_garnishments_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payroll_garnishments" ADD CONSTRAINT "payroll_garnishments_creditor_id_fkey" FOREIGN KEY ("creditor_id") REFERENCES "business_partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payroll_garnishments" ADD CONSTRAINT "payroll_garnishments_creditor_bank_account_id_fkey" FOREIGN KEY ("creditor_bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payroll_garnishment_fetch_runs" ADD CONSTRAINT "payroll_garnishment_fetch_runs_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
