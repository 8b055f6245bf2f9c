-- AlterTable
ALTER TABLE "tracks" ADD COLUMN     "cover_key" TEXT,
ADD COLUMN     "cover_upload_key" TEXT,
ADD COLUMN     "error_message" TEXT,
ADD COLUMN     "genre_key" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "hls_playlist_key" TEXT,
ADD COLUMN     "hls_prefix" TEXT,
ADD COLUMN     "original_format" TEXT,
ADD COLUMN     "original_key" TEXT,
ADD COLUMN     "original_size" BIGINT,
ADD COLUMN     "preview_key" TEXT,
ADD COLUMN     "processing_attempt" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "progressive_key" TEXT,
ADD COLUMN     "status_progress" INTEGER,
ADD COLUMN     "status_step" TEXT,
ADD COLUMN     "status_updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "waveform_json_key" TEXT,
ADD COLUMN     "waveform_key" TEXT;

-- CreateTable
CREATE TABLE "listening_history" (
    "user_id" INTEGER NOT NULL,
    "track_id" INTEGER NOT NULL,
    "last_played_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "listening_history_pkey" PRIMARY KEY ("user_id","track_id")
);

-- CreateIndex
CREATE INDEX "listening_history_user_id_last_played_at_idx" ON "listening_history"("user_id", "last_played_at" DESC);

-- CreateIndex
CREATE INDEX "tracks_genre_key_state_idx" ON "tracks"("genre_key", "state");

