BEGIN;

-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "AddressType" AS ENUM ('POSTAL', 'DELIVERY', 'VISITING');

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('AA', 'CA', 'BK', 'EM');

-- CreateEnum
CREATE TYPE "CollectionType" AS ENUM ('TEMPLATE', 'CART', 'ORDER');

-- CreateEnum
CREATE TYPE "RecurringTerms" AS ENUM ('IN_ADVANCE', 'IN_ARREARS');

-- CreateEnum
CREATE TYPE "RefundPolicy" AS ENUM ('NO_REFUND', 'PRORATED', 'FULL_REFUND');

-- CreateEnum
CREATE TYPE "ItemType" AS ENUM ('ITEM', 'SERVICE');

-- CreateEnum
CREATE TYPE "AutonomyLevel" AS ENUM ('NONE', 'DRAFT', 'FULL');

-- CreateEnum
CREATE TYPE "AccountType" AS ENUM ('ASSET', 'LIABILITY', 'EQUITY', 'INCOME', 'EXPENSE');

-- CreateEnum
CREATE TYPE "DimensionType" AS ENUM ('PROJECT', 'DEPARTMENT', 'BUSINESS_PARTNER', 'EMPLOYEE');

-- CreateEnum
CREATE TYPE "TaxDirection" AS ENUM ('INPUT', 'OUTPUT', 'NONE');

