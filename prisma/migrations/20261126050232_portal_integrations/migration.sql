BEGIN;

-- CreateEnum
CREATE TYPE "PortalLoginService" AS ENUM ('IDPROVIDER', 'GOVPORTAL');

-- CreateTable
CREATE TABLE "portal_connections" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "service" "PortalLoginService" NOT NULL,
    "person_id" VARCHAR(11) NOT NULL,
    "access_token" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "refresh_token" TEXT,
    "id_token" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "portal_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "portal_login_states" (
    "id" SERIAL NOT NULL,
    "state_hash" VARCHAR(64) NOT NULL,
    "user_id" INTEGER NOT NULL,
    "service" "PortalLoginService" NOT NULL,
    "code_verifier" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "return_to" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "portal_login_states_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "govportal_system_users" (
    "id" VARCHAR(36) NOT NULL,
    "external_ref" VARCHAR(100) NOT NULL,
    "system_id" VARCHAR(100) NOT NULL,
    "org_number" VARCHAR(9) NOT NULL,
    "client_account_id" INTEGER NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "confirm_url" TEXT,
    "redirect_url" TEXT,
    "rights" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "govportal_system_users_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "portal_connections_user_id_service_key" ON "portal_connections"("user_id", "service");

-- CreateIndex
CREATE UNIQUE INDEX "portal_login_states_state_hash_key" ON "portal_login_states"("state_hash");

-- CreateIndex
CREATE INDEX "portal_login_states_user_id_idx" ON "portal_login_states"("user_id");

-- CreateIndex
CREATE INDEX "govportal_system_users_client_account_id_created_at_idx" ON "govportal_system_users"("client_account_id", "created_at");

-- AddForeignKey
ALTER TABLE "portal_connections" ADD CONSTRAINT "portal_connections_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "portal_login_states" ADD CONSTRAINT "portal_login_states_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "govportal_system_users" ADD CONSTRAINT "govportal_system_users_client_account_id_fkey" FOREIGN KEY ("client_account_id") REFERENCES "client_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

COMMIT;
