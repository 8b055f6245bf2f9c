-- Stations by artist (DSC-6, DSC-7): each artist's playable tracks in the hashed order, so an
-- artist's share of a station's day is an index range too.
CREATE INDEX "tracks_station_artist_idx" ON "tracks" ("artist_id", "shuffle_key")
  WHERE "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED' AND "access" = 'PLAYABLE'
    AND "progressive_key" IS NOT NULL AND "waveform_key" IS NOT NULL;
