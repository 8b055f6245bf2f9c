import {
  toPage,
  type Page,
  type Report,
  type ReportReason,
  type ReportReceipt,
  type ReportStatus,
  type ReportTargetType,
  type ReportUpdateResult,
} from '@msp/contracts';
import { AppError } from '@msp/errors';
import { CopyrightHoldDismissed, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import type { UnitOfWork } from '@msp/db';
import { whenCatalogUnavailable, type CatalogClient } from '@msp/runtime';
import type { CommentsRepository } from '../comments/comments.repository.js';
import type { EngagementStore } from '../engagement/engagement.repository.js';
import { viewerOf } from '../users/viewer.js';
import type { AdminAudit } from './admin-audit.repository.js';
import type { NewReport, ReportRow, ReportsStore, TrackSnapshotRow } from './reports.repository.js';

/** True for PostgreSQL 23505 / Prisma P2002 (through Prisma's driver adapter or pg directly). */
export function isUniqueViolation(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth += 1) {
    const c = current as { code?: unknown; originalCode?: unknown; meta?: { code?: unknown; driverAdapterError?: unknown }; cause?: unknown };
    if (c.code === 'P2002' || c.code === '23505' || c.originalCode === '23505' || c.meta?.code === '23505') return true;
    current = c.meta?.driverAdapterError ?? c.cause;
  }
  return false;
}

export function toReport(row: ReportRow): Report {
  return {
    id: row.id,
    reporterId: row.reporterId,
    reporterUsername: row.reporterUsername,
    targetType: row.targetType,
    targetId: row.targetId,
    reason: row.reason,
    description: row.description,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    targetUserId: row.targetUserId,
    targetUsername: row.targetUsername,
    targetDisplayName: row.targetDisplayName,
    targetTitle: row.targetTitle,
    targetArtistName: row.targetArtistName,
    targetThumbnailUrl: row.targetThumbnailUrl,
    targetPlayCount: row.targetPlayCount,
    targetCreatedAt: row.targetCreatedAt ? row.targetCreatedAt.toISOString() : null,
    commentContent: row.commentContent,
    commentAuthor: row.commentAuthor,
    ...(row.evidence ? { evidence: row.evidence } : {}),
    ...(row.resolution ? { resolution: row.resolution } : {}),
  };
}

/** A COPYRIGHT report filed by duplicate detection (no reporter, with evidence) on a held-back track. */
export function isDuplicateHold(row: ReportRow): boolean {
  return row.reporterId === null && row.reason === 'COPYRIGHT' && row.targetType === 'TRACK' && row.evidence !== null;
}

export interface ReportInput {
  reason: ReportReason;
  description?: string | null;
}

/** R14 reports (MOD-2…MOD-7). */
export class ReportsService {
  constructor(
    private readonly repo: ReportsStore,
    private readonly items: Pick<EngagementStore, 'findVisible'>,
    private readonly comments: Pick<CommentsRepository, 'findTarget'>,
    private readonly audit: AdminAudit,
    private readonly catalog: Pick<CatalogClient, 'tracks'>,
    private readonly transactions: UnitOfWork,
  ) {}

  /** MOD-2: the track must be visible to the reporter (404), not theirs (400), not already reported (409). */
  async reportTrack(trackId: number, input: ReportInput, caller: Caller): Promise<ReportReceipt> {
    const visible = await this.items.findVisible('TRACK', trackId, viewerOf(caller));
    if (!visible) throw new AppError('TRACK_NOT_FOUND', 'Track not found.');
    if (visible.ownerId === caller.userId) throw new AppError('SELF_ACTION_NOT_ALLOWED', 'You cannot report your own track.');
    const track = await this.repo.trackSnapshot(trackId);
    if (!track) throw new AppError('TRACK_NOT_FOUND', 'Track not found.');
    const fromCatalog = await this.catalogFigures(caller, track);
    return this.file(caller, input, {
      targetType: 'TRACK',
      targetId: trackId,
      targetUserId: track.artistId,
      targetUsername: track.artistUsername,
      targetDisplayName: track.artistDisplayName,
      targetTitle: track.title,
      targetArtistName: track.artistDisplayName,
      targetThumbnailUrl: fromCatalog.coverUrl,
      targetPlayCount: fromCatalog.playCount,
      targetCreatedAt: track.createdAt,
      commentContent: null,
      commentAuthor: null,
    });
  }

