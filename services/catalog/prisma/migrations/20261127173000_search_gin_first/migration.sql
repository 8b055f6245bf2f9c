-- DSC-3 (not in schema.prisma, like the other search objects): the matches of a search query
-- through the full-text GIN index only, at most `cap` of them, with their popularity and owner.
-- The planner chose between this index and a walk of the popularity index from its estimate of the
-- words' frequency; for rare words and for ORs of corrections that estimate can be far too high, and
-- the walk then read the whole popularity index (seconds at 1M tracks). Inside this function the
-- plan can only be a bitmap scan of the GIN index (sequential and plain index scans off), so a rare
-- query costs its few matches, whatever the statistics say. `modules/discovery/discovery.repository.ts`
-- walks the popularity index only when this finds `cap` matches or more.
CREATE OR REPLACE FUNCTION msp_search_matches(kind text, q tsquery, cap integer)
  RETURNS TABLE (id integer, pop integer, owner integer)
  LANGUAGE plpgsql STABLE ROWS 100
  SET enable_seqscan = off SET enable_indexscan = off SET enable_indexonlyscan = off
AS $$
BEGIN
  IF kind = 'TRACK' THEN
    RETURN QUERY SELECT t.id, t.play_count, t.artist_id FROM tracks t
      WHERE t.search_doc @@ q AND t.deleted_at IS NULL AND NOT t.is_private AND t.state = 'FINISHED' LIMIT cap;
  ELSIF kind = 'PLAYLIST' THEN
    RETURN QUERY SELECT p.id, p.like_count, p.owner_id FROM playlists p WHERE p.search_doc @@ q AND NOT p.is_private LIMIT cap;
  ELSE
    RETURN QUERY SELECT u.user_id, u.follower_count, u.user_id FROM user_summaries u WHERE u.search_doc @@ q LIMIT cap;
  END IF;
END $$;
