BEGIN;

-- CreateEnum
CREATE TYPE "PayrollSalaryType" AS ENUM ('MONTHLY_FIXED', 'HOURLY');

-- CreateEnum
CREATE TYPE "PayrollEmploymentEndReportStatus" AS ENUM ('PENDING', 'REPORTED', 'FAILED');

-- CreateEnum
CREATE TYPE "PayrollTaxCardStatus" AS ENUM ('FETCHED', 'NOT_FOUND', 'MISSING_NATIONAL_ID', 'MISSING_ORGANIZATION_NUMBER', 'FAILED');

-- CreateEnum
CREATE TYPE "PayrollTaxDeductionType" AS ENUM ('TABLE', 'PERCENTAGE', 'EXEMPTION');

-- CreateTable
CREATE TABLE "payroll_contracts" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "business_partner_id" INTEGER NOT NULL,
    "employment_type" VARCHAR(50) NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE,
    "end_date_reason" VARCHAR(60),
    "job_title" VARCHAR(200),
    "occupation_code" VARCHAR(10),
    "employment_form" VARCHAR(50),
    "work_time_arrangement" VARCHAR(50),
    "work_percentage" DECIMAL(5,2),
    "weekly_hours" DECIMAL(5,2),
    "remuneration_type" VARCHAR(50),
    "salary_type" "PayrollSalaryType" NOT NULL,
    "last_salary_change_date" DATE,
    "last_work_pct_change_date" DATE,
    "monthly_salary" DECIMAL(18,2),
    "hourly_rate" DECIMAL(18,2),
    "vacation_pay_rate" DECIMAL(5,4),
    "pension_rate" DECIMAL(5,4),
    "employee_pension_rate" DECIMAL(5,4),
    "pension_provider_id" INTEGER,
    "union_dues_amount" DECIMAL(18,2),
    "car_registration_number" VARCHAR(20),
    "car_list_price" DECIMAL(18,2),
    "arbeidsforhold_id" VARCHAR(36) NOT NULL,
    "is_primary_employer" BOOLEAN NOT NULL DEFAULT true,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "is_payroll_default" BOOLEAN NOT NULL DEFAULT false,
    "employment_end_report_status" "PayrollEmploymentEndReportStatus",
    "employment_end_reported_at" TIMESTAMPTZ(3),
    "employment_end_reported_date" DATE,
    "employment_end_reference" VARCHAR(100),
    "employment_end_report_error" VARCHAR(2000),
    "employment_end_report_attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payroll_contracts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payroll_tax_cards" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "business_partner_id" INTEGER NOT NULL,
    "year" INTEGER NOT NULL,
    "status" "PayrollTaxCardStatus" NOT NULL,
    "deduction_type" "PayrollTaxDeductionType",
    "table_number" VARCHAR(10),
    "withholding_percentage" DECIMAL(5,2),
    "exemption_amount" DECIMAL(18,2),
    "issued_date" DATE,
    "tax_card_identifier" VARCHAR(100),
    "raw_response" JSONB,
    "fetched_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" VARCHAR(2000),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payroll_tax_cards_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "payroll_contracts_arbeidsforhold_id_key" ON "payroll_contracts"("arbeidsforhold_id");

-- CreateIndex
CREATE INDEX "payroll_contracts_client_account_id_business_partner_id_idx" ON "payroll_contracts"("client_account_id", "business_partner_id");

-- CreateIndex
CREATE INDEX "payroll_tax_cards_business_partner_id_idx" ON "payroll_tax_cards"("business_partner_id");

-- CreateIndex
CREATE UNIQUE INDEX "payroll_tax_cards_client_account_id_business_partner_id_yea_key" ON "payroll_tax_cards"("client_account_id", "business_partner_id", "year");

-- AddForeignKey
ALTER TABLE "payroll_contracts" ADD CONSTRAINT "payroll_contracts_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payroll_contracts" ADD CONSTRAINT "payroll_contracts_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payroll_contracts" ADD CONSTRAINT "payroll_contracts_pension_provider_id_fkey" FOREIGN KEY ("pension_provider_id") REFERENCES "business_partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payroll_tax_cards" ADD CONSTRAINT "payroll_tax_cards_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payroll_tax_cards" ADD CONSTRAINT "payroll_tax_cards_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
