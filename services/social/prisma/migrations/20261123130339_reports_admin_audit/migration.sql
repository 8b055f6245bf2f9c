-- CreateTable
CREATE TABLE "reports" (
    "id" SERIAL NOT NULL,
    "reporter_id" INTEGER NOT NULL,
    "reporter_username" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "description" TEXT,
    "status" TEXT NOT NULL DEFAULT 'OPEN',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "target_user_id" INTEGER NOT NULL,
    "target_username" TEXT NOT NULL,
    "target_display_name" TEXT NOT NULL,
    "target_title" TEXT,
    "target_artist_name" TEXT,
    "target_thumbnail_url" TEXT,
    "target_play_count" INTEGER,
    "target_created_at" TIMESTAMPTZ(3),
    "comment_content" TEXT,
    "comment_author" TEXT,

    CONSTRAINT "reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "admin_audit" (
    "id" BIGSERIAL NOT NULL,
    "admin_id" INTEGER NOT NULL,
    "admin_name" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "reason" TEXT,
    "details" JSONB,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "admin_audit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "reports_created_at_id_idx" ON "reports"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "reports_status_created_at_id_idx" ON "reports"("status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "reports_target_type_status_created_at_id_idx" ON "reports"("target_type", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "reports_target_type_target_id_idx" ON "reports"("target_type", "target_id");

-- CreateIndex
CREATE INDEX "admin_audit_created_at_idx" ON "admin_audit"("created_at" DESC);

-- CreateIndex
CREATE INDEX "admin_audit_admin_id_created_at_idx" ON "admin_audit"("admin_id", "created_at" DESC);


-- R14: one OPEN or IN_REVIEW report per reporter and target (hand-written: Prisma cannot express
-- partial indexes). The insert relies on it (23505 → 409 ALREADY_REPORTED), never on a pre-check.
CREATE UNIQUE INDEX "reports_one_active_per_target" ON "reports"("reporter_id", "target_type", "target_id")
  WHERE "status" IN ('OPEN', 'IN_REVIEW');

ALTER TABLE "reports" ADD CONSTRAINT "reports_status_check" CHECK ("status" IN ('OPEN', 'IN_REVIEW', 'RESOLVED', 'DISMISSED'));
ALTER TABLE "reports" ADD CONSTRAINT "reports_target_type_check" CHECK ("target_type" IN ('TRACK', 'COMMENT'));
