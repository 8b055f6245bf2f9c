-- CreateTable
CREATE TABLE "blocks" (
    "blocker_id" INTEGER NOT NULL,
    "blocked_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blocks_pkey" PRIMARY KEY ("blocker_id","blocked_id")
);

-- CreateTable
CREATE TABLE "track_refs" (
    "track_id" INTEGER NOT NULL,
    "artist_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "track_slug" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "is_private" BOOLEAN NOT NULL,
    "access" TEXT NOT NULL,
    "duration_seconds" INTEGER,
    "cover_url" TEXT,
    "genre" TEXT NOT NULL,
    "published_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "repost_count" INTEGER NOT NULL DEFAULT 0,
    "comment_count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "track_refs_pkey" PRIMARY KEY ("track_id")
);

-- CreateTable
CREATE TABLE "playlist_refs" (
    "playlist_id" INTEGER NOT NULL,
    "owner_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "playlist_slug" TEXT NOT NULL,
    "is_private" BOOLEAN NOT NULL,
    "cover_art_url" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "repost_count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "playlist_refs_pkey" PRIMARY KEY ("playlist_id")
);

-- CreateTable
CREATE TABLE "track_likes" (
    "user_id" INTEGER NOT NULL,
    "track_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "track_likes_pkey" PRIMARY KEY ("user_id","track_id")
);

-- CreateTable
CREATE TABLE "track_reposts" (
    "user_id" INTEGER NOT NULL,
    "track_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "track_reposts_pkey" PRIMARY KEY ("user_id","track_id")
);

-- CreateTable
CREATE TABLE "playlist_likes" (
    "user_id" INTEGER NOT NULL,
    "playlist_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "playlist_likes_pkey" PRIMARY KEY ("user_id","playlist_id")
);

-- CreateTable
CREATE TABLE "playlist_reposts" (
    "user_id" INTEGER NOT NULL,
    "playlist_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "playlist_reposts_pkey" PRIMARY KEY ("user_id","playlist_id")
);

-- CreateTable
CREATE TABLE "comments" (
    "id" SERIAL NOT NULL,
    "track_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "timestamp_seconds" INTEGER NOT NULL DEFAULT 0,
    "reply_to_comment_id" INTEGER,
    "reply_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "comments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "blocks_blocked_id_blocker_id_idx" ON "blocks"("blocked_id", "blocker_id");

-- CreateIndex
CREATE INDEX "blocks_blocker_id_created_at_idx" ON "blocks"("blocker_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "track_refs_artist_id_idx" ON "track_refs"("artist_id");

-- CreateIndex
CREATE INDEX "playlist_refs_owner_id_idx" ON "playlist_refs"("owner_id");

-- CreateIndex
CREATE INDEX "track_likes_track_id_created_at_idx" ON "track_likes"("track_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "track_likes_user_id_created_at_idx" ON "track_likes"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "track_reposts_track_id_created_at_idx" ON "track_reposts"("track_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "track_reposts_user_id_created_at_idx" ON "track_reposts"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "playlist_likes_playlist_id_created_at_idx" ON "playlist_likes"("playlist_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "playlist_likes_user_id_created_at_idx" ON "playlist_likes"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "playlist_reposts_playlist_id_created_at_idx" ON "playlist_reposts"("playlist_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "playlist_reposts_user_id_created_at_idx" ON "playlist_reposts"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "comments_track_id_created_at_idx" ON "comments"("track_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "comments_reply_to_comment_id_created_at_idx" ON "comments"("reply_to_comment_id", "created_at");

-- CreateIndex
CREATE INDEX "user_summaries_follower_count_user_id_idx" ON "user_summaries"("follower_count" DESC, "user_id");

-- AddForeignKey
ALTER TABLE "comments" ADD CONSTRAINT "comments_reply_to_comment_id_fkey" FOREIGN KEY ("reply_to_comment_id") REFERENCES "comments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

