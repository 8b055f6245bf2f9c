-- DropIndex
DROP INDEX "one_time_tokens_user_id_purpose_idx";

-- CreateTable
CREATE TABLE "mail_requests" (
    "id" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mail_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "mail_requests_next_attempt_at_idx" ON "mail_requests"("next_attempt_at");

-- CreateIndex
CREATE INDEX "one_time_tokens_user_id_purpose_created_at_idx" ON "one_time_tokens"("user_id", "purpose", "created_at");

