-- AlterTable
ALTER TABLE "users" ADD COLUMN     "billing_tier_version" INTEGER NOT NULL DEFAULT 0;

