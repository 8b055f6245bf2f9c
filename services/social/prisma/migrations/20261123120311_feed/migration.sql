-- DSC-1: one id sequence for every feed source (posts, likes, reposts), so Feed item ids never collide.
CREATE SEQUENCE IF NOT EXISTS "feed_item_seq" AS integer;

-- AlterTable
ALTER TABLE "track_refs" ADD COLUMN     "feed_id" INTEGER NOT NULL DEFAULT nextval('feed_item_seq'::regclass);

-- AlterTable
ALTER TABLE "playlist_refs" ADD COLUMN     "feed_id" INTEGER NOT NULL DEFAULT nextval('feed_item_seq'::regclass),
ADD COLUMN     "posted_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "track_likes" ADD COLUMN     "feed_id" INTEGER NOT NULL DEFAULT nextval('feed_item_seq'::regclass);

-- AlterTable
ALTER TABLE "track_reposts" ADD COLUMN     "feed_id" INTEGER NOT NULL DEFAULT nextval('feed_item_seq'::regclass);

-- AlterTable
ALTER TABLE "playlist_likes" ADD COLUMN     "feed_id" INTEGER NOT NULL DEFAULT nextval('feed_item_seq'::regclass);

-- AlterTable
ALTER TABLE "playlist_reposts" ADD COLUMN     "feed_id" INTEGER NOT NULL DEFAULT nextval('feed_item_seq'::regclass);

-- CreateIndex
CREATE INDEX "track_refs_artist_id_published_at_idx" ON "track_refs"("artist_id", "published_at" DESC);

-- CreateIndex
CREATE INDEX "playlist_refs_owner_id_posted_at_idx" ON "playlist_refs"("owner_id", "posted_at" DESC);


-- Playlists already public were posted when created.
UPDATE "playlist_refs" SET "posted_at" = "created_at" WHERE NOT "is_private" AND "posted_at" IS NULL;
