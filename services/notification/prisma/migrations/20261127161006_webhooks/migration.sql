-- Webhooks (APP-18…22, docs/developer-platform.md).
CREATE TABLE "webhook_apps" (
    "app_id" INTEGER NOT NULL,
    "owner_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "suspended" BOOLEAN NOT NULL DEFAULT false,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "version" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "webhook_apps_pkey" PRIMARY KEY ("app_id")
);
CREATE INDEX "webhook_apps_owner_id_idx" ON "webhook_apps"("owner_id");

CREATE TABLE "webhook_grants" (
    "grant_id" TEXT NOT NULL,
    "app_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "scopes" TEXT[],
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "webhook_grants_pkey" PRIMARY KEY ("grant_id")
);
CREATE INDEX "webhook_grants_user_id_app_id_idx" ON "webhook_grants"("user_id", "app_id");

CREATE TABLE "webhook_endpoints" (
    "id" SERIAL NOT NULL,
    "app_id" INTEGER NOT NULL,
    "owner_id" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "secret" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'ACTIVE',
    "failing_since" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_endpoints_status_check" CHECK ("status" IN ('ACTIVE', 'DISABLED'))
);
CREATE INDEX "webhook_endpoints_app_id_idx" ON "webhook_endpoints"("app_id");

CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "endpoint_id" INTEGER NOT NULL,
    "event_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "resource_key" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" TIMESTAMPTZ(3),
    "response_code" INTEGER,
    "latency_ms" INTEGER,
    "last_error" TEXT,
    "redelivery_of" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),
    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('PENDING', 'DELIVERED', 'FAILED')),
    CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "webhook_deliveries_seq_key" ON "webhook_deliveries"("seq");
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at" DESC);
CREATE INDEX "webhook_deliveries_created_at_idx" ON "webhook_deliveries"("created_at");
-- One delivery per event and endpoint (consumer redelivery inserts nothing twice); redeliveries are extra rows.
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_event_key" ON "webhook_deliveries"("endpoint_id", "event_id") WHERE "redelivery_of" IS NULL;
-- The dispatcher's claim: due pending rows, and the earlier pending rows of the same endpoint and resource.
CREATE INDEX "webhook_deliveries_pending_due_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "status" = 'PENDING';
CREATE INDEX "webhook_deliveries_pending_resource_idx" ON "webhook_deliveries"("endpoint_id", "resource_key", "seq") WHERE "status" = 'PENDING';
