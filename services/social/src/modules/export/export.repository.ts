import { pages } from '@msp/runtime';
import { raw, sql, type Sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';

const PAGE = 500;

interface Row {
  k: number;
  createdAt: Date;
}

/**
 * Social's part of an account export (ACC-1, docs/account-control.md "Export"): the user's likes and
 * reposts of tracks and playlists, follows both ways, blocks, comments and the reports they filed,
 * each read in keyset pages (created_at, key). Other users appear by username and display name.
 */
export class SocialExportRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** Rows of `select` (which must expose `k` and "createdAt", with the user bound) in pages. */
  private paged(select: Sql) {
    return pages<Row>(async (last) => {
      const rows = await this.db.$queryRaw<Row[]>(
        sql`SELECT * FROM (${select}) s WHERE ("createdAt", k) > (${last?.createdAt ?? new Date(0)}::timestamptz, ${last?.k ?? 0}::int)
             ORDER BY "createdAt", k LIMIT ${PAGE}`,
      );
      return rows;
    });
  }

  sections(userId: number) {
    // Table, key and alias are identifiers from the fixed calls below; the kind is a bound value.
    const item = (table: string, ref: string, refKey: string, kind: 'TRACK' | 'PLAYLIST') => {
      const [x, r, key, alias] = [raw(table), raw(ref), raw(refKey), raw(kind === 'TRACK' ? '"trackId"' : '"playlistId"')];
      return this.paged(
        sql`SELECT x.${key} AS k, ${kind}::text AS type, x.${key} AS ${alias}, r.title, x.created_at AS "createdAt"
              FROM ${x} x LEFT JOIN ${r} r ON r.${key} = x.${key} WHERE x.user_id = ${userId}`,
      );
    };
    return {
      trackLikes: item('track_likes', 'track_refs', 'track_id', 'TRACK'),
      playlistLikes: item('playlist_likes', 'playlist_refs', 'playlist_id', 'PLAYLIST'),
      trackReposts: item('track_reposts', 'track_refs', 'track_id', 'TRACK'),
      playlistReposts: item('playlist_reposts', 'playlist_refs', 'playlist_id', 'PLAYLIST'),
      following: this.paged(
        sql`SELECT f.followee_id AS k, u.username, u.display_name AS "displayName", f.created_at AS "createdAt"
           FROM follows f LEFT JOIN user_summaries u ON u.user_id = f.followee_id WHERE f.follower_id = ${userId}`,
      ),
      followers: this.paged(
        sql`SELECT f.follower_id AS k, u.username, u.display_name AS "displayName", f.created_at AS "createdAt"
           FROM follows f LEFT JOIN user_summaries u ON u.user_id = f.follower_id WHERE f.followee_id = ${userId}`,
      ),
      blocks: this.paged(
        sql`SELECT b.blocked_id AS k, u.username, u.display_name AS "displayName", b.created_at AS "createdAt"
           FROM blocks b LEFT JOIN user_summaries u ON u.user_id = b.blocked_id WHERE b.blocker_id = ${userId}`,
      ),
      comments: this.paged(
        sql`SELECT c.id AS k, c.id, c.track_id AS "trackId", r.title AS "trackTitle", c.body, c.timestamp_seconds AS "timestampSeconds",
                c.reply_to_comment_id AS "replyToCommentId", c.created_at AS "createdAt"
           FROM comments c LEFT JOIN track_refs r ON r.track_id = c.track_id WHERE c.user_id = ${userId}`,
      ),
      reportsFiled: this.paged(
        sql`SELECT id AS k, id, target_type AS "targetType", target_id AS "targetId", target_title AS "targetTitle",
                target_username AS "targetUsername", reason, description, status, created_at AS "createdAt"
           FROM reports WHERE reporter_id = ${userId}`,
      ),
    };
  }
}
