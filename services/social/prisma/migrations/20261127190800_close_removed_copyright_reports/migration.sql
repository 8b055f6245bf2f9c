-- Duplicate detection (docs/fingerprints.md): the COPYRIGHT report the platform filed on a held-back
-- track is closed (RESOLVED) when the track is deleted; `resolution` says why.
ALTER TABLE "reports" ADD COLUMN "resolution" TEXT;
