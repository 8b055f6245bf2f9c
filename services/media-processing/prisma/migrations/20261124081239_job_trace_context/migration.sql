-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "correlation_id" TEXT,
ADD COLUMN     "traceparent" TEXT,
ADD COLUMN     "tracestate" TEXT;

