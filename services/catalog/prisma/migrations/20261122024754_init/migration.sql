-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "TrackState" AS ENUM ('UPLOADING', 'PROCESSING', 'FINISHED', 'FAILED');

-- CreateEnum
CREATE TYPE "TrackAccess" AS ENUM ('PLAYABLE', 'PREVIEW', 'BLOCKED');

-- CreateTable
CREATE TABLE "user_summaries" (
    "user_id" INTEGER NOT NULL,
    "username" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "avatar_url" TEXT,
    "tier" TEXT NOT NULL DEFAULT 'FREE',
    "role" TEXT NOT NULL DEFAULT 'LISTENER',
    "is_private" BOOLEAN NOT NULL DEFAULT false,
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,
    "follower_count" INTEGER NOT NULL DEFAULT 0,
    "track_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_summaries_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "tracks" (
    "id" SERIAL NOT NULL,
    "artist_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "track_slug" TEXT NOT NULL,
    "description" TEXT,
    "genre" TEXT NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "release_date" DATE NOT NULL,
    "state" "TrackState" NOT NULL DEFAULT 'UPLOADING',
    "is_private" BOOLEAN NOT NULL DEFAULT false,
    "access" "TrackAccess" NOT NULL DEFAULT 'PLAYABLE',
    "secret_token" TEXT NOT NULL,
    "upload_id" UUID NOT NULL,
    "duration_seconds" INTEGER,
    "play_count" INTEGER NOT NULL DEFAULT 0,
    "completed_play_count" INTEGER NOT NULL DEFAULT 0,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "repost_count" INTEGER NOT NULL DEFAULT 0,
    "comment_count" INTEGER NOT NULL DEFAULT 0,
    "published_at" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tracks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_event" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "processed_event" (
    "consumer" TEXT NOT NULL,
    "event_id" UUID NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_event_pkey" PRIMARY KEY ("consumer","event_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_summaries_username_key" ON "user_summaries"("username");

-- CreateIndex
CREATE UNIQUE INDEX "tracks_track_slug_key" ON "tracks"("track_slug");

-- CreateIndex
CREATE UNIQUE INDEX "tracks_secret_token_key" ON "tracks"("secret_token");

-- CreateIndex
CREATE UNIQUE INDEX "tracks_upload_id_key" ON "tracks"("upload_id");

-- CreateIndex
CREATE INDEX "tracks_artist_id_created_at_idx" ON "tracks"("artist_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "tracks_state_idx" ON "tracks"("state");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_event_seq_key" ON "outbox_event"("seq");

-- CreateIndex
CREATE INDEX "outbox_event_published_at_seq_idx" ON "outbox_event"("published_at", "seq");

-- CreateIndex
CREATE INDEX "processed_event_processed_at_idx" ON "processed_event"("processed_at");