-- CreateTable
CREATE TABLE "bank_accounts" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "business_partner_id" INTEGER,
    "name" VARCHAR(150),
    "account_number" VARCHAR(11) NOT NULL,
    "bic" VARCHAR(11),
    "currency_code" CHAR(3) NOT NULL DEFAULT 'NOK',
    "ledger_account_id" INTEGER,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "bank_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "business_partners" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "name" VARCHAR(250) NOT NULL,
    "organization_number" VARCHAR(9),
    "national_id_number" VARCHAR(11),
    "email" VARCHAR(254),
    "phone" VARCHAR(40),
    "is_customer" BOOLEAN NOT NULL DEFAULT false,
    "is_supplier" BOOLEAN NOT NULL DEFAULT false,
    "is_employee" BOOLEAN NOT NULL DEFAULT false,
    "is_shareholder" BOOLEAN NOT NULL DEFAULT false,
    "is_self" BOOLEAN NOT NULL DEFAULT false,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "business_partners_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "business_partner_addresses" (
    "id" SERIAL NOT NULL,
    "business_partner_id" INTEGER NOT NULL,
    "address_type" "AddressType" NOT NULL,
    "line1" VARCHAR(250),
    "line2" VARCHAR(250),
    "postal_code" VARCHAR(20),
    "city" VARCHAR(100),
    "country_code" CHAR(2) NOT NULL DEFAULT 'NO',

    CONSTRAINT "business_partner_addresses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "client_accounts" (
    "id" SERIAL NOT NULL,
    "display_name" VARCHAR(250) NOT NULL,
    "unique_name" VARCHAR(100) NOT NULL,
    "organization_number" VARCHAR(9),
    "industry_code" VARCHAR(10),
    "vat_liable" BOOLEAN NOT NULL DEFAULT false,
    "accounting_currency" CHAR(3) NOT NULL DEFAULT 'NOK',
    "lock_date" DATE,
    "default_autonomy_level" "AutonomyLevel" NOT NULL DEFAULT 'NONE',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "client_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "role" "Role" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "provider_relationships" (
    "id" SERIAL NOT NULL,
    "provider_account_id" INTEGER NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_relationships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "currencies" (
    "id" SERIAL NOT NULL,
    "code" CHAR(3) NOT NULL,
    "name" TEXT NOT NULL,
    "minor_units" INTEGER NOT NULL,

    CONSTRAINT "currencies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "documents" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "business_partner_id" INTEGER,
    "document_type" VARCHAR(5) NOT NULL,
    "document_number" VARCHAR(100),
    "document_date" DATE NOT NULL,
    "currency_code" CHAR(3) NOT NULL DEFAULT 'NOK',
    "is_draft" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "document_lines" (
    "id" SERIAL NOT NULL,
    "document_id" INTEGER NOT NULL,
    "line_id" INTEGER NOT NULL,
    "item_id" INTEGER,
    "item_no" VARCHAR(100),
    "item_name" VARCHAR(250),
    "description" VARCHAR(1000),
    "price" DECIMAL(18,6) NOT NULL,
    "currency_code" CHAR(3) NOT NULL,
    "quantity" DECIMAL(18,6) NOT NULL,
    "unit_id" INTEGER,
    "tax_code_id" INTEGER,
    "tax_rate" DECIMAL(5,2),
    "tax_amount_lc" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "tax_amount_fc" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "total_lc" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "total_fc" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "item_collection_entry_id" INTEGER,

    CONSTRAINT "document_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "item_collections" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "name" VARCHAR(150),
    "collection_type" "CollectionType" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "item_collections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "item_collection_entries" (
    "id" SERIAL NOT NULL,
    "item_collection_id" INTEGER NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "item_id" INTEGER,
    "description" VARCHAR(1000),
    "quantity" DECIMAL(18,6) NOT NULL,
    "price" DECIMAL(18,6) NOT NULL,
    "currency_code" CHAR(3),
    "unit_id" INTEGER NOT NULL,
    "tax_code_id" INTEGER NOT NULL,
    "business_partner_id" INTEGER,
    "project_id" INTEGER,
    "recurring_start_date" DATE,
    "recurring_end_date" DATE,
    "recurring_terms" "RecurringTerms",
    "recurring_interval" INTEGER,
    "refund_policy" "RefundPolicy",
    "trial_end_date" DATE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "item_collection_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "items" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "item_no" VARCHAR(100) NOT NULL,
    "name" VARCHAR(250),
    "item_type" "ItemType" NOT NULL DEFAULT 'ITEM',
    "sales_unit_id" INTEGER NOT NULL,
    "stock_unit_id" INTEGER,
    "tax_code_id" INTEGER NOT NULL,
    "price" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "metadata" JSONB,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "autonomy_level" "AutonomyLevel",
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounts" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "code" VARCHAR(10) NOT NULL,
    "name" VARCHAR(250) NOT NULL,
    "account_type" "AccountType" NOT NULL,
    "saft_grouping_category" VARCHAR(60),
    "saft_grouping_code" VARCHAR(10),
    "default_tax_code_id" INTEGER,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account_mandatory_dimensions" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "dimension_type" "DimensionType" NOT NULL,

    CONSTRAINT "account_mandatory_dimensions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account_allowed_tax_codes" (
    "account_id" INTEGER NOT NULL,
    "tax_code_id" INTEGER NOT NULL,

    CONSTRAINT "account_allowed_tax_codes_pkey" PRIMARY KEY ("account_id","tax_code_id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "sequence_number" INTEGER NOT NULL,
    "name" VARCHAR(250) NOT NULL,
    "description" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tax_codes" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "code" VARCHAR(10) NOT NULL,
    "standard_tax_code" VARCHAR(2) NOT NULL,
    "name" VARCHAR(250) NOT NULL,
    "name_en" VARCHAR(250),
    "direction" "TaxDirection" NOT NULL,
    "valid_from" DATE,
    "valid_to" DATE,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tax_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tax_rates" (
    "id" SERIAL NOT NULL,
    "tax_code_id" INTEGER NOT NULL,
    "rate_percent" DECIMAL(5,2) NOT NULL,
    "valid_from" DATE,
    "valid_to" DATE,

    CONSTRAINT "tax_rates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "units" (
    "id" SERIAL NOT NULL,
    "symbol" VARCHAR(20) NOT NULL,
    "un_ece_rec_20_code" VARCHAR(3) NOT NULL,
    "un_ece_rec_21_code" VARCHAR(2),
    "description" TEXT NOT NULL,

    CONSTRAINT "units_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "first_name" TEXT,
    "last_name" TEXT,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" SERIAL NOT NULL,
    "token_hash" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "scope" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "bank_accounts_client_account_id_account_number_key" ON "bank_accounts"("client_account_id", "account_number");

-- CreateIndex
CREATE INDEX "business_partners_client_account_id_name_idx" ON "business_partners"("client_account_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "business_partner_addresses_business_partner_id_address_type_key" ON "business_partner_addresses"("business_partner_id", "address_type");

-- CreateIndex
CREATE UNIQUE INDEX "client_accounts_unique_name_key" ON "client_accounts"("unique_name");

-- CreateIndex
CREATE UNIQUE INDEX "client_accounts_organization_number_key" ON "client_accounts"("organization_number");

-- CreateIndex
CREATE INDEX "memberships_client_account_id_idx" ON "memberships"("client_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_user_id_client_account_id_role_key" ON "memberships"("user_id", "client_account_id", "role");

-- CreateIndex
CREATE INDEX "provider_relationships_client_account_id_idx" ON "provider_relationships"("client_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "provider_relationships_provider_account_id_client_account_i_key" ON "provider_relationships"("provider_account_id", "client_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "currencies_code_key" ON "currencies"("code");

-- CreateIndex
CREATE INDEX "documents_client_account_id_document_type_idx" ON "documents"("client_account_id", "document_type");

-- CreateIndex
CREATE INDEX "document_lines_item_collection_entry_id_idx" ON "document_lines"("item_collection_entry_id");

-- CreateIndex
CREATE UNIQUE INDEX "document_lines_document_id_line_id_key" ON "document_lines"("document_id", "line_id");

-- CreateIndex
CREATE INDEX "item_collections_client_account_id_collection_type_idx" ON "item_collections"("client_account_id", "collection_type");

-- CreateIndex
CREATE INDEX "item_collection_entries_item_collection_id_idx" ON "item_collection_entries"("item_collection_id");

-- CreateIndex
CREATE INDEX "item_collection_entries_item_id_idx" ON "item_collection_entries"("item_id");

-- CreateIndex
CREATE INDEX "items_client_account_id_is_active_idx" ON "items"("client_account_id", "is_active");

-- CreateIndex
CREATE UNIQUE INDEX "items_client_account_id_item_no_key" ON "items"("client_account_id", "item_no");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_client_account_id_code_key" ON "accounts"("client_account_id", "code");

-- CreateIndex
CREATE UNIQUE INDEX "account_mandatory_dimensions_account_id_dimension_type_key" ON "account_mandatory_dimensions"("account_id", "dimension_type");

-- CreateIndex
CREATE UNIQUE INDEX "projects_client_account_id_name_key" ON "projects"("client_account_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "projects_client_account_id_sequence_number_key" ON "projects"("client_account_id", "sequence_number");

-- CreateIndex
CREATE UNIQUE INDEX "tax_codes_client_account_id_code_key" ON "tax_codes"("client_account_id", "code");

-- CreateIndex
CREATE INDEX "tax_rates_tax_code_id_idx" ON "tax_rates"("tax_code_id");

-- CreateIndex
CREATE UNIQUE INDEX "units_un_ece_rec_20_code_key" ON "units"("un_ece_rec_20_code");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "sessions_token_hash_key" ON "sessions"("token_hash");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");

-- AddForeignKey
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_ledger_account_id_fkey" FOREIGN KEY ("ledger_account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "business_partners" ADD CONSTRAINT "business_partners_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "business_partner_addresses" ADD CONSTRAINT "business_partner_addresses_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "provider_relationships" ADD CONSTRAINT "provider_relationships_provider_account_id_fkey" FOREIGN KEY ("provider_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "provider_relationships" ADD CONSTRAINT "provider_relationships_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_lines" ADD CONSTRAINT "document_lines_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_lines" ADD CONSTRAINT "document_lines_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_lines" ADD CONSTRAINT "document_lines_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "units"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_lines" ADD CONSTRAINT "document_lines_tax_code_id_fkey" FOREIGN KEY ("tax_code_id") REFERENCES "tax_codes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_lines" ADD CONSTRAINT "document_lines_item_collection_entry_id_fkey" FOREIGN KEY ("item_collection_entry_id") REFERENCES "item_collection_entries"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_collections" ADD CONSTRAINT "item_collections_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_collection_entries" ADD CONSTRAINT "item_collection_entries_item_collection_id_fkey" FOREIGN KEY ("item_collection_id") REFERENCES "item_collections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_collection_entries" ADD CONSTRAINT "item_collection_entries_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_collection_entries" ADD CONSTRAINT "item_collection_entries_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_collection_entries" ADD CONSTRAINT "item_collection_entries_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "units"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_collection_entries" ADD CONSTRAINT "item_collection_entries_tax_code_id_fkey" FOREIGN KEY ("tax_code_id") REFERENCES "tax_codes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_collection_entries" ADD CONSTRAINT "item_collection_entries_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_collection_entries" ADD CONSTRAINT "item_collection_entries_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "items" ADD CONSTRAINT "items_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "items" ADD CONSTRAINT "items_sales_unit_id_fkey" FOREIGN KEY ("sales_unit_id") REFERENCES "units"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "items" ADD CONSTRAINT "items_stock_unit_id_fkey" FOREIGN KEY ("stock_unit_id") REFERENCES "units"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "items" ADD CONSTRAINT "items_tax_code_id_fkey" FOREIGN KEY ("tax_code_id") REFERENCES "tax_codes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_default_tax_code_id_fkey" FOREIGN KEY ("default_tax_code_id") REFERENCES "tax_codes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_mandatory_dimensions" ADD CONSTRAINT "account_mandatory_dimensions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_allowed_tax_codes" ADD CONSTRAINT "account_allowed_tax_codes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_allowed_tax_codes" ADD CONSTRAINT "account_allowed_tax_codes_tax_code_id_fkey" FOREIGN KEY ("tax_code_id") REFERENCES "tax_codes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tax_codes" ADD CONSTRAINT "tax_codes_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tax_rates" ADD CONSTRAINT "tax_rates_tax_code_id_fkey" FOREIGN KEY ("tax_code_id") REFERENCES "tax_codes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
