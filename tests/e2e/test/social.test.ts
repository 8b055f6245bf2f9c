import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import {
  connectNats,
  createEnvelope,
  TrackChanged,
  TrackPublished,
  UserRegistered,
  type EventEnvelope,
  type NatsConnection,
  type TrackSnapshot,
} from '@msp/events';
import { ErrorResponseSchema, INTERNAL_ROUTES, TrackSchema } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import { internalCallHeaders } from '@msp/http';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildSocial } from '@msp/social';
import { Fleet } from './fleet.js';

const fleet = new Fleet();
let nc: NatsConnection;

const ARTIST = 1000;
const LISTENERS = Array.from({ length: 100 }, (_, i) => 2000 + i);
const TRACK = 7001;
const DURATION = 240;

const identityApp = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const catalogApp = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
const socialApp = () => fleet.apps.get('social') as Awaited<ReturnType<typeof buildSocial>>;

/** The one caller whose token carries the ADMIN role. */
const ADMIN = 990_300;

const tokens = new Map<number, string>();
async function auth(userId: number): Promise<Record<string, string>> {
  let token = tokens.get(userId);
  if (!token) {
    const role = userId === ADMIN ? 'ADMIN' : 'LISTENER';
    token = await identityApp().keys.sign(
      { sub: String(userId), username: `user${userId}`, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() },
      1800,
      'msp-identity',
    );
    tokens.set(userId, token);
  }
  return { authorization: `Bearer ${token}` };
}

async function call(method: string, path: string, userId?: number, body?: unknown) {
  const headers: Record<string, string> = userId ? await auth(userId) : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fleet.fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown> & { content?: Array<Record<string, unknown>> }) : {} };
}

async function publish(envelope: EventEnvelope) {
  await jetstream(nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

async function registerUser(userId: number, username: string, isPrivate = false) {
  await publish(
    createEnvelope(UserRegistered, {
      userId,
      username,
      displayName: username,
      avatarUrl: null,
      tier: 'FREE',
      role: 'LISTENER',
      isPrivate,
      createdAt: new Date().toISOString(),
    }),
  );
}

/** A finished public track as the upload pipeline will leave it: a row in catalog and its events for social. */
async function createTrack(trackId: number, artistId: number) {
  const snapshot: TrackSnapshot = {
    trackId,
    artistId,
    title: `Song ${trackId}`,
    trackSlug: `song-${trackId}`,
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    durationSeconds: DURATION,
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
      durationSeconds: DURATION,
      publishedAt: new Date(),
    },
  });
  await publish(createEnvelope(TrackChanged, snapshot));
  await publish(createEnvelope(TrackPublished, snapshot));
  await waitFor(async () => (await socialApp().infra.prisma.trackRef.count({ where: { trackId, state: 'FINISHED' } })) === 1, {
    message: `social never saw track ${trackId}`,
  });
}

async function catalogCounts(trackId: number) {
  return catalogApp().infra.prisma.track.findUniqueOrThrow({
    where: { id: trackId },
    select: { likeCount: true, repostCount: true, commentCount: true },
  });
}

const ids = (res: Awaited<ReturnType<typeof call>>) => (res.body.content ?? []).map((item) => item.id);

