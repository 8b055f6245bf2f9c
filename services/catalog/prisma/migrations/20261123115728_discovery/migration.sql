-- AlterTable
ALTER TABLE "user_summaries" ADD COLUMN     "is_banned" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "tracks" ADD COLUMN     "trending_score" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "track_daily_stats" (
    "track_id" INTEGER NOT NULL,
    "day" DATE NOT NULL,
    "plays" INTEGER NOT NULL DEFAULT 0,
    "likes" INTEGER NOT NULL DEFAULT 0,
    "reposts" INTEGER NOT NULL DEFAULT 0,
    "comments" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "track_daily_stats_pkey" PRIMARY KEY ("track_id","day")
);

-- CreateTable
CREATE TABLE "track_engagements" (
    "kind" CHAR(1) NOT NULL,
    "user_id" INTEGER NOT NULL,
    "track_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "track_engagements_pkey" PRIMARY KEY ("kind","user_id","track_id")
);

-- CreateTable
CREATE TABLE "track_comments" (
    "comment_id" INTEGER NOT NULL,
    "track_id" INTEGER NOT NULL,
    "parent_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "track_comments_pkey" PRIMARY KEY ("comment_id")
);

-- CreateTable
CREATE TABLE "user_blocks" (
    "blocker_id" INTEGER NOT NULL,
    "blocked_id" INTEGER NOT NULL,

    CONSTRAINT "user_blocks_pkey" PRIMARY KEY ("blocker_id","blocked_id")
);

-- CreateIndex
CREATE INDEX "track_daily_stats_day_idx" ON "track_daily_stats"("day");

-- CreateIndex
CREATE INDEX "track_engagements_track_id_idx" ON "track_engagements"("track_id");

-- CreateIndex
CREATE INDEX "track_comments_parent_id_idx" ON "track_comments"("parent_id");

-- CreateIndex
CREATE INDEX "user_blocks_blocked_id_blocker_id_idx" ON "user_blocks"("blocked_id", "blocker_id");


-- ───────────── DSC-3 search (not in schema.prisma: generated columns and GIN indexes) ─────────────
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent() is STABLE (it reads a dictionary chosen by search_path); with the dictionary named
-- explicitly the result only depends on the input, so it may sit in generated columns and indexes.
CREATE OR REPLACE FUNCTION msp_fold(input text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, input)) $$;

-- array_to_string() is STABLE for anyarray; for text[] it is immutable.
CREATE OR REPLACE FUNCTION msp_tags_text(tags text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_to_string(tags, ' '), '') $$;

ALTER TABLE "tracks"
  ADD COLUMN "search_doc" tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', msp_fold("title")), 'A') ||
    setweight(to_tsvector('simple', msp_fold(msp_tags_text("tags"))), 'B') ||
    setweight(to_tsvector('simple', msp_fold("genre")), 'C')) STORED,
  ADD COLUMN "search_text" text GENERATED ALWAYS AS (
    msp_fold("title" || ' ' || msp_tags_text("tags") || ' ' || "genre")) STORED;
CREATE INDEX "tracks_search_doc_idx" ON "tracks" USING gin ("search_doc") WHERE "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED';
CREATE INDEX "tracks_search_text_trgm_idx" ON "tracks" USING gin ("search_text" gin_trgm_ops) WHERE "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED';

ALTER TABLE "user_summaries"
  ADD COLUMN "search_doc" tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', msp_fold("username")), 'A') ||
    setweight(to_tsvector('simple', msp_fold("display_name")), 'A')) STORED,
  ADD COLUMN "search_text" text GENERATED ALWAYS AS (msp_fold("username" || ' ' || "display_name")) STORED;
CREATE INDEX "user_summaries_search_doc_idx" ON "user_summaries" USING gin ("search_doc");
CREATE INDEX "user_summaries_search_text_trgm_idx" ON "user_summaries" USING gin ("search_text" gin_trgm_ops);

ALTER TABLE "playlists"
  ADD COLUMN "search_doc" tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple', msp_fold("title")), 'A')) STORED,
  ADD COLUMN "search_text" text GENERATED ALWAYS AS (msp_fold("title")) STORED;
CREATE INDEX "playlists_search_doc_idx" ON "playlists" USING gin ("search_doc") WHERE NOT "is_private";
CREATE INDEX "playlists_search_text_trgm_idx" ON "playlists" USING gin ("search_text" gin_trgm_ops) WHERE NOT "is_private";
CREATE INDEX "playlists_genre_key_idx" ON "playlists" (lower("genre"));

-- ───────────── DSC-2 trending: the ranked tracks only (score > 0), newest first among equals ─────────────
CREATE INDEX "tracks_trending_idx" ON "tracks" ("trending_score" DESC, "published_at" DESC, "id" DESC)
  WHERE "trending_score" > 0 AND "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED';
CREATE INDEX "tracks_trending_genre_idx" ON "tracks" ("genre_key", "trending_score" DESC, "published_at" DESC, "id" DESC)
  WHERE "trending_score" > 0 AND "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED';
