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
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildSocial } from '@msp/social';
import { Fleet } from './fleet.js';

/**
 * R14 through the gateway: MOD-8 bans B; within 5 s B's track and playlist answer 404 to others,
 * B's track leaves USR-18 and search, B's comment leaves the comment list, and the counts shown to
 * others follow (A's track's like/repost/comment counts on TRK-6 and USR-18, C's followersCount on
 * USR-15); the admin still sees the track; MOD-8 false brings it all back.
 */
const fleet = new Fleet();
let nc: NatsConnection;

const A = 6101;
const ADMIN = 990_200;
const A_TRACK = 9101;
const B_TRACK = 9102;
const TITLE_WORD = 'Quokkaphonic';
let B = 0;
let C = 0;
let bPlaylist = 0;

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
        username: admin ? 'admin-bans' : `user${userId}`,
        role: admin ? 'ADMIN' : 'ARTIST',
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
async function call(method: string, path: string, userId?: number, body?: unknown) {
  const headers: Record<string, string> = userId ? await auth(userId) : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fleet.fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Body };
}
const ids = (res: { body: Body }) => (res.body.content ?? []).map((x) => x.id as number);

async function publish(envelope: EventEnvelope) {
  await jetstream(nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

/** A finished public track: catalog's row and its events for social. */
async function createTrack(trackId: number, artistId: number, title: string) {
  const snapshot: TrackSnapshot = {
    trackId,
    artistId,
    title,
    trackSlug: `bans-${trackId}`,
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
      title,
      trackSlug: snapshot.trackSlug,
      genre: 'House',
      genreKey: 'house',
      releaseDate: new Date(),
      state: 'FINISHED',
      secretToken: randomUUID().replace(/-/g, ''),
      uploadId: randomUUID(),
      durationSeconds: 200,
      publishedAt: new Date(),
    },
  });
  await publish(createEnvelope(TrackChanged, snapshot));
  await publish(createEnvelope(TrackPublished, snapshot));
  await waitFor(async () => (await socialApp().infra.prisma.trackRef.count({ where: { trackId, state: 'FINISHED' } })) === 1, {
    message: `social never saw track ${trackId}`,
  });
}

/** What A (a listener) sees of B's content, through the gateway. */
async function seenByA() {
  const [track, playlist, userTracks, search, comments, aTrack, aTracks, cProfile] = await Promise.all([
    call('GET', `/api/tracks/${B_TRACK}`, A),
    call('GET', `/api/playlists/${bPlaylist}`, A),
    call('GET', `/api/users/${B}/tracks`, A),
    call('GET', `/api/search?q=${TITLE_WORD}&type=TRACK`, A),
    call('GET', `/api/tracks/${A_TRACK}/comments`, A),
    call('GET', `/api/tracks/${A_TRACK}`, A),
    call('GET', `/api/users/${A}/tracks`, A),
    call('GET', `/api/users/${C}`, A),
  ]);
  const counts = (t: Record<string, unknown> | undefined) => (t ? [t.likeCount, t.repostCount, t.commentCount] : null);
  return {
    // The counts shown to others: B's like, repost and comment on A's track, B's follow of C.
    aTrackCounts: counts(aTrack.body),
    aTracksListCounts: counts((aTracks.body.content ?? []).find((t) => t.id === A_TRACK)),
    cFollowers: (cProfile.body.stats as { followersCount: number } | undefined)?.followersCount ?? cProfile.status,
    track: track.status,
    playlist: playlist.status,
    // 404 once the profile is gone (as identity's), or a page without B's track.
    userTracks: userTracks.status === 200 ? ids(userTracks) : userTracks.status,
    search: ids(search),
    commentAuthors: (comments.body.content ?? []).map((c) => (c.user as { id: number }).id),
  };
}

