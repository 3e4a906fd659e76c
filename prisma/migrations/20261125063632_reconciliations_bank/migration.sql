BEGIN;

-- CreateEnum
CREATE TYPE "BankQuestionType" AS ENUM ('ATTACH_FILE', 'STATEMENT');

-- CreateEnum
CREATE TYPE "BankQuestionStatus" AS ENUM ('OPEN', 'CLOSED');

-- CreateTable
CREATE TABLE "bank_transactions" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "bank_account_id" INTEGER NOT NULL,
    "bank_statement_id" INTEGER,
    "payee_name" VARCHAR(250),
    "payee_bank_account_id" INTEGER,
    "payor_name" VARCHAR(250),
    "payor_bank_account_id" INTEGER,
    "message_id" VARCHAR(100),
    "payment_id" VARCHAR(100),
    "instruction_id" VARCHAR(100),
    "end_to_end_id" VARCHAR(100),
    "booking_date" DATE NOT NULL,
    "value_date" DATE,
    "memo" VARCHAR(1000),
    "instructed_amount" DECIMAL(18,3),
    "instructed_currency_code" CHAR(3),
    "instructed_exchange_rate" DECIMAL(18,6),
    "amount" DECIMAL(18,3) NOT NULL,
    "currency_code" CHAR(3) NOT NULL,
    "exchange_rate" DECIMAL(18,6),
    "bank_reference" VARCHAR(100),
    "entry_reference" VARCHAR(100),
    "external_reconciled_amount" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,

    CONSTRAINT "bank_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bank_transaction_details" (
    "id" SERIAL NOT NULL,
    "bank_transaction_id" INTEGER NOT NULL,
    "transaction_type" VARCHAR(100),
    "account_name" VARCHAR(250),
    "account_number" VARCHAR(34),
    "account_currency_code" CHAR(3),
    "archive_reference" VARCHAR(100),
    "structured_reference" VARCHAR(100),
    "bank_information" VARCHAR(1000),
    "amount" DECIMAL(18,3),
    "currency_code" CHAR(3),
    "description" VARCHAR(1000),
    "booking_date" DATE,
    "value_date" DATE,
    "invoice_number" VARCHAR(100),
    "sender_name" VARCHAR(250),
    "sender_account" VARCHAR(34),
    "receiver_name" VARCHAR(250),
    "receiver_account" VARCHAR(34),
    "transaction_uuid" UUID NOT NULL,
    "statement_uuid" UUID,

    CONSTRAINT "bank_transaction_details_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bank_transaction_statements" (
    "id" SERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "client_account_id" INTEGER NOT NULL,
    "bank_transaction_id" INTEGER NOT NULL,
    "category" VARCHAR(100),
    "business_partner_id" INTEGER,
    "voucher_id" INTEGER,
    "comment" VARCHAR(2000),

    CONSTRAINT "bank_transaction_statements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bank_transaction_questions" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "bank_transaction_id" INTEGER NOT NULL,
    "question_type" "BankQuestionType" NOT NULL,
    "status" "BankQuestionStatus" NOT NULL DEFAULT 'OPEN',
    "text" VARCHAR(1000) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" TIMESTAMPTZ(3),
    "closed_by_id" INTEGER,

    CONSTRAINT "bank_transaction_questions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bank_statements" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "bank_account_id" INTEGER NOT NULL,
    "from_date" DATE NOT NULL,
    "to_date" DATE NOT NULL,
    "opening_balance" DECIMAL(18,3) NOT NULL,
    "closing_balance" DECIMAL(18,3) NOT NULL,
    "source" VARCHAR(10) NOT NULL,
    "message_id" VARCHAR(100),
    "statement_uuid" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,

    CONSTRAINT "bank_statements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reconciliations" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "sequence_number" INTEGER,
    "reconciliation_date" DATE NOT NULL,
    "is_draft" BOOLEAN NOT NULL DEFAULT false,
    "deleted_at" TIMESTAMPTZ(3),
    "deleted_by_id" INTEGER,
    "exchange_entry_id" INTEGER,
    "match_rule" VARCHAR(20),
    "bank_transaction_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "reconciliations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reconciliation_entries" (
    "id" SERIAL NOT NULL,
    "reconciliation_id" INTEGER NOT NULL,
    "journal_entry_id" INTEGER NOT NULL,
    "journal_entry_line_id" INTEGER NOT NULL,
    "debit" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "credit" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "debit_fc" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "credit_fc" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "exchange_rate" DECIMAL(18,6) NOT NULL DEFAULT 1,

    CONSTRAINT "reconciliation_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bank_transactions_client_account_id_booking_date_amount_idx" ON "bank_transactions"("client_account_id", "booking_date", "amount");

-- CreateIndex
CREATE INDEX "bank_transactions_bank_account_id_booking_date_idx" ON "bank_transactions"("bank_account_id", "booking_date");

-- CreateIndex
CREATE UNIQUE INDEX "bank_transactions_bank_account_id_entry_reference_key" ON "bank_transactions"("bank_account_id", "entry_reference");

-- CreateIndex
CREATE INDEX "bank_transaction_details_bank_transaction_id_idx" ON "bank_transaction_details"("bank_transaction_id");

-- CreateIndex
CREATE INDEX "bank_transaction_details_structured_reference_idx" ON "bank_transaction_details"("structured_reference");

-- CreateIndex
CREATE INDEX "bank_transaction_statements_bank_transaction_id_idx" ON "bank_transaction_statements"("bank_transaction_id");

-- CreateIndex
CREATE INDEX "bank_transaction_questions_bank_transaction_id_status_idx" ON "bank_transaction_questions"("bank_transaction_id", "status");

-- CreateIndex
CREATE INDEX "bank_statements_bank_account_id_from_date_idx" ON "bank_statements"("bank_account_id", "from_date");

-- CreateIndex
CREATE UNIQUE INDEX "reconciliations_exchange_entry_id_key" ON "reconciliations"("exchange_entry_id");

-- CreateIndex
CREATE INDEX "reconciliations_client_account_id_reconciliation_date_idx" ON "reconciliations"("client_account_id", "reconciliation_date");

-- CreateIndex
CREATE INDEX "reconciliations_bank_transaction_id_idx" ON "reconciliations"("bank_transaction_id");

-- CreateIndex
CREATE UNIQUE INDEX "reconciliations_client_account_id_sequence_number_key" ON "reconciliations"("client_account_id", "sequence_number");

-- CreateIndex
CREATE INDEX "reconciliation_entries_journal_entry_line_id_idx" ON "reconciliation_entries"("journal_entry_line_id");

-- CreateIndex
CREATE INDEX "reconciliation_entries_journal_entry_id_idx" ON "reconciliation_entries"("journal_entry_id");

-- CreateIndex
CREATE UNIQUE INDEX "reconciliation_entries_reconciliation_id_journal_entry_line_key" ON "reconciliation_entries"("reconciliation_id", "journal_entry_line_id");

-- AddForeignKey
ALTER TABLE "bank_transactions" ADD CONSTRAINT "bank_transactions_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_transactions" ADD CONSTRAINT "bank_transactions_bank_account_id_fkey" FOREIGN KEY ("bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_transactions" ADD CONSTRAINT "bank_transactions_bank_statement_id_fkey" FOREIGN KEY ("bank_statement_id") REFERENCES "bank_statements"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_transactions" ADD CONSTRAINT "bank_transactions_payee_bank_account_id_fkey" FOREIGN KEY ("payee_bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_transactions" ADD CONSTRAINT "bank_transactions_payor_bank_account_id_fkey" FOREIGN KEY ("payor_bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_transaction_details" ADD CONSTRAINT "bank_transaction_details_bank_transaction_id_fkey" FOREIGN KEY ("bank_transaction_id") REFERENCES "bank_transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_transaction_statements" ADD CONSTRAINT "bank_transaction_statements_bank_transaction_id_fkey" FOREIGN KEY ("bank_transaction_id") REFERENCES "bank_transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_transaction_statements" ADD CONSTRAINT "bank_transaction_statements_business_partner_id_fkey" FOREIGN KEY ("business_partner_id") REFERENCES "business_partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_transaction_questions" ADD CONSTRAINT "bank_transaction_questions_bank_transaction_id_fkey" FOREIGN KEY ("bank_transaction_id") REFERENCES "bank_transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_statements" ADD CONSTRAINT "bank_statements_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_statements" ADD CONSTRAINT "bank_statements_bank_account_id_fkey" FOREIGN KEY ("bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reconciliations" ADD CONSTRAINT "reconciliations_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reconciliations" ADD CONSTRAINT "reconciliations_exchange_entry_id_fkey" FOREIGN KEY ("exchange_entry_id") REFERENCES "journal_entries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reconciliations" ADD CONSTRAINT "reconciliations_bank_transaction_id_fkey" FOREIGN KEY ("bank_transaction_id") REFERENCES "bank_transactions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reconciliation_entries" ADD CONSTRAINT "reconciliation_entries_reconciliation_id_fkey" FOREIGN KEY ("reconciliation_id") REFERENCES "reconciliations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reconciliation_entries" ADD CONSTRAINT "reconciliation_entries_journal_entry_line_id_fkey" FOREIGN KEY ("journal_entry_line_id") REFERENCES "journal_entry_lines"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Invariants the services keep, held by the database too
ALTER TABLE "reconciliation_entries" ADD CONSTRAINT "reconciliation_entries_amounts_check"
  CHECK ("debit" >= 0 AND "credit" >= 0 AND "debit_fc" >= 0 AND "credit_fc" >= 0 AND NOT ("debit" > 0 AND "credit" > 0));
ALTER TABLE "reconciliations" ADD CONSTRAINT "reconciliations_sequence_check"
  CHECK (("is_draft" AND "sequence_number" IS NULL) OR (NOT "is_draft" AND "sequence_number" IS NOT NULL));
ALTER TABLE "journal_entry_lines" ADD CONSTRAINT "journal_entry_lines_reconciled_check"
  CHECK ("reconciled_amount" >= 0 AND "reconciled_amount" <= "debit" + "credit"
     AND "reconciled_amount_fc" >= 0 AND "reconciled_amount_fc" <= "debit_fc" + "credit_fc"
     AND "external_reconciled_amount" >= 0 AND "external_reconciled_amount" <= "debit" + "credit");
ALTER TABLE "bank_transactions" ADD CONSTRAINT "bank_transactions_reconciled_check"
  CHECK (abs("external_reconciled_amount") <= abs("amount") AND ("external_reconciled_amount" = 0 OR sign("external_reconciled_amount") = sign("amount")));

COMMIT;
