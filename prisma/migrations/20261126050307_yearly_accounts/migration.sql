BEGIN;

-- CreateEnum
CREATE TYPE "YearlyAccountStatus" AS ENUM ('DRAFT', 'SUBMITTED', 'APPROVED', 'REJECTED', 'CANCELLED');

-- CreateTable
CREATE TABLE "yearly_account_submissions" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "reporting_year" INTEGER NOT NULL,
    "from_date" DATE NOT NULL,
    "to_date" DATE NOT NULL,
    "status" "YearlyAccountStatus" NOT NULL,
    "portal_instance_id" VARCHAR(100),
    "main_form_id" VARCHAR(20),
    "sub_form_id" VARCHAR(20),
    "submitted_at" TIMESTAMPTZ(3),
    "error_message" TEXT,
    "data" JSONB,
    "notes" JSONB,
    "findings" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "yearly_account_submissions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "yearly_account_submissions_client_account_id_reporting_year_idx" ON "yearly_account_submissions"("client_account_id", "reporting_year");

-- AddForeignKey
ALTER TABLE "yearly_account_submissions" ADD CONSTRAINT "yearly_account_submissions_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
