-- An artist's public track pages (USR-18, TRK-22, TRK-23) newest first: the page's ids come from
-- this index alone, so page 100 of an artist with 5,000 tracks skips 2,000 index entries instead of
-- reading 2,000 rows, and the order (created_at, id) needs no sort.
CREATE INDEX "tracks_artist_listed_idx" ON "tracks" ("artist_id", "created_at" DESC, "id" DESC)
  WHERE "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED';
