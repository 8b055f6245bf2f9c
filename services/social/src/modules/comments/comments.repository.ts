import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { bannedSql, blockedBetweenSql, countedCommentSql, notBannedSql, trackVisibleSql, userColumns } from '../users/user-sql.js';
import type { Viewer } from '../users/viewer.js';
import { pagedQuery } from '../../sql/paged-query.repository.js';

export interface CommentRow {
  id: number;
  trackId: number;
  body: string;
  timestampSeconds: number;
  replyToCommentId: number | null;
  replyCount: number;
  createdAt: Date;
  userId: number;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  tier: string;
  followerCount: number;
  trackCount: number;
  isFollowing: boolean;
}

/** A comment with what its rules need: the track's artist and duration, and visibility to the viewer. */
export interface CommentTarget {
  id: number;
  trackId: number;
  userId: number;
  replyToCommentId: number | null;
  timestampSeconds: number;
  artistId: number;
  /** The track is visible to the viewer, no block separates the viewer from the author (R7, R10), the author is not banned (R14). */
  visible: boolean;
}

const COMMENT_COLUMNS = `c.id, c.track_id AS "trackId", c.body, c.timestamp_seconds AS "timestampSeconds",
       c.reply_to_comment_id AS "replyToCommentId", c.reply_count AS "replyCount", c.created_at AS "createdAt",
       ${userColumns('u')},
       EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = $2 AND f.followee_id = u.user_id) AS "isFollowing"`;

