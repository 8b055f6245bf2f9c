-- INS-2's daily likes, reposts and comments per artist (docs/insights.md). Not in schema.prisma:
-- a raw-SQL rollup.
--
-- artist_engagement_days: the sums of trending's day counters (track_daily_stats: likes, reposts,
-- comments) over every track of the artist, per UTC day, so INS-2 reads one row per day instead
-- of every track's days (63,000 index entries for the benchmark's heaviest artist at 0.02, 13 ms).
-- Kept by row triggers on track_daily_stats, whoever writes it (social's engagement events,
-- account deletion, its own later writers), from the row's actual change: a clamp to zero
-- (GREATEST) moves the rollup by what the counter really moved. A day whose sums are all zero has
-- no row (as before: no row reads as zero). The plays column is not watched: the play log's
-- per-play upsert (which sets only plays, and inserts rows with zero engagement) fires nothing.
-- The artist is the track's; a counter row of a track no longer in `tracks` changes nothing
-- (account deletion removes a track's counters before the track).
CREATE TABLE "artist_engagement_days" (
  "artist_id" INTEGER NOT NULL,
  "day" DATE NOT NULL,
  "likes" INTEGER NOT NULL DEFAULT 0,
  "reposts" INTEGER NOT NULL DEFAULT 0,
  "comments" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "artist_engagement_days_pkey" PRIMARY KEY ("artist_id", "day")
);

CREATE FUNCTION msp_artist_engagement_add(p_track INTEGER, p_day DATE, p_likes INTEGER, p_reposts INTEGER, p_comments INTEGER) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_artist INTEGER;
  v_likes INTEGER;
  v_reposts INTEGER;
  v_comments INTEGER;
BEGIN
  IF p_likes = 0 AND p_reposts = 0 AND p_comments = 0 THEN
    RETURN;
  END IF;
  SELECT artist_id INTO v_artist FROM tracks WHERE id = p_track;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO artist_engagement_days AS a (artist_id, day, likes, reposts, comments)
  VALUES (v_artist, p_day, p_likes, p_reposts, p_comments)
  ON CONFLICT (artist_id, day) DO UPDATE
    SET likes = a.likes + EXCLUDED.likes, reposts = a.reposts + EXCLUDED.reposts, comments = a.comments + EXCLUDED.comments
  RETURNING likes, reposts, comments INTO v_likes, v_reposts, v_comments;
  IF v_likes = 0 AND v_reposts = 0 AND v_comments = 0 THEN
    DELETE FROM artist_engagement_days WHERE artist_id = v_artist AND day = p_day;
  END IF;
END;
$$;

CREATE FUNCTION msp_artist_engagement_days() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.track_id = NEW.track_id AND OLD.day = NEW.day THEN
    PERFORM msp_artist_engagement_add(NEW.track_id, NEW.day, NEW.likes - OLD.likes, NEW.reposts - OLD.reposts, NEW.comments - OLD.comments);
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM msp_artist_engagement_add(OLD.track_id, OLD.day, -OLD.likes, -OLD.reposts, -OLD.comments);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM msp_artist_engagement_add(NEW.track_id, NEW.day, NEW.likes, NEW.reposts, NEW.comments);
  END IF;
  RETURN NULL;
END;
$$;

-- The triggers first: their lock on track_daily_stats holds its writers back until this
-- migration commits, so the fill below sees every counter and misses no change.
CREATE TRIGGER "track_daily_stats_artist_engagement_ins" AFTER INSERT ON "track_daily_stats"
  FOR EACH ROW WHEN (NEW.likes <> 0 OR NEW.reposts <> 0 OR NEW.comments <> 0)
  EXECUTE FUNCTION msp_artist_engagement_days();
CREATE TRIGGER "track_daily_stats_artist_engagement_upd" AFTER UPDATE OF "track_id", "day", "likes", "reposts", "comments" ON "track_daily_stats"
  FOR EACH ROW WHEN (OLD.track_id <> NEW.track_id OR OLD.day <> NEW.day OR OLD.likes <> NEW.likes OR OLD.reposts <> NEW.reposts OR OLD.comments <> NEW.comments)
  EXECUTE FUNCTION msp_artist_engagement_days();
CREATE TRIGGER "track_daily_stats_artist_engagement_del" AFTER DELETE ON "track_daily_stats"
  FOR EACH ROW WHEN (OLD.likes <> 0 OR OLD.reposts <> 0 OR OLD.comments <> 0)
  EXECUTE FUNCTION msp_artist_engagement_days();

INSERT INTO "artist_engagement_days" ("artist_id", "day", "likes", "reposts", "comments")
SELECT t."artist_id", s."day", sum(s."likes"), sum(s."reposts"), sum(s."comments")
  FROM "track_daily_stats" s JOIN "tracks" t ON t."id" = s."track_id"
 GROUP BY 1, 2
HAVING sum(s."likes") <> 0 OR sum(s."reposts") <> 0 OR sum(s."comments") <> 0;
