-- ACC-3/ACC-5 (docs/account-control.md): when a pending deletion ends its grace.
ALTER TABLE "users" ADD COLUMN "delete_at" TIMESTAMPTZ(3);
CREATE INDEX "users_delete_at_idx" ON "users"("delete_at");
