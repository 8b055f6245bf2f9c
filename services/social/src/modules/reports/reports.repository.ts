import type { ReportEvidence, ReportReason, ReportStatus, ReportTargetType } from '@msp/contracts';
import { empty, join, sql, type Sql } from '@msp/db';
import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { col } from '../users/user-sql.js';

/** A stored report, as read back (snapshot columns included). */
export interface ReportRow {
  id: number;
  /** Null for reports the platform filed (duplicate detection). */
  reporterId: number | null;
  reporterUsername: string | null;
  targetType: ReportTargetType;
  targetId: number;
  reason: ReportReason;
  description: string | null;
  status: ReportStatus;
  createdAt: Date;
  updatedAt: Date;
  targetUserId: number;
  targetUsername: string;
  targetDisplayName: string;
  targetTitle: string | null;
  targetArtistName: string | null;
  targetThumbnailUrl: string | null;
  targetPlayCount: number | null;
  targetCreatedAt: Date | null;
  commentContent: string | null;
  commentAuthor: string | null;
  evidence: ReportEvidence | null;
  /** Why the platform closed the report itself (`track removed`); null otherwise. */
  resolution: string | null;
}

export type NewReport = Omit<ReportRow, 'id' | 'status' | 'createdAt' | 'updatedAt' | 'evidence' | 'resolution'> & {
  evidence?: ReportEvidence | null;
};

/** The resolution of a duplicate-detection report whose held-back track was deleted. */
export const TRACK_REMOVED = 'track removed';

/** Social's local copy of a track with its artist, the base of both snapshots. */
export interface TrackSnapshotRow {
  trackId: number;
  artistId: number;
  title: string;
  coverUrl: string | null;
  createdAt: Date;
  artistUsername: string;
  artistDisplayName: string;
}

export interface CommentSnapshotRow {
  id: number;
  trackId: number;
  userId: number;
  body: string;
  createdAt: Date;
  authorUsername: string;
  authorDisplayName: string;
}

const COLUMNS = sql`r.id, r.reporter_id AS "reporterId", r.reporter_username AS "reporterUsername", r.target_type AS "targetType",
  r.target_id AS "targetId", r.reason, r.description, r.status, r.created_at AS "createdAt", r.updated_at AS "updatedAt",
  r.target_user_id AS "targetUserId", r.target_username AS "targetUsername", r.target_display_name AS "targetDisplayName",
  r.target_title AS "targetTitle", r.target_artist_name AS "targetArtistName", r.target_thumbnail_url AS "targetThumbnailUrl",
  r.target_play_count AS "targetPlayCount", r.target_created_at AS "targetCreatedAt",
  r.comment_content AS "commentContent", r.comment_author AS "commentAuthor", r.evidence, r.resolution`;

/** A user missing from the projection (event not arrived yet) still renders: username falls back to `user-<id>`. */
const userName = (alias: string, id: string): Sql => sql`COALESCE(${col(alias)}.username, 'user-' || ${col(id)})`;
const displayName = (alias: string, id: string): Sql => sql`COALESCE(${col(alias)}.display_name, ${col(alias)}.username, 'user-' || ${col(id)})`;

