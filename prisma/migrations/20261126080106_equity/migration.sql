BEGIN;

-- CreateEnum
CREATE TYPE "ShareClass" AS ENUM ('COMMON', 'PREFERRED', 'SERIES_A', 'SERIES_B', 'SERIES_C', 'SEED', 'CONVERTIBLE_NOTE', 'SAFE');

-- CreateEnum
CREATE TYPE "EquityTransactionType" AS ENUM ('ISSUANCE', 'TRANSFER', 'BUYBACK', 'RETIREMENT', 'SPLIT', 'CONVERSION');

-- CreateTable
CREATE TABLE "equity_transactions" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "transaction_date" DATE NOT NULL,
    "transaction_type" "EquityTransactionType" NOT NULL,
    "transaction_group_id" UUID NOT NULL,
    "business_partner_id" INTEGER NOT NULL,
    "share_class" "ShareClass" NOT NULL,
    "quantity" INTEGER NOT NULL,
    "price_per_share" DECIMAL(18,6),
    "notes" VARCHAR(1000),
    "split_ratio_numerator" INTEGER,
    "split_ratio_denominator" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "equity_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "equity_transactions_client_account_id_transaction_date_id_idx" ON "equity_transactions"("client_account_id", "transaction_date", "id");

-- CreateIndex
CREATE INDEX "equity_transactions_client_account_id_business_partner_id_s_idx" ON "equity_transactions"("client_account_id", "business_partner_id", "share_class");

-- CreateIndex
CREATE INDEX "equity_transactions_transaction_group_id_idx" ON "equity_transactions"("transaction_group_id");

-- AddForeignKey
ALTER TABLE "equity_transactions" ADD CONSTRAINT "equity_transactions_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "equity_transactions" ADD CONSTRAINT "equity_transactions_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

COMMIT;
