-- ACC-1/ACC-2: account data exports (docs/account-control.md "Export").
CREATE TABLE "account_exports" (
    "id" UUID NOT NULL,
    "user_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "expected_parts" TEXT[] NOT NULL,
    "parts" JSONB NOT NULL DEFAULT '{}',
    "object_key" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lease_until" TIMESTAMPTZ(3),
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ready_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "swept_at" TIMESTAMPTZ(3),

    CONSTRAINT "account_exports_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "account_exports_user_id_created_at_idx" ON "account_exports"("user_id", "created_at");
CREATE INDEX "account_exports_status_idx" ON "account_exports"("status");
-- At most one export of a user is being built at a time (ACC-1 answers 409 otherwise).
CREATE UNIQUE INDEX "account_exports_one_running" ON "account_exports"("user_id") WHERE "status" IN ('PENDING', 'RUNNING');
