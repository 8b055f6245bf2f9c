-- AlterTable
ALTER TABLE "tracks" ADD COLUMN     "loudness" JSONB;

-- CreateTable
CREATE TABLE "track_sound_reports" (
    "track_id" INTEGER NOT NULL,
    "short_term_lufs" JSONB NOT NULL DEFAULT '[]',
    "duplicate_of" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "track_sound_reports_pkey" PRIMARY KEY ("track_id")
);