export class CommentsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async findTarget(commentId: number, viewer: Viewer): Promise<CommentTarget | null> {
    const rows = await this.prisma.$queryRawUnsafe<CommentTarget[]>(
      `SELECT c.id, c.track_id AS "trackId", c.user_id AS "userId", c.reply_to_comment_id AS "replyToCommentId",
              c.timestamp_seconds AS "timestampSeconds", t.artist_id AS "artistId",
              (${trackVisibleSql('t', '$2', '$3')} AND ($3 OR NOT ${blockedBetweenSql('$2', 'c.user_id')})
               AND ${notBannedSql('c.user_id', '$3')}) AS visible
         FROM comments c JOIN track_refs t ON t.track_id = c.track_id
        WHERE c.id = $1`,
      commentId,
      viewer.id,
      viewer.isAdmin,
    );
    return rows[0] ?? null;
  }

  /**
   * Inserts a comment or reply; under the track's row lock the track's commentCount (comments and
   * replies, R9) moves and, for a reply, the parent's replyCount. Returns the new id and count.
   * R14: only what others can see counts (`countedCommentSql`: a banned author's comment, or a
   * reply to one, does not; a banned author's reply is not in replyCount); BanCountsRepository
   * recounts when a ban starts or ends.
   */
  async insert(
    tx: SqlExecutor,
    c: { trackId: number; userId: number; body: string; timestampSeconds: number; replyToCommentId: number | null },
  ): Promise<{ id: number; commentCount: number } | null> {
    const counted = `NOT ${bannedSql('$2::int')}
      AND ($3::int IS NULL OR NOT EXISTS (SELECT 1 FROM comments cp JOIN banned_users bp ON bp.user_id = cp.user_id WHERE cp.id = $3::int))`;
    const [count] = await tx.$queryRawUnsafe<Array<{ n: number }>>(
      `UPDATE track_refs SET comment_count = comment_count + CASE WHEN ${counted} THEN 1 ELSE 0 END
        WHERE track_id = $1 RETURNING comment_count AS n`,
      c.trackId,
      c.userId,
      c.replyToCommentId,
    );
    if (c.replyToCommentId !== null) {
      const parents = await tx.$executeRawUnsafe(
        `UPDATE comments SET reply_count = reply_count + CASE WHEN ${bannedSql('$2::int')} THEN 0 ELSE 1 END WHERE id = $1`,
        c.replyToCommentId,
        c.userId,
      );
      // The parent was deleted meanwhile: nothing to reply to.
      if (parents === 0) return null;
    }
    const [row] = await tx.$queryRawUnsafe<Array<{ id: number }>>(
      `INSERT INTO comments (track_id, user_id, body, timestamp_seconds, reply_to_comment_id, reply_count, created_at)
       VALUES ($1, $2, $3, $4, $5, 0, now()) RETURNING id`,
      c.trackId,
      c.userId,
      c.body,
      c.timestampSeconds,
      c.replyToCommentId,
    );
    return { id: row!.id, commentCount: count?.n ?? 0 };
  }

  /**
   * Deletes a comment and (by cascade) its replies; the track's commentCount drops by those of
   * them it counted (R14: `countedCommentSql`) and a reply's parent loses one replyCount unless
   * the reply's author is banned. Null when it was already gone.
   */
  async delete(tx: SqlExecutor, target: CommentTarget): Promise<{ deletedReplies: number; commentCount: number } | null> {
    // Lock the track row first: the same order as insert, so a concurrent reply cannot deadlock us.
    await tx.$queryRawUnsafe('SELECT 1 FROM track_refs WHERE track_id = $1 FOR UPDATE', target.trackId);
    const [gone] = await tx.$queryRawUnsafe<Array<{ replies: number; counted: number; authorBanned: boolean }>>(
      `SELECT count(*) FILTER (WHERE c.id <> $1)::int AS replies,
              count(*) FILTER (WHERE ${countedCommentSql('c')})::int AS counted,
              bool_or(c.id = $1 AND ${bannedSql('c.user_id')}) AS "authorBanned"
         FROM comments c WHERE c.id = $1 OR c.reply_to_comment_id = $1`,
      target.id,
    );
    const deleted = await tx.$executeRawUnsafe('DELETE FROM comments WHERE id = $1', target.id);
    if (deleted === 0) return null;
    const [count] = await tx.$queryRawUnsafe<Array<{ n: number }>>(
      'UPDATE track_refs SET comment_count = GREATEST(comment_count - $2, 0) WHERE track_id = $1 RETURNING comment_count AS n',
      target.trackId,
      gone?.counted ?? 0,
    );
    if (target.replyToCommentId !== null && !gone?.authorBanned) {
      await tx.$executeRawUnsafe('UPDATE comments SET reply_count = GREATEST(reply_count - 1, 0) WHERE id = $1', target.replyToCommentId);
    }
    return { deletedReplies: gone?.replies ?? 0, commentCount: count?.n ?? 0 };
  }

  async byId(id: number, viewerId: number): Promise<CommentRow | null> {
    const rows = await this.prisma.$queryRawUnsafe<CommentRow[]>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c JOIN user_summaries u ON u.user_id = c.user_id WHERE c.id = $1`,
      id,
      viewerId,
    );
    return rows[0] ?? null;
  }

  /**
   * ENG-14 (top-level comments of a track, newest first) and ENG-17 (replies of a comment, oldest
   * first), without authors separated from the viewer by a block (R7) or banned (R14), both for
   * all but admins.
   */
  async list(kind: 'track' | 'replies', parentId: number, viewer: Viewer, page: number, size: number) {
    const where = kind === 'track' ? 'c.track_id = $1 AND c.reply_to_comment_id IS NULL' : 'c.reply_to_comment_id = $1';
    const order = kind === 'track' ? 'c.created_at DESC, c.id DESC' : 'c.created_at ASC, c.id ASC';
    const from = `FROM comments c JOIN user_summaries u ON u.user_id = c.user_id AND NOT u.is_deleted
        WHERE ${where} AND ($3 OR NOT ${blockedBetweenSql('$2', 'u.user_id')}) AND ${notBannedSql('u.user_id', '$3')}`;
    return pagedQuery<CommentRow>(
      this.prisma,
      { select: `SELECT ${COMMENT_COLUMNS}`, from, order: `ORDER BY ${order}`, params: [parentId, viewer.id, viewer.isAdmin] },
      page,
      size,
    );
  }
}
