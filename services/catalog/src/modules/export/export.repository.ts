import { pages, type ExportFile } from '@msp/runtime';
import { sql } from '@msp/db';
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
        db.$queryRaw(
          sql`SELECT id, title, track_slug AS "trackSlug", description, genre, tags, release_date AS "releaseDate", state, is_private AS "isPrivate",
                  access, duration_seconds AS "durationSeconds", play_count AS "playCount", like_count AS "likeCount",
                  repost_count AS "repostCount", comment_count AS "commentCount", original_format AS "originalFormat",
                  original_size AS "originalSize", published_at AS "publishedAt", created_at AS "createdAt", updated_at AS "updatedAt"
             FROM tracks WHERE artist_id = ${userId} AND deleted_at IS NULL AND id > ${last?.id ?? 0} ORDER BY id LIMIT ${PAGE}`,
        ),
      ),
      playlists: pages<{ id: number }>((last) =>
        db.$queryRaw(
          sql`SELECT p.id, p.title, p.playlist_slug AS "playlistSlug", p.description, p.type, p.is_private AS "isPrivate", p.genre, p.tags,
                  p.created_at AS "createdAt", p.updated_at AS "updatedAt",
                  COALESCE((SELECT json_agg(json_build_object('trackId', pt.track_id, 'title', t.title, 'addedAt', pt.added_at) ORDER BY pt.position)
                              FROM playlist_tracks pt LEFT JOIN tracks t ON t.id = pt.track_id WHERE pt.playlist_id = p.id), '[]') AS tracks
             FROM playlists p WHERE p.owner_id = ${userId} AND p.id > ${last?.id ?? 0} ORDER BY p.id LIMIT ${PAGE}`,
        ),
      ),
      listeningHistory: pages<{ trackId: number }>((last) =>
        db.$queryRaw(
          sql`SELECT h.track_id AS "trackId", t.title, h.last_played_at AS "lastPlayedAt"
             FROM listening_history h LEFT JOIN tracks t ON t.id = h.track_id
            WHERE h.user_id = ${userId} AND h.track_id > ${last?.trackId ?? 0} ORDER BY h.track_id LIMIT ${PAGE}`,
        ),
      ),
      plays: pages<{ id: string; playedAt: Date }>((last) =>
        db.$queryRaw(
          sql`SELECT id::text AS id, played_at AS "playedAt", track_id AS "trackId", CASE kind WHEN 'C' THEN 'COMPLETION' ELSE 'PLAY' END AS kind,
                  source, seconds
             FROM play_events
            WHERE listener_id = ${userId} AND (played_at, id) > (${last?.playedAt ?? new Date(0)}::timestamptz, ${last?.id ?? '0'}::bigint)
            ORDER BY played_at, id LIMIT ${PAGE}`,
        ),
      ),
    };
  }

  async files(userId: number): Promise<ExportFile[]> {
    const rows = await this.db.$queryRaw<
      Array<{ id: number; slug: string; original_key: string | null; original_format: string | null; cover_upload_key: string | null }>
    >(
      sql`SELECT id, track_slug AS slug, original_key, original_format, cover_upload_key
         FROM tracks WHERE artist_id = ${userId} AND deleted_at IS NULL ORDER BY id`,
    );
    const playlists = await this.db.$queryRaw<Array<{ id: number; slug: string; cover_key: string }>>(
      sql`SELECT id, playlist_slug AS slug, cover_key FROM playlists WHERE owner_id = ${userId} AND cover_key IS NOT NULL ORDER BY id`,
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
