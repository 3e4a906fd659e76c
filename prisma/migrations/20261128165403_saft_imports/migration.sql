BEGIN;

-- CreateTable
CREATE TABLE "saft_imports" (
    "id" SERIAL NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "status" VARCHAR(10) NOT NULL,
    "file_name" VARCHAR(255) NOT NULL,
    "file_hash" CHAR(64) NOT NULL,
    "content" BYTEA,
    "dry_run" BOOLEAN NOT NULL DEFAULT false,
    "allow_other_organization" BOOLEAN NOT NULL DEFAULT false,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "total" INTEGER NOT NULL DEFAULT 0,
    "summary" JSONB,
    "errors" JSONB,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "saft_imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "saft_import_entries" (
    "id" SERIAL NOT NULL,
    "saft_import_id" INTEGER NOT NULL,
    "journal_entry_id" INTEGER NOT NULL,
    "transaction_id" VARCHAR(70),
    "journal_id" VARCHAR(18),
    "voucher_number" VARCHAR(150),

    CONSTRAINT "saft_import_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "saft_imports_client_account_id_file_hash_idx" ON "saft_imports"("client_account_id", "file_hash");

-- CreateIndex
CREATE UNIQUE INDEX "saft_import_entries_journal_entry_id_key" ON "saft_import_entries"("journal_entry_id");

-- CreateIndex
CREATE INDEX "saft_import_entries_saft_import_id_idx" ON "saft_import_entries"("saft_import_id");

-- AddForeignKey
ALTER TABLE "saft_imports" ADD CONSTRAINT "saft_imports_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "saft_import_entries" ADD CONSTRAINT "saft_import_entries_saft_import_id_fkey" FOREIGN KEY ("saft_import_id") REFERENCES "saft_imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "saft_import_entries" ADD CONSTRAINT "saft_import_entries_journal_entry_id_fkey" FOREIGN KEY ("journal_entry_id") REFERENCES "journal_entries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
