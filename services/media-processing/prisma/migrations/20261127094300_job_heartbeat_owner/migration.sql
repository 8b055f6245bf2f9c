-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "lease_generation" UUID,
ADD COLUMN     "lease_owner" TEXT,
ADD COLUMN     "lease_token" UUID,
ADD COLUMN     "progress" INTEGER NOT NULL DEFAULT 0;

