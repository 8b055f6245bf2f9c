import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, UserBanned, UserUnbanned, UserDeleted, UserDeletionCancelled, UserDeletionScheduled, type EventDefinition } from '@msp/events';
import { waitFor } from '@msp/testing';
import { as, outbox, seedPlaylist, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

/**
 * Account deletion in social (docs/account-control.md): ACC-3's scheduling hides the user as a
 * ban does, ACC-4's cancellation shows them again (unless banned), and the deletion (ACC-5, or
 * the end of the grace) removes every row of theirs in batches, recounting others' counters.
 */
let h: Harness;
const D = 9001, // the user who deletes their account
  A = 9002,
  B = 9003,
  C = 9004,
  BIG = 9005,
  E = 9006; // hidden, with ACC-3's recount cut short
const TRACK = 9101, // C's
  D_TRACK = 9102,
  PLAYLIST = 9201, // C's
  D_PLAYLIST = 9202;
const inject = (options: InjectOptions) => h.app.inject(options);
const post = (userId: number, url: string, payload?: object) => inject({ method: 'POST', url, headers: as(userId), payload });
const publish = async <T>(def: EventDefinition<T>, data: T) => {
  const envelope = createEnvelope(def, data);
  await jetstream(h.app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
  return envelope;
};
const processed = (eventId: string, consumer = 'social--user-deletion') =>
  waitFor(async () => (await h.app.infra.prisma.processedEvent.count({ where: { eventId, consumer } })) > 0, {
    timeoutMs: 30_000,
    message: `event ${eventId} not processed`,
  });

/** Every row of every table whose integer columns hold `userId` (table.column → rows). */
async function rowsCarrying(userId: number): Promise<Record<string, number>> {
  const columns = await h.app.infra.prisma.$queryRawUnsafe<Array<{ table: string; column: string }>>(
    `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type IN ('integer', 'bigint') AND table_name NOT LIKE '\\_prisma%'`,
  );
  const found: Record<string, number> = {};
  for (const { table, column } of columns) {
    const [{ n } = { n: 0 }] = await h.app.infra.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE "${column}" = $1`,
      userId,
    );
    if (n > 0) found[`${table}.${column}`] = n;
  }
  return found;
}

/**
 * Every stored counter that differs from its rows, as the recounts define them (banned or hidden
 * users' likes, reposts, follows, comments and the replies under their comments left out): [] when
 * all are right.
 */
async function countsOffTheirRows(): Promise<string[]> {
  const notHidden = (user: string) => `NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = ${user})`;
  const rows = await h.app.infra.prisma.$queryRawUnsafe<Array<{ counter: string }>>(
    `SELECT 'track ' || r.track_id AS counter FROM track_refs r
      WHERE (r.like_count, r.repost_count, r.comment_count) IS DISTINCT FROM (
            (SELECT count(*)::int FROM track_likes l WHERE l.track_id = r.track_id AND ${notHidden('l.user_id')}),
            (SELECT count(*)::int FROM track_reposts p WHERE p.track_id = r.track_id AND ${notHidden('p.user_id')}),
            (SELECT count(*)::int FROM comments c WHERE c.track_id = r.track_id AND ${notHidden('c.user_id')}
                AND NOT EXISTS (SELECT 1 FROM comments pc WHERE pc.id = c.reply_to_comment_id AND NOT ${notHidden('pc.user_id')})))
     UNION ALL
     SELECT 'comment ' || p.id FROM comments p
      WHERE p.reply_count <> (SELECT count(*)::int FROM comments c WHERE c.reply_to_comment_id = p.id AND ${notHidden('c.user_id')})
     UNION ALL
     SELECT 'playlist ' || r.playlist_id FROM playlist_refs r
      WHERE (r.like_count, r.repost_count) IS DISTINCT FROM (
            (SELECT count(*)::int FROM playlist_likes l WHERE l.playlist_id = r.playlist_id AND ${notHidden('l.user_id')}),
            (SELECT count(*)::int FROM playlist_reposts p WHERE p.playlist_id = r.playlist_id AND ${notHidden('p.user_id')}))
     UNION ALL
     SELECT 'user ' || u.user_id FROM user_summaries u
      WHERE (u.follower_count, u.following_count) IS DISTINCT FROM (
            (SELECT count(*)::int FROM follows f WHERE f.followee_id = u.user_id AND ${notHidden('f.follower_id')}),
            (SELECT count(*)::int FROM follows f WHERE f.follower_id = u.user_id AND ${notHidden('f.followee_id')}))`,
  );
  return rows.map((r) => r.counter).sort();
}

async function counts() {
  const t = await h.app.infra.prisma.trackRef.findUniqueOrThrow({ where: { trackId: TRACK } });
  const p = await h.app.infra.prisma.playlistRef.findUniqueOrThrow({ where: { playlistId: PLAYLIST } });
  const users = await h.app.infra.prisma.userSummary.findMany({ where: { userId: { in: [A, C] } }, orderBy: { userId: 'asc' } });
  return {
    track: [t.likeCount, t.repostCount, t.commentCount],
    playlist: [p.likeCount, p.repostCount],
    a: [users[0]!.followerCount, users[0]!.followingCount],
    c: [users[1]!.followerCount, users[1]!.followingCount],
  };
}

let aComment = 0;
let dComment = 0;

beforeAll(async () => {
  h = await startSocial('social_account_deletion');
  await seedUsers(h.app, [
    { id: D, username: 'dora', role: 'ARTIST' },
    { id: A, username: 'abel' },
    { id: B, username: 'bess' },
    { id: C, username: 'carl', role: 'ARTIST' },
    { id: BIG, username: 'bigg' },
    { id: E, username: 'eric' },
  ]);
  await seedTrack(h.app, { id: TRACK, artistId: C });
  await seedTrack(h.app, { id: D_TRACK, artistId: D });
  await seedPlaylist(h.app, { id: PLAYLIST, ownerId: C });
  await seedPlaylist(h.app, { id: D_PLAYLIST, ownerId: D });
  aComment = ((await post(A, `/api/tracks/${TRACK}/comments`, { body: 'abel here' })).json() as { id: number }).id;
  dComment = ((await post(D, `/api/tracks/${TRACK}/comments`, { body: 'dora here' })).json() as { id: number }).id;
  for (const [who, url, payload] of [
    [D, `/api/comments/${aComment}/replies`, { body: 'dora replies' }],
    [B, `/api/comments/${dComment}/replies`, { body: 'bess replies to dora' }],
    [D, `/api/tracks/${TRACK}/like`],
    [A, `/api/tracks/${TRACK}/like`],
    [D, `/api/tracks/${TRACK}/repost`],
    [D, `/api/playlists/${PLAYLIST}/like`],
    [D, `/api/playlists/${PLAYLIST}/repost`],
    [A, `/api/tracks/${D_TRACK}/like`],
    [A, `/api/tracks/${D_TRACK}/comments`, { body: 'nice one dora' }],
    [A, `/api/playlists/${D_PLAYLIST}/like`],
    [D, `/api/users/${C}/follow`],
    [A, `/api/users/${C}/follow`],
    [A, `/api/users/${D}/follow`],
    [D, `/api/users/${A}/follow`],
    [D, `/api/users/${B}/block`],
  ] as Array<[number, string, object | undefined]>) {
    const res = await post(who, url, payload);
    expect(res.statusCode, `${url} ${res.body}`).toBeLessThan(300);
  }
  const report = (reporterId: number, reporterUsername: string, targetId: number, targetUserId: number, targetUsername: string) => ({
    reporterId,
    reporterUsername,
    targetType: 'TRACK',
    targetId,
    reason: 'SPAM',
    targetUserId,
    targetUsername,
    targetDisplayName: targetUsername,
  });
  await h.app.infra.prisma.report.createMany({ data: [report(D, 'dora', TRACK, C, 'carl'), report(A, 'abel', D_TRACK, D, 'dora')] });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const BEFORE = { track: [2, 1, 4], playlist: [1, 1], a: [1, 2], c: [2, 0] };

describe('ACC-3 / ACC-4 deletion scheduled and cancelled in social', () => {
  it('the scheduling hides the user as a ban does (recounted without them); the cancellation brings them back', async () => {
    expect(await counts()).toEqual(BEFORE);
    await processed((await publish(UserDeletionScheduled, { userId: D, deleteAt: new Date(Date.now() + 60_000).toISOString() })).id);
    // D's like, repost, comment (with B's reply under it) and reply; D's playlist like and repost; D's follows.
    expect(await counts()).toEqual({ track: [1, 0, 1], playlist: [0, 0], a: [0, 1], c: [1, 0] });
    const comments = await inject({ method: 'GET', url: `/api/tracks/${TRACK}/comments`, headers: as(A) });
    expect((comments.json() as { content: Array<{ user: { id: number } }> }).content.map((c) => c.user.id)).toEqual([A]);
    const events = (await outbox(h.app, 'social.counts.recounted.v1')).filter((e) => e.userId === D);
    // One event per batch of counters of one kind (tracks, playlists, users), in short transactions.
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.cause))).toEqual(new Set(['USER_DELETION_SCHEDULED']));

    await processed((await publish(UserDeletionCancelled, { userId: D })).id);
    expect(await counts()).toEqual(BEFORE);
    expect(await h.app.infra.prisma.bannedUser.count({ where: { userId: D } })).toBe(0);
  });

  it('a banned user stays hidden after the cancellation; a lifted ban leaves a scheduled deletion hidden', async () => {
    await processed((await publish(UserBanned, { userId: D, reason: 'spam', bannedAt: new Date().toISOString() })).id, 'social--user-bans');
    await processed((await publish(UserDeletionScheduled, { userId: D, deleteAt: new Date().toISOString() })).id);
    await processed((await publish(UserDeletionCancelled, { userId: D })).id);
    expect(await h.app.infra.prisma.bannedUser.findUnique({ where: { userId: D } })).toMatchObject({ isBanned: true, deletionPending: false });
    expect((await counts()).track).toEqual([1, 0, 1]);
    await processed((await publish(UserDeletionScheduled, { userId: D, deleteAt: new Date().toISOString() })).id);
    expect(await h.app.infra.prisma.bannedUser.findUnique({ where: { userId: D } })).toMatchObject({ isBanned: true, deletionPending: true });
    await processed((await publish(UserUnbanned, { userId: D })).id, 'social--user-bans');
    expect(await h.app.infra.prisma.bannedUser.findUnique({ where: { userId: D } })).toMatchObject({ isBanned: false, deletionPending: true });
    expect((await counts()).track).toEqual([1, 0, 1]);
  });
});

describe('ACC-5 user deleted (identity.user.deleted.v1) in social', () => {
  it('removes every row carrying the user; the counts, recounted without them at ACC-3, stay equal to the rows', async () => {
    expect(Object.keys(await rowsCarrying(D)).length).toBeGreaterThan(5);
    expect(await countsOffTheirRows()).toEqual([]);
    await processed((await publish(UserDeleted, { userId: D })).id);
    expect(await rowsCarrying(D)).toEqual({});
    // Left: A's like and comment on C's track (D's reply under it is gone, B's reply went with D's comment).
    expect(await counts()).toEqual({ track: [1, 0, 1], playlist: [0, 0], a: [0, 1], c: [1, 0] });
    const aRow = await h.app.infra.prisma.comment.findUniqueOrThrow({ where: { id: aComment } });
    expect(aRow.replyCount).toBe(0);
    expect(await h.app.infra.prisma.comment.count({ where: { replyToCommentId: dComment } })).toBe(0);
    // D's own track and playlist copies went with A's like and comment on them.
    expect(await h.app.infra.prisma.trackLike.count({ where: { trackId: D_TRACK } })).toBe(0);
    expect(await h.app.infra.prisma.comment.count({ where: { trackId: D_TRACK } })).toBe(0);
    expect(await h.app.infra.prisma.playlistLike.count({ where: { playlistId: D_PLAYLIST } })).toBe(0);
    // Reports filed by D and about D are gone; no table names them.
    expect(await h.app.infra.prisma.report.count({ where: { OR: [{ reporterUsername: 'dora' }, { targetUsername: 'dora' }] } })).toBe(0);
    // D's published comment events (their text) are gone; A's stay.
    await waitFor(async () => (await h.app.infra.prisma.outboxEvent.count({ where: { publishedAt: null } })) === 0, { message: 'relay idle' });
    expect((await outbox(h.app, 'social.comment.added.v1')).map((e) => e.authorId)).not.toContain(D);
    // D was hidden (ACC-3's scheduling came first): removing their rows changed no count, so no
    // counter was recounted again, and every stored count equals its rows.
    expect(await countsOffTheirRows()).toEqual([]);
    expect((await outbox(h.app, 'social.counts.recounted.v1')).filter((e) => e.cause === 'USER_DELETED')).toEqual([]);
  });

  it('the same event again (or a redelivery after a crash) changes nothing', async () => {
    const before = await outbox(h.app, 'social.counts.recounted.v1');
    await processed((await publish(UserDeleted, { userId: D })).id);
    expect(await rowsCarrying(D)).toEqual({});
    expect(await outbox(h.app, 'social.counts.recounted.v1')).toHaveLength(before.length);
  });

  it('a user with more rows than one batch holds is deleted in several transactions, counts right', async () => {
    const db = h.app.infra.prisma;
    const n = 750;
    await db.$executeRawUnsafe(
      `INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, access, genre, created_at, like_count)
       SELECT 20000 + g, ${C}, 't', 't-' || g, 'FINISHED', false, 'PLAYABLE', 'Techno', now(), 2 FROM generate_series(1, ${n}) g`,
    );
    await db.$executeRawUnsafe(
      `INSERT INTO track_likes (user_id, track_id) SELECT u, 20000 + g FROM generate_series(1, ${n}) g, (VALUES (${BIG}), (${A})) v(u)`,
    );
    await db.$executeRawUnsafe(`INSERT INTO follows (follower_id, followee_id) VALUES (${BIG}, ${C}), (${A}, ${BIG})`);
    const started = Date.now();
    await processed((await publish(UserDeleted, { userId: BIG })).id);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await rowsCarrying(BIG)).toEqual({});
    const refs = await db.trackRef.findMany({ where: { trackId: { gt: 20000 } }, select: { likeCount: true } });
    expect(refs).toHaveLength(n);
    expect(refs.every((r) => r.likeCount === 1)).toBe(true);
    const recounted = (await outbox(h.app, 'social.counts.recounted.v1')).filter((e) => e.cause === 'USER_DELETED');
    const tracks = recounted.flatMap((e) => e.tracks as Array<{ trackId: number; likeCount: number }>).filter((t) => t.trackId > 20000);
    expect(new Set(tracks.map((t) => t.trackId)).size).toBe(n);
    expect(await countsOffTheirRows()).toEqual([]);
  });

  it('a hidden user whose ACC-3 recount was cut short: only the counters still counting them are recounted', async () => {
    const db = h.app.infra.prisma;
    const n = 400; // more than one batch
    await db.$executeRawUnsafe(
      `INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, access, genre, created_at, like_count, repost_count)
       SELECT 30000 + g, ${C}, 't', 'e-' || g, 'FINISHED', false, 'PLAYABLE', 'Techno', now(), 2, 1 FROM generate_series(1, ${n}) g`,
    );
    await db.$executeRawUnsafe(`INSERT INTO track_likes (user_id, track_id) SELECT u, 30000 + g FROM generate_series(1, ${n}) g, (VALUES (${E}), (${A})) v(u)`);
    await db.$executeRawUnsafe(`INSERT INTO track_reposts (user_id, track_id) SELECT ${E}, 30000 + g FROM generate_series(1, ${n}) g`);
    // E is hidden, but the recount that follows stopped after the odd tracks: the even ones still count E.
    await db.$executeRawUnsafe(`INSERT INTO banned_users (user_id, banned_at, is_banned, deletion_pending) VALUES (${E}, now(), false, true)`);
    await db.$executeRawUnsafe(`UPDATE track_refs SET like_count = 1, repost_count = 0 WHERE track_id > 30000 AND track_id % 2 = 1`);
    const even = Array.from({ length: n / 2 }, (_, i) => 30002 + 2 * i);
    expect(await countsOffTheirRows()).toEqual(even.map((id) => `track ${id}`).sort());

    await processed((await publish(UserDeleted, { userId: E })).id);
    expect(await rowsCarrying(E)).toEqual({});
    expect(await countsOffTheirRows()).toEqual([]);
    const refs = await db.trackRef.findMany({ where: { trackId: { gt: 30000 } }, select: { likeCount: true, repostCount: true } });
    expect(refs.every((r) => r.likeCount === 1 && r.repostCount === 0)).toBe(true);
    // Published: the even tracks' values, once each (their likes' batches recounted them), none of the odd ones.
    const ids = (await outbox(h.app, 'social.counts.recounted.v1'))
      .filter((e) => e.cause === 'USER_DELETED')
      .flatMap((e) => e.tracks as Array<{ trackId: number }>)
      .map((t) => t.trackId)
      .filter((id) => id > 30000);
    expect(ids.sort((a, b) => a - b)).toEqual(even);
  });
});
