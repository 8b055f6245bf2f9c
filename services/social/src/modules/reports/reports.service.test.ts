import { describe, expect, it } from 'vitest';
import type { ReportStatus, Track } from '@msp/contracts';
import { CopyrightHoldDismissed } from '@msp/events';
import type { CatalogClient } from '@msp/runtime';
import { CatalogUnavailableError } from '@msp/runtime';
import { admin, ann, bob, recordingTransactions } from '../../../test/unit/fakes.js';
import type { CommentsRepository, CommentTarget } from '../comments/comments.repository.js';
import type { EngagementStore, TargetRow } from '../engagement/engagement.repository.js';
import type { AdminAction, AdminAudit } from './admin-audit.repository.js';
import type { NewReport, ReportRow, ReportsStore } from './reports.repository.js';
import { isUniqueViolation, ReportsService } from './reports.service.js';

const at = new Date('2025-03-01T10:00:00Z');
const visibleTrack: TargetRow = { id: 7, ownerId: bob.userId, durationSeconds: 60, likeCount: 0, repostCount: 0 };
const snapshot = { trackId: 7, artistId: bob.userId, title: 'Song', coverUrl: null, createdAt: at, artistUsername: 'bob', artistDisplayName: 'Bob' };
const commentTarget: CommentTarget = { id: 40, trackId: 7, userId: 3, replyToCommentId: null, timestampSeconds: 0, artistId: 2, visible: true };
const uniqueViolation = Object.assign(new Error('duplicate key'), { code: 'P2002' });

function report(overrides: Partial<ReportRow> = {}): ReportRow {
  return {
    id: 11,
    reporterId: 1,
    reporterUsername: 'ann',
    targetType: 'TRACK',
    targetId: 7,
    reason: 'SPAM',
    description: null,
    status: 'OPEN',
    createdAt: at,
    updatedAt: at,
    targetUserId: 2,
    targetUsername: 'bob',
    targetDisplayName: 'Bob',
    targetTitle: 'Song',
    targetArtistName: 'Bob',
    targetThumbnailUrl: null,
    targetPlayCount: null,
    targetCreatedAt: at,
    commentContent: null,
    commentAuthor: null,
    evidence: null,
    resolution: null,
    ...overrides,
  };
}

type Catalog = Pick<CatalogClient, 'tracks'>;

function world(
  options: {
    track?: TargetRow | null;
    comment?: CommentTarget | null;
    stored?: ReportRow | null;
    insertFails?: unknown;
    setStatusFails?: unknown;
    catalog?: Catalog;
  } = {},
) {
  const inserted: NewReport[] = [];
  const audited: AdminAction[] = [];
  let stored = options.stored === undefined ? report() : options.stored;
  const repo: ReportsStore = {
    trackSnapshot: async () => snapshot,
    commentSnapshot: async (id) => ({ id, trackId: 7, userId: 3, body: 'rude', createdAt: at, authorUsername: 'cy', authorDisplayName: 'Cy' }),
    username: async () => 'ann-stored',
    insert: async (r) => {
      if (options.insertFails) throw options.insertFails;
      inserted.push(r);
      return 12;
    },
    byId: async () => stored,
    list: async () => ({ rows: [report()], total: 1 }),
    setStatus: async (_tx, _id, status: ReportStatus) => {
      if (options.setStatusFails) throw options.setStatusFails;
      if (!stored) return null;
      const previous = stored.status;
      stored = { ...stored, status };
      return previous;
    },
  };
  const items: Pick<EngagementStore, 'findVisible'> = { findVisible: async () => (options.track === undefined ? visibleTrack : options.track) };
  const comments: Pick<CommentsRepository, 'findTarget'> = { findTarget: async () => (options.comment === undefined ? commentTarget : options.comment) };
  const audit: AdminAudit = {
    record: async (_tx, action) => {
      audited.push(action);
    },
  };
  const catalog: Catalog = options.catalog ?? { tracks: async () => new Map([[7, { coverUrl: 'https://cover', playCount: 99 } as Track]]) };
  const recording = recordingTransactions();
  const service = new ReportsService(repo, items, comments, audit, catalog, recording.transactions);
  return { service, inserted, audited, ...recording };
}

