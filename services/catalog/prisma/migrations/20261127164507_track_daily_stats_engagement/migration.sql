-- INS-2's daily likes, reposts and comments sum every track of the artist per day
-- (docs/insights.md): an index-only scan of this instead of a heap row per track and day. The
-- plays column stays out of it, so the per-play update of a day's row can still be HOT.
CREATE INDEX "track_daily_stats_engagement_idx" ON "track_daily_stats" ("track_id", "day") INCLUDE ("likes", "reposts", "comments");
