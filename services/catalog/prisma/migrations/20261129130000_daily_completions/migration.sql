-- Counted completions per track and UTC day beside the plays in trending's day counters
-- (docs/insights.md): INS-1's daily series then reads one row per day (plays, completions, likes,
-- reposts, comments) instead of the track's day-and-source rows too. Kept in the play log's
-- statements; not watched by the artist_engagement_days triggers. Filled from `track_play_days`.
ALTER TABLE "track_daily_stats" ADD COLUMN "completions" INTEGER NOT NULL DEFAULT 0;
INSERT INTO "track_daily_stats" ("track_id", "day", "completions")
SELECT "track_id", "day", sum("completions") FROM "track_play_days" GROUP BY 1, 2 HAVING sum("completions") > 0
ON CONFLICT ("track_id", "day") DO UPDATE SET "completions" = EXCLUDED."completions";
