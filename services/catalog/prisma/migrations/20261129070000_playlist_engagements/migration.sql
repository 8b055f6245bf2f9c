-- Catalog's copy of social's likes ('L') and reposts ('R') of playlists (social-sync, as
-- `track_engagements` for tracks): with `track_engagements` and `user_follows` it answers a viewer's
-- isLiked, isReposted and isFollowing on every playlist catalog renders (PLS-1, PLS-4, USR-19,
-- DSC-3) by primary key, so rendering a playlist asks social nothing. Likes and reposts older than
-- this migration are copied once by `scripts/backfill-playlist-engagements.ts`.
CREATE TABLE "playlist_engagements" (
    "kind" CHAR(1) NOT NULL,
    "user_id" INTEGER NOT NULL,
    "playlist_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "playlist_engagements_pkey" PRIMARY KEY ("kind","user_id","playlist_id")
);

-- A deleted playlist's copies go with it.
CREATE INDEX "playlist_engagements_playlist_id_idx" ON "playlist_engagements"("playlist_id");
