-- The play path's counters off the `tracks` row (docs/insights.md). Not in schema.prisma: raw SQL.
--
-- An update of `tracks.play_count` or `trending_score` can never be a HOT update (both are in
-- discovery's indexes) and writes all of the table's indexes, its generated columns and the
-- platform-counter trigger: most of a play batch's time. The play log's statements now add their
-- counted plays and completions to this narrow row per track instead (primary key only, so its
-- updates stay HOT); the track reads add it to the row's counts, so `playCount` and
-- `completedPlayCount` stay exact. The service folds the pending rows into `tracks` (counts, and
-- trending scores recomputed from `track_daily_stats`) and deletes them, in one transaction, so a
-- read sees each play exactly once: a row once it holds 100 plays or is 5 seconds old (`since`:
-- its first pending play), so a track's many plays cost one `tracks` update.
CREATE TABLE "track_play_deltas" (
  "track_id" INTEGER NOT NULL,
  "plays" INTEGER NOT NULL DEFAULT 0,
  "completions" INTEGER NOT NULL DEFAULT 0,
  "since" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "track_play_deltas_pkey" PRIMARY KEY ("track_id")
) WITH (fillfactor = 50);
