-- R14: social's copy of identity's bans (identity.user.banned.v1 / unbanned.v1).
-- CreateTable
CREATE TABLE "banned_users" (
    "user_id" INTEGER NOT NULL,
    "banned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "banned_users_pkey" PRIMARY KEY ("user_id")
);
