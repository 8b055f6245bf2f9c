import { pages, type ExportFile } from '@msp/runtime';
import type { SqlExecutor } from '@msp/events';

const PAGE = 500;

/**
 * Catalog's part of an account export (ACC-1, docs/account-control.md "Export"): the user's tracks
 * (metadata), playlists with their tracks in order, listening history and plays, each read in
 * keyset pages; the originals and the uploaded covers go into the ZIP as files.
 */
export class CatalogExportRepository {
  constructor(private readonly db: SqlExecutor) {}

  sections(userId: number) {
    const db = this.db;
    return {
      tracks: pages<{ id: number }>((last) =>
        db.$queryRawUnsafe(
          `SELECT id, title, track_slug AS "trackSlug", description, genre, tags, release_date AS "releaseDate", state, is_private AS "isPrivate",
                  access, duration_seconds AS "durationSeconds", play_count AS "playCount", like_count AS "likeCount",
                  repost_count AS "repostCount", comment_count AS "commentCount", original_format AS "originalFormat",
                  original_size AS "originalSize", published_at AS "publishedAt", created_at AS "createdAt", updated_at AS "updatedAt"
             FROM tracks WHERE artist_id = $1 AND deleted_at IS NULL AND id > $2 ORDER BY id LIMIT ${PAGE}`,
          userId,
          last?.id ?? 0,
        ),
      ),
      playlists: pages<{ id: number }>((last) =>
        db.$queryRawUnsafe(
          `SELECT p.id, p.title, p.playlist_slug AS "playlistSlug", p.description, p.type, p.is_private AS "isPrivate", p.genre, p.tags,
                  p.created_at AS "createdAt", p.updated_at AS "updatedAt",
                  COALESCE((SELECT json_agg(json_build_object('trackId', pt.track_id, 'title', t.title, 'addedAt', pt.added_at) ORDER BY pt.position)
                              FROM playlist_tracks pt LEFT JOIN tracks t ON t.id = pt.track_id WHERE pt.playlist_id = p.id), '[]') AS tracks
             FROM playlists p WHERE p.owner_id = $1 AND p.id > $2 ORDER BY p.id LIMIT ${PAGE}`,
          userId,
          last?.id ?? 0,
        ),
      ),
      listeningHistory: pages<{ trackId: number }>((last) =>
        db.$queryRawUnsafe(
          `SELECT h.track_id AS "trackId", t.title, h.last_played_at AS "lastPlayedAt"
             FROM listening_history h LEFT JOIN tracks t ON t.id = h.track_id
            WHERE h.user_id = $1 AND h.track_id > $2 ORDER BY h.track_id LIMIT ${PAGE}`,
          userId,
          last?.trackId ?? 0,
        ),
      ),
      plays: pages<{ id: string; playedAt: Date }>((last) =>
        db.$queryRawUnsafe(
          `SELECT id::text AS id, played_at AS "playedAt", track_id AS "trackId", CASE kind WHEN 'C' THEN 'COMPLETION' ELSE 'PLAY' END AS kind,
                  source, seconds
             FROM play_events
            WHERE listener_id = $1 AND (played_at, id) > ($2::timestamptz, $3::bigint)
            ORDER BY played_at, id LIMIT ${PAGE}`,
          userId,
          last?.playedAt ?? new Date(0),
          last?.id ?? '0',
        ),
      ),
    };
  }

  async files(userId: number): Promise<ExportFile[]> {
    const rows = await this.db.$queryRawUnsafe<
      Array<{ id: number; slug: string; original_key: string | null; original_format: string | null; cover_upload_key: string | null }>
    >(
      `SELECT id, track_slug AS slug, original_key, original_format, cover_upload_key
         FROM tracks WHERE artist_id = $1 AND deleted_at IS NULL ORDER BY id`,
      userId,
    );
    const playlists = await this.db.$queryRawUnsafe<Array<{ id: number; slug: string; cover_key: string }>>(
      `SELECT id, playlist_slug AS slug, cover_key FROM playlists WHERE owner_id = $1 AND cover_key IS NOT NULL ORDER BY id`,
      userId,
    );
    const files: ExportFile[] = [];
    for (const t of rows) {
      const base = `${t.id}-${safeName(t.slug)}`;
      if (t.original_key)
        files.push({ objectKey: t.original_key, name: `catalog/originals/${base}${t.original_format ? `.${safeName(t.original_format.toLowerCase())}` : ''}` });
      if (t.cover_upload_key) files.push({ objectKey: t.cover_upload_key, name: `catalog/covers/${base}${extensionOf(t.cover_upload_key)}` });
    }
    for (const p of playlists) files.push({ objectKey: p.cover_key, name: `catalog/playlist-covers/${p.id}-${safeName(p.slug)}${extensionOf(p.cover_key)}` });
    return files;
  }
}

function safeName(value: string): string {
  return value.replace(/[^a-zA-Z0-9._-]+/g, '-').slice(0, 80);
}

function extensionOf(key: string): string {
  const match = /\.[a-z0-9]{1,5}$/i.exec(key);
  return match ? match[0].toLowerCase() : '';
}