export class ReportsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async trackSnapshot(trackId: number, db: SqlExecutor = this.prisma): Promise<TrackSnapshotRow | null> {
    const rows = await db.$queryRaw<TrackSnapshotRow[]>(
      sql`SELECT t.track_id AS "trackId", t.artist_id AS "artistId", t.title, t.cover_url AS "coverUrl", t.created_at AS "createdAt",
              ${userName('u', 't.artist_id')} AS "artistUsername", ${displayName('u', 't.artist_id')} AS "artistDisplayName"
         FROM track_refs t LEFT JOIN user_summaries u ON u.user_id = t.artist_id
        WHERE t.track_id = ${trackId}`,
    );
    return rows[0] ?? null;
  }

  async commentSnapshot(commentId: number): Promise<CommentSnapshotRow | null> {
    const rows = await this.prisma.$queryRaw<CommentSnapshotRow[]>(
      sql`SELECT c.id, c.track_id AS "trackId", c.user_id AS "userId", c.body, c.created_at AS "createdAt",
              ${userName('u', 'c.user_id')} AS "authorUsername", ${displayName('u', 'c.user_id')} AS "authorDisplayName"
         FROM comments c LEFT JOIN user_summaries u ON u.user_id = c.user_id
        WHERE c.id = ${commentId}`,
    );
    return rows[0] ?? null;
  }

  /** A user's names as a report snapshot shows them (`user-<id>` while the projection lags). */
  async userNames(userId: number, db: SqlExecutor = this.prisma): Promise<{ artistUsername: string; artistDisplayName: string }> {
    const rows = await db.$queryRaw<Array<{ artistUsername: string; artistDisplayName: string }>>(
      sql`SELECT ${userName('u', 'x.id')} AS "artistUsername", ${displayName('u', 'x.id')} AS "artistDisplayName"
         FROM (SELECT ${userId}::int AS id) x LEFT JOIN user_summaries u ON u.user_id = x.id`,
    );
    return rows[0]!;
  }

  async username(userId: number): Promise<string | null> {
    const rows = await this.prisma.$queryRaw<Array<{ username: string }>>(sql`SELECT username FROM user_summaries WHERE user_id = ${userId}`);
    return rows[0]?.username ?? null;
  }

  /**
   * Plain INSERT: the partial unique index `reports_one_active_per_target` refuses a second OPEN or
   * IN_REVIEW report of the same reporter and target (23505), which the service maps to 409.
   */
  async insert(r: NewReport, db: SqlExecutor = this.prisma): Promise<number> {
    const rows = await db.$queryRaw<Array<{ id: number }>>(
      sql`INSERT INTO reports (reporter_id, reporter_username, target_type, target_id, reason, description, status, created_at, updated_at,
         target_user_id, target_username, target_display_name, target_title, target_artist_name, target_thumbnail_url,
         target_play_count, target_created_at, comment_content, comment_author, evidence)
       VALUES (${r.reporterId}, ${r.reporterUsername}, ${r.targetType}, ${r.targetId}, ${r.reason}, ${r.description}, 'OPEN', now(), now(),
         ${r.targetUserId}, ${r.targetUsername}, ${r.targetDisplayName}, ${r.targetTitle}, ${r.targetArtistName}, ${r.targetThumbnailUrl},
         ${r.targetPlayCount}, ${r.targetCreatedAt}, ${r.commentContent}, ${r.commentAuthor}, ${r.evidence ? JSON.stringify(r.evidence) : null}::jsonb)
       RETURNING id`,
    );
    return rows[0]!.id;
  }

  async byId(id: number, db: SqlExecutor = this.prisma): Promise<ReportRow | null> {
    const rows = await db.$queryRaw<ReportRow[]>(sql`SELECT ${COLUMNS} FROM reports r WHERE r.id = ${id}`);
    return rows[0] ?? null;
  }

  /** Newest first (created_at, then id), served by the (status|target_type, created_at, id) indexes. */
  async list(filter: { status?: ReportStatus; targetType?: ReportTargetType }, page: number, size: number): Promise<{ rows: ReportRow[]; total: number }> {
    const where: Sql[] = [];
    if (filter.status) where.push(sql`r.status = ${filter.status}`);
    if (filter.targetType) where.push(sql`r.target_type = ${filter.targetType}`);
    const clause = where.length ? sql`WHERE ${join(where, ' AND ')}` : empty;
    const [rows, count] = await Promise.all([
      this.prisma.$queryRaw<ReportRow[]>(
        sql`SELECT ${COLUMNS} FROM reports r ${clause} ORDER BY r.created_at DESC, r.id DESC LIMIT ${size} OFFSET ${page * size}`,
      ),
      this.prisma.$queryRaw<Array<{ n: number }>>(sql`SELECT count(*)::int AS n FROM reports r ${clause}`),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  /**
   * The held-back track was deleted (catalog.track.deleted.v1): the duplicate-detection reports on it
   * still open (no reporter, COPYRIGHT) become RESOLVED with `resolution` 'track removed'. Reports
   * filed by users stay as they are (R14). Served by the (target_type, target_id) index.
   */
  async resolveDuplicateHolds(trackId: number, db: SqlExecutor = this.prisma): Promise<number> {
    return db.$executeRaw(
      sql`UPDATE reports SET status = 'RESOLVED', resolution = ${TRACK_REMOVED}, updated_at = now()
        WHERE target_type = 'TRACK' AND target_id = ${trackId} AND reporter_id IS NULL AND reason = 'COPYRIGHT'
          AND status IN ('OPEN', 'IN_REVIEW')`,
    );
  }

  /** Sets the status (an admin's decision replaces the platform's `resolution`); returns the previous one, or null when the report does not exist. */
  async setStatus(tx: SqlExecutor, id: number, status: ReportStatus): Promise<ReportStatus | null> {
    const rows = await tx.$queryRaw<Array<{ previous: ReportStatus }>>(
      sql`UPDATE reports r SET status = ${status}, resolution = NULL, updated_at = now()
         FROM (SELECT id, status AS previous FROM reports WHERE id = ${id} FOR UPDATE) old
        WHERE r.id = old.id
        RETURNING old.previous`,
    );
    return rows[0]?.previous ?? null;
  }
}

/** What ReportsService needs of the reports (unit tests give a fake). */
export type ReportsStore = Pick<ReportsRepository, 'trackSnapshot' | 'commentSnapshot' | 'username' | 'insert' | 'byId' | 'list' | 'setStatus'>;
