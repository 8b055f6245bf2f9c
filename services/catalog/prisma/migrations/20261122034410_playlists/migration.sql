-- CreateEnum
CREATE TYPE "PlaylistType" AS ENUM ('PLAYLIST', 'ALBUM', 'SINGLE', 'EP');

-- CreateTable
CREATE TABLE "playlists" (
    "id" SERIAL NOT NULL,
    "owner_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "playlist_slug" TEXT NOT NULL,
    "description" TEXT,
    "type" "PlaylistType" NOT NULL DEFAULT 'PLAYLIST',
    "is_private" BOOLEAN NOT NULL DEFAULT false,
    "genre" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "secret_token" TEXT NOT NULL,
    "cover_key" TEXT,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "repost_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "playlists_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "playlist_tracks" (
    "playlist_id" INTEGER NOT NULL,
    "track_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "playlist_tracks_pkey" PRIMARY KEY ("playlist_id","track_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "playlists_playlist_slug_key" ON "playlists"("playlist_slug");

-- CreateIndex
CREATE UNIQUE INDEX "playlists_secret_token_key" ON "playlists"("secret_token");

-- CreateIndex
CREATE INDEX "playlists_owner_id_created_at_idx" ON "playlists"("owner_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "playlist_tracks_playlist_id_position_idx" ON "playlist_tracks"("playlist_id", "position");

-- CreateIndex
CREATE INDEX "playlist_tracks_track_id_idx" ON "playlist_tracks"("track_id");

-- AddForeignKey
ALTER TABLE "playlist_tracks" ADD CONSTRAINT "playlist_tracks_playlist_id_fkey" FOREIGN KEY ("playlist_id") REFERENCES "playlists"("id") ON DELETE CASCADE ON UPDATE CASCADE;

