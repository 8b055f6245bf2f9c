-- CreateEnum
CREATE TYPE "push_transport" AS ENUM ('WEB_PUSH', 'PROVIDER');

-- AlterTable: rows registered before this migration keep how they were pushed: WEB tokens were
-- always PushSubscription JSON (Web Push), every other device type went to the push provider.
ALTER TABLE "device_tokens" ADD COLUMN     "transport" "push_transport" NOT NULL DEFAULT 'PROVIDER';
UPDATE "device_tokens" SET "transport" = 'WEB_PUSH' WHERE "device_type" = 'WEB';
ALTER TABLE "device_tokens" ALTER COLUMN "transport" DROP DEFAULT;
