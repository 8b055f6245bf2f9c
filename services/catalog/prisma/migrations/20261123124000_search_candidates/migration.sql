-- DSC-3: a common word's matches are ranked among the most popular ones; these indexes give them
-- in that order (partial, on what search may list), so the planner can stop early.
CREATE INDEX "tracks_search_popular_idx" ON "tracks" ("play_count" DESC, "id" DESC)
  WHERE "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED';
CREATE INDEX "user_summaries_search_popular_idx" ON "user_summaries" ("follower_count" DESC, "user_id" DESC);
CREATE INDEX "playlists_search_popular_idx" ON "playlists" ("like_count" DESC, "id" DESC) WHERE NOT "is_private";
