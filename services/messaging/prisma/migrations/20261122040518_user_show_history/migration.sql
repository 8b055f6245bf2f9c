-- AlterTable
ALTER TABLE "user_summaries" ADD COLUMN     "show_history" BOOLEAN NOT NULL DEFAULT true;

