-- Duplicate detection's notices (docs/fingerprints.md).
ALTER TYPE "notification_type" ADD VALUE IF NOT EXISTS 'DUPLICATE_UPLOAD';
ALTER TYPE "notification_type" ADD VALUE IF NOT EXISTS 'UPLOAD_HELD_BACK';
ALTER TYPE "notification_type" ADD VALUE IF NOT EXISTS 'TRACK_COPY_DETECTED';
