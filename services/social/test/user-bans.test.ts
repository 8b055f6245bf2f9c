import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, UserBanned, UserUnbanned } from '@msp/events';
import { waitFor } from '@msp/testing';
import { as, outbox, seedPlaylist, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

/**
 * R14 in social: identity's ban event (social's copy in `banned_users`) hides the banned user's
 * comments, replies, likes, reposts, follows and feed actions, and the content of theirs social
 * lists, from everyone but admins; the unban event brings them all back.
 */
let h: Harness;
const A = 31,
  B = 32,
  C = 33,
  ADMIN = 34;
const inject = (options: InjectOptions) => h.app.inject(options);
const get = (url: string, headers = as(A)) => inject({ method: 'GET', url, headers });
const post = (userId: number, url: string, payload?: object) => inject({ method: 'POST', url, headers: as(userId), payload });
const userIds = (res: { json(): unknown }) => (res.json() as { content: Array<{ id: number }> }).content.map((u) => u.id);
const commentAuthors = (res: { json(): unknown }) => (res.json() as { content: Array<{ user: { id: number } }> }).content.map((c) => c.user.id);

let aComment = 0;
let bComment = 0;

async function setBan(banned: boolean, userId = B) {
  const envelope = banned
    ? createEnvelope(UserBanned, { userId, reason: 'spam', bannedAt: new Date().toISOString() })
    : createEnvelope(UserUnbanned, { userId });
  await jetstream(h.app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
  await waitFor(async () => (await h.app.infra.prisma.bannedUser.count({ where: { userId } })) === (banned ? 1 : 0), {
    message: banned ? 'ban copied' : 'unban copied',
  });
}

beforeAll(async () => {
  h = await startSocial('social_bans');
  await seedUsers(h.app, [
    { id: A, username: 'anna' },
    { id: B, username: 'bert', role: 'ARTIST' },
    { id: C, username: 'cleo', role: 'ARTIST' },
    { id: ADMIN, username: 'root', role: 'ADMIN' },
  ]);
  await seedTrack(h.app, { id: 40, artistId: C });
  await seedTrack(h.app, { id: 41, artistId: B });
  const a = await post(A, '/api/tracks/40/comments', { body: 'from anna' });
  const b = await post(B, '/api/tracks/40/comments', { body: 'from bert' });
  aComment = (a.json() as { id: number }).id;
  bComment = (b.json() as { id: number }).id;
  for (const [who, url, payload] of [
    [B, `/api/comments/${aComment}/replies`, { body: 'bert replies' }],
    [B, '/api/tracks/40/like'],
    [A, '/api/tracks/40/like'],
    [B, '/api/tracks/40/repost'],
    [B, `/api/users/${C}/follow`],
    [A, `/api/users/${B}/follow`],
    [A, `/api/users/${C}/follow`],
  ] as Array<[number, string, object | undefined]>) {
    const res = await post(who, url, payload);
    expect(res.statusCode, `${url} ${res.body}`).toBeLessThan(300);
  }
});

afterAll(async () => {
  await h?.close();
});

/** What A (a listener) sees of B's social traces. */
async function anna() {
  const [comments, replies, likers, reposters, followersOfC, followingOfA, followersOfB, commentsOnB, feed] = await Promise.all([
    get('/api/tracks/40/comments'),
    get(`/api/comments/${aComment}/replies`),
    get('/api/users/tracks/40/like'),
    get('/api/users/tracks/40/reposters'),
    get(`/api/users/${C}/followers`),
    get(`/api/users/${A}/following`),
    get(`/api/users/${B}/followers`),
    get('/api/tracks/41/comments'),
    get('/api/feed'),
  ]);
  const feedItems = (feed.json() as { content: Array<{ type: string; resource: { id: number }; actor: { id: number } }> }).content;
  return {
    comments: commentAuthors(comments),
    commentsTotal: (comments.json() as { totalElements: number }).totalElements,
    replies: commentAuthors(replies),
    likers: userIds(likers),
    reposters: userIds(reposters),
    followersOfC: userIds(followersOfC),
    followingOfA: userIds(followingOfA),
    followersOfB: followersOfB.statusCode,
    commentsOnB: commentsOnB.statusCode,
    feedActors: [...new Set(feedItems.map((i) => i.actor.id))].sort(),
  };
}

const BEFORE = {
  comments: [B, A],
  commentsTotal: 2,
  replies: [B],
  likers: [A, B],
  reposters: [B],
  followersOfC: [A, B],
  followingOfA: [C, B],
  followersOfB: 200,
  commentsOnB: 200,
  feedActors: [B],
};

describe('ENG-* R14 ban (identity.user.banned.v1 / unbanned.v1) in social', () => {
  it('before the ban, B shows everywhere', async () => {
    expect(await anna()).toEqual(BEFORE);
  });

  it('ENG-14, ENG-17, ENG-3, ENG-6, FOL-3, FOL-4 and DSC-1 leave a banned user out; their profile lists and track answer 404', async () => {
    await setBan(true);
    expect(await anna()).toEqual({
      comments: [A],
      commentsTotal: 1,
      replies: [],
      likers: [A],
      reposters: [],
      followersOfC: [A],
      followingOfA: [C],
      followersOfB: 404,
      commentsOnB: 404,
      feedActors: [C],
    });
    // Track 40 stays in A's feed through C's post once B's newer like and repost are hidden.
    // B's comment cannot be replied to, nor B's track liked.
    expect((await post(A, `/api/comments/${bComment}/replies`, { body: 'hello?' })).statusCode).toBe(404);
    expect((await post(A, '/api/tracks/41/like')).statusCode).toBe(404);
  });

  it('admins still see the banned user', async () => {
    const admin = as(ADMIN, 'ADMIN');
    expect(commentAuthors(await get('/api/tracks/40/comments', admin))).toEqual([B, A]);
    expect(userIds(await get('/api/users/tracks/40/like', admin))).toEqual([A, B]);
    expect(userIds(await get(`/api/users/${C}/followers`, admin))).toEqual([A, B]);
    expect((await get(`/api/users/${B}/followers`, admin)).statusCode).toBe(200);
    expect((await get('/api/tracks/41/comments', admin)).statusCode).toBe(200);
  });

  it('the unban restores everything', async () => {
    await setBan(false);
    expect(await anna()).toEqual(BEFORE);
  });
});

/**
 * "The counts shown to others follow" (R14 + R9): Q's likes, reposts, comments (and the replies to
 * them) and follows leave the stored counts when Q is banned, the copies get them as
 * social.counts.recounted.v1, counting goes on without Q meanwhile, and the unban counts Q again.
 */
describe('MOD-8 ban (R14): the counts shown to others follow (ENG-1…12, ENG-13…17, FOL-1…4)', () => {
  const P = 51,
    Q = 52,
    R = 53,
    S = 54;
  const TRACK = 60,
    Q_TRACK = 61,
    PLAYLIST = 70;
  let pComment = 0;
  let qComment = 0;
  let pReplyToQ = 0;

  beforeAll(async () => {
    await seedUsers(h.app, [
      { id: P, username: 'pat' },
      { id: Q, username: 'quinn' },
      { id: R, username: 'rosa', role: 'ARTIST' },
      { id: S, username: 'sam' },
    ]);
    await seedTrack(h.app, { id: TRACK, artistId: R });
    await seedTrack(h.app, { id: Q_TRACK, artistId: Q });
    await seedPlaylist(h.app, { id: PLAYLIST, ownerId: R });
    pComment = (await post(P, `/api/tracks/${TRACK}/comments`, { body: 'pat says' })).json<{ id: number }>().id;
    qComment = (await post(Q, `/api/tracks/${TRACK}/comments`, { body: 'quinn says' })).json<{ id: number }>().id;
    pReplyToQ = (await post(P, `/api/comments/${qComment}/replies`, { body: 'pat answers quinn' })).json<{ id: number }>().id;
    for (const [who, url, payload] of [
      [Q, `/api/comments/${pComment}/replies`, { body: 'quinn answers pat' }],
      [P, `/api/tracks/${TRACK}/like`],
      [Q, `/api/tracks/${TRACK}/like`],
      [P, `/api/tracks/${TRACK}/repost`],
      [Q, `/api/tracks/${TRACK}/repost`],
      [P, `/api/tracks/${Q_TRACK}/like`],
      [P, `/api/playlists/${PLAYLIST}/like`],
      [Q, `/api/playlists/${PLAYLIST}/like`],
      [Q, `/api/playlists/${PLAYLIST}/repost`],
      [P, `/api/users/${R}/follow`],
      [Q, `/api/users/${R}/follow`],
      [P, `/api/users/${Q}/follow`],
      [Q, `/api/users/${P}/follow`],
    ] as Array<[number, string, object | undefined]>) {
      const res = await post(who, url, payload);
      expect(res.statusCode, `${url} ${res.body}`).toBeLessThan(300);
    }
  });

  /** What S (an unrelated listener) is shown, and the stored follow counts the profiles copy. */
  async function counts(viewer = as(S)) {
    const [liked, likedPlaylists, comments, following] = await Promise.all([
      get(`/api/users/pat/liked-tracks`, viewer),
      get(`/api/users/pat/liked-playlists`, viewer),
      get(`/api/tracks/${TRACK}/comments`, viewer),
      get(`/api/users/${P}/following`, viewer),
    ]);
    const track = liked
      .json<{ content: Array<{ id: number; likeCount: number; repostCount: number; commentCount: number }> }>()
      .content.find((t) => t.id === TRACK)!;
    const playlist = likedPlaylists.json<{ content: Array<{ id: number; likeCount: number; repostCount: number }> }>().content.find((x) => x.id === PLAYLIST)!;
    const pc = comments.json<{ content: Array<{ id: number; replyCount: number }> }>().content.find((c) => c.id === pComment)!;
    const rosa = following.json<{ content: Array<{ id: number; followerCount: number }> }>().content.find((u) => u.id === R)!;
    const stored = await h.app.infra.prisma.userSummary.findMany({ where: { userId: { in: [P, Q] } }, orderBy: { userId: 'asc' } });
    return {
      track: [track.likeCount, track.repostCount, track.commentCount],
      playlist: [playlist.likeCount, playlist.repostCount],
      pCommentReplies: pc.replyCount,
      rosaFollowers: rosa.followerCount,
      pat: [stored[0]!.followerCount, stored[0]!.followingCount],
      quinn: [stored[1]!.followerCount, stored[1]!.followingCount],
    };
  }

  it('before the ban, Q counts everywhere', async () => {
    expect(await counts()).toEqual({ track: [2, 2, 4], playlist: [2, 1], pCommentReplies: 1, rosaFollowers: 2, pat: [1, 2], quinn: [1, 2] });
  });

  it("the ban recounts without Q what Q's rows counted in, and sends the values as social.counts.recounted.v1", async () => {
    await setBan(true, Q);
    // Q's like, repost, comment, the reply to Q's comment and Q's reply, like, repost and follows are gone.
    const banned = { track: [1, 1, 1], playlist: [1, 0], pCommentReplies: 0, rosaFollowers: 1, pat: [0, 1], quinn: [1, 2] };
    expect(await counts()).toEqual(banned);
    // Admins see the same stored counts (their lists still show Q).
    expect(await counts(as(ADMIN, 'ADMIN'))).toEqual(banned);
    const events = (await outbox(h.app, 'social.counts.recounted.v1')).filter((e) => e.userId === Q);
    expect(events).toEqual([
      expect.objectContaining({
        cause: 'USER_BANNED',
        tracks: [{ trackId: TRACK, likeCount: 1, repostCount: 1, commentCount: 1 }],
        playlists: [{ playlistId: PLAYLIST, likeCount: 1, repostCount: 0 }],
        users: [
          { userId: P, followerCount: 0, followingCount: 1 },
          { userId: Q, followerCount: 1, followingCount: 2 },
          { userId: R, followerCount: 1, followingCount: 0 },
        ],
      }),
    ]);
  });

  it('the ban event again changes nothing and sends nothing (idempotent)', async () => {
    const envelope = createEnvelope(UserBanned, { userId: Q, reason: 'spam', bannedAt: new Date().toISOString() });
    await jetstream(h.app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
    await waitFor(async () => (await h.app.infra.prisma.processedEvent.count({ where: { eventId: envelope.id } })) === 1, {
      message: 'redelivered ban not processed',
    });
    expect((await outbox(h.app, 'social.counts.recounted.v1')).filter((e) => e.userId === Q)).toHaveLength(1);
  });

  it("while Q is banned, new likes, comments and follows count on top of the recount; deleting Q's hidden comment moves nothing", async () => {
    expect((await post(S, `/api/tracks/${TRACK}/like`)).json()).toMatchObject({ isLiked: true, likeCount: 2 });
    expect((await post(S, `/api/tracks/${TRACK}/comments`, { body: 'sam says' })).statusCode).toBe(201);
    expect((await post(S, `/api/users/${R}/follow`)).json()).toMatchObject({ isFollowing: true, followerCount: 2 });
    // The artist deletes Q's comment (and with it P's reply to it): neither was counted.
    expect((await inject({ method: 'DELETE', url: `/api/comments/${qComment}`, headers: as(R) })).statusCode).toBe(204);
    expect(await h.app.infra.prisma.comment.count({ where: { id: pReplyToQ } })).toBe(0);
    expect(await counts()).toMatchObject({ track: [2, 1, 2], rosaFollowers: 2 });
  });

  it("FOL-2, ENG-2 and ENG-5 work towards a banned user: P takes back the follow of Q and the like of Q's track", async () => {
    const unfollow = await inject({ method: 'DELETE', url: `/api/users/${Q}/follow`, headers: as(P) });
    expect(unfollow.statusCode, unfollow.body).toBe(200);
    expect(unfollow.json()).toMatchObject({ isFollowing: false, followerCount: 0 });
    expect((await inject({ method: 'DELETE', url: `/api/users/${Q}/follow`, headers: as(P) })).statusCode).toBe(200);
    const unlike = await inject({ method: 'DELETE', url: `/api/tracks/${Q_TRACK}/like`, headers: as(P) });
    expect(unlike.statusCode, unlike.body).toBe(200);
    expect(unlike.json()).toMatchObject({ isLiked: false, likeCount: 0 });
    expect((await inject({ method: 'DELETE', url: `/api/tracks/${Q_TRACK}/repost`, headers: as(P) })).statusCode).toBe(200);
    // Taking back is all: following, liking or reading the banned user's things still answers 404.
    expect((await post(P, `/api/users/${Q}/follow`)).statusCode).toBe(404);
    expect((await post(P, `/api/tracks/${Q_TRACK}/like`)).statusCode).toBe(404);
    expect((await get(`/api/users/tracks/${Q_TRACK}/like`, as(P))).statusCode).toBe(404);
    // P's followingCount did not count Q, so it stays; Q's followerCount loses P.
    expect(await counts()).toMatchObject({ pat: [0, 1], quinn: [0, 2] });
  });

  it('the unban counts Q again, with what changed meanwhile', async () => {
    await setBan(false, Q);
    expect(await counts()).toEqual({ track: [3, 2, 3], playlist: [2, 1], pCommentReplies: 1, rosaFollowers: 3, pat: [1, 1], quinn: [0, 2] });
    const [, unbanned] = (await outbox(h.app, 'social.counts.recounted.v1')).filter((e) => e.userId === Q);
    expect(unbanned).toMatchObject({
      cause: 'USER_UNBANNED',
      tracks: [{ trackId: TRACK, likeCount: 3, repostCount: 2, commentCount: 3 }],
      playlists: [{ playlistId: PLAYLIST, likeCount: 2, repostCount: 1 }],
    });
  });
});
