import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import {
  connectNats,
  createEnvelope,
  TrackChanged,
  TrackPublished,
  UserBanned,
  UserRegistered,
  type EventEnvelope,
  type NatsConnection,
  type TrackSnapshot,
} from '@msp/events';
import { ErrorResponseSchema, pageSchema, PlatformMetricsSchema, ReportReceiptSchema, ReportSchema, ReportUpdateResultSchema } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildSocial } from '@msp/social';
import { Fleet } from './fleet.js';

const fleet = new Fleet();
let nc: NatsConnection;

const A = 4001;
const B = 4002;
const C = 4003;
const D = 4004;
const ADMIN = 990_100;
const B_TRACK = 8001;
const A_TRACK = 8002;

const identityApp = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const catalogApp = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
const socialApp = () => fleet.apps.get('social') as Awaited<ReturnType<typeof buildSocial>>;

const tokens = new Map<number, string>();
async function auth(userId: number): Promise<Record<string, string>> {
  let token = tokens.get(userId);
  if (!token) {
    const admin = userId === ADMIN;
    token = await identityApp().keys.sign(
      {
        sub: String(userId),
        username: admin ? 'admin-one' : `user${userId}`,
        role: admin ? 'ADMIN' : 'LISTENER',
        tier: 'FREE',
        sid: randomUUID(),
        jti: randomUUID(),
      },
      1800,
      'msp-identity',
    );
    tokens.set(userId, token);
  }
  return { authorization: `Bearer ${token}` };
}

