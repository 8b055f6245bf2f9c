import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageSchema, ReportReceiptSchema, ReportSchema, ReportUpdateResultSchema, type Track } from '@msp/contracts';
import { as, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

let h: Harness;
const inject = (options: InjectOptions) => h.app.inject(options);
const ARTIST = 30;
const A = 31;
const C = 32;
const ADMIN = 39;
let commentId = 0;

/** Track (full) as catalog renders it (only playCount and coverUrl matter here). */
function catalogTrack(id: number): Track {
  return {
    id,
    title: `Catalog title ${id}`,
    trackSlug: `track-${id}`,
    artist: { id: ARTIST, username: 'artist-b', displayName: 'B', avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 0, trackCount: 1 },
    description: null,
    genre: 'Techno',
    tags: [],
    releaseDate: '2025-12-31',
    uploadDate: '2026-01-01T00:00:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z',
    publishedAt: '2026-01-01T00:00:00.000Z',
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    trackUrl: null,
    trackPreviewUrl: null,
    hlsUrl: null,
    coverUrl: 'http://media.test/api/media/assets/c/cover.jpg',
    waveformUrl: null,
    trackDurationSeconds: 100,
    playCount: 42,
    completedPlayCount: 3,
    likeCount: 0,
    repostCount: 0,
    commentCount: 1,
    isLiked: false,
    isReposted: false,
    secretToken: null,
  };
}

beforeAll(async () => {
  h = await startSocial('social_reports');
  await seedUsers(h.app, [
    { id: ARTIST, username: 'artist-b' },
    { id: A, username: 'reporter-a' },
    { id: C, username: 'commenter-c' },
  ]);
  await seedTrack(h.app, { id: 1, artistId: ARTIST, durationSeconds: 100 });
  await seedTrack(h.app, { id: 2, artistId: ARTIST, isPrivate: true });
  const res = await inject({ method: 'POST', url: '/api/tracks/1/comments', headers: as(C), payload: { body: 'rude words' } });
  commentId = res.json().id;
});

afterAll(async () => {
  await h?.close();
});

describe('MOD-2 report a track / MOD-3 report a comment', () => {
  it('files once per active report (409 ALREADY_REPORTED from the partial unique index), refuses own items and invisible targets', async () => {
    h.catalog.mode = 'render';
    h.catalog.tracks.set(1, catalogTrack(1));
    const first = await inject({ method: 'POST', url: '/api/tracks/1/report', headers: as(A), payload: { reason: 'SPAM', description: ' junk ' } });
    expect(first.statusCode, first.body).toBe(201);
    const { reportId } = ReportReceiptSchema.strict().parse(first.json());
    const again = await inject({ method: 'POST', url: '/api/tracks/1/report', headers: as(A), payload: { reason: 'OTHER' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('ALREADY_REPORTED');
    // Concurrent duplicates: exactly one wins.
    const racing = await Promise.all(
      [1, 2, 3].map(() => inject({ method: 'POST', url: `/api/comments/${commentId}/report`, headers: as(A), payload: { reason: 'HARASSMENT' } })),
    );
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    const own = await inject({ method: 'POST', url: '/api/tracks/1/report', headers: as(ARTIST), payload: { reason: 'SPAM' } });
    expect(own.statusCode).toBe(400);
    expect(own.json().code).toBe('SELF_ACTION_NOT_ALLOWED');
    const ownComment = await inject({ method: 'POST', url: `/api/comments/${commentId}/report`, headers: as(C), payload: { reason: 'SPAM' } });
    expect(ownComment.json().code).toBe('SELF_ACTION_NOT_ALLOWED');
    expect((await inject({ method: 'POST', url: '/api/tracks/2/report', headers: as(A), payload: { reason: 'SPAM' } })).statusCode).toBe(404);
    expect((await inject({ method: 'POST', url: '/api/tracks/999/report', headers: as(A), payload: { reason: 'SPAM' } })).json().code).toBe('TRACK_NOT_FOUND');
    expect((await inject({ method: 'POST', url: '/api/comments/999/report', headers: as(A), payload: { reason: 'SPAM' } })).json().code).toBe(
      'COMMENT_NOT_FOUND',
    );

    const report = ReportSchema.strict().parse((await inject({ method: 'GET', url: `/api/admin/reports/${reportId}`, headers: as(ADMIN, 'ADMIN') })).json());
    expect(report).toMatchObject({
      reporterId: A,
      reporterUsername: 'reporter-a',
      targetType: 'TRACK',
      targetId: 1,
      reason: 'SPAM',
      description: 'junk',
      status: 'OPEN',
      targetUserId: ARTIST,
      targetUsername: 'artist-b',
      targetPlayCount: 42,
      targetThumbnailUrl: 'http://media.test/api/media/assets/c/cover.jpg',
      commentContent: null,
    });
  });

  it('bad input → 400, no token → 401', async () => {
    for (const payload of [{}, { reason: 'NOPE' }, { reason: 'SPAM', description: 'x'.repeat(1001) }, { reason: 'SPAM', description: 5 }]) {
      const res = await inject({ method: 'POST', url: '/api/tracks/1/report', headers: as(A), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await inject({ method: 'POST', url: '/api/tracks/abc/report', headers: as(A), payload: { reason: 'SPAM' } })).statusCode).toBe(400);
    expect((await inject({ method: 'POST', url: '/api/tracks/1/report', payload: { reason: 'SPAM' } })).statusCode).toBe(401);
  });
});

describe('MOD-4 / MOD-5 / MOD-6 / MOD-7 admin reports', () => {
  it('lists newest first with filters, moves through statuses with an audit row, and allows a new report after RESOLVED', async () => {
    const admin = as(ADMIN, 'ADMIN');
    const all = pageSchema(ReportSchema.strict()).parse((await inject({ method: 'GET', url: '/api/admin/reports/all', headers: admin })).json());
    expect(all.totalElements).toBe(2);
    expect(all.content[0]!.targetType).toBe('COMMENT');
    const comments = (await inject({ method: 'GET', url: '/api/admin/reports?targetType=COMMENT', headers: admin })).json();
    expect(comments.content).toHaveLength(1);
    expect(comments.content[0]).toMatchObject({ commentContent: 'rude words', commentAuthor: 'commenter-c', targetUserId: C, targetTitle: expect.any(String) });
    const trackReport = all.content[1]!;
    const review = await inject({ method: 'PATCH', url: `/api/admin/reports/${trackReport.id}`, headers: admin, payload: { status: 'IN_REVIEW' } });
    expect(ReportUpdateResultSchema.strict().parse(review.json()).report.status).toBe('IN_REVIEW');
    expect((await inject({ method: 'GET', url: '/api/admin/reports?status=IN_REVIEW', headers: admin })).json().totalElements).toBe(1);
    expect((await inject({ method: 'POST', url: '/api/tracks/1/report', headers: as(A), payload: { reason: 'SPAM' } })).statusCode).toBe(409);
    await inject({ method: 'PATCH', url: `/api/admin/reports/${trackReport.id}`, headers: admin, payload: { status: 'RESOLVED' } });
    const again = await inject({ method: 'POST', url: '/api/tracks/1/report', headers: as(A), payload: { reason: 'SPAM' } });
    expect(again.statusCode).toBe(201);
    // Reopening the old one now would give A two active reports on the track.
    const reopen = await inject({ method: 'PATCH', url: `/api/admin/reports/${trackReport.id}`, headers: admin, payload: { status: 'OPEN' } });
    expect(reopen.statusCode).toBe(409);
    const audit = await h.app.infra.prisma.adminAudit.findMany({ orderBy: { id: 'asc' } });
    expect(audit.map((a) => [a.adminId, a.targetId, (a.details as { to: string }).to])).toEqual([
      [ADMIN, String(trackReport.id), 'IN_REVIEW'],
      [ADMIN, String(trackReport.id), 'RESOLVED'],
    ]);
  });

  it('403 for non-admins on every admin route, 404 REPORT_NOT_FOUND, 400 on bad input', async () => {
    const admin = as(ADMIN, 'ADMIN');
    for (const [method, url] of [
      ['GET', '/api/admin/reports'],
      ['GET', '/api/admin/reports/all'],
      ['GET', '/api/admin/reports/1'],
      ['PATCH', '/api/admin/reports/1'],
    ] as const) {
      const res = await inject({ method, url, headers: as(A), payload: method === 'PATCH' ? { status: 'OPEN' } : undefined });
      expect(res.statusCode, url).toBe(403);
    }
    expect((await inject({ method: 'GET', url: '/api/admin/reports/9999', headers: admin })).json().code).toBe('REPORT_NOT_FOUND');
    expect((await inject({ method: 'PATCH', url: '/api/admin/reports/9999', headers: admin, payload: { status: 'OPEN' } })).statusCode).toBe(404);
    for (const url of [
      '/api/admin/reports?status=NOPE',
      '/api/admin/reports?targetType=USER',
      '/api/admin/reports?size=0',
      '/api/admin/reports/all?page=-1',
      '/api/admin/reports/abc',
    ]) {
      expect((await inject({ method: 'GET', url, headers: admin })).statusCode, url).toBe(400);
    }
    expect((await inject({ method: 'PATCH', url: '/api/admin/reports/1', headers: admin, payload: { status: 'DONE' } })).statusCode).toBe(400);
  });
});