beforeAll(async () => {
  await fleet.start({ RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' });
  nc = await connectNats(fleet.nats.url, 'e2e-bans');
  // B is a real identity account (MOD-8 bans accounts identity knows); A only needs the projections.
  const reg = await fleet.fetch('/api/auth/register/local', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bert-bans@example.com', displayName: 'Bert Bans', password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
  });
  expect(reg.status).toBe(201);
  B = ((await reg.json()) as { userId: number }).userId;
  const regC = await fleet.fetch('/api/auth/register/local', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'cleo-bans@example.com', displayName: 'Cleo Bans', password: 'a long enough secret', dateOfBirth: '1991-04-05' }),
  });
  expect(regC.status).toBe(201);
  C = ((await regC.json()) as { userId: number }).userId;
  await publish(
    createEnvelope(UserRegistered, {
      userId: A,
      username: 'anna-bans',
      displayName: 'ANNA',
      avatarUrl: null,
      tier: 'FREE',
      role: 'ARTIST',
      isPrivate: false,
      createdAt: new Date().toISOString(),
    }),
  );
  await waitFor(
    async () =>
      (await socialApp().infra.prisma.userSummary.count({ where: { userId: { in: [A, B, C] } } })) === 3 &&
      (await catalogApp().infra.prisma.userSummary.count({ where: { userId: { in: [A, B] } } })) === 2,
    { timeoutMs: 15_000, message: 'the services did not receive the users' },
  );
  await createTrack(A_TRACK, A, 'Anna Plain Song');
  await createTrack(B_TRACK, B, `${TITLE_WORD} Anthem`);
  const playlist = await call('POST', '/api/playlists', B, { title: 'Bert Bans Set', isPrivate: false });
  expect(playlist.status).toBe(201);
  bPlaylist = playlist.body.id as number;
  for (const [who, body] of [
    [A, 'anna here'],
    [B, 'bert here'],
  ] as const) {
    expect((await call('POST', `/api/tracks/${A_TRACK}/comments`, who, { body })).status).toBe(201);
  }
  for (const path of [`/api/tracks/${A_TRACK}/like`, `/api/tracks/${A_TRACK}/repost`, `/api/users/${C}/follow`]) {
    const res = await call('POST', path, B);
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  }
  // The counts reach catalog's and identity's copies by events.
  await waitFor(async () => JSON.stringify((await seenByA()).aTrackCounts) === '[1,1,2]' && (await seenByA()).cFollowers === 1, {
    timeoutMs: 10_000,
    message: 'the counts did not reach catalog and identity',
  });
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await fleet.close();
}, 60_000);

describe('MOD-8 ban propagation (R14): TRK-6, PLS-4, USR-18, DSC-3, ENG-14 and the counts of TRK-6, USR-18, USR-15 through the gateway', () => {
  const visible = () => ({
    aTrackCounts: [1, 1, 2],
    aTracksListCounts: [1, 1, 2],
    cFollowers: 1,
    track: 200,
    playlist: 200,
    userTracks: [B_TRACK],
    search: [B_TRACK],
    commentAuthors: [B, A],
  });

  it("before the ban, A sees B's track, playlist, tracks list, search hit and comment", async () => {
    expect(await seenByA()).toEqual(visible());
  });

  it("within 5 s of the ban B's content answers 404 to A and leaves the lists, and the counts drop; the admin still gets the track", async () => {
    expect((await call('PATCH', `/api/admin/users/${B}/ban`, ADMIN, { isBanned: true, reason: 'spam' })).status).toBe(200);
    const hidden = {
      aTrackCounts: [0, 0, 1],
      aTracksListCounts: [0, 0, 1],
      cFollowers: 0,
      track: 404,
      playlist: 404,
      userTracks: 404,
      search: [],
      commentAuthors: [A],
    };
    await waitFor(async () => JSON.stringify(await seenByA()) === JSON.stringify(hidden), {
      timeoutMs: 5_000,
      message: 'the ban did not propagate within 5 s',
    });
    expect(await seenByA()).toEqual(hidden);
    expect((await call('GET', `/api/tracks/${B_TRACK}`)).status).toBe(404);
    const admin = await call('GET', `/api/tracks/${B_TRACK}`, ADMIN);
    expect(admin.status).toBe(200);
    expect(admin.body.id).toBe(B_TRACK);
    expect((await call('GET', `/api/playlists/${bPlaylist}`, ADMIN)).status).toBe(200);
    const adminComments = await call('GET', `/api/tracks/${A_TRACK}/comments`, ADMIN);
    expect((adminComments.body.content ?? []).map((c) => (c.user as { id: number }).id)).toEqual([B, A]);
  });

  it('MOD-8 false restores them all, counts included, within 5 s', async () => {
    expect((await call('PATCH', `/api/admin/users/${B}/ban`, ADMIN, { isBanned: false })).status).toBe(200);
    await waitFor(async () => JSON.stringify(await seenByA()) === JSON.stringify(visible()), {
      timeoutMs: 5_000,
      message: 'the unban did not propagate within 5 s',
    });
    expect(await seenByA()).toEqual(visible());
  });
});