beforeAll(async () => {
  await fleet.start({ RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' });
  nc = await connectNats(fleet.nats.url, 'e2e-social');
  await registerUser(ARTIST, 'the-artist');
  for (const id of LISTENERS) await registerUser(id, `listener-${id}`);
  await registerUser(3001, 'alice');
  await registerUser(3002, 'bob');
  await registerUser(3003, 'carol');
  await registerUser(3004, 'private-pat', true);
  await waitFor(async () => (await socialApp().infra.prisma.userSummary.count()) === LISTENERS.length + 5, {
    timeoutMs: 15_000,
    message: 'social did not receive the users',
  });
  await createTrack(TRACK, ARTIST);
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await fleet.close();
}, 60_000);

describe('ENG-1 / ENG-2 likes through the gateway (R9)', () => {
  it('100 concurrent likes then 50 concurrent unlikes leave likeCount 50, in social at once and in catalog within 5 s', async () => {
    const likes = await Promise.all(LISTENERS.map((id) => call('POST', `/api/tracks/${TRACK}/like`, id)));
    expect(likes.map((r) => r.status)).toEqual(LISTENERS.map(() => 200));
    expect(Math.max(...likes.map((r) => r.body.likeCount as number))).toBe(100);
    const unlikes = await Promise.all(LISTENERS.slice(0, 50).map((id) => call('DELETE', `/api/tracks/${TRACK}/like`, id)));
    expect(unlikes.every((r) => r.status === 200 && r.body.isLiked === false)).toBe(true);
    expect(Math.min(...unlikes.map((r) => r.body.likeCount as number))).toBe(50);

    const last = await call('POST', `/api/tracks/${TRACK}/like`, LISTENERS[99]);
    expect(last.body).toEqual({ message: expect.any(String), isLiked: true, likeCount: 50 });
    const likers = await call('GET', `/api/users/tracks/${TRACK}/like?size=1`);
    expect(likers.body.totalElements).toBe(50);
    await waitFor(async () => (await catalogCounts(TRACK)).likeCount === 50, { timeoutMs: 5000, message: 'catalog likeCount did not reach 50' });
  });

  it('liking twice leaves one like', async () => {
    const user = LISTENERS[0]!;
    const first = await call('POST', `/api/tracks/${TRACK}/like`, user);
    const second = await call('POST', `/api/tracks/${TRACK}/like`, user);
    expect(first.body.likeCount).toBe(51);
    expect(second.body).toMatchObject({ isLiked: true, likeCount: 51 });
    expect(await socialApp().infra.prisma.trackLike.count({ where: { trackId: TRACK, userId: user } })).toBe(1);
    await waitFor(async () => (await catalogCounts(TRACK)).likeCount === 51, { timeoutMs: 5000, message: 'catalog likeCount did not reach 51' });
    const liked = await call('GET', '/api/users/me/liked-tracks', user);
    expect(liked.status).toBe(200);
    expect(TrackSchema.strict().parse(liked.body.content?.[0])).toMatchObject({ id: TRACK, isLiked: true, likeCount: 51 });
  });

  it('reposts count in catalog too', async () => {
    const res = await call('POST', `/api/tracks/${TRACK}/repost`, LISTENERS[1]);
    expect(res.body).toMatchObject({ isReposted: true, repostCount: 1 });
    expect((await call('POST', `/api/tracks/${TRACK}/repost`, ARTIST)).body.code).toBe('SELF_ACTION_NOT_ALLOWED');
    await waitFor(async () => (await catalogCounts(TRACK)).repostCount === 1, { timeoutMs: 5000, message: 'catalog repostCount' });
  });
});

describe('R7 blocking end to end (BLK-1, FOL-1, lists, likers, comments, relationships)', () => {
  const [alice, bob, carol] = [3001, 3002, 3003];

  it('removes follows both ways and hides the blocker from the blocked user everywhere', async () => {
    expect((await call('POST', `/api/users/${bob}/follow`, alice)).body).toMatchObject({ isFollowing: true, followerCount: 1 });
    expect((await call('POST', '/api/users/alice/follow', bob)).status).toBe(200);
    await call('POST', `/api/users/${carol}/follow`, alice);
    await call('POST', `/api/tracks/${TRACK}/like`, alice);
    const comment = await call('POST', `/api/tracks/${TRACK}/comments`, alice, { body: 'alice was here', timestampSeconds: 3 });
    expect(comment.status).toBe(201);
    expect(ids(await call('GET', `/api/users/${carol}/followers`, bob))).toContain(alice);

    const block = await call('POST', `/api/users/${bob}/block`, alice);
    expect(block.status).toBe(200);
    expect(block.body).toEqual({ message: expect.any(String) });

    // Follows are gone in both directions.
    expect(ids(await call('GET', `/api/users/${bob}/followers`, alice))).not.toContain(alice);
    expect(ids(await call('GET', `/api/users/${bob}/following`, alice))).not.toContain(alice);
    // FOL-1 from the blocker → 403 USER_BLOCKED; from the blocked side, the blocker does not exist.
    const refollow = await call('POST', `/api/users/${bob}/follow`, alice);
    expect(refollow.status).toBe(403);
    expect(refollow.body.code).toBe('USER_BLOCKED');
    expect((await call('POST', `/api/users/${alice}/follow`, bob)).status).toBe(404);
    expect((await call('GET', `/api/users/${alice}/followers`, bob)).status).toBe(404);
    expect((await call('GET', '/api/users/alice/liked-tracks', bob)).status).toBe(404);
    // Lists, likers and comments no longer show the blocker to the blocked user.
    expect(ids(await call('GET', `/api/users/${carol}/followers`, bob))).not.toContain(alice);
    expect(ids(await call('GET', `/api/users/tracks/${TRACK}/like?size=100`, bob))).not.toContain(alice);
    const comments = await call('GET', `/api/tracks/${TRACK}/comments`, bob);
    expect((comments.body.content ?? []).map((c) => (c.user as { id: number }).id)).not.toContain(alice);
    // Others still see alice.
    expect(ids(await call('GET', `/api/users/${carol}/followers`, carol))).toContain(alice);
    // BLK-3.
    expect(ids(await call('GET', '/api/users/me/blocked', alice))).toEqual([bob]);

    const rel = await fetch(`${fleet.urlOf('social')}${INTERNAL_ROUTES.relationships}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...internalCallHeaders() },
      body: JSON.stringify({ viewerId: bob, userIds: [alice, carol] }),
    });
    const items = ((await rel.json()) as { items: Array<{ userId: number }> }).items;
    expect(items.find((i) => i.userId === alice)).toEqual({ userId: alice, isFollowing: false, isFollowed: false, isBlocked: false, hasBlockedViewer: true });
    // The internal route is not reachable through the gateway.
    expect((await fleet.fetch(INTERNAL_ROUTES.relationships, { method: 'POST' })).status).toBe(404);

    // Unblocking does not restore follows.
    expect((await call('DELETE', `/api/users/${bob}/block`, alice)).status).toBe(204);
    expect(ids(await call('GET', `/api/users/${bob}/followers`, alice))).not.toContain(alice);
    expect((await call('POST', `/api/users/${bob}/follow`, alice)).status).toBe(200);
  });
});

describe('ENG-13 … ENG-17 comments (R10)', () => {
  it('validates timestamps and reply depth; the artist deletes a listener comment with its replies; commentCount follows', async () => {
    const listener = LISTENERS[5]!;
    const late = await call('POST', `/api/tracks/${TRACK}/comments`, listener, { body: 'too late', timestampSeconds: DURATION + 1 });
    expect(late.status).toBe(400);
    expect(late.body.code).toBe('INVALID_TIMESTAMP');
    const parent = await call('POST', `/api/tracks/${TRACK}/comments`, listener, { body: 'great intro', timestampSeconds: DURATION });
    expect(parent.status).toBe(201);
    const reply = await call('POST', `/api/comments/${parent.body.id}/replies`, LISTENERS[6], { body: 'agreed' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ replyToCommentId: parent.body.id, timestampSeconds: DURATION, replyCount: 0 });
    const nested = await call('POST', `/api/comments/${reply.body.id}/replies`, listener, { body: 'nested' });
    expect(nested.status).toBe(400);
    expect(nested.body.code).toBe('REPLY_NOT_ALLOWED');

    const before = (await socialApp().infra.prisma.trackRef.findUniqueOrThrow({ where: { trackId: TRACK } })).commentCount;
    await waitFor(async () => (await catalogCounts(TRACK)).commentCount === before, { timeoutMs: 5000, message: 'catalog commentCount' });
    expect((await call('DELETE', `/api/comments/${parent.body.id}`, LISTENERS[7])).status).toBe(403);
    expect((await call('DELETE', `/api/comments/${parent.body.id}`, ARTIST)).status).toBe(204);
    expect((await call('GET', `/api/comments/${parent.body.id}/replies`)).status).toBe(404);
    const remaining = await call('GET', `/api/tracks/${TRACK}/comments`);
    expect(ids(remaining)).not.toContain(parent.body.id);
    await waitFor(async () => (await catalogCounts(TRACK)).commentCount === before - 2, { timeoutMs: 5000, message: 'catalog commentCount after delete' });
  });
});

describe("FOL-1 follow: identity's profile counts follow social within 5 s", () => {
  async function registerAccount(email: string, displayName: string): Promise<{ userId: number; username: string }> {
    const res = await fleet.fetch('/api/auth/register/local', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, displayName, password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { userId: number; username: string };
  }

  it('USR-15 shows the new followerCount after FOL-1 and after FOL-2', async () => {
    const star = await registerAccount('star@example.com', 'Star Artist');
    const fan = await registerAccount('fan@example.com', 'Big Fan');
    await waitFor(async () => (await socialApp().infra.prisma.userSummary.count({ where: { userId: { in: [star.userId, fan.userId] } } })) === 2, {
      message: 'social did not receive the registrations',
    });
    const follow = await call('POST', `/api/users/${star.userId}/follow`, fan.userId);
    expect(follow.body).toMatchObject({ isFollowing: true, followerCount: 1 });
    const followers = async () => {
      const res = await fleet.fetch(`/api/users/username/${star.username}`);
      return res.status === 200 ? ((await res.json()) as { stats: { followersCount: number } }).stats.followersCount : -1;
    };
    await waitFor(async () => (await followers()) === 1, { timeoutMs: 5000, message: 'identity followerCount did not reach 1' });
    await call('DELETE', `/api/users/${star.userId}/follow`, fan.userId);
    await waitFor(async () => (await followers()) === 0, { timeoutMs: 5000, message: 'identity followerCount did not return to 0' });
  });
});

describe('FOL-3 / FOL-4 / ENG-20 / USR-22 R8 private profiles', () => {
  it('followers, following and liked lists answer 403 PROFILE_PRIVATE to others, not to the user', async () => {
    for (const path of [
      '/api/users/3004/followers',
      '/api/users/3004/following',
      '/api/users/private-pat/liked-tracks',
      '/api/users/private-pat/reposted-tracks',
    ]) {
      const res = await call('GET', path, 3001);
      expect(res.status, path).toBe(403);
      expect(res.body.code).toBe('PROFILE_PRIVATE');
      expect((await call('GET', path)).status, path).toBe(403);
      expect((await call('GET', path, 3004)).status, path).toBe(200);
    }
  });
});

describe("ENG-3 / ENG-6 / FOL-3 R8: a private user is left out of others' likers, reposters and followers lists", () => {
  const TRACK2 = 7002;
  const [before, after, stranger] = [LISTENERS[20]!, LISTENERS[21]!, LISTENERS[30]!];

  async function registerAccount(email: string, displayName: string): Promise<number> {
    const res = await fleet.fetch('/api/auth/register/local', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, displayName, password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { userId: number }).userId;
  }

  it('after USR-4 makes her private: absent for anonymous callers and strangers, listed for herself and admins, still counted', async () => {
    const quinn = await registerAccount('quiet@example.com', 'Quiet Quinn');
    const STAR = await registerAccount('r8-star@example.com', 'Star Of R8');
    const where = { userId: { in: [quinn, STAR] } };
    await waitFor(
      async () => (await socialApp().infra.prisma.userSummary.count({ where })) === 2 && (await catalogApp().infra.prisma.userSummary.count({ where })) === 2,
      { message: 'social or catalog did not receive the users' },
    );
    await createTrack(TRACK2, STAR);
    const writes = [`/api/tracks/${TRACK2}/like`, `/api/tracks/${TRACK2}/repost`, `/api/users/${STAR}/follow`];
    for (const actor of [before, quinn, after]) {
      for (const path of writes) expect((await call('POST', path, actor)).status, `${path} by ${actor}`).toBe(200);
    }

    // USR-4 at identity; social learns it from identity's event.
    expect((await call('PATCH', '/api/users/me/privacy', quinn, { isPrivate: true })).body).toMatchObject({ isPrivate: true });
    await waitFor(async () => (await socialApp().infra.prisma.userSummary.findUnique({ where: { userId: quinn } }))?.isPrivate === true, {
      timeoutMs: 5000,
      message: 'social did not learn that the profile turned private',
    });

    for (const list of [`/api/users/tracks/${TRACK2}/like`, `/api/users/tracks/${TRACK2}/reposters`, `/api/users/${STAR}/followers`]) {
      for (const viewer of [undefined, stranger]) {
        const res = await call('GET', `${list}?size=2`, viewer);
        expect(res.status, list).toBe(200);
        // A full first page and a total of what this caller may see.
        expect(res.body, `${list} for ${viewer ?? 'anonymous'}`).toMatchObject({ totalElements: 2, totalPages: 1, isLast: true });
        expect(ids(res)).toEqual([after, before]);
      }
      for (const viewer of [quinn, ADMIN]) {
        const first = await call('GET', `${list}?size=2`, viewer);
        expect(first.body, `${list} for ${viewer}`).toMatchObject({ totalElements: 3, totalPages: 2 });
        const second = await call('GET', `${list}?size=2&page=1`, viewer);
        expect([...ids(first), ...ids(second)]).toEqual([after, quinn, before]);
      }
    }

    // Counts shown to everyone still include her: catalog's track and identity's profile follow social's events.
    await waitFor(
      async () => {
        const track = await call('GET', `/api/tracks/${TRACK2}`);
        return track.body.likeCount === 3 && track.body.repostCount === 3;
      },
      { timeoutMs: 5000, message: 'TRK-6 likeCount/repostCount did not reach 3' },
    );
    await waitFor(
      async () => {
        const res = await fleet.fetch(`/api/users/${STAR}`);
        return res.status === 200 && ((await res.json()) as { stats?: { followersCount?: number } }).stats?.followersCount === 3;
      },
      { timeoutMs: 5000, message: 'USR-15 followersCount did not reach 3' },
    );
  });
});

describe('ENG-* / FOL-1 / FOL-2 bad input through the gateway', () => {
  it('answers 4xx ErrorResponses, never 500', async () => {
    const probes: Array<[string, string, unknown?]> = [
      ['POST', '/api/tracks/abc/like'],
      ['POST', '/api/tracks/0/repost'],
      ['GET', '/api/users/tracks/1.5/like'],
      ['GET', `/api/users/${ARTIST}/followers?size=1000`],
      ['POST', `/api/tracks/${TRACK}/comments`, { body: 'x'.repeat(5000) }],
      ['POST', `/api/tracks/${TRACK}/comments`, { body: "' OR 1=1; --", timestampSeconds: 'zero' }],
      ['POST', '/api/comments/99999999/replies', { body: 'hello' }],
      ['GET', '/api/users/%F0%9F%8E%B5/liked-tracks'],
      ['POST', '/api/users/99999999/follow'],
    ];
    for (const [method, path, body] of probes) {
      const res = await call(method, path, LISTENERS[10], body);
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      ErrorResponseSchema.parse(res.body);
    }
    const malformed = await fleet.fetch(`/api/tracks/${TRACK}/comments`, {
      method: 'POST',
      headers: { ...(await auth(LISTENERS[10]!)), 'content-type': 'application/json' },
      body: '{"body": ',
    });
    expect(malformed.status).toBe(400);
  });
});
