import { sql } from '@msp/db';
import type { PlaylistSnapshot, SqlExecutor, TrackSnapshot } from '@msp/events';

/** Social's copies of tracks and playlists: what likes, comments and visibility (R2, R6) need. */
export async function upsertTrack(tx: SqlExecutor, s: TrackSnapshot): Promise<void> {
  // Engagement counts are social's own and never overwritten; a deleted track stays deleted.
  await tx.$executeRaw(
    sql`INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, access, duration_seconds,
                             cover_url, genre, published_at, created_at, held_back)
     VALUES (${s.trackId}, ${s.artistId}, ${s.title}, ${s.trackSlug}, ${s.state}, ${s.isPrivate}, ${s.access}, ${s.durationSeconds},
             ${s.coverUrl}, ${s.genre}, ${s.publishedAt}::timestamptz, ${s.createdAt}::timestamptz, ${s.heldBack ?? false})
     ON CONFLICT (track_id) DO UPDATE SET artist_id = EXCLUDED.artist_id, title = EXCLUDED.title,
       track_slug = EXCLUDED.track_slug, state = EXCLUDED.state, is_private = EXCLUDED.is_private,
       access = EXCLUDED.access, duration_seconds = EXCLUDED.duration_seconds, cover_url = EXCLUDED.cover_url,
       genre = EXCLUDED.genre, published_at = EXCLUDED.published_at, created_at = EXCLUDED.created_at,
       held_back = EXCLUDED.held_back`,
  );
}

export async function upsertPlaylist(tx: SqlExecutor, s: PlaylistSnapshot): Promise<void> {
  await tx.$executeRaw(
    // DSC-1 PLAYLIST_POSTED: a playlist created public is posted at its creation; one made public
    // later, when that change arrives. Posted once: going private and public again does not re-post.
    sql`INSERT INTO playlist_refs (playlist_id, owner_id, title, playlist_slug, is_private, cover_art_url, created_at, posted_at)
     VALUES (${s.playlistId}, ${s.ownerId}, ${s.title}, ${s.playlistSlug}, ${s.isPrivate}, ${s.coverArtUrl}, ${s.createdAt}::timestamptz,
             CASE WHEN ${s.isPrivate}::boolean THEN NULL ELSE ${s.createdAt}::timestamptz END)
     ON CONFLICT (playlist_id) DO UPDATE SET owner_id = EXCLUDED.owner_id, title = EXCLUDED.title,
       playlist_slug = EXCLUDED.playlist_slug, is_private = EXCLUDED.is_private,
       cover_art_url = EXCLUDED.cover_art_url, created_at = EXCLUDED.created_at,
       posted_at = COALESCE(playlist_refs.posted_at, CASE WHEN EXCLUDED.is_private THEN NULL ELSE now() END)`,
  );
}

/** Kept (not removed) so likes and comments of a deleted track stay consistent but hidden (R2). */
export async function markTrackDeleted(tx: SqlExecutor, trackId: number): Promise<void> {
  await tx.$executeRaw(sql`UPDATE track_refs SET is_deleted = true WHERE track_id = ${trackId}`);
}

export async function markPlaylistDeleted(tx: SqlExecutor, playlistId: number): Promise<void> {
  await tx.$executeRaw(sql`UPDATE playlist_refs SET is_deleted = true WHERE playlist_id = ${playlistId}`);
}

/** catalog's ArtistTrackCountChanged: the profile's public FINISHED track count. */
export async function setTrackCount(tx: SqlExecutor, userId: number, trackCount: number): Promise<void> {
  await tx.$executeRaw(sql`UPDATE user_summaries SET track_count = ${trackCount} WHERE user_id = ${userId}`);
}
