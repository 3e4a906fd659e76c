BEGIN;

-- CreateEnum
CREATE TYPE "PaymentLineType" AS ENUM ('PRELIMINARY_TAX', 'VAT_SETTLEMENT', 'NATIONAL_INSURANCE_CONTRIBUTION', 'TAX_WITHHOLDING', 'EMPLOYEE_PAYMENT', 'SUPPLIER_PAYMENT', 'LOAN_PAYMENT', 'INTERNAL_TRANSFER', 'GARNISHMENT');

-- CreateEnum
CREATE TYPE "FileType" AS ENUM ('VOUCHER', 'ATTACHMENT', 'CHAT_ATTACHMENT');

-- CreateEnum
CREATE TYPE "TaskStatus" AS ENUM ('OPEN', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "TaskType" AS ENUM ('GENERAL', 'VOUCHER_REVIEW', 'DOCUMENT_REVIEW', 'BANK_RECONCILIATION', 'PAYROLL', 'VAT_REPORT', 'YEAR_END', 'TAX_RETURN');

-- CreateEnum
CREATE TYPE "VoucherStatus" AS ENUM ('PENDING', 'DRAFT', 'ARCHIVED', 'BOOKED', 'DELETED');

-- CreateEnum
CREATE TYPE "WorkflowStatus" AS ENUM ('IMAGE_PROCESSING', 'STARTING_WORKFLOW', 'CLASSIFICATION', 'DATA_EXTRACTION', 'WAITING_FOR_ANSWER', 'DUPLICATE_CHECK', 'BOOKING', 'CANCELLED', 'FAILED', 'COMPLETED');

-- CreateEnum
CREATE TYPE "VoucherPaymentMethod" AS ENUM ('BANK_TRANSFER', 'COMPANY_CARD', 'PRIVATE_CARD', 'CASH', 'UNPAID');

-- CreateEnum
CREATE TYPE "VoucherQuestionStatus" AS ENUM ('OPEN', 'ANSWERED');

-- AlterTable
ALTER TABLE "document_lines" ADD COLUMN     "account_id" INTEGER;

-- AlterTable
ALTER TABLE "documents" ADD COLUMN     "archive_category" VARCHAR(50),
ADD COLUMN     "bank_account_id" INTEGER,
ADD COLUMN     "buyer_reference" VARCHAR(250),
ADD COLUMN     "collection_case_number" VARCHAR(100),
ADD COLUMN     "collection_severity" VARCHAR(50),
ADD COLUMN     "collector_id" INTEGER,
ADD COLUMN     "created_in_app" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "document_description" VARCHAR(1000),
ADD COLUMN     "document_status" VARCHAR(20) NOT NULL DEFAULT 'DRAFT',
ADD COLUMN     "document_uuid" VARCHAR(36),
ADD COLUMN     "due_date" DATE,
ADD COLUMN     "exchange_rate" DECIMAL(18,6) NOT NULL DEFAULT 1,
ADD COLUMN     "gross_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "interest_amount" DECIMAL(18,2),
ADD COLUMN     "is_active" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "is_archived" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "is_imported" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "journal_entry_id" INTEGER,
ADD COLUMN     "late_fee_amount" DECIMAL(18,2),
ADD COLUMN     "net_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "note" VARCHAR(5000),
ADD COLUMN     "order_reference" VARCHAR(250),
ADD COLUMN     "payment_card_number" VARCHAR(30),
ADD COLUMN     "payment_means" VARCHAR(50),
ADD COLUMN     "payment_ref" VARCHAR(100),
ADD COLUMN     "payor_id" INTEGER,
ADD COLUMN     "period_description" VARCHAR(250),
ADD COLUMN     "period_end" DATE,
ADD COLUMN     "period_start" DATE,
ADD COLUMN     "send_document" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "sent_at" TIMESTAMPTZ(3),
ADD COLUMN     "stated_payment_status" VARCHAR(20),
ADD COLUMN     "structured_data" JSONB,
ADD COLUMN     "voucher_id" INTEGER;

-- CreateTable
CREATE TABLE "document_payment_lines" (
    "id" SERIAL NOT NULL,
    "document_id" INTEGER NOT NULL,
    "line_type" "PaymentLineType" NOT NULL,
    "requested_execution_date" DATE,
    "debtor_business_partner_id" INTEGER,
    "debtor_bank_account_id" INTEGER,
    "creditor_business_partner_id" INTEGER,
    "creditor_bank_account_id" INTEGER,
    "amount" DECIMAL(18,2) NOT NULL,
    "currency_code" CHAR(3) NOT NULL DEFAULT 'NOK',
    "creditor_reference" VARCHAR(100),

    CONSTRAINT "document_payment_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "document_references" (
    "id" SERIAL NOT NULL,
    "document_id" INTEGER NOT NULL,
    "reference_type" VARCHAR(20) NOT NULL,
    "referenced_document_id" INTEGER,
    "reference_number" VARCHAR(100),

    CONSTRAINT "document_references_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_requests" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "document_id" INTEGER NOT NULL,
    "bank_account_id" INTEGER,
    "amount" DECIMAL(18,2) NOT NULL,
    "currency_code" CHAR(3) NOT NULL DEFAULT 'NOK',
    "requested_execution_date" DATE,
    "status" VARCHAR(20) NOT NULL DEFAULT 'PENDING',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,

    CONSTRAINT "payment_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "files" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "type" "FileType" NOT NULL,
    "file_name" VARCHAR(255) NOT NULL,
    "content_type" VARCHAR(100) NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "storage_key" VARCHAR(200) NOT NULL,
    "page_count" INTEGER,
    "voucher_id" INTEGER,
    "document_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,

    CONSTRAINT "files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "provider_client_account_id" INTEGER,
    "title" VARCHAR(250) NOT NULL,
    "description" VARCHAR(5000),
    "status" "TaskStatus" NOT NULL DEFAULT 'OPEN',
    "task_type" "TaskType" NOT NULL DEFAULT 'GENERAL',
    "completed_at" TIMESTAMPTZ(3),
    "completion_summary" VARCHAR(5000),
    "assigned_to_id" INTEGER,
    "parent_task_id" INTEGER,
    "relation_type" VARCHAR(50),
    "relation_id" INTEGER,
    "thread_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vouchers" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "file_id" INTEGER NOT NULL,
    "type" VARCHAR(5),
    "channel" VARCHAR(20) NOT NULL DEFAULT 'upload',
    "processing_track" VARCHAR(30),
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "document_date" DATE,
    "status" "VoucherStatus" NOT NULL DEFAULT 'PENDING',
    "workflow_status" "WorkflowStatus",
    "workflow_error" VARCHAR(1000),
    "collection_id" INTEGER,
    "project_id" INTEGER,
    "extracted_text" TEXT,
    "embedding" REAL[],
    "duplicate_of_id" INTEGER,
    "detected_amount" DECIMAL(18,2),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "vouchers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "voucher_collections" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "name" VARCHAR(150),
    "description" VARCHAR(1000),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by_id" INTEGER,

    CONSTRAINT "voucher_collections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "voucher_statements" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "voucher_id" INTEGER NOT NULL,
    "purpose" VARCHAR(1000),
    "item_categories" VARCHAR(100)[],
    "payment_method" "VoucherPaymentMethod",
    "payor_id" INTEGER,
    "project_id" INTEGER,
    "is_paid" BOOLEAN,
    "comment" VARCHAR(2000),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by_id" INTEGER,

    CONSTRAINT "voucher_statements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "voucher_questions" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "voucher_id" INTEGER NOT NULL,
    "question_type" VARCHAR(30) NOT NULL,
    "text" VARCHAR(1000) NOT NULL,
    "status" "VoucherQuestionStatus" NOT NULL DEFAULT 'OPEN',
    "answer" VARCHAR(1000),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "answered_at" TIMESTAMPTZ(3),
    "answered_by_id" INTEGER,

    CONSTRAINT "voucher_questions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "document_payment_lines_document_id_idx" ON "document_payment_lines"("document_id");

-- CreateIndex
CREATE INDEX "document_references_document_id_idx" ON "document_references"("document_id");

-- CreateIndex
CREATE INDEX "document_references_referenced_document_id_idx" ON "document_references"("referenced_document_id");

-- CreateIndex
CREATE INDEX "payment_requests_document_id_status_idx" ON "payment_requests"("document_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "files_storage_key_key" ON "files"("storage_key");

-- CreateIndex
CREATE INDEX "files_client_account_id_type_idx" ON "files"("client_account_id", "type");

-- CreateIndex
CREATE INDEX "files_voucher_id_idx" ON "files"("voucher_id");

-- CreateIndex
CREATE INDEX "files_document_id_idx" ON "files"("document_id");

-- CreateIndex
CREATE UNIQUE INDEX "tasks_thread_id_key" ON "tasks"("thread_id");

-- CreateIndex
CREATE INDEX "tasks_client_account_id_status_idx" ON "tasks"("client_account_id", "status");

-- CreateIndex
CREATE INDEX "tasks_client_account_id_relation_type_relation_id_idx" ON "tasks"("client_account_id", "relation_type", "relation_id");

-- CreateIndex
CREATE INDEX "tasks_parent_task_id_idx" ON "tasks"("parent_task_id");

-- CreateIndex
CREATE UNIQUE INDEX "vouchers_file_id_key" ON "vouchers"("file_id");

-- CreateIndex
CREATE INDEX "vouchers_client_account_id_status_idx" ON "vouchers"("client_account_id", "status");

-- CreateIndex
CREATE INDEX "vouchers_client_account_id_created_at_idx" ON "vouchers"("client_account_id", "created_at");

-- CreateIndex
CREATE INDEX "vouchers_collection_id_idx" ON "vouchers"("collection_id");

-- CreateIndex
CREATE INDEX "vouchers_project_id_idx" ON "vouchers"("project_id");

-- CreateIndex
CREATE INDEX "voucher_collections_client_account_id_idx" ON "voucher_collections"("client_account_id");

-- CreateIndex
CREATE INDEX "voucher_statements_voucher_id_created_at_idx" ON "voucher_statements"("voucher_id", "created_at");

-- CreateIndex
CREATE INDEX "voucher_questions_voucher_id_status_idx" ON "voucher_questions"("voucher_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "documents_journal_entry_id_key" ON "documents"("journal_entry_id");

-- CreateIndex
CREATE INDEX "documents_client_account_id_document_date_idx" ON "documents"("client_account_id", "document_date");

-- CreateIndex
CREATE INDEX "documents_voucher_id_idx" ON "documents"("voucher_id");

-- CreateIndex
CREATE INDEX "documents_business_partner_id_idx" ON "documents"("business_partner_id");

-- CreateIndex
CREATE UNIQUE INDEX "documents_client_account_id_document_type_document_number_key" ON "documents"("client_account_id", "document_type", "document_number");

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_payor_id_fkey" FOREIGN KEY ("payor_id") REFERENCES "business_partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_collector_id_fkey" FOREIGN KEY ("collector_id") REFERENCES "business_partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_bank_account_id_fkey" FOREIGN KEY ("bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_voucher_id_fkey" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_payment_lines" ADD CONSTRAINT "document_payment_lines_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_references" ADD CONSTRAINT "document_references_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_references" ADD CONSTRAINT "document_references_referenced_document_id_fkey" FOREIGN KEY ("referenced_document_id") REFERENCES "documents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_requests" ADD CONSTRAINT "payment_requests_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "files" ADD CONSTRAINT "files_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "files" ADD CONSTRAINT "files_voucher_id_fkey" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "files" ADD CONSTRAINT "files_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_parent_task_id_fkey" FOREIGN KEY ("parent_task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vouchers" ADD CONSTRAINT "vouchers_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vouchers" ADD CONSTRAINT "vouchers_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vouchers" ADD CONSTRAINT "vouchers_collection_id_fkey" FOREIGN KEY ("collection_id") REFERENCES "voucher_collections"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vouchers" ADD CONSTRAINT "vouchers_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "voucher_collections" ADD CONSTRAINT "voucher_collections_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "voucher_statements" ADD CONSTRAINT "voucher_statements_voucher_id_fkey" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "voucher_questions" ADD CONSTRAINT "voucher_questions_voucher_id_fkey" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
