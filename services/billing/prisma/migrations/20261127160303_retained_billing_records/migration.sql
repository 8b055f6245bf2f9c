-- ACC-5 (docs/account-control.md): what billing keeps of a deleted account's subscription for
-- legal retention, with nothing that names the person: no user id, no email, no name.
CREATE TABLE "retained_billing_records" (
  "id" SERIAL NOT NULL,
  "provider_subscription_id" TEXT,
  "provider_customer_id" TEXT,
  "plan" "subscription_plan" NOT NULL,
  "status" "subscription_status" NOT NULL,
  "current_period_end" TIMESTAMPTZ(3),
  "subscribed_at" TIMESTAMPTZ(3) NOT NULL,
  "account_deleted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "retained_billing_records_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "retained_billing_records_provider_subscription_id_key" ON "retained_billing_records"("provider_subscription_id");
CREATE INDEX "retained_billing_records_provider_customer_id_idx" ON "retained_billing_records"("provider_customer_id");
