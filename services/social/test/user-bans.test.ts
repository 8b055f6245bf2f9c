import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, UserBanned, UserUnbanned } from '@msp/events';
import { waitFor } from '@msp/testing';
import { as, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

/**
 * R14 in social: identity's ban event (social's copy in `banned_users`) hides the banned user's
 * comments, replies, likes, reposts, follows and feed actions, and the content of theirs social
 * lists, from everyone but admins; the unban event brings them all back.
 */
let h: Harness;
const A = 31, B = 32, C = 33, ADMIN = 34;
const inject = (options: InjectOptions) => h.app.inject(options);
const get = (url: string, headers = as(A)) => inject({ method: 'GET', url, headers });
const post = (userId: number, url: string, payload?: object) => inject({ method: 'POST', url, headers: as(userId), payload });
const userIds = (res: { json(): unknown }) => (res.json() as { content: Array<{ id: number }> }).content.map((u) => u.id);
const commentAuthors = (res: { json(): unknown }) => (res.json() as { content: Array<{ user: { id: number } }> }).content.map((c) => c.user.id);

let aComment = 0;
let bComment = 0;

async function setBan(banned: boolean) {
  const envelope = banned
    ? createEnvelope(UserBanned, { userId: B, reason: 'spam', bannedAt: new Date().toISOString() })
    : createEnvelope(UserUnbanned, { userId: B });
  await jetstream(h.app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
  await waitFor(async () => (await h.app.infra.prisma.bannedUser.count({ where: { userId: B } })) === (banned ? 1 : 0), {
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
    [B, '/api/tracks/40/like'], [A, '/api/tracks/40/like'], [B, '/api/tracks/40/repost'],
    [B, `/api/users/${C}/follow`], [A, `/api/users/${B}/follow`], [A, `/api/users/${C}/follow`],
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
  comments: [B, A], commentsTotal: 2, replies: [B], likers: [A, B], reposters: [B], followersOfC: [A, B], followingOfA: [C, B],
  followersOfB: 200, commentsOnB: 200, feedActors: [B],
};

describe('ENG-* R14 ban (identity.user.banned.v1 / unbanned.v1) in social', () => {
  it('before the ban, B shows everywhere', async () => {
    expect(await anna()).toEqual(BEFORE);
  });

  it('ENG-14, ENG-17, ENG-3, ENG-6, FOL-3, FOL-4 and DSC-1 leave a banned user out; their profile lists and track answer 404', async () => {
    await setBan(true);
    expect(await anna()).toEqual({
      comments: [A], commentsTotal: 1, replies: [], likers: [A], reposters: [], followersOfC: [A], followingOfA: [C],
      followersOfB: 404, commentsOnB: 404, feedActors: [C],
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
