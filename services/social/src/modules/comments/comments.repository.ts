import type { UserSummarySource } from '@msp/contracts';
import { sql, type Sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { bannedSql, blockedBetweenSql, col, countedCommentSql, notBannedSql, trackVisibleSql, userColumns } from '../users/user-sql.js';
import type { Viewer } from '../users/viewer.js';
import { pagedQuery } from '../../sql/paged-query.repository.js';

/** A comment with its author's summary columns (`userColumns`) and whether the viewer follows the author. */
export interface CommentRow extends UserSummarySource {
  id: number;
  trackId: number;
  body: string;
  timestampSeconds: number;
  replyToCommentId: number | null;
  replyCount: number;
  createdAt: Date;
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

/** A comment `c` with its author `u`, and whether the viewer follows the author. */
const commentColumns = (viewerId: number): Sql => sql`c.id, c.track_id AS "trackId", c.body, c.timestamp_seconds AS "timestampSeconds",
       c.reply_to_comment_id AS "replyToCommentId", c.reply_count AS "replyCount", c.created_at AS "createdAt",
       ${userColumns('u')},
       EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ${viewerId} AND f.followee_id = u.user_id) AS "isFollowing"`;

export class CommentsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async findTarget(commentId: number, viewer: Viewer): Promise<CommentTarget | null> {
    const rows = await this.prisma.$queryRaw<CommentTarget[]>(
      sql`SELECT c.id, c.track_id AS "trackId", c.user_id AS "userId", c.reply_to_comment_id AS "replyToCommentId",
              c.timestamp_seconds AS "timestampSeconds", t.artist_id AS "artistId",
              (${trackVisibleSql('t', viewer.id, viewer.isAdmin)} AND (${viewer.isAdmin} OR NOT ${blockedBetweenSql(viewer.id, col('c.user_id'))})
               AND ${notBannedSql(col('c.user_id'), viewer.isAdmin)}) AS visible
         FROM comments c JOIN track_refs t ON t.track_id = c.track_id
        WHERE c.id = ${commentId}`,
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
    const counted = sql`NOT ${bannedSql(sql`${c.userId}::int`)}
      AND (${c.replyToCommentId}::int IS NULL
           OR NOT EXISTS (SELECT 1 FROM comments cp JOIN banned_users bp ON bp.user_id = cp.user_id WHERE cp.id = ${c.replyToCommentId}::int))`;
    const [count] = await tx.$queryRaw<Array<{ n: number }>>(
      sql`UPDATE track_refs SET comment_count = comment_count + CASE WHEN ${counted} THEN 1 ELSE 0 END
        WHERE track_id = ${c.trackId} RETURNING comment_count AS n`,
    );
    if (c.replyToCommentId !== null) {
      const parents = await tx.$executeRaw(
        sql`UPDATE comments SET reply_count = reply_count + CASE WHEN ${bannedSql(sql`${c.userId}::int`)} THEN 0 ELSE 1 END
             WHERE id = ${c.replyToCommentId}`,
      );
      // The parent was deleted meanwhile: nothing to reply to.
      if (parents === 0) return null;
    }
    const [row] = await tx.$queryRaw<Array<{ id: number }>>(
      sql`INSERT INTO comments (track_id, user_id, body, timestamp_seconds, reply_to_comment_id, reply_count, created_at)
       VALUES (${c.trackId}, ${c.userId}, ${c.body}, ${c.timestampSeconds}, ${c.replyToCommentId}, 0, now()) RETURNING id`,
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
    await tx.$queryRaw(sql`SELECT 1 FROM track_refs WHERE track_id = ${target.trackId} FOR UPDATE`);
    const [gone] = await tx.$queryRaw<Array<{ replies: number; counted: number; authorBanned: boolean }>>(
      sql`SELECT count(*) FILTER (WHERE c.id <> ${target.id})::int AS replies,
              count(*) FILTER (WHERE ${countedCommentSql('c')})::int AS counted,
              bool_or(c.id = ${target.id} AND ${bannedSql(col('c.user_id'))}) AS "authorBanned"
         FROM comments c WHERE c.id = ${target.id} OR c.reply_to_comment_id = ${target.id}`,
    );
    const deleted = await tx.$executeRaw(sql`DELETE FROM comments WHERE id = ${target.id}`);
    if (deleted === 0) return null;
    const [count] = await tx.$queryRaw<Array<{ n: number }>>(
      sql`UPDATE track_refs SET comment_count = GREATEST(comment_count - ${gone?.counted ?? 0}, 0) WHERE track_id = ${target.trackId} RETURNING comment_count AS n`,
    );
    if (target.replyToCommentId !== null && !gone?.authorBanned) {
      await tx.$executeRaw(sql`UPDATE comments SET reply_count = GREATEST(reply_count - 1, 0) WHERE id = ${target.replyToCommentId}`);
    }
    return { deletedReplies: gone?.replies ?? 0, commentCount: count?.n ?? 0 };
  }

  async byId(id: number, viewerId: number): Promise<CommentRow | null> {
    const rows = await this.prisma.$queryRaw<CommentRow[]>(
      sql`SELECT ${commentColumns(viewerId)} FROM comments c JOIN user_summaries u ON u.user_id = c.user_id WHERE c.id = ${id}`,
    );
    return rows[0] ?? null;
  }

  /**
   * ENG-14 (top-level comments of a track, newest first) and ENG-17 (replies of a comment, oldest
   * first), without authors separated from the viewer by a block (R7) or banned (R14), both for
   * all but admins.
   */
  async list(kind: 'track' | 'replies', parentId: number, viewer: Viewer, page: number, size: number) {
    const where = kind === 'track' ? sql`c.track_id = ${parentId} AND c.reply_to_comment_id IS NULL` : sql`c.reply_to_comment_id = ${parentId}`;
    const order = kind === 'track' ? sql`c.created_at DESC, c.id DESC` : sql`c.created_at ASC, c.id ASC`;
    const from = sql`FROM comments c JOIN user_summaries u ON u.user_id = c.user_id AND NOT u.is_deleted
        WHERE ${where} AND (${viewer.isAdmin} OR NOT ${blockedBetweenSql(viewer.id, col('u.user_id'))}) AND ${notBannedSql(col('u.user_id'), viewer.isAdmin)}`;
    return pagedQuery<CommentRow>(this.prisma, { select: sql`SELECT ${commentColumns(viewer.id)}`, from, order: sql`ORDER BY ${order}` }, page, size);
  }
}
