-- DSC-3 (not in schema.prisma, like the indexes they replace): the popularity indexes a search
-- walks carry the search document and what the listing rule reads, so the walk stays in the index
-- (an index-only scan: no table page per entry; 102 → 10 ms for "night love" at 1M tracks) and a
-- search can afford to walk a bounded number of entries before it asks the GIN index instead
-- (modules/discovery/discovery.repository.ts, `popularMatchesSql`).
DROP INDEX IF EXISTS "tracks_search_popular_idx";
CREATE INDEX "tracks_search_popular_idx" ON "tracks" ("play_count" DESC, "id" DESC)
  INCLUDE ("search_doc", "artist_id", "genre_key", "held_back")
  WHERE "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED';
DROP INDEX IF EXISTS "playlists_search_popular_idx";
CREATE INDEX "playlists_search_popular_idx" ON "playlists" ("like_count" DESC, "id" DESC)
  INCLUDE ("search_doc", "owner_id", "genre") WHERE NOT "is_private";
DROP INDEX IF EXISTS "user_summaries_search_popular_idx";
CREATE INDEX "user_summaries_search_popular_idx" ON "user_summaries" ("follower_count" DESC, "user_id" DESC)
  INCLUDE ("search_doc", "is_deleted", "is_banned", "username");
