-- Counted plays and completions per track, UTC month (its first day) and source ('' when the
-- client sent none): the months of `track_play_days` summed (docs/insights.md). INS-2's top tracks
-- and INS-1's plays by source read a whole month inside the range as one row instead of one per
-- day (a year: 12 rows instead of 365). Kept in the play log's statements with the day rollups.
CREATE TABLE "track_play_months" (
  "track_id" INTEGER NOT NULL,
  "month" DATE NOT NULL,
  "source" TEXT NOT NULL DEFAULT '',
  "plays" INTEGER NOT NULL DEFAULT 0,
  "completions" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "track_play_months_pkey" PRIMARY KEY ("track_id", "month", "source")
);
INSERT INTO "track_play_months" ("track_id", "month", "source", "plays", "completions")
SELECT "track_id", date_trunc('month', "day")::date, "source", sum("plays"), sum("completions")
  FROM "track_play_days" GROUP BY 1, 2, 3;
