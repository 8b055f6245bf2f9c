import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelationshipsResponseSchema } from '@msp/contracts';
import { as, outbox, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

let h: Harness;
const inject = (options: InjectOptions) => h.app.inject(options);

beforeAll(async () => {
  h = await startSocial('social_graph');
  await seedUsers(h.app, [
    { id: 1, username: 'ann' },
    { id: 2, username: 'ben' },
    { id: 3, username: 'cat' },
    { id: 4, username: 'dan', role: 'ARTIST', trackCount: 3 },
    { id: 5, username: 'eve', trackCount: 1 },
    { id: 6, username: 'fay' },
    { id: 7, username: 'gus' },
    { id: 8, username: 'hal', isPrivate: true },
  ]);
});

afterAll(async () => {
  await h?.close();
});

describe('FOL-1 follow a user / FOL-2 unfollow a user', () => {
  it('follows idempotently, answers the followee count and writes one event with both counts', async () => {
    const first = await inject({ method: 'POST', url: '/api/users/2/follow', headers: as(1) });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ message: expect.any(String), isFollowing: true, followerCount: 1 });
    const again = await inject({ method: 'POST', url: '/api/users/ben/follow', headers: { ...as(1), 'content-type': 'application/json' }, payload: '' });
    expect(again.json()).toMatchObject({ isFollowing: true, followerCount: 1 });
    const events = await outbox(h.app, 'social.user.followed.v1');
    expect(events).toEqual([expect.objectContaining({ followerId: 1, followeeId: 2, followerFollowingCount: 1, followeeFollowerCount: 1 })]);
  });

  it('keeps counters exact when many users follow and unfollow at once', async () => {
    const followers = [3, 4, 5, 6, 7];
    await Promise.all(followers.map((id) => inject({ method: 'POST', url: '/api/users/2/follow', headers: as(id) })));
    await Promise.all(followers.map((id) => inject({ method: 'POST', url: '/api/users/2/follow', headers: as(id) })));
    const ben = await h.app.infra.prisma.userSummary.findUniqueOrThrow({ where: { userId: 2 } });
    expect(ben.followerCount).toBe(6);
    await Promise.all([3, 4].map((id) => inject({ method: 'DELETE', url: '/api/users/2/follow', headers: as(id) })));
    const res = await inject({ method: 'DELETE', url: '/api/users/2/follow', headers: as(3) });
    expect(res.json()).toMatchObject({ isFollowing: false, followerCount: 4 });
    expect(await h.app.infra.prisma.follow.count({ where: { followeeId: 2 } })).toBe(4);
    expect((await outbox(h.app, 'social.user.unfollowed.v1')).length).toBe(2);
  });

  it('does not deadlock when two users follow each other at the same moment', async () => {
    const [a, b] = await Promise.all([
      inject({ method: 'POST', url: '/api/users/7/follow', headers: as(6) }),
      inject({ method: 'POST', url: '/api/users/6/follow', headers: as(7) }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
  });

  it('refuses to follow yourself and unknown users', async () => {
    const self = await inject({ method: 'POST', url: '/api/users/1/follow', headers: as(1) });
    expect(self.statusCode).toBe(400);
    expect(self.json().code).toBe('SELF_ACTION_NOT_ALLOWED');
    const missing = await inject({ method: 'POST', url: '/api/users/999/follow', headers: as(1) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('USER_NOT_FOUND');
    const anonymous = await inject({ method: 'POST', url: '/api/users/2/follow' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('BLK-1 block / BLK-2 unblock / BLK-3 list blocked users (R7)', () => {
  beforeAll(async () => {
    // cat (3) and dan (4) follow each other; both are then blocked by cat.
    await inject({ method: 'POST', url: '/api/users/4/follow', headers: as(3) });
    await inject({ method: 'POST', url: '/api/users/3/follow', headers: as(4) });
    await inject({ method: 'POST', url: '/api/users/2/follow', headers: as(4) });
  });

  it('removes follows both ways, updates both counts and emits them', async () => {
    const res = await inject({ method: 'POST', url: '/api/users/4/block', headers: as(3) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: expect.any(String) });
    expect(
      await h.app.infra.prisma.follow.count({
        where: {
          OR: [
            { followerId: 3, followeeId: 4 },
            { followerId: 4, followeeId: 3 },
          ],
        },
      }),
    ).toBe(0);
    const [blocked] = await outbox(h.app, 'social.user.blocked.v1');
    expect(blocked).toMatchObject({ blockerId: 3, blockedId: 4 });
    const cat = await h.app.infra.prisma.userSummary.findUniqueOrThrow({ where: { userId: 3 } });
    expect(blocked!.counts).toEqual(expect.arrayContaining([{ userId: 3, followerCount: cat.followerCount, followingCount: cat.followingCount }]));
    expect(cat.followerCount).toBe(0);
    const again = await inject({ method: 'POST', url: '/api/users/dan/block', headers: as(3) });
    expect(again.statusCode).toBe(200);
    expect((await outbox(h.app, 'social.user.blocked.v1')).length).toBe(1);
  });

  it('FOL-1 towards a blocked user → 403 USER_BLOCKED; the blocked side no longer finds the blocker (404)', async () => {
    const blocker = await inject({ method: 'POST', url: '/api/users/4/follow', headers: as(3) });
    expect(blocker.statusCode).toBe(403);
    expect(blocker.json().code).toBe('USER_BLOCKED');
    const blocked = await inject({ method: 'POST', url: '/api/users/3/follow', headers: as(4) });
    expect(blocked.statusCode).toBe(404);
    expect((await inject({ method: 'GET', url: '/api/users/3/followers', headers: as(4) })).statusCode).toBe(404);
    // The blocker still reads the blocked user's lists.
    expect((await inject({ method: 'GET', url: '/api/users/4/followers', headers: as(3) })).statusCode).toBe(200);
  });

  it('hides users across a block from follower lists', async () => {
    // ben (2) is followed by dan (4); cat (3) blocked dan, so cat does not see dan there.
    const forCat = (await inject({ method: 'GET', url: '/api/users/2/followers', headers: as(3) })).json();
    expect(forCat.content.map((u: { id: number }) => u.id)).not.toContain(4);
    const forAnn = (await inject({ method: 'GET', url: '/api/users/2/followers', headers: as(1) })).json();
    expect(forAnn.content.map((u: { id: number }) => u.id)).toContain(4);
    expect(forCat.totalElements).toBe(forAnn.totalElements - 1);
  });

  it('lists blocked users, latest first, and blocking works whatever the other side did', async () => {
    await inject({ method: 'POST', url: '/api/users/3/block', headers: as(4) }); // dan blocks cat back
    await inject({ method: 'POST', url: '/api/users/1/block', headers: as(3) });
    const page = (await inject({ method: 'GET', url: '/api/users/me/blocked', headers: as(3) })).json();
    expect(page.content.map((u: { username: string }) => u.username)).toEqual(['ann', 'dan']);
    expect(page.content[0]).toMatchObject({ isFollowing: false, id: 1 });
    expect((await inject({ method: 'GET', url: '/api/users/me/blocked', headers: as(4) })).json().totalElements).toBe(1);
  });

  it('unblocking is idempotent, answers 204 and does not restore follows', async () => {
    const res = await inject({ method: 'DELETE', url: '/api/users/4/block', headers: as(3) });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await inject({ method: 'DELETE', url: '/api/users/4/block', headers: as(3) })).statusCode).toBe(204);
    expect(await h.app.infra.prisma.follow.count({ where: { followerId: 3, followeeId: 4 } })).toBe(0);
    expect((await outbox(h.app, 'social.user.unblocked.v1')).length).toBe(1);
    await inject({ method: 'DELETE', url: '/api/users/3/block', headers: as(4) });
    await inject({ method: 'DELETE', url: '/api/users/1/block', headers: as(3) });
  });

  it('refuses to block yourself or unknown users', async () => {
    expect((await inject({ method: 'POST', url: '/api/users/3/block', headers: as(3) })).json().code).toBe('SELF_ACTION_NOT_ALLOWED');
    expect((await inject({ method: 'POST', url: '/api/users/998/block', headers: as(3) })).statusCode).toBe(404);
    expect((await inject({ method: 'DELETE', url: '/api/users/998/block', headers: as(3) })).statusCode).toBe(404);
  });
});

describe('USR-16 suggested users to follow', () => {
  it('suggests people followed by the people you follow first, then popular artists; never yourself, followed or blocked users', async () => {
    // ann (1) follows ben (2); ben follows fay (6)... set up: ben follows gus (7) and hal (8).
    await inject({ method: 'POST', url: '/api/users/7/follow', headers: as(2) });
    await inject({ method: 'POST', url: '/api/users/8/follow', headers: as(2) });
    await inject({ method: 'POST', url: '/api/users/8/block', headers: as(1) });
    await seedTrack(h.app, { id: 50, artistId: 5 });
    const page = (await inject({ method: 'GET', url: '/api/users/suggested?limit=10', headers: as(1) })).json();
    const ids = page.content.map((u: { id: number }) => u.id);
    expect(ids[0]).toBe(7);
    expect(ids).toEqual(expect.arrayContaining([4, 5]));
    expect(ids).not.toContain(1);
    expect(ids).not.toContain(2);
    expect(ids).not.toContain(8);
    expect(page.pageSize).toBe(10);
    expect(page.content.every((u: { isFollowing: boolean }) => !u.isFollowing)).toBe(true);
    expect((await inject({ method: 'GET', url: '/api/users/suggested' })).statusCode).toBe(401);
  });
});

describe('internal relationships route (with BLK-1 / BLK-2 / FOL-1 / FOL-2)', () => {
  it('answers every requested user in one call, including hasBlockedViewer', async () => {
    await inject({ method: 'POST', url: '/api/users/1/block', headers: as(6) }); // fay blocks ann
    const res = await inject({ method: 'POST', url: '/internal/relationships', payload: { viewerId: 1, userIds: [2, 6, 8, 999, 2] } });
    expect(res.statusCode).toBe(200);
    expect(RelationshipsResponseSchema.parse(res.json())).toEqual(res.json());
    expect(res.json().items.map((i: { userId: number }) => i.userId)).toEqual([2, 6, 8, 999]);
    const byId = new Map(res.json().items.map((i: { userId: number }) => [i.userId, i]));
    expect(byId.size).toBe(4);
    expect(byId.get(2)).toEqual({ userId: 2, isFollowing: true, isFollowed: false, isBlocked: false, hasBlockedViewer: false });
    expect(byId.get(6)).toMatchObject({ hasBlockedViewer: true, isBlocked: false });
    expect(byId.get(8)).toMatchObject({ isBlocked: true });
    expect(byId.get(999)).toEqual({ userId: 999, isFollowing: false, isFollowed: false, isBlocked: false, hasBlockedViewer: false });
    const bad = await inject({ method: 'POST', url: '/internal/relationships', payload: { viewerId: 'x', userIds: [0] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('VALIDATION_FAILED');
  });

  it('is hidden from the OpenAPI document', async () => {
    const doc = (await inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/internal'))).toBe(false);
    expect(Object.keys(doc.paths)).toContain('/api/users/{userId}/follow');
  });
});
