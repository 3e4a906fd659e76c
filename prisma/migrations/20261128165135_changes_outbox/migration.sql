BEGIN;

-- CreateTable
CREATE TABLE "changes" (
    "id" BIGSERIAL NOT NULL,
    "position" BIGINT,
    "txid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "client_account_id" INTEGER NOT NULL,
    "type" VARCHAR(80) NOT NULL,
    "resource" VARCHAR(60) NOT NULL,
    "resource_id" VARCHAR(100) NOT NULL,
    "action" VARCHAR(10) NOT NULL,
    "actor_id" INTEGER,

    CONSTRAINT "changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "changes_position_key" ON "changes"("position");

-- CreateIndex
CREATE INDEX "changes_client_account_id_position_idx" ON "changes"("client_account_id", "position");

-- Hand-written: the positions the sequencer draws (src/modules/changes/changes.service.ts). A
-- sequence, not MAX(position) + 1: positions never go back, even after retention deleted every row.
CREATE SEQUENCE "changes_position_seq" AS BIGINT;

COMMIT;
