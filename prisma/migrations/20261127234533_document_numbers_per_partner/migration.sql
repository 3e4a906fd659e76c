BEGIN;

-- DropIndex
DROP INDEX "documents_client_account_id_document_type_document_number_key";

-- DropIndex
DROP INDEX "documents_client_account_id_document_type_idx";

-- CreateIndex
CREATE INDEX "documents_client_account_id_document_type_document_number_idx" ON "documents"("client_account_id", "document_type", "document_number");

-- CreateIndex
CREATE UNIQUE INDEX "documents_client_account_id_document_type_business_partner__key" ON "documents"("client_account_id", "document_type", "business_partner_id", "document_number");

COMMIT;
