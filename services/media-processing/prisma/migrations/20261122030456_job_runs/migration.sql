-- DropIndex
DROP INDEX "jobs_upload_id_key";

-- DropIndex
DROP INDEX "jobs_state_created_at_idx";

-- AlterTable
ALTER TABLE "jobs" DROP COLUMN "attempts",
ADD COLUMN     "artist_id" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "attempt" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "available_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "bucket" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "cover_key" TEXT,
ADD COLUMN     "format" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "lease_until" TIMESTAMPTZ(3),
ADD COLUMN     "original_key" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "public_id" UUID NOT NULL,
ADD COLUMN     "runs" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "jobs_state_available_at_idx" ON "jobs"("state", "available_at");

-- CreateIndex
CREATE INDEX "jobs_state_lease_until_idx" ON "jobs"("state", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "jobs_upload_id_attempt_key" ON "jobs"("upload_id", "attempt");

