import { pgStatement, sql } from '@msp/db';
import type pg from 'pg';

/** What a byte request needs of its track, with the artist's ban (R14), in one statement. */
export interface MediaTrackRow {
  id: number;
  artistId: number;
  state: string;
  isPrivate: boolean;
  /** Held back by duplicate detection (docs/fingerprints.md): no viewer URL opens it. */
  heldBack: boolean;
  access: string;
  deletedAt: Date | null;
  secretToken: string;
  progressiveKey: string | null;
  previewKey: string | null;
  hlsPlaylistKey: string | null;
  hlsPrefix: string | null;
  /** R14 banned, or pending deletion (ACC-3). */
  artistBanned: boolean;
}

/** MEDIA-1/2 reads (every segment of a stream asks): SQL on the pg pool, one named statement. */
export class MediaRepository {
  constructor(private readonly pool: pg.Pool) {}

  async track(trackId: number): Promise<MediaTrackRow | null> {
    const result = await this.pool.query<MediaTrackRow>(
      pgStatement(
        sql`SELECT t.id, t.artist_id AS "artistId", t.state::text AS state, t.is_private AS "isPrivate", t.held_back AS "heldBack", t.access::text AS access,
                    t.deleted_at AS "deletedAt", t.secret_token AS "secretToken", t.progressive_key AS "progressiveKey",
                    t.preview_key AS "previewKey", t.hls_playlist_key AS "hlsPlaylistKey", t.hls_prefix AS "hlsPrefix",
                    coalesce(u.is_banned OR u.is_deleted, false) AS "artistBanned"
               FROM tracks t LEFT JOIN user_summaries u ON u.user_id = t.artist_id WHERE t.id = ${trackId}`,
        'catalog_media_track',
      ),
    );
    return result.rows[0] ?? null;
  }
}

/** What MediaService needs (unit tests give a fake). */
export type MediaTracks = Pick<MediaRepository, 'track'>;
