import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, UserRegistered, UserUpdated } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadCatalogConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const ARTIST = 801;
const LISTENER = 802;

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

const listener = { 'x-user-id': String(LISTENER), 'x-user-role': 'LISTENER', 'x-username': 'lisa' };
const snapshot = (userId: number, username: string, showHistory?: boolean) => ({
  userId,
  username,
  displayName: username,
  avatarUrl: null,
  tier: 'FREE' as const,
  role: 'LISTENER' as const,
  isPrivate: false,
  ...(showHistory === undefined ? {} : { showHistory }),
});

async function publish(envelope: { id: string; type: string }) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

async function setShowHistory(value: boolean) {
  await publish(createEnvelope(UserUpdated, snapshot(LISTENER, 'lisa', value)));
  await waitFor(async () => (await app.infra.prisma.userSummary.findUnique({ where: { userId: LISTENER } }))?.showHistory === value);
}

async function track() {
  const slug = `h-${randomUUID().slice(0, 8)}`;
  return app.infra.prisma.track.create({
    data: {
      artistId: ARTIST,
      title: slug,
      trackSlug: slug,
      genre: 'Jazz',
      releaseDate: new Date('2026-01-01T00:00:00.000Z'),
      secretToken: randomBytes(24).toString('base64url'),
      uploadId: randomUUID(),
      state: 'FINISHED',
      durationSeconds: 60,
    },
    select: { id: true },
  });
}

const play = (id: number) => app.inject({ method: 'POST', url: `/api/tracks/${id}/play`, headers: listener, payload: {} });
const history = async () => {
  const res = await app.inject({ method: 'GET', url: '/api/users/me/history', headers: listener });
  expect(res.statusCode).toBe(200);
  return res.json() as { content: Array<{ id: number }>; totalElements: number };
};

beforeAll(async () => {
  env = await startServiceTestEnv('catalog_history', migrations);
  app = await buildApp(loadCatalogConfig(env.env), { logger: false });
  await app.ready();
  await publish(createEnvelope(UserRegistered, { ...snapshot(ARTIST, 'artie'), createdAt: new Date().toISOString() }));
  await publish(createEnvelope(UserRegistered, { ...snapshot(LISTENER, 'lisa'), createdAt: new Date().toISOString() }));
  await waitFor(async () => (await app.infra.prisma.userSummary.count()) === 2, { message: 'projection' });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('USR-17 listening history and R8 showHistory', () => {
  it('records plays while showHistory is on, records nothing and answers an empty page while it is off, and shows earlier entries again when it is back on', async () => {
    const [first, second] = [await track(), await track()];
    expect((await play(first.id)).statusCode).toBe(200);
    expect((await history()).content.map((t) => t.id)).toEqual([first.id]);

    await setShowHistory(false);
    expect((await play(second.id)).statusCode).toBe(200);
    expect(await history()).toMatchObject({ content: [], totalElements: 0 });
    expect(await app.infra.prisma.listeningHistory.count({ where: { userId: LISTENER, trackId: second.id } })).toBe(0);

    await setShowHistory(true);
    expect((await history()).content.map((t) => t.id)).toEqual([first.id]);
  });

  it('pages a long history by its anchors: every page size and page in order (ties by track id), hidden tracks left out before paging', async () => {
    const reader = 803;
    const headers = { 'x-user-id': String(reader), 'x-user-role': 'LISTENER', 'x-username': 'reader' };
    await publish(createEnvelope(UserRegistered, { ...snapshot(reader, 'reader'), createdAt: new Date().toISOString() }));
    await waitFor(async () => !!(await app.infra.prisma.userSummary.findUnique({ where: { userId: reader } })), { message: 'reader' });
    const ids: number[] = [];
    for (let i = 0; i < 47; i++) ids.push((await track()).id);
    const hidden = ids[10]!;
    await app.infra.prisma.track.update({ where: { id: hidden }, data: { isPrivate: true } });
    // Entries come in pairs sharing a play time: the tie goes to the higher track id.
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 60_000);
    await app.infra.prisma.listeningHistory.createMany({ data: ids.map((trackId, i) => ({ userId: reader, trackId, lastPlayedAt: at(i) })) });
    const expected = ids
      .map((id, i) => ({ id, t: at(i).getTime() }))
      .filter((e) => e.id !== hidden)
      .sort((x, y) => y.t - x.t || y.id - x.id)
      .map((e) => e.id);
    for (const size of [20, 7, 13, 100]) {
      for (let page = 0; page * size <= expected.length; page++) {
        const res = await app.inject({ method: 'GET', url: `/api/users/me/history?page=${page}&size=${size}`, headers });
        expect(res.statusCode).toBe(200);
        const body = res.json() as { content: Array<{ id: number }>; totalElements: number };
        expect(
          body.content.map((t) => t.id),
          `size ${size} page ${page}`,
        ).toEqual(expected.slice(page * size, (page + 1) * size));
        expect(body.totalElements).toBe(expected.length);
      }
    }
    // Pages past the last anchor start from it: empty, with the true total.
    for (const page of [3, 10]) {
      const res = await app.inject({ method: 'GET', url: `/api/users/me/history?page=${page}&size=20`, headers });
      expect(res.json()).toMatchObject({ content: [], totalElements: expected.length });
    }
  });

  it('keeps the stored setting when an older event without showHistory arrives', async () => {
    await setShowHistory(false);
    await publish(createEnvelope(UserUpdated, snapshot(LISTENER, 'lisa')));
    await waitFor(async () => (await app.infra.prisma.processedEvent.count()) >= 6);
    expect((await app.infra.prisma.userSummary.findUnique({ where: { userId: LISTENER } }))?.showHistory).toBe(false);
    await setShowHistory(true);
  });
});
