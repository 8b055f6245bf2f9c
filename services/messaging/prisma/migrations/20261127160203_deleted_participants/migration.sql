-- ACC-5 (docs/account-control.md): a deleted user leaves their conversations. Their participant
-- slot and the sender of their messages become NULL (shown as "Deleted user"); the other party
-- keeps the conversation. A conversation whose both participants are gone is removed.
ALTER TABLE "conversations" ALTER COLUMN "user_low_id" DROP NOT NULL, ALTER COLUMN "user_high_id" DROP NOT NULL;
ALTER TABLE "messages" ALTER COLUMN "sender_id" DROP NOT NULL;

-- ACC-3: a user whose deletion is scheduled is hidden as a banned one (the same row), for its own reason.
ALTER TABLE "banned_users"
  ADD COLUMN "is_banned" BOOLEAN NOT NULL DEFAULT true,
  ADD COLUMN "deletion_pending" BOOLEAN NOT NULL DEFAULT false;
