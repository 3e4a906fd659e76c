BEGIN;

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "DimensionType" ADD VALUE 'BANK_ACCOUNT';
ALTER TYPE "DimensionType" ADD VALUE 'ASSET';
ALTER TYPE "DimensionType" ADD VALUE 'TAG';
ALTER TYPE "DimensionType" ADD VALUE 'ITEM';

-- CreateTable
CREATE TABLE "departments" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "sequence_number" INTEGER NOT NULL,
    "name" VARCHAR(250) NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "autonomy_level" "AutonomyLevel",
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "departments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assets" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "name" VARCHAR(250) NOT NULL,
    "description" VARCHAR(1000),
    "acquisition_date" DATE,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "assets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tags" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "journal_entries" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "sequence_number" INTEGER,
    "description" VARCHAR(1000),
    "is_draft" BOOLEAN NOT NULL DEFAULT true,
    "cancelled" CHAR(1),
    "cancelled_by_id" INTEGER,
    "cancellation_entry_id" INTEGER,
    "cancellation_reason" VARCHAR(1000),
    "reverses_entry_id" INTEGER,
    "voucher_id" INTEGER,
    "relation_type" VARCHAR(50),
    "relation_id" INTEGER,
    "posted_at" TIMESTAMPTZ(3),
    "posted_by_id" INTEGER,
    "entry_hash" CHAR(64),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "journal_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "journal_entry_lines" (
    "id" SERIAL NOT NULL,
    "journal_entry_id" INTEGER NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "line_id" INTEGER NOT NULL,
    "posting_date" DATE NOT NULL,
    "description" VARCHAR(1000),
    "account_id" INTEGER NOT NULL,
    "debit" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "credit" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "debit_fc" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "credit_fc" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "currency_code" CHAR(3) NOT NULL,
    "exchange_rate" DECIMAL(18,6) NOT NULL DEFAULT 1,
    "tax_code_id" INTEGER,
    "tax_base_amount" DECIMAL(18,2),
    "tax_base_amount_fc" DECIMAL(18,3),
    "tax_amount" DECIMAL(18,2),
    "tax_amount_fc" DECIMAL(18,3),
    "tax_line" BOOLEAN NOT NULL DEFAULT false,
    "tax_for_line" INTEGER,
    "quantity" DECIMAL(18,6),
    "reconciled_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "reconciled_amount_fc" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "external_reconciled_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "business_partner_id" INTEGER,
    "bank_account_id" INTEGER,
    "project_id" INTEGER,
    "department_id" INTEGER,
    "asset_id" INTEGER,
    "tag_id" INTEGER,
    "item_id" INTEGER,

    CONSTRAINT "journal_entry_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_chains" (
    "client_account_id" INTEGER NOT NULL,
    "last_number" INTEGER NOT NULL,
    "last_hash" CHAR(64) NOT NULL,

    CONSTRAINT "ledger_chains_pkey" PRIMARY KEY ("client_account_id")
);

-- CreateTable
CREATE TABLE "sequence_counters" (
    "client_account_id" INTEGER NOT NULL,
    "kind" VARCHAR(40) NOT NULL,
    "last_value" INTEGER NOT NULL,

    CONSTRAINT "sequence_counters_pkey" PRIMARY KEY ("client_account_id","kind")
);

-- CreateIndex
CREATE INDEX "departments_client_account_id_is_active_idx" ON "departments"("client_account_id", "is_active");

-- CreateIndex
CREATE UNIQUE INDEX "departments_client_account_id_sequence_number_key" ON "departments"("client_account_id", "sequence_number");

-- CreateIndex
CREATE INDEX "assets_client_account_id_is_active_idx" ON "assets"("client_account_id", "is_active");

-- CreateIndex
CREATE UNIQUE INDEX "tags_client_account_id_name_key" ON "tags"("client_account_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "journal_entries_cancellation_entry_id_key" ON "journal_entries"("cancellation_entry_id");

-- CreateIndex
CREATE UNIQUE INDEX "journal_entries_reverses_entry_id_key" ON "journal_entries"("reverses_entry_id");

-- CreateIndex
CREATE INDEX "journal_entries_client_account_id_is_draft_sequence_number_idx" ON "journal_entries"("client_account_id", "is_draft", "sequence_number");

-- CreateIndex
CREATE INDEX "journal_entries_voucher_id_idx" ON "journal_entries"("voucher_id");

-- CreateIndex
CREATE INDEX "journal_entries_client_account_id_relation_type_relation_id_idx" ON "journal_entries"("client_account_id", "relation_type", "relation_id");

-- CreateIndex
CREATE UNIQUE INDEX "journal_entries_client_account_id_sequence_number_key" ON "journal_entries"("client_account_id", "sequence_number");

-- CreateIndex
CREATE INDEX "journal_entry_lines_client_account_id_account_id_posting_da_idx" ON "journal_entry_lines"("client_account_id", "account_id", "posting_date");

-- CreateIndex
CREATE INDEX "journal_entry_lines_client_account_id_posting_date_idx" ON "journal_entry_lines"("client_account_id", "posting_date");

-- CreateIndex
CREATE INDEX "journal_entry_lines_project_id_idx" ON "journal_entry_lines"("project_id");

-- CreateIndex
CREATE INDEX "journal_entry_lines_department_id_idx" ON "journal_entry_lines"("department_id");

-- CreateIndex
CREATE INDEX "journal_entry_lines_business_partner_id_idx" ON "journal_entry_lines"("business_partner_id");

-- CreateIndex
CREATE UNIQUE INDEX "journal_entry_lines_journal_entry_id_line_id_key" ON "journal_entry_lines"("journal_entry_id", "line_id");

-- AddForeignKey
ALTER TABLE "departments" ADD CONSTRAINT "departments_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tags" ADD CONSTRAINT "tags_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_journal_entry_id_fkey" FOREIGN KEY ("journal_entry_id") REFERENCES "journal_entries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_tax_code_id_fkey" FOREIGN KEY ("tax_code_id") REFERENCES "tax_codes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_bank_account_id_fkey" FOREIGN KEY ("bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_department_id_fkey" FOREIGN KEY ("department_id") REFERENCES "departments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_chains" ADD CONSTRAINT "ledger_chains_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rules the ledger's rows keep whatever writes them.
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_cancelled_check" CHECK ("cancelled" IN ('Y', 'C'));
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_posted_check"
  CHECK (("is_draft" AND "sequence_number" IS NULL AND "posted_at" IS NULL) OR (NOT "is_draft" AND "sequence_number" IS NOT NULL AND "posted_at" IS NOT NULL AND "entry_hash" IS NOT NULL));
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_amounts_check"
  CHECK ("debit" >= 0 AND "credit" >= 0 AND "debit_fc" >= 0 AND "credit_fc" >= 0 AND NOT ("debit" > 0 AND "credit" > 0));

-- The default chart now makes receivables (1500) and payables (2400) require a business partner,
-- as Norwegian sub-ledgers do, and existing client accounts get the same rule.
INSERT INTO "account_mandatory_dimensions" ("account_id", "dimension_type")
SELECT "id", 'BUSINESS_PARTNER' FROM "accounts" WHERE "code" IN ('1500', '2400')
ON CONFLICT DO NOTHING;

-- Project numbers continue from the highest existing one.
INSERT INTO "sequence_counters" ("client_account_id", "kind", "last_value")
SELECT "client_account_id", 'project', MAX("sequence_number") FROM "projects" GROUP BY "client_account_id";

COMMIT;