describe('MOD-2 report a track', () => {
  it("files the report with the track's snapshot and catalog's cover and play count", async () => {
    const w = world();
    await expect(w.service.reportTrack(7, { reason: 'SPAM' }, ann)).resolves.toEqual({ message: 'Report submitted.', reportId: 12 });
    expect(w.inserted).toEqual([
      expect.objectContaining({
        targetType: 'TRACK',
        targetId: 7,
        reporterId: 1,
        reporterUsername: 'ann-stored',
        reason: 'SPAM',
        description: null,
        targetUserId: 2,
        targetTitle: 'Song',
        targetThumbnailUrl: 'https://cover',
        targetPlayCount: 99,
      }),
    ]);
  });

  it('still files the report without a play count when catalog does not answer', async () => {
    const down: Catalog = {
      tracks: async () => {
        throw new CatalogUnavailableError();
      },
    };
    const w = world({ catalog: down });
    await w.service.reportTrack(7, { reason: 'SPAM', description: 'x' }, ann);
    expect(w.inserted[0]).toMatchObject({ targetPlayCount: null, targetThumbnailUrl: null, description: 'x' });
  });

  it('answers 404 TRACK_NOT_FOUND for a hidden track, 400 SELF_ACTION_NOT_ALLOWED for its own, 409 ALREADY_REPORTED for an open duplicate', async () => {
    await expect(world({ track: null }).service.reportTrack(7, { reason: 'SPAM' }, ann)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(world().service.reportTrack(7, { reason: 'SPAM' }, bob)).rejects.toMatchObject({ code: 'SELF_ACTION_NOT_ALLOWED' });
    await expect(world({ insertFails: uniqueViolation }).service.reportTrack(7, { reason: 'SPAM' }, ann)).rejects.toMatchObject({ code: 'ALREADY_REPORTED' });
  });
});

describe('MOD-3 report a comment', () => {
  it('snapshots the comment and the commented track', async () => {
    const w = world();
    await w.service.reportComment(40, { reason: 'HARASSMENT' }, ann);
    expect(w.inserted[0]).toMatchObject({
      targetType: 'COMMENT',
      targetId: 40,
      targetUserId: 3,
      commentContent: 'rude',
      commentAuthor: 'cy',
      targetTitle: 'Song',
      targetArtistName: 'Bob',
    });
  });

  it('answers COMMENT_NOT_FOUND for a hidden comment and SELF_ACTION_NOT_ALLOWED for its own', async () => {
    await expect(world({ comment: { ...commentTarget, visible: false } }).service.reportComment(40, { reason: 'SPAM' }, ann)).rejects.toMatchObject({
      code: 'COMMENT_NOT_FOUND',
    });
    await expect(world({ comment: null }).service.reportComment(40, { reason: 'SPAM' }, ann)).rejects.toMatchObject({ code: 'COMMENT_NOT_FOUND' });
    await expect(world().service.reportComment(40, { reason: 'SPAM' }, { ...ann, userId: 3 })).rejects.toMatchObject({ code: 'SELF_ACTION_NOT_ALLOWED' });
  });
});

describe('MOD-6 one report', () => {
  it('answers REPORT_NOT_FOUND for an unknown id and ISO dates otherwise', async () => {
    await expect(world({ stored: null }).service.get(11)).rejects.toMatchObject({ code: 'REPORT_NOT_FOUND' });
    await expect(world().service.get(11)).resolves.toMatchObject({ id: 11, createdAt: at.toISOString(), targetCreatedAt: at.toISOString() });
  });
});

describe('MOD-7 set a report status', () => {
  it('records the change in the admin audit in the same transaction', async () => {
    const w = world();
    await expect(w.service.setStatus(11, 'RESOLVED', admin, 'req-1')).resolves.toMatchObject({
      message: 'Report status set to RESOLVED.',
      report: { status: 'RESOLVED' },
    });
    expect(w.audited).toEqual([
      expect.objectContaining({ admin, targetType: 'REPORT', targetId: 11, details: { from: 'OPEN', to: 'RESOLVED' }, requestId: 'req-1' }),
    ]);
    expect(w.events).toEqual([]);
    expect(w.runs()).toBe(1);
  });

  it('answers REPORT_NOT_FOUND without an audit row', async () => {
    const w = world({ stored: null });
    await expect(w.service.setStatus(11, 'RESOLVED', admin, 'r')).rejects.toMatchObject({ code: 'REPORT_NOT_FOUND' });
    expect(w.audited).toEqual([]);
  });

  it('answers ALREADY_REPORTED when reopening would give the reporter two active reports (R14)', async () => {
    await expect(world({ setStatusFails: { cause: { code: '23505' } } }).service.setStatus(11, 'OPEN', admin, 'r')).rejects.toMatchObject({
      code: 'ALREADY_REPORTED',
    });
  });

  it("emits CopyrightHoldDismissed when duplicate detection's report is dismissed, once", async () => {
    const hold = report({ reporterId: null, reporterUsername: null, reason: 'COPYRIGHT', evidence: { matches: [] } as never });
    const w = world({ stored: hold });
    await w.service.setStatus(11, 'DISMISSED', admin, 'r');
    await w.service.setStatus(11, 'DISMISSED', admin, 'r');
    expect(w.events).toEqual([{ type: CopyrightHoldDismissed.type, correlationId: null, data: expect.objectContaining({ reportId: 11, trackId: 7 }) }]);
  });

  it("does not release a track when a user's copyright report is dismissed", async () => {
    const w = world({ stored: report({ reason: 'COPYRIGHT' }) });
    await w.service.setStatus(11, 'DISMISSED', admin, 'r');
    expect(w.events).toEqual([]);
  });
});

describe('isUniqueViolation', () => {
  it('finds 23505 / P2002 through driver adapter wrappers and causes, and nothing else', () => {
    expect(isUniqueViolation({ code: 'P2002' })).toBe(true);
    expect(isUniqueViolation({ meta: { driverAdapterError: { cause: { originalCode: '23505' } } } })).toBe(true);
    expect(isUniqueViolation(new Error('x', { cause: { code: '23505' } }))).toBe(true);
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });
});
