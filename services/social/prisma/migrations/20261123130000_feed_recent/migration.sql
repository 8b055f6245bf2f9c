-- DSC-1 for large followings: each feed source newest first, covering what the feed reads, so a
-- user who follows 1,000 busy artists reads a few thousand index entries instead of every action
-- of theirs in the window. Not in schema.prisma (INCLUDE and partial indexes).
CREATE INDEX "track_refs_feed_recent_idx" ON "track_refs" ("published_at" DESC) INCLUDE ("artist_id", "track_id", "feed_id") WHERE "published_at" IS NOT NULL;
CREATE INDEX "playlist_refs_feed_recent_idx" ON "playlist_refs" ("posted_at" DESC) INCLUDE ("owner_id", "playlist_id", "feed_id") WHERE "posted_at" IS NOT NULL;
CREATE INDEX "track_likes_feed_recent_idx" ON "track_likes" ("created_at" DESC) INCLUDE ("user_id", "track_id", "feed_id");
CREATE INDEX "track_reposts_feed_recent_idx" ON "track_reposts" ("created_at" DESC) INCLUDE ("user_id", "track_id", "feed_id");
CREATE INDEX "playlist_likes_feed_recent_idx" ON "playlist_likes" ("created_at" DESC) INCLUDE ("user_id", "playlist_id", "feed_id");
CREATE INDEX "playlist_reposts_feed_recent_idx" ON "playlist_reposts" ("created_at" DESC) INCLUDE ("user_id", "playlist_id", "feed_id");
