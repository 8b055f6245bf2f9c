import { pages } from '@msp/runtime';
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

  /** Rows of `select` (which must expose `k` and "createdAt" and take $1 userId, $2/$3 the cursor) in pages. */
  private paged(select: string, userId: number) {
    return pages<Row>(async (last) => {
      const rows = await this.db.$queryRawUnsafe<Row[]>(
        `SELECT * FROM (${select}) s WHERE ("createdAt", k) > ($2::timestamptz, $3::int) ORDER BY "createdAt", k LIMIT ${PAGE}`,
        userId,
        last?.createdAt ?? new Date(0),
        last?.k ?? 0,
      );
      return rows;
    });
  }

  sections(userId: number) {
    const item = (table: string, ref: string, refKey: string, kind: string) =>
      this.paged(
        `SELECT x.${refKey} AS k, '${kind}' AS type, x.${refKey} AS "${kind === 'TRACK' ? 'trackId' : 'playlistId'}", r.title, x.created_at AS "createdAt"
           FROM ${table} x LEFT JOIN ${ref} r ON r.${refKey} = x.${refKey} WHERE x.user_id = $1`,
        userId,
      );
    return {
      trackLikes: item('track_likes', 'track_refs', 'track_id', 'TRACK'),
      playlistLikes: item('playlist_likes', 'playlist_refs', 'playlist_id', 'PLAYLIST'),
      trackReposts: item('track_reposts', 'track_refs', 'track_id', 'TRACK'),
      playlistReposts: item('playlist_reposts', 'playlist_refs', 'playlist_id', 'PLAYLIST'),
      following: this.paged(
        `SELECT f.followee_id AS k, u.username, u.display_name AS "displayName", f.created_at AS "createdAt"
           FROM follows f LEFT JOIN user_summaries u ON u.user_id = f.followee_id WHERE f.follower_id = $1`,
        userId,
      ),
      followers: this.paged(
        `SELECT f.follower_id AS k, u.username, u.display_name AS "displayName", f.created_at AS "createdAt"
           FROM follows f LEFT JOIN user_summaries u ON u.user_id = f.follower_id WHERE f.followee_id = $1`,
        userId,
      ),
      blocks: this.paged(
        `SELECT b.blocked_id AS k, u.username, u.display_name AS "displayName", b.created_at AS "createdAt"
           FROM blocks b LEFT JOIN user_summaries u ON u.user_id = b.blocked_id WHERE b.blocker_id = $1`,
        userId,
      ),
      comments: this.paged(
        `SELECT c.id AS k, c.id, c.track_id AS "trackId", r.title AS "trackTitle", c.body, c.timestamp_seconds AS "timestampSeconds",
                c.reply_to_comment_id AS "replyToCommentId", c.created_at AS "createdAt"
           FROM comments c LEFT JOIN track_refs r ON r.track_id = c.track_id WHERE c.user_id = $1`,
        userId,
      ),
      reportsFiled: this.paged(
        `SELECT id AS k, id, target_type AS "targetType", target_id AS "targetId", target_title AS "targetTitle",
                target_username AS "targetUsername", reason, description, status, created_at AS "createdAt"
           FROM reports WHERE reporter_id = $1`,
        userId,
      ),
    };
  }
}
