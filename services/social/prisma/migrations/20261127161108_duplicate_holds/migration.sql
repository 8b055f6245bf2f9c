-- Duplicate detection (docs/fingerprints.md). Catalog's track events carry `heldBack`: a held-back
-- track is hidden like a private one (its artist and admins still see it).
ALTER TABLE "track_refs" ADD COLUMN "held_back" BOOLEAN NOT NULL DEFAULT false;

-- The platform files COPYRIGHT reports itself: no reporter, and the match as evidence.
ALTER TABLE "reports" ALTER COLUMN "reporter_id" DROP NOT NULL;
ALTER TABLE "reports" ALTER COLUMN "reporter_username" DROP NOT NULL;
ALTER TABLE "reports" ADD COLUMN "evidence" JSONB;