type Body = Record<string, unknown> & { content?: Array<Record<string, unknown>> };
async function call(method: string, path: string, userId?: number, body?: unknown, rawBody?: string) {
  const headers: Record<string, string> = userId ? await auth(userId) : {};
  if (body !== undefined || rawBody !== undefined) headers['content-type'] = 'application/json';
  const res = await fleet.fetch(path, { method, headers, body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Body };
}

/** A 4xx that is an ErrorResponse (never a 5xx). */
function expectClientError(res: { status: number; body: Body }, label: string, status?: number) {
  if (status) expect(res.status, label).toBe(status);
  expect(res.status, label).toBeGreaterThanOrEqual(400);
  expect(res.status, label).toBeLessThan(500);
  ErrorResponseSchema.parse(res.body);
}

async function publish(envelope: EventEnvelope) {
  await jetstream(nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

async function registerUser(userId: number, username: string, role: 'LISTENER' | 'ARTIST') {
  await publish(
    createEnvelope(UserRegistered, {
      userId,
      username,
      displayName: username.toUpperCase(),
      avatarUrl: null,
      tier: 'FREE',
      role,
      isPrivate: false,
      createdAt: new Date().toISOString(),
    }),
  );
}

/** A finished public track: catalog's row (with a stored original and plays) and its events for social. */
async function createTrack(trackId: number, artistId: number, originalSize: number, playCount: number, completedPlayCount: number) {
  const snapshot: TrackSnapshot = {
    trackId,
    artistId,
    title: `Song ${trackId}`,
    trackSlug: `song-${trackId}`,
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    durationSeconds: 200,
    coverUrl: null,
    genre: 'House',
    publishedAt: new Date().toISOString(),
    createdAt: new Date().toISOString(),
  };
  await catalogApp().infra.prisma.track.create({
    data: {
      id: trackId,
      artistId,
      title: snapshot.title,
      trackSlug: snapshot.trackSlug,
      genre: 'House',
      releaseDate: new Date(),
      state: 'FINISHED',
      secretToken: randomUUID().replace(/-/g, ''),
      uploadId: randomUUID(),
      durationSeconds: 200,
      publishedAt: new Date(),
      originalSize: BigInt(originalSize),
      playCount,
      completedPlayCount,
    },
  });
  await publish(createEnvelope(TrackChanged, snapshot));
  await publish(createEnvelope(TrackPublished, snapshot));
  await waitFor(async () => (await socialApp().infra.prisma.trackRef.count({ where: { trackId, state: 'FINISHED' } })) === 1, {
    message: `social never saw track ${trackId}`,
  });
}

let commentId = 0;
const reportIds: { track: number; comment: number } = { track: 0, comment: 0 };

beforeAll(async () => {
  await fleet.start({ RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' }, { catalog: { STORAGE_CAPACITY_BYTES: '1000000000' } });
  nc = await connectNats(fleet.nats.url, 'e2e-moderation');
  await registerUser(A, 'reporter-a', 'LISTENER');
  await registerUser(B, 'artist-b', 'ARTIST');
  await registerUser(C, 'commenter-c', 'LISTENER');
  await registerUser(D, 'listener-d', 'LISTENER');
  await waitFor(async () => (await socialApp().infra.prisma.userSummary.count()) === 4 && (await catalogApp().infra.prisma.userSummary.count()) === 4, {
    timeoutMs: 15_000,
    message: 'the services did not receive the users',
  });
  await createTrack(B_TRACK, B, 3_000_000, 10, 5);
  await createTrack(A_TRACK, A, 2_000_000, 0, 0);
  const comment = await call('POST', `/api/tracks/${B_TRACK}/comments`, C, { body: 'a rude comment' });
  expect(comment.status).toBe(201);
  commentId = comment.body.id as number;
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await fleet.close();
}, 60_000);

describe('MOD-2 report a track / MOD-3 report a comment (R14)', () => {
  it("A reports B's track and C's comment → 201 with reportId; again → 409 ALREADY_REPORTED", async () => {
    const track = await call('POST', `/api/tracks/${B_TRACK}/report`, A, { reason: 'COPYRIGHT', description: 'my song' });
    expect(track.status).toBe(201);
    reportIds.track = ReportReceiptSchema.strict().parse(track.body).reportId;
    const comment = await call('POST', `/api/comments/${commentId}/report`, A, { reason: 'HARASSMENT' });
    expect(comment.status).toBe(201);
    reportIds.comment = ReportReceiptSchema.strict().parse(comment.body).reportId;

    for (const [path, reason] of [
      [`/api/tracks/${B_TRACK}/report`, 'SPAM'],
      [`/api/comments/${commentId}/report`, 'OTHER'],
    ]) {
      const again = await call('POST', path!, A, { reason });
      expectClientError(again, path!, 409);
      expect(again.body.code).toBe('ALREADY_REPORTED');
    }
  });

  it('own track or comment → 400 SELF_ACTION_NOT_ALLOWED; unknown target → 404', async () => {
    const own = await call('POST', `/api/tracks/${A_TRACK}/report`, A, { reason: 'SPAM' });
    expectClientError(own, 'own track', 400);
    expect(own.body.code).toBe('SELF_ACTION_NOT_ALLOWED');
    const ownComment = await call('POST', `/api/comments/${commentId}/report`, C, { reason: 'SPAM' });
    expect(ownComment.body.code).toBe('SELF_ACTION_NOT_ALLOWED');
    const noTrack = await call('POST', '/api/tracks/999999/report', A, { reason: 'SPAM' });
    expectClientError(noTrack, 'unknown track', 404);
    expect(noTrack.body.code).toBe('TRACK_NOT_FOUND');
    const noComment = await call('POST', '/api/comments/999999/report', A, { reason: 'SPAM' });
    expectClientError(noComment, 'unknown comment', 404);
    expect(noComment.body.code).toBe('COMMENT_NOT_FOUND');
  });

  it('bad input → 4xx ErrorResponse; no token → 401', async () => {
    for (const path of [`/api/tracks/${B_TRACK}/report`, `/api/comments/${commentId}/report`]) {
      for (const body of [{}, { reason: 'BORING' }, { reason: 'SPAM', description: 'x'.repeat(1001) }, { reason: 42 }, []]) {
        expectClientError(await call('POST', path, D, body), `${path} ${JSON.stringify(body)}`, 400);
      }
      expectClientError(await call('POST', path, D, undefined, '{"reason":'), `${path} malformed`, 400);
      expectClientError(await call('POST', path, undefined, { reason: 'SPAM' }), `${path} anonymous`, 401);
    }
    expectClientError(await call('POST', '/api/tracks/abc/report', D, { reason: 'SPAM' }), 'track id', 400);
    expectClientError(await call('POST', '/api/comments/99999999999/report', D, { reason: 'SPAM' }), 'comment id', 400);
  });
});

describe("MOD-4 / MOD-5 / MOD-6 / MOD-7 the admin's report queue", () => {
  it('lists newest first with filters and opens a report with its snapshot', async () => {
    const all = await call('GET', '/api/admin/reports/all', ADMIN);
    expect(all.status).toBe(200);
    const page = pageSchema(ReportSchema.strict()).parse(all.body);
    expect(page.content.map((r) => r.id)).toEqual([reportIds.comment, reportIds.track]);
    const tracks = await call('GET', '/api/admin/reports?targetType=TRACK', ADMIN);
    expect(tracks.body.content!.map((r) => r.id)).toEqual([reportIds.track]);
    const open = await call('GET', '/api/admin/reports?status=OPEN&targetType=COMMENT', ADMIN);
    expect(open.body.content!.map((r) => r.id)).toEqual([reportIds.comment]);
    expect((await call('GET', '/api/admin/reports?status=RESOLVED', ADMIN)).body.totalElements).toBe(0);

    const one = await call('GET', `/api/admin/reports/${reportIds.track}`, ADMIN);
    expect(one.status).toBe(200);
    expect(ReportSchema.strict().parse(one.body)).toMatchObject({
      reporterId: A,
      reporterUsername: 'reporter-a',
      targetType: 'TRACK',
      targetId: B_TRACK,
      reason: 'COPYRIGHT',
      description: 'my song',
      status: 'OPEN',
      targetUserId: B,
      targetUsername: 'artist-b',
      targetDisplayName: 'ARTIST-B',
      targetTitle: `Song ${B_TRACK}`,
      targetArtistName: 'ARTIST-B',
      targetPlayCount: 10,
      commentContent: null,
      commentAuthor: null,
    });
    const comment = await call('GET', `/api/admin/reports/${reportIds.comment}`, ADMIN);
    expect(comment.body).toMatchObject({
      targetType: 'COMMENT',
      targetId: commentId,
      targetUserId: C,
      targetUsername: 'commenter-c',
      targetTitle: `Song ${B_TRACK}`,
      targetArtistName: 'ARTIST-B',
      commentContent: 'a rude comment',
      commentAuthor: 'commenter-c',
    });
    const missing = await call('GET', '/api/admin/reports/999999', ADMIN);
    expectClientError(missing, 'missing report', 404);
    expect(missing.body.code).toBe('REPORT_NOT_FOUND');
  });

  it('moves a report through IN_REVIEW to RESOLVED (recorded in admin_audit); after RESOLVED, A may report again', async () => {
    const review = await call('PATCH', `/api/admin/reports/${reportIds.track}`, ADMIN, { status: 'IN_REVIEW' });
    expect(review.status).toBe(200);
    expect(ReportUpdateResultSchema.strict().parse(review.body).report.status).toBe('IN_REVIEW');
    expect((await call('GET', '/api/admin/reports?status=IN_REVIEW', ADMIN)).body.content!.map((r) => r.id)).toEqual([reportIds.track]);
    expect((await call('POST', `/api/tracks/${B_TRACK}/report`, A, { reason: 'SPAM' })).status).toBe(409);

    const resolved = await call('PATCH', `/api/admin/reports/${reportIds.track}`, ADMIN, { status: 'RESOLVED' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.report).toMatchObject({ id: reportIds.track, status: 'RESOLVED' });

    const again = await call('POST', `/api/tracks/${B_TRACK}/report`, A, { reason: 'SPAM' });
    expect(again.status).toBe(201);
    expect(again.body.reportId).not.toBe(reportIds.track);

    const audit = await socialApp().infra.prisma.adminAudit.findMany({ orderBy: { id: 'asc' } });
    expect(audit.map((a) => [a.adminId, a.targetType, a.targetId, (a.details as { to: string }).to])).toEqual([
      [ADMIN, 'REPORT', String(reportIds.track), 'IN_REVIEW'],
      [ADMIN, 'REPORT', String(reportIds.track), 'RESOLVED'],
    ]);
    expectClientError(await call('PATCH', '/api/admin/reports/999999', ADMIN, { status: 'OPEN' }), 'missing report', 404);
  });

  it('bad input on the admin routes → 4xx ErrorResponse', async () => {
    for (const path of [
      '/api/admin/reports?status=CLOSED',
      '/api/admin/reports?targetType=USER',
      '/api/admin/reports?size=101',
      '/api/admin/reports/all?page=-1',
      '/api/admin/reports/abc',
    ]) {
      expectClientError(await call('GET', path, ADMIN), path, 400);
    }
    for (const body of [{}, { status: 'CLOSED' }, { status: 1 }]) {
      expectClientError(await call('PATCH', `/api/admin/reports/${reportIds.comment}`, ADMIN, body), JSON.stringify(body), 400);
    }
    expectClientError(await call('PATCH', '/api/admin/reports/x', ADMIN, { status: 'OPEN' }), 'PATCH bad id', 400);
  });
});

describe('MOD-12 platform metrics', () => {
  it('matches the data this test created: users, roles, tracks, plays, storage, bans', async () => {
    // One more play through TRK-17 (11 plays, 5 completed), then its listener banned by identity's
    // event: a banned user's plays stop counting (R14), so 10 plays remain.
    expect((await call('POST', `/api/tracks/${B_TRACK}/play`, D, {})).status).toBe(200);
    await waitFor(async () => (await call('GET', '/api/admin/analytics', ADMIN)).body.totalPlays === 11, { message: 'the play was not counted' });
    await publish(createEnvelope(UserBanned, { userId: D, reason: 'spam', bannedAt: new Date().toISOString() }));
    await waitFor(
      async () => {
        const body = (await call('GET', '/api/admin/analytics', ADMIN)).body;
        return body.totalBannedUsers === 1 && body.totalPlays === 10;
      },
      { message: "catalog never saw the ban, or the banned listener's play still counts" },
    );

    const res = await call('GET', '/api/admin/analytics', ADMIN);
    expect(res.status).toBe(200);
    expect(PlatformMetricsSchema.strict().parse(res.body)).toEqual({
      totalUsers: 4,
      totalTracks: 2,
      totalPlays: 10,
      playThroughRate: 5 / 10,
      totalStorageUsedBytes: 5_000_000,
      totalStorageCapacityBytes: 1_000_000_000,
      bannedUserCount: 1,
      totalBannedUsers: 1,
      artistToListenerRatio: '1:3',
    });
  });
});

describe("MOD-11 admin delete: recorded in catalog's admin_audit, reports on the track stay", () => {
  it('deletes with a reason; metrics follow; the report stays for the admin', async () => {
    const report = await call('POST', `/api/tracks/${A_TRACK}/report`, B, { reason: 'SPAM' });
    expect(report.status).toBe(201);
    const del = await call('DELETE', `/api/admin/tracks/${A_TRACK}?reason=spam%20upload`, ADMIN);
    expect(del.status).toBe(200);
    await waitFor(async () => (await catalogApp().infra.prisma.adminAudit.count()) === 1, { message: 'no audit row' });
    expect(await catalogApp().infra.prisma.adminAudit.findFirst()).toMatchObject({
      adminId: ADMIN,
      targetType: 'TRACK',
      targetId: String(A_TRACK),
      reason: 'spam upload',
    });
    const metrics = (await call('GET', '/api/admin/analytics', ADMIN)).body;
    expect(metrics).toMatchObject({ totalTracks: 1, totalStorageUsedBytes: 3_000_000, totalPlays: 10 });
    expect((await call('GET', `/api/admin/reports/${report.body.reportId}`, ADMIN)).body).toMatchObject({ status: 'OPEN', targetId: A_TRACK });
  });
});

describe("MOD-8 / MOD-9 recorded in identity's admin_audit", () => {
  it('a ban and a suspension with their reasons; a refused call is not recorded', async () => {
    const reg = await fleet.fetch('/api/auth/register/local', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'troll@example.com', displayName: 'Troll', password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
    });
    expect(reg.status).toBe(201);
    const { userId } = (await reg.json()) as { userId: number };
    expect((await call('PATCH', `/api/admin/users/${userId}/suspend`, ADMIN, { durationDays: 3, reason: 'cool off' })).status).toBe(200);
    expect((await call('PATCH', `/api/admin/users/${userId}/ban`, ADMIN, { isBanned: true, reason: 'repeat abuse' })).status).toBe(200);
    expect((await call('PATCH', `/api/admin/users/${userId}/ban`, A, { isBanned: false })).status).toBe(403);
    // Written once the response has gone (onResponse).
    await waitFor(async () => (await identityApp().infra.prisma.adminAudit.count()) >= 2, { message: 'no audit rows' });
    const audit = await identityApp().infra.prisma.adminAudit.findMany({ orderBy: { id: 'asc' } });
    expect(audit.map((a) => ({ adminId: a.adminId, targetType: a.targetType, targetId: a.targetId, reason: a.reason, details: a.details }))).toEqual([
      { adminId: ADMIN, targetType: 'USER', targetId: String(userId), reason: 'cool off', details: { status: 200, durationDays: 3 } },
      { adminId: ADMIN, targetType: 'USER', targetId: String(userId), reason: 'repeat abuse', details: { status: 200, isBanned: true } },
    ]);
    expect(audit.map((a) => a.action)).toEqual([expect.stringContaining('MOD-9'), expect.stringContaining('MOD-8')]);
  });
});

describe('MOD-* non-admin tokens on every admin route → 403', () => {
  it('MOD-4, MOD-5, MOD-6, MOD-7, MOD-12 (and MOD-11) answer 403 FORBIDDEN to a listener, 401 without a token', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/admin/reports'],
      ['GET', '/api/admin/reports?status=OPEN'],
      ['GET', '/api/admin/reports/all'],
      ['GET', `/api/admin/reports/${reportIds.comment}`],
      ['PATCH', `/api/admin/reports/${reportIds.comment}`, { status: 'DISMISSED' }],
      ['GET', '/api/admin/analytics'],
      ['DELETE', `/api/admin/tracks/${B_TRACK}`],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(method, path, A, body);
      expectClientError(res, `${method} ${path}`, 403);
      expect(res.body.code).toBe('FORBIDDEN');
      expectClientError(await call(method, path, undefined, body), `${method} ${path} anonymous`, 401);
    }
    expect((await call('GET', `/api/admin/reports/${reportIds.comment}`, ADMIN)).body.status).toBe('OPEN');
  });
});
