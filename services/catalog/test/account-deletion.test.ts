import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, UserDeleted, UserDeletionCancelled, UserDeletionScheduled, UserRegistered } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';
import { PlayLogRepository } from '../src/modules/insights/play-log.repository.js';
import { deleteUserFromCatalog } from '../src/modules/deletion/account-deletion.consumer.js';
import { AccountDeletionRepository, ROW_BATCH } from '../src/modules/deletion/account-deletion.repository.js';
import { HistoryIndex } from '../src/modules/tracks/history-index.js';

/**
 * Account deletion in catalog (docs/account-control.md): identity's UserDeletionScheduled hides
 * the user's content as a ban does, UserDeletionCancelled shows it again, and UserDeleted removes
 * every row naming the user and every object of theirs, in batches, idempotently.
 */
const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

const USERS = { doomed: 2101, listener: 2102, other: 2103, big: 2104, crash: 2105 } as const;
const NAMES = { doomed: 'zyxquorvant', listener: 'lena-del', other: 'olga-del', big: 'bigquorvant', crash: 'crashquorvant' } as const;
const as = (userId: number, role = 'LISTENER') => ({ 'x-user-id': String(userId), 'x-user-role': role, 'x-username': `u${userId}` });
const LISTENER = as(USERS.listener);

async function publish(envelope: { id: string; type: string }) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

async function register(userId: number, username: string) {
  await publish(
    createEnvelope(UserRegistered, {
      userId,
      username,
      displayName: `${username} Display`,
      avatarUrl: null,
      tier: 'PRO',
      role: 'ARTIST',
      isPrivate: false,
      createdAt: new Date().toISOString(),
    }),
  );
}

