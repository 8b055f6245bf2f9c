-- ACC-3 (docs/account-control.md): a user whose deletion is scheduled is hidden exactly as a
-- banned one, through the same `banned_users` row that every hiding check reads. The row now
-- says why it exists; it is removed when neither reason holds any more.
ALTER TABLE "banned_users"
  ADD COLUMN "is_banned" BOOLEAN NOT NULL DEFAULT true,
  ADD COLUMN "deletion_pending" BOOLEAN NOT NULL DEFAULT false;
