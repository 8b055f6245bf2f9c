-- Counted plays and completions per artist and UTC day (docs/insights.md): INS-2's daily totals
-- read one row per day instead of one per track and day. Kept in the play log's statements.
CREATE TABLE "artist_play_days" (
  "artist_id" INTEGER NOT NULL,
  "day" DATE NOT NULL,
  "plays" INTEGER NOT NULL DEFAULT 0,
  "completions" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "artist_play_days_pkey" PRIMARY KEY ("artist_id", "day")
);
INSERT INTO "artist_play_days" ("artist_id", "day", "plays", "completions")
SELECT "artist_id", ("played_at" AT TIME ZONE 'UTC')::date, count(*) FILTER (WHERE "kind" = 'P'), count(*) FILTER (WHERE "kind" = 'C')
  FROM "play_events" WHERE "flag" IS NULL AND "void_id" IS NULL AND NOT "held" GROUP BY 1, 2;