/** A FINISHED public track whose media objects exist in storage (original, renditions, cover, waveform). */
async function track(artistId: number, title: string): Promise<{ id: number; secretToken: string; keys: string[] }> {
  const genre = 'Electronic';
  const upload = `uploads/${randomUUID()}/original`;
  const cover = `public/${randomUUID()}/cover.jpg`;
  const waveform = `public/${randomUUID()}/waveform.json`;
  const row = await app.infra.prisma.track.create({
    data: {
      artistId,
      title,
      trackSlug: `d-${randomUUID().slice(0, 8)}`,
      genre,
      genreKey: genre.toLowerCase(),
      tags: ['deletiontag'],
      releaseDate: new Date('2026-01-01T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: 'FINISHED',
      isPrivate: false,
      durationSeconds: 60,
      publishedAt: new Date(),
      originalKey: upload,
      originalSize: 4n,
      coverKey: cover,
      waveformKey: waveform,
    },
    select: { id: true, secretToken: true },
  });
  const full = `tracks/${row.id}/full.m4a`;
  const segment = `tracks/${row.id}/hls/seg-0.m4s`;
  await app.infra.prisma.track.update({ where: { id: row.id }, data: { progressiveKey: full, hlsPrefix: `tracks/${row.id}/hls/` } });
  const keys = [upload, cover, waveform, full, segment];
  for (const key of keys) await app.infra.storage.put(key, Buffer.from('data'), 'application/octet-stream', 4);
  return { ...row, keys };
}

async function playlist(ownerId: number, title: string, trackIds: number[], coverKey: string | null = null): Promise<number> {
  const row = await app.infra.prisma.playlist.create({
    data: {
      ownerId,
      title,
      playlistSlug: `p-${randomUUID().slice(0, 8)}`,
      secretToken: randomBytes(24).toString('base64url'),
      coverKey,
      entries: { create: trackIds.map((trackId, i) => ({ trackId, position: i + 1 })) },
    },
    select: { id: true },
  });
  return row.id;
}

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

/** Every (table, column) of the catalog database whose name says it holds a user id. */
async function userIdColumns(): Promise<Array<{ table: string; column: string }>> {
  return app.infra.prisma.$queryRawUnsafe<Array<{ table: string; column: string }>>(
    `SELECT c.table_name AS "table", c.column_name AS "column"
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type IN ('integer', 'bigint')
        AND c.column_name ~ '(user|owner|artist|listener|follower|followee|blocker|blocked|admin)(_id)?$'`,
  );
}

/** Rows that still carry `userId` in a user-id column, or `username` in a text or JSON column, per table. */
async function leftovers(userId: number, username: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const { table, column } of await userIdColumns()) {
    const rows = await app.infra.prisma.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${table}" WHERE "${column}" = $1`, userId);
    if (rows[0]!.n > 0) found[`${table}.${column}`] = rows[0]!.n;
  }
  const texts = await app.infra.prisma.$queryRawUnsafe<Array<{ table: string; column: string }>>(
    `SELECT c.table_name AS "table", c.column_name AS "column"
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type IN ('text', 'jsonb', 'json', 'character varying')`,
  );
  for (const { table, column } of texts) {
    const rows = await app.infra.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE "${column}"::text ILIKE '%' || $1 || '%'`,
      username,
    );
    if (rows[0]!.n > 0) found[`${table}.${column}~username`] = rows[0]!.n;
  }
  return found;
}

const t = {} as { doomed: Awaited<ReturnType<typeof track>>; doomedTwo: Awaited<ReturnType<typeof track>>; other: Awaited<ReturnType<typeof track>> };
const p = {} as { doomed: number; listenerMix: number };
const doomedCover = `public/${randomUUID()}/cover.jpg`;

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_account_deletion', migrations);
  app = await buildApp(loadCatalogConfig({ ...env.env, SOCIAL_URL: 'http://127.0.0.1:1' }), { logger: false });
  await app.ready();
  for (const key of Object.keys(USERS) as Array<keyof typeof USERS>) await register(USERS[key], NAMES[key]);
  await waitFor(async () => (await app.infra.prisma.userSummary.count()) === Object.keys(USERS).length, { message: 'projection' });

  t.doomed = await track(USERS.doomed, 'Zyx Farewell Anthem');
  t.doomedTwo = await track(USERS.doomed, 'Zyx Second Song');
  t.other = await track(USERS.other, 'Olga Staying Tune');
  await app.infra.storage.put(doomedCover, Buffer.from('jpeg'), 'image/jpeg', 4);
  p.doomed = await playlist(USERS.doomed, 'Zyx Set', [t.doomed.id, t.other.id], doomedCover);
  p.listenerMix = await playlist(USERS.listener, 'Lena Mix', [t.doomed.id, t.other.id]);

  const prisma = app.infra.prisma;
  const now = new Date();
  await prisma.listeningHistory.createMany({
    data: [
      { userId: USERS.listener, trackId: t.doomed.id, lastPlayedAt: now },
      { userId: USERS.doomed, trackId: t.other.id, lastPlayedAt: now },
    ],
  });
  // Likes: the doomed user likes Olga's track (counted on today's trending), Lena likes the doomed track.
  await prisma.trackEngagement.createMany({
    data: [
      { kind: 'L', userId: USERS.doomed, trackId: t.other.id, createdAt: now },
      { kind: 'R', userId: USERS.doomed, trackId: t.other.id, createdAt: now },
      { kind: 'L', userId: USERS.listener, trackId: t.doomed.id, createdAt: now },
    ],
  });
  await prisma.trackDailyStat.create({ data: { trackId: t.other.id, day: new Date(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`), likes: 1, reposts: 1 } });
  await prisma.track.update({ where: { id: t.other.id }, data: { trendingScore: 8, likeCount: 1, repostCount: 1 } });
  await prisma.userFollow.createMany({
    data: [
      { followerId: USERS.doomed, followeeId: USERS.other },
      { followerId: USERS.listener, followeeId: USERS.doomed },
    ],
  });
  await prisma.userBlock.create({ data: { blockerId: USERS.other, blockedId: USERS.doomed } });
  await prisma.$executeRawUnsafe(`INSERT INTO follow_days (user_id, day, gained) VALUES ($1, current_date, 1)`, USERS.doomed);
  await prisma.$executeRawUnsafe(
    `INSERT INTO track_downloads (track_id, user_id) VALUES ($1, $2), ($3, $4)`,
    t.other.id,
    USERS.doomed,
    t.doomed.id,
    USERS.listener,
  );
  await prisma.$executeRawUnsafe(
    `INSERT INTO play_voids (admin_id, listener_id, from_at, to_at, reason, voided, uncounted) VALUES (1, $1, now() - interval '1 hour', now(), 'test', 0, 0)`,
    USERS.doomed,
  );
  // Plays: the doomed user on Olga's track (stays counted, anonymised), Lena on the doomed track (goes).
  const log = new PlayLogRepository(app.infra.pool);
  const play = (trackId: number, artistId: number, listenerId: number) =>
    log.record({ at: new Date(), trackId, artistId, kind: 'play', listenerId, clientHash: null, source: 'app', seconds: null, flag: null });
  await play(t.other.id, USERS.other, USERS.doomed);
  await play(t.doomed.id, USERS.doomed, USERS.listener);
  await app.infra.redis.set(`catalog:plays:rate:u${USERS.doomed}`, '1', 'EX', 600);
  await app.infra.redis.set(`catalog:plays:rate:u${USERS.listener}`, '1', 'EX', 600);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('ACC-3 / ACC-4 identity.user.deletion-scheduled.v1 and .deletion-cancelled.v1 in catalog', () => {
  it("hides the user's tracks and playlists as a ban does (by id, by token, in others' playlists), and the restore shows them again", async () => {
    const view = async () => {
      const [byId, byToken, pls, mix] = await Promise.all([
        get(`/api/tracks/${t.doomed.id}`, LISTENER),
        get(`/api/tracks/token/${t.doomed.secretToken}`, LISTENER),
        get(`/api/playlists/${p.doomed}`, LISTENER),
        get(`/api/playlists/${p.listenerMix}`, LISTENER),
      ]);
      const mixBody = mix.json() as { paginatedTrackResponse: { content: Array<{ id: number }> } };
      return { byId: byId.statusCode, byToken: byToken.statusCode, playlist: pls.statusCode, mix: mixBody.paginatedTrackResponse.content.map((x) => x.id) };
    };
    expect(await view()).toEqual({ byId: 200, byToken: 200, playlist: 200, mix: [t.doomed.id, t.other.id] });

    await publish(createEnvelope(UserDeletionScheduled, { userId: USERS.doomed, deleteAt: new Date(Date.now() + 60_000).toISOString() }));
    await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: USERS.doomed, isDeleted: true } })) === 1, { message: 'scheduled' });
    expect(await view()).toEqual({ byId: 404, byToken: 404, playlist: 404, mix: [t.other.id] });

    await publish(createEnvelope(UserDeletionCancelled, { userId: USERS.doomed }));
    await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: USERS.doomed, isDeleted: false } })) === 1, {
      message: 'cancelled',
    });
    expect(await view()).toEqual({ byId: 200, byToken: 200, playlist: 200, mix: [t.doomed.id, t.other.id] });
  });
});

