-- CreateTable
CREATE TABLE "notification_dedup" (
    "recipient_id" INTEGER NOT NULL,
    "actor_id" INTEGER NOT NULL,
    "type" "notification_type" NOT NULL,
    "resource_type" "resource_type" NOT NULL,
    "resource_id" INTEGER NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notification_dedup_pkey" PRIMARY KEY ("recipient_id","actor_id","type","resource_type","resource_id")
);

-- CreateTable
CREATE TABLE "user_summaries" (
    "user_id" INTEGER NOT NULL,
    "username" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "avatar_url" TEXT,
    "tier" TEXT NOT NULL DEFAULT 'FREE',
    "role" TEXT NOT NULL DEFAULT 'LISTENER',
    "is_private" BOOLEAN NOT NULL DEFAULT false,
    "show_history" BOOLEAN NOT NULL DEFAULT true,
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,
    "follower_count" INTEGER NOT NULL DEFAULT 0,
    "track_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_summaries_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "track_refs" (
    "track_id" INTEGER NOT NULL,
    "artist_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "track_slug" TEXT NOT NULL,
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "track_refs_pkey" PRIMARY KEY ("track_id")
);

-- CreateTable
CREATE TABLE "playlist_refs" (
    "playlist_id" INTEGER NOT NULL,
    "owner_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "playlist_slug" TEXT NOT NULL,
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "playlist_refs_pkey" PRIMARY KEY ("playlist_id")
);

-- CreateTable
CREATE TABLE "blocks" (
    "blocker_id" INTEGER NOT NULL,
    "blocked_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blocks_pkey" PRIMARY KEY ("blocker_id","blocked_id")
);

-- CreateTable
CREATE TABLE "follows" (
    "follower_id" INTEGER NOT NULL,
    "followee_id" INTEGER NOT NULL,

    CONSTRAINT "follows_pkey" PRIMARY KEY ("follower_id","followee_id")
);

-- CreateTable
CREATE TABLE "banned_users" (
    "user_id" INTEGER NOT NULL,
    "banned_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "banned_users_pkey" PRIMARY KEY ("user_id")
);

-- CreateIndex
CREATE INDEX "notification_dedup_last_at_idx" ON "notification_dedup"("last_at");

-- CreateIndex
CREATE UNIQUE INDEX "user_summaries_username_key" ON "user_summaries"("username");

-- CreateIndex
CREATE INDEX "blocks_blocked_id_idx" ON "blocks"("blocked_id");

-- CreateIndex
CREATE INDEX "notifications_actor_id_idx" ON "notifications"("actor_id");

