import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommentSchema, ReplySchema } from '@msp/contracts';
import { as, outbox, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

let h: Harness;
const inject = (options: InjectOptions) => h.app.inject(options);
const ARTIST = 20;

async function comment(trackId: number, userId: number, body: string, timestampSeconds?: number) {
  const res = await inject({ method: 'POST', url: `/api/tracks/${trackId}/comments`, headers: as(userId), payload: { body, timestampSeconds } });
  expect(res.statusCode, res.body).toBe(201);
  return CommentSchema.strict().parse(res.json());
}

async function trackCount(trackId: number) {
  return (await h.app.infra.prisma.trackRef.findUniqueOrThrow({ where: { trackId } })).commentCount;
}

beforeAll(async () => {
  h = await startSocial('social_comments');
  await seedUsers(h.app, [
    { id: ARTIST, username: 'artist' },
    { id: 21, username: 'listener' },
    { id: 22, username: 'other' },
    { id: 23, username: 'blocker' },
  ]);
  await seedTrack(h.app, { id: 1, artistId: ARTIST, durationSeconds: 120 });
  await seedTrack(h.app, { id: 2, artistId: ARTIST, isPrivate: true });
});

afterAll(async () => {
  await h?.close();
});

describe('ENG-13 add a comment to a track', () => {
  it('stores a trimmed, timestamped comment and emits it with the new commentCount', async () => {
    const c = await comment(1, 21, '  nice drop  ', 120);
    expect(c).toMatchObject({ trackId: 1, body: 'nice drop', timestampSeconds: 120, replyToCommentId: null, replyCount: 0 });
    expect(c.user).toMatchObject({ id: 21, username: 'listener', isFollowing: false });
    expect((await comment(1, 22, 'no timestamp')).timestampSeconds).toBe(0);
    expect(await trackCount(1)).toBe(2);
    expect((await outbox(h.app, 'social.comment.added.v1')).at(-1)).toMatchObject({ trackId: 1, trackOwnerId: ARTIST, authorId: 22, commentCount: 2 });
  });

  it('refuses a timestamp past the duration (INVALID_TIMESTAMP), blank or oversized bodies, and invisible tracks', async () => {
    const late = await inject({ method: 'POST', url: '/api/tracks/1/comments', headers: as(21), payload: { body: 'x', timestampSeconds: 121 } });
    expect(late.statusCode).toBe(400);
    expect(late.json().code).toBe('INVALID_TIMESTAMP');
    for (const payload of [
      { body: '   ' },
      { body: 'x'.repeat(1001) },
      { body: 'x', timestampSeconds: -1 },
      { body: 'x', timestampSeconds: 1.5 },
      {},
      { body: 'a\u0000b' },
    ]) {
      const res = await inject({ method: 'POST', url: '/api/tracks/1/comments', headers: as(21), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await inject({ method: 'POST', url: '/api/tracks/2/comments', headers: as(21), payload: { body: 'x' } })).statusCode).toBe(404);
    expect(await trackCount(1)).toBe(2);
  });
});

describe('ENG-16 add a reply / ENG-17 replies of a comment', () => {
  it('replies take the parent timestamp, count in commentCount and replyCount; replying to a reply → REPLY_NOT_ALLOWED', async () => {
    const parent = await comment(1, 21, 'parent', 60);
    const res = await inject({ method: 'POST', url: `/api/comments/${parent.id}/replies`, headers: as(22), payload: { body: 'reply', timestampSeconds: 5 } });
    expect(res.statusCode).toBe(201);
    const reply = ReplySchema.strict().parse(res.json());
    expect(reply).toMatchObject({ replyToCommentId: parent.id, replyCount: 0, timestampSeconds: 60, trackId: 1 });
    const nested = await inject({ method: 'POST', url: `/api/comments/${reply.id}/replies`, headers: as(21), payload: { body: 'nested' } });
    expect(nested.statusCode).toBe(400);
    expect(nested.json().code).toBe('REPLY_NOT_ALLOWED');
    await inject({ method: 'POST', url: `/api/comments/${parent.id}/replies`, headers: as(ARTIST), payload: { body: 'second' } });
    const replies = (await inject({ method: 'GET', url: `/api/comments/${parent.id}/replies` })).json();
    expect(replies.content.map((r: { body: string }) => r.body)).toEqual(['reply', 'second']);
    const top = (await inject({ method: 'GET', url: '/api/tracks/1/comments' })).json();
    expect(top.content[0]).toMatchObject({ id: parent.id, replyCount: 2 });
    expect(top.totalElements).toBe(3);
    expect(await trackCount(1)).toBe(5);
    expect((await outbox(h.app, 'social.comment.added.v1')).at(-1)).toMatchObject({ replyToCommentId: parent.id, parentAuthorId: 21, commentCount: 5 });
    expect((await inject({ method: 'GET', url: '/api/comments/99999/replies' })).statusCode).toBe(404);
  });
});

describe('ENG-14 comments of a track', () => {
  it('lists top-level comments newest first, hides authors across a block (R7) and invisible tracks', async () => {
    await comment(1, 23, 'from blocker');
    await h.app.infra.prisma.block.create({ data: { blockerId: 23, blockedId: 21 } });
    const forListener = (await inject({ method: 'GET', url: '/api/tracks/1/comments', headers: as(21) })).json();
    expect(forListener.content.map((c: { user: { id: number } }) => c.user.id)).not.toContain(23);
    const forOther = (await inject({ method: 'GET', url: '/api/tracks/1/comments', headers: as(22) })).json();
    expect(forOther.content[0].body).toBe('from blocker');
    expect(forOther.totalElements).toBe(forListener.totalElements + 1);
    expect((await inject({ method: 'GET', url: '/api/tracks/2/comments' })).statusCode).toBe(404);
    expect((await inject({ method: 'GET', url: '/api/tracks/2/comments', headers: as(ARTIST) })).statusCode).toBe(200);
  });
});

describe('ENG-15 delete comment', () => {
  it("lets the track artist delete a listener's comment with its replies and updates commentCount", async () => {
    const parent = await comment(1, 22, 'to be removed', 10);
    await inject({ method: 'POST', url: `/api/comments/${parent.id}/replies`, headers: as(21), payload: { body: 'r1' } });
    await inject({ method: 'POST', url: `/api/comments/${parent.id}/replies`, headers: as(22), payload: { body: 'r2' } });
    const before = await trackCount(1);
    const forbidden = await inject({ method: 'DELETE', url: `/api/comments/${parent.id}`, headers: as(21) });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('FORBIDDEN');
    const res = await inject({ method: 'DELETE', url: `/api/comments/${parent.id}`, headers: as(ARTIST) });
    expect(res.statusCode).toBe(204);
    expect(await trackCount(1)).toBe(before - 3);
    expect(await h.app.infra.prisma.comment.count({ where: { replyToCommentId: parent.id } })).toBe(0);
    expect((await outbox(h.app, 'social.comment.deleted.v1')).at(-1)).toMatchObject({ commentId: parent.id, deletedReplies: 2, commentCount: before - 3 });
    expect((await inject({ method: 'DELETE', url: `/api/comments/${parent.id}`, headers: as(ARTIST) })).statusCode).toBe(404);
  });

  it('lets authors delete their reply (parent replyCount drops) and admins delete anything', async () => {
    const parent = await comment(1, 22, 'parent two');
    const reply = (await inject({ method: 'POST', url: `/api/comments/${parent.id}/replies`, headers: as(21), payload: { body: 'mine' } })).json();
    expect((await inject({ method: 'DELETE', url: `/api/comments/${reply.id}`, headers: as(21) })).statusCode).toBe(204);
    expect((await h.app.infra.prisma.comment.findUniqueOrThrow({ where: { id: parent.id } })).replyCount).toBe(0);
    expect((await inject({ method: 'DELETE', url: `/api/comments/${parent.id}`, headers: as(1, 'ADMIN') })).statusCode).toBe(204);
    expect((await inject({ method: 'DELETE', url: '/api/comments/abc', headers: as(1) })).statusCode).toBe(400);
  });
});
