BEGIN;

-- AlterTable
ALTER TABLE "journal_entries" ADD COLUMN     "is_opening_balance" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "opening_balance_year" INTEGER;

-- CreateIndex
CREATE INDEX "journal_entries_client_account_id_is_opening_balance_idx" ON "journal_entries"("client_account_id", "is_opening_balance");

-- CreateIndex
CREATE UNIQUE INDEX "journal_entries_client_account_id_opening_balance_year_key" ON "journal_entries"("client_account_id", "opening_balance_year");

-- Hand-written: only a live opening balance (flagged, neither cancelled nor a reversal) holds a year
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_opening_balance_year_check"
  CHECK ("opening_balance_year" IS NULL OR ("is_opening_balance" AND "cancelled" IS NULL));

COMMIT;