describe('ACC-5 identity.user.deleted.v1 in catalog', () => {
  it("removes every row naming the user and every object of theirs; others' rows stay, anonymised where they count", async () => {
    expect(Object.keys(await leftovers(USERS.doomed, NAMES.doomed)).length).toBeGreaterThan(10);
    // The counts and trending scores a play changes reach `tracks` when they are folded (docs/insights.md).
    const fold = () => new PlayLogRepository(app.infra.pool).foldCounts();
    await fold();
    const otherBefore = await app.infra.prisma.track.findUniqueOrThrow({ where: { id: t.other.id }, select: { playCount: true } });

    await publish(createEnvelope(UserDeletionScheduled, { userId: USERS.doomed, deleteAt: new Date().toISOString() }));
    await publish(createEnvelope(UserDeleted, { userId: USERS.doomed }));
    await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: USERS.doomed } })) === 0, { message: 'deleted', timeoutMs: 20_000 });

    expect(await leftovers(USERS.doomed, NAMES.doomed)).toEqual({});
    for (const key of [...t.doomed.keys, ...t.doomedTwo.keys, doomedCover]) expect(await app.infra.storage.stat(key), key).toBeNull();
    // Olga's objects and rows are untouched.
    for (const key of t.other.keys) expect(await app.infra.storage.stat(key), key).not.toBeNull();

    await fold();
    const other = await app.infra.prisma.track.findUniqueOrThrow({ where: { id: t.other.id }, select: { playCount: true, trendingScore: true } });
    // The doomed user's play of Olga's track stays counted (anonymised); their like and repost leave trending (3 + 5).
    expect(other.playCount).toBe(otherBefore.playCount);
    expect(other.trendingScore).toBe(1);
    const anonymous = await app.infra.prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM play_events WHERE track_id = $1 AND listener_id IS NULL`,
      t.other.id,
    );
    expect(anonymous[0]!.n).toBe(1);
    // Lena's playlist keeps Olga's track only; her like and history of the doomed track are gone.
    expect(await app.infra.prisma.playlistTrack.findMany({ where: { playlistId: p.listenerMix }, select: { trackId: true } })).toEqual([
      { trackId: t.other.id },
    ]);
    expect(await app.infra.prisma.listeningHistory.count({ where: { userId: USERS.listener } })).toBe(0);
    expect(await app.infra.prisma.trackEngagement.count({ where: { userId: USERS.listener } })).toBe(0);

    // Events for the other services' copies (social, notification): one per track and playlist.
    const events = await app.infra.prisma.outboxEvent.findMany({
      where: { type: { in: ['catalog.track.deleted.v1', 'catalog.playlist.deleted.v1'] } },
      select: { type: true },
    });
    expect(events.filter((e) => e.type === 'catalog.track.deleted.v1')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'catalog.playlist.deleted.v1')).toHaveLength(1);

    // Redis: the listener's keys go, others' stay; search: the name is out of the vocabulary.
    expect(await app.infra.redis.exists(`catalog:plays:rate:u${USERS.doomed}`)).toBe(0);
    expect(await app.infra.redis.exists(`catalog:plays:rate:u${USERS.listener}`)).toBe(1);
    expect(await app.infra.prisma.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM search_words WHERE word = $1`, NAMES.doomed)).toEqual([]);
    expect((await get(`/api/tracks/${t.doomed.id}`, LISTENER)).statusCode).toBe(404);
    expect((await get(`/api/tracks/${t.other.id}`, LISTENER)).statusCode).toBe(200);
  }, 30_000);

  it(`works in batches of ${ROW_BATCH} rows: a user with more likes, plays and tracks than a batch is fully removed`, async () => {
    const prisma = app.infra.prisma;
    const tracks: number[] = [];
    for (let i = 0; i < 30; i += 1) tracks.push((await track(USERS.big, `Big Song ${i}`)).id);
    // 700 likes by the big user on 700 synthetic track ids, and 700 plays of the big user's tracks.
    await prisma.$executeRawUnsafe(
      `INSERT INTO track_engagements (kind, user_id, track_id, created_at) SELECT 'L', $1, 100000 + g, now() FROM generate_series(1, 700) g`,
      USERS.big,
    );
    const log = new PlayLogRepository(app.infra.pool);
    for (let i = 0; i < 700; i += 1) {
      await log.record({
        at: new Date(),
        trackId: tracks[i % tracks.length]!,
        artistId: USERS.big,
        kind: 'play',
        listenerId: null,
        clientHash: `c${i}`,
        source: null,
        seconds: null,
        flag: null,
      });
    }
    await publish(createEnvelope(UserDeleted, { userId: USERS.big }));
    await waitFor(async () => (await prisma.userSummary.count({ where: { userId: USERS.big } })) === 0, { message: 'big deleted', timeoutMs: 30_000 });
    expect(await leftovers(USERS.big, NAMES.big)).toEqual({});
  }, 60_000);

  it('is idempotent and survives a failure mid-way: a rerun after a crash finishes the work, a rerun after the end changes nothing', async () => {
    const mine = await track(USERS.crash, 'Crash Course');
    const second = await track(USERS.crash, 'Crash Again');
    const deps = {
      repo: new AccountDeletionRepository(app.infra.prisma),
      projectionWaitMs: 300,
      redis: app.infra.redis,
      historyIndex: new HistoryIndex(app.infra.redis, 'test'),
      logger: { info: () => undefined, debug: () => undefined, warn: () => undefined },
    };
    // Object storage fails mid-way (after the rows naming the tracks were cleared, before the
    // objects and the tracks go): the handler throws, as a crash would stop it there.
    const failing = {
      list: (prefix: string) => app.infra.storage.list(prefix),
      remove: () => Promise.reject(new Error('storage down')),
    };
    // Not before the user projection has the deletion (it would bring the row back otherwise).
    await expect(deleteUserFromCatalog({ ...deps, storage: failing }, USERS.crash)).rejects.toThrow('has not taken the deletion');
    expect(await app.infra.prisma.track.count({ where: { artistId: USERS.crash } })).toBe(2);
    await publish(createEnvelope(UserDeletionScheduled, { userId: USERS.crash, deleteAt: new Date().toISOString() }));
    await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: USERS.crash, isDeleted: true } })) === 1, { message: 'scheduled' });
    await expect(deleteUserFromCatalog({ ...deps, storage: failing }, USERS.crash)).rejects.toThrow('storage down');
    // Nothing is lost: the tracks still name their objects, so the rerun finds and removes them.
    expect(await app.infra.prisma.track.count({ where: { artistId: USERS.crash } })).toBe(2);
    await deleteUserFromCatalog({ ...deps, storage: app.infra.storage }, USERS.crash);
    expect(await leftovers(USERS.crash, NAMES.crash)).toEqual({});
    for (const key of [...mine.keys, ...second.keys]) expect(await app.infra.storage.stat(key), key).toBeNull();
    await deleteUserFromCatalog({ ...deps, storage: app.infra.storage }, USERS.crash);
    expect(await leftovers(USERS.crash, NAMES.crash)).toEqual({});
  }, 30_000);
});
