import type { ReportEvidence, ReportReason, ReportStatus, ReportTargetType } from '@msp/contracts';
import type { SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';

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

const COLUMNS = `r.id, r.reporter_id AS "reporterId", r.reporter_username AS "reporterUsername", r.target_type AS "targetType",
  r.target_id AS "targetId", r.reason, r.description, r.status, r.created_at AS "createdAt", r.updated_at AS "updatedAt",
  r.target_user_id AS "targetUserId", r.target_username AS "targetUsername", r.target_display_name AS "targetDisplayName",
  r.target_title AS "targetTitle", r.target_artist_name AS "targetArtistName", r.target_thumbnail_url AS "targetThumbnailUrl",
  r.target_play_count AS "targetPlayCount", r.target_created_at AS "targetCreatedAt",
  r.comment_content AS "commentContent", r.comment_author AS "commentAuthor", r.evidence, r.resolution`;

/** A user missing from the projection (event not arrived yet) still renders: username falls back to `user-<id>`. */
const userName = (alias: string, id: string) => `COALESCE(${alias}.username, 'user-' || ${id})`;
const displayName = (alias: string, id: string) => `COALESCE(${alias}.display_name, ${alias}.username, 'user-' || ${id})`;

export class ReportsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async trackSnapshot(trackId: number, db: SqlExecutor = this.prisma): Promise<TrackSnapshotRow | null> {
    const rows = await db.$queryRawUnsafe<TrackSnapshotRow[]>(
      `SELECT t.track_id AS "trackId", t.artist_id AS "artistId", t.title, t.cover_url AS "coverUrl", t.created_at AS "createdAt",
              ${userName('u', 't.artist_id')} AS "artistUsername", ${displayName('u', 't.artist_id')} AS "artistDisplayName"
         FROM track_refs t LEFT JOIN user_summaries u ON u.user_id = t.artist_id
        WHERE t.track_id = $1`,
      trackId,
    );
    return rows[0] ?? null;
  }

  async commentSnapshot(commentId: number): Promise<CommentSnapshotRow | null> {
    const rows = await this.prisma.$queryRawUnsafe<CommentSnapshotRow[]>(
      `SELECT c.id, c.track_id AS "trackId", c.user_id AS "userId", c.body, c.created_at AS "createdAt",
              ${userName('u', 'c.user_id')} AS "authorUsername", ${displayName('u', 'c.user_id')} AS "authorDisplayName"
         FROM comments c LEFT JOIN user_summaries u ON u.user_id = c.user_id
        WHERE c.id = $1`,
      commentId,
    );
    return rows[0] ?? null;
  }

  /** A user's names as a report snapshot shows them (`user-<id>` while the projection lags). */
  async userNames(userId: number, db: SqlExecutor = this.prisma): Promise<{ artistUsername: string; artistDisplayName: string }> {
    const rows = await db.$queryRawUnsafe<Array<{ artistUsername: string; artistDisplayName: string }>>(
      `SELECT ${userName('u', 'x.id')} AS "artistUsername", ${displayName('u', 'x.id')} AS "artistDisplayName"
         FROM (SELECT $1::int AS id) x LEFT JOIN user_summaries u ON u.user_id = x.id`,
      userId,
    );
    return rows[0]!;
  }

  async username(userId: number): Promise<string | null> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ username: string }>>('SELECT username FROM user_summaries WHERE user_id = $1', userId);
    return rows[0]?.username ?? null;
  }

  /**
   * Plain INSERT: the partial unique index `reports_one_active_per_target` refuses a second OPEN or
   * IN_REVIEW report of the same reporter and target (23505), which the service maps to 409.
   */
  async insert(r: NewReport, db: SqlExecutor = this.prisma): Promise<number> {
    const rows = await db.$queryRawUnsafe<Array<{ id: number }>>(
      `INSERT INTO reports (reporter_id, reporter_username, target_type, target_id, reason, description, status, created_at, updated_at,
         target_user_id, target_username, target_display_name, target_title, target_artist_name, target_thumbnail_url,
         target_play_count, target_created_at, comment_content, comment_author, evidence)
       VALUES ($1, $2, $3, $4, $5, $6, 'OPEN', now(), now(), $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::jsonb)
       RETURNING id`,
      r.reporterId,
      r.reporterUsername,
      r.targetType,
      r.targetId,
      r.reason,
      r.description,
      r.targetUserId,
      r.targetUsername,
      r.targetDisplayName,
      r.targetTitle,
      r.targetArtistName,
      r.targetThumbnailUrl,
      r.targetPlayCount,
      r.targetCreatedAt,
      r.commentContent,
      r.commentAuthor,
      r.evidence ? JSON.stringify(r.evidence) : null,
    );
    return rows[0]!.id;
  }

  async byId(id: number, db: SqlExecutor = this.prisma): Promise<ReportRow | null> {
    const rows = await db.$queryRawUnsafe<ReportRow[]>(`SELECT ${COLUMNS} FROM reports r WHERE r.id = $1`, id);
    return rows[0] ?? null;
  }

  /** Newest first (created_at, then id), served by the (status|target_type, created_at, id) indexes. */
  async list(filter: { status?: ReportStatus; targetType?: ReportTargetType }, page: number, size: number): Promise<{ rows: ReportRow[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status) {
      params.push(filter.status);
      where.push(`r.status = $${params.length}`);
    }
    if (filter.targetType) {
      params.push(filter.targetType);
      where.push(`r.target_type = $${params.length}`);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const [rows, count] = await Promise.all([
      this.prisma.$queryRawUnsafe<ReportRow[]>(
        `SELECT ${COLUMNS} FROM reports r ${clause} ORDER BY r.created_at DESC, r.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        ...params,
        size,
        page * size,
      ),
      this.prisma.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM reports r ${clause}`, ...params),
    ]);
    return { rows, total: count[0]?.n ?? 0 };
  }

  /**
   * The held-back track was deleted (catalog.track.deleted.v1): the duplicate-detection reports on it
   * still open (no reporter, COPYRIGHT) become RESOLVED with `resolution` 'track removed'. Reports
   * filed by users stay as they are (R14). Served by the (target_type, target_id) index.
   */
  async resolveDuplicateHolds(trackId: number, db: SqlExecutor = this.prisma): Promise<number> {
    return db.$executeRawUnsafe(
      `UPDATE reports SET status = 'RESOLVED', resolution = $2, updated_at = now()
        WHERE target_type = 'TRACK' AND target_id = $1 AND reporter_id IS NULL AND reason = 'COPYRIGHT'
          AND status IN ('OPEN', 'IN_REVIEW')`,
      trackId,
      TRACK_REMOVED,
    );
  }

  /** Sets the status (an admin's decision replaces the platform's `resolution`); returns the previous one, or null when the report does not exist. */
  async setStatus(tx: SqlExecutor, id: number, status: ReportStatus): Promise<ReportStatus | null> {
    const rows = await tx.$queryRawUnsafe<Array<{ previous: ReportStatus }>>(
      `UPDATE reports r SET status = $2, resolution = NULL, updated_at = now()
         FROM (SELECT id, status AS previous FROM reports WHERE id = $1 FOR UPDATE) old
        WHERE r.id = old.id
        RETURNING old.previous`,
      id,
      status,
    );
    return rows[0]?.previous ?? null;
  }
}

/** What ReportsService needs of the reports (unit tests give a fake). */
export type ReportsStore = Pick<ReportsRepository, 'trackSnapshot' | 'commentSnapshot' | 'username' | 'insert' | 'byId' | 'list' | 'setStatus'>;
