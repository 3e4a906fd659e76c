BEGIN;

-- AlterTable
ALTER TABLE "bank_accounts" ADD COLUMN     "created_by_id" INTEGER,
ADD COLUMN     "updated_by_id" INTEGER;

COMMIT;
