-- Duplicate detection (docs/fingerprints.md): a new upload that repeats another artist's track is
-- held back from every public list, station, feed and search until an admin dismisses its
-- COPYRIGHT report. Few rows are ever true, so no index: the lists filter it next to is_private.
ALTER TABLE "tracks" ADD COLUMN "held_back" BOOLEAN NOT NULL DEFAULT false;
-- An artist's held-back tracks, read once per artist page so those pages stay index-only scans of
-- tracks_artist_listed_idx (the ids are excluded with `id <> ALL(...)`).
CREATE INDEX "tracks_held_back_idx" ON "tracks" ("artist_id") WHERE "held_back";
