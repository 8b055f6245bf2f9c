-- INS-2's top listeners at scale (docs/insights.md). Not in schema.prisma: raw-SQL rollups.
--
-- artist_listener_totals: every signed-in listener's counted plays of an artist, all time, kept in
-- the play log's statements like the other rollups. Read in descending order, it bounds what any
-- listener further down can have played in a range, so the top listeners of a long range are found
-- after a few hundred listeners instead of summing every listener's days.
CREATE TABLE "artist_listener_totals" (
  "artist_id" INTEGER NOT NULL,
  "listener_id" INTEGER NOT NULL,
  "plays" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "artist_listener_totals_pkey" PRIMARY KEY ("artist_id", "listener_id")
);
INSERT INTO "artist_listener_totals" ("artist_id", "listener_id", "plays")
SELECT "artist_id", "listener_id", sum("plays") FROM "artist_listener_days" GROUP BY 1, 2;
CREATE INDEX "artist_listener_totals_rank_idx" ON "artist_listener_totals" ("artist_id", "plays" DESC, "listener_id");

-- One listener's days of an artist: the range sum of each candidate (an index-only probe).
CREATE INDEX "artist_listener_days_artist_listener_idx" ON "artist_listener_days" ("artist_id", "listener_id", "day") INCLUDE ("plays");
