-- Stations (DSC-5/6/7): a fixed pseudo-random order of all tracks (a hash of the id). A station's
-- day starts at a point of this order given by the date, so it reads an index range of a few
-- hundred rows instead of sorting a whole genre. Not in schema.prisma (generated column).
ALTER TABLE "tracks" ADD COLUMN "shuffle_key" integer GENERATED ALWAYS AS (hashint4("id")) STORED;
CREATE INDEX "tracks_station_idx" ON "tracks" ("genre_key", "shuffle_key")
  WHERE "deleted_at" IS NULL AND NOT "is_private" AND "state" = 'FINISHED' AND "access" = 'PLAYABLE'
    AND "progressive_key" IS NOT NULL AND "waveform_key" IS NOT NULL;
