BEGIN;

-- CreateIndex
CREATE INDEX "journal_entries_client_account_id_cancelled_idx" ON "journal_entries"("client_account_id", "cancelled");

-- CreateIndex
CREATE INDEX "journal_entry_lines_client_account_id_business_partner_id_a_idx" ON "journal_entry_lines"("client_account_id", "business_partner_id", "account_id", "posting_date");

COMMIT;
