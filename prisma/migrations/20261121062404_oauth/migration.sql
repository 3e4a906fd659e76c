BEGIN;

-- CreateTable
CREATE TABLE "oauth_objects" (
    "kind" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "grant_id" TEXT,
    "uid" TEXT,
    "owner_user_id" INTEGER,
    "annotations" JSONB,
    "expires_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_objects_pkey" PRIMARY KEY ("kind","id")
);

-- CreateTable
CREATE TABLE "server_secrets" (
    "name" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "server_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "rate_limit_counters" (
    "key" TEXT NOT NULL,
    "hits" INTEGER NOT NULL,
    "reset_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "oauth_objects_grant_id_idx" ON "oauth_objects"("grant_id");

-- CreateIndex
CREATE INDEX "oauth_objects_kind_uid_idx" ON "oauth_objects"("kind", "uid");

-- CreateIndex
CREATE INDEX "oauth_objects_kind_owner_user_id_idx" ON "oauth_objects"("kind", "owner_user_id");

-- CreateIndex
CREATE INDEX "oauth_objects_expires_at_idx" ON "oauth_objects"("expires_at");

-- CreateIndex
CREATE INDEX "rate_limit_counters_reset_at_idx" ON "rate_limit_counters"("reset_at");

-- AddForeignKey
ALTER TABLE "oauth_objects" ADD CONSTRAINT "oauth_objects_owner_user_id_fkey" FOREIGN KEY ("owner_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