  /** MOD-3: same rules for a comment or reply; the snapshot also names the commented track. */
  async reportComment(commentId: number, input: ReportInput, caller: Caller): Promise<ReportReceipt> {
    const target = await this.comments.findTarget(commentId, viewerOf(caller));
    if (!target || !target.visible) throw new AppError('COMMENT_NOT_FOUND', 'Comment not found.');
    if (target.userId === caller.userId) throw new AppError('SELF_ACTION_NOT_ALLOWED', 'You cannot report your own comment.');
    const comment = await this.repo.commentSnapshot(commentId);
    if (!comment) throw new AppError('COMMENT_NOT_FOUND', 'Comment not found.');
    const track = await this.repo.trackSnapshot(comment.trackId);
    const fromCatalog = track ? await this.catalogFigures(caller, track) : { coverUrl: null, playCount: null };
    return this.file(caller, input, {
      targetType: 'COMMENT',
      targetId: commentId,
      targetUserId: comment.userId,
      targetUsername: comment.authorUsername,
      targetDisplayName: comment.authorDisplayName,
      targetTitle: track?.title ?? null,
      targetArtistName: track?.artistDisplayName ?? null,
      targetThumbnailUrl: fromCatalog.coverUrl,
      targetPlayCount: fromCatalog.playCount,
      targetCreatedAt: comment.createdAt,
      commentContent: comment.body,
      commentAuthor: comment.authorUsername,
    });
  }

  /** MOD-4 (filters) and MOD-5 (no filter): every status unless filtered, newest first. */
  async list(filter: { status?: ReportStatus; targetType?: ReportTargetType }, page: number, size: number): Promise<Page<Report>> {
    const { rows, total } = await this.repo.list(filter, page, size);
    return toPage(rows.map(toReport), total, page, size);
  }

  /** MOD-6. */
  async get(id: number): Promise<Report> {
    const row = await this.repo.byId(id);
    if (!row) throw new AppError('REPORT_NOT_FOUND', 'Report not found.');
    return toReport(row);
  }

  /**
   * MOD-7: any status may be set. The change and its `admin_audit` row commit together. Reopening
   * (OPEN/IN_REVIEW) a report while its reporter holds another active one on the same target
   * would break R14: 409 ALREADY_REPORTED, from the same partial unique index.
   */
  async setStatus(id: number, status: ReportStatus, admin: Caller, requestId: string): Promise<ReportUpdateResult> {
    try {
      const row = await this.transactions.run(async (tx) => {
        const previous = await this.repo.setStatus(tx, id, status);
        if (previous === null) throw new AppError('REPORT_NOT_FOUND', 'Report not found.');
        await this.audit.record(tx, {
          admin,
          action: 'MOD-7 report status',
          targetType: 'REPORT',
          targetId: id,
          reason: null,
          details: { from: previous, to: status },
          requestId,
        });
        const row = await this.repo.byId(id, tx);
        // Duplicate detection's report dismissed: catalog releases the held-back track (docs/fingerprints.md).
        if (row && isDuplicateHold(row) && status === 'DISMISSED' && previous !== 'DISMISSED') {
          await writeOutbox(tx, CopyrightHoldDismissed, { reportId: row.id, trackId: row.targetId, at: new Date().toISOString() });
        }
        return row;
      });
      return { message: `Report status set to ${status}.`, report: toReport(row!) };
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('ALREADY_REPORTED', 'The reporter already has an open report on this target.');
      throw err;
    }
  }

  private async file(
    caller: Caller,
    input: ReportInput,
    target: Omit<NewReport, 'reporterId' | 'reporterUsername' | 'reason' | 'description'>,
  ): Promise<ReportReceipt> {
    const reporterUsername = (await this.repo.username(caller.userId)) ?? caller.username ?? `user-${caller.userId}`;
    try {
      const id = await this.repo.insert({
        ...target,
        reporterId: caller.userId,
        reporterUsername,
        reason: input.reason,
        description: input.description ?? null,
      });
      return { message: 'Report submitted.', reportId: id };
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('ALREADY_REPORTED', 'You already have an open report on this item.');
      throw err;
    }
  }

  /**
   * The cover from social's copy (catalog's events carry the public asset URL), else catalog's; the
   * play count is catalog's alone (not in its events): one batched /internal/tracks call for the
   * reporter. When catalog does not answer the play count is null and the report is still filed.
   */
  private async catalogFigures(caller: Caller, track: TrackSnapshotRow): Promise<{ coverUrl: string | null; playCount: number | null }> {
    const tracks = await whenCatalogUnavailable(this.catalog.tracks(caller, [track.trackId]), null);
    const full = tracks?.get(track.trackId);
    return { coverUrl: track.coverUrl ?? full?.coverUrl ?? null, playCount: full?.playCount ?? null };
  }
}
