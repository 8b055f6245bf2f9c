import type { PlaylistSnapshot, SqlExecutor, TrackSnapshot } from '@msp/events';

/** Social's copies of tracks and playlists: what likes, comments and visibility (R2, R6) need. */
export async function upsertTrack(tx: SqlExecutor, s: TrackSnapshot): Promise<void> {
  // Engagement counts are social's own and never overwritten; a deleted track stays deleted.
  await tx.$executeRawUnsafe(
    `INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, access, duration_seconds,
                             cover_url, genre, published_at, created_at, held_back)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::timestamptz, $12::timestamptz, $13)
     ON CONFLICT (track_id) DO UPDATE SET artist_id = EXCLUDED.artist_id, title = EXCLUDED.title,
       track_slug = EXCLUDED.track_slug, state = EXCLUDED.state, is_private = EXCLUDED.is_private,
       access = EXCLUDED.access, duration_seconds = EXCLUDED.duration_seconds, cover_url = EXCLUDED.cover_url,
       genre = EXCLUDED.genre, published_at = EXCLUDED.published_at, created_at = EXCLUDED.created_at,
       held_back = EXCLUDED.held_back`,
    s.trackId,
    s.artistId,
    s.title,
    s.trackSlug,
    s.state,
    s.isPrivate,
    s.access,
    s.durationSeconds,
    s.coverUrl,
    s.genre,
    s.publishedAt,
    s.createdAt,
    s.heldBack ?? false,
  );
}

export async function upsertPlaylist(tx: SqlExecutor, s: PlaylistSnapshot): Promise<void> {
  await tx.$executeRawUnsafe(
    // DSC-1 PLAYLIST_POSTED: a playlist created public is posted at its creation; one made public
    // later, when that change arrives. Posted once: going private and public again does not re-post.
    `INSERT INTO playlist_refs (playlist_id, owner_id, title, playlist_slug, is_private, cover_art_url, created_at, posted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz, CASE WHEN $5 THEN NULL ELSE $7::timestamptz END)
     ON CONFLICT (playlist_id) DO UPDATE SET owner_id = EXCLUDED.owner_id, title = EXCLUDED.title,
       playlist_slug = EXCLUDED.playlist_slug, is_private = EXCLUDED.is_private,
       cover_art_url = EXCLUDED.cover_art_url, created_at = EXCLUDED.created_at,
       posted_at = COALESCE(playlist_refs.posted_at, CASE WHEN EXCLUDED.is_private THEN NULL ELSE now() END)`,
    s.playlistId,
    s.ownerId,
    s.title,
    s.playlistSlug,
    s.isPrivate,
    s.coverArtUrl,
    s.createdAt,
  );
}

/** Kept (not removed) so likes and comments of a deleted track stay consistent but hidden (R2). */
export async function markTrackDeleted(tx: SqlExecutor, trackId: number): Promise<void> {
  await tx.$executeRawUnsafe('UPDATE track_refs SET is_deleted = true WHERE track_id = $1', trackId);
}

export async function markPlaylistDeleted(tx: SqlExecutor, playlistId: number): Promise<void> {
  await tx.$executeRawUnsafe('UPDATE playlist_refs SET is_deleted = true WHERE playlist_id = $1', playlistId);
}

/** catalog's ArtistTrackCountChanged: the profile's public FINISHED track count. */
export async function setTrackCount(tx: SqlExecutor, userId: number, trackCount: number): Promise<void> {
  await tx.$executeRawUnsafe('UPDATE user_summaries SET track_count = $2 WHERE user_id = $1', userId, trackCount);
}
