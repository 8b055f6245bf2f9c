import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, UserRegistered, UserUpdated, type EventEnvelope } from '@msp/events';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadSocialConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: `${envelope.id}-${Math.random()}` });
}

function registered(userId: number, username: string, isPrivate = false) {
  return createEnvelope(UserRegistered, {
    userId,
    username,
    displayName: username.toUpperCase(),
    avatarUrl: null,
    tier: 'FREE',
    role: 'LISTENER',
    isPrivate,
    createdAt: new Date().toISOString(),
  });
}

beforeAll(async () => {
  env = await startServiceTestEnv('social', migrations);
  app = await buildApp(loadSocialConfig(env.env), { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.close();
});

describe('FOL-3 / FOL-4 social user projection from identity events', () => {
  it('creates the user summary once, even when the same event is delivered twice', async () => {
    const event = registered(101, 'alice');
    await publish(event);
    await publish(event);
    const res = await waitFor(
      async () => {
        const r = await app.inject({ method: 'GET', url: '/api/users/101/followers' });
        return r.statusCode === 200 ? r : undefined;
      },
      { message: 'projection did not catch up' },
    );
    expect(res.json()).toEqual({ content: [], pageNumber: 0, pageSize: 20, totalElements: 0, totalPages: 0, isLast: true });
    const processed = await app.infra.prisma.processedEvent.count({ where: { eventId: event.id } });
    expect(processed).toBe(1);
  });

  it('applies profile updates, including a rename', async () => {
    await publish(registered(102, 'bob'));
    await waitFor(async () => (await app.inject({ method: 'GET', url: '/api/users/bob/following' })).statusCode === 200);
    await publish(
      createEnvelope(UserUpdated, {
        userId: 102,
        username: 'bobby',
        displayName: 'Bobby',
        avatarUrl: null,
        tier: 'PRO',
        role: 'ARTIST',
        isPrivate: false,
      }),
    );
    await waitFor(async () => (await app.inject({ method: 'GET', url: '/api/users/bobby/following' })).statusCode === 200);
    expect((await app.inject({ method: 'GET', url: '/api/users/bob/following' })).statusCode).toBe(404);
  });
});

describe('FOL-3 get followers / FOL-4 get following', () => {
  beforeAll(async () => {
    for (const [id, name] of [
      [201, 'carol'],
      [202, 'dave'],
      [203, 'erin'],
    ] as const)
      await publish(registered(id, name));
    await publish(registered(204, 'frank', true));
    await waitFor(async () => (await app.infra.prisma.userSummary.count({ where: { userId: { in: [201, 202, 203, 204] } } })) === 4);
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    await app.infra.prisma.follow.createMany({
      data: [
        { followerId: 202, followeeId: 201, createdAt: at(1) },
        { followerId: 203, followeeId: 201, createdAt: at(2) },
        { followerId: 202, followeeId: 203, createdAt: at(3) },
        { followerId: 201, followeeId: 204, createdAt: at(4) },
      ],
    });
  });

  it('lists followers newest first with the caller-relative isFollowing', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/users/carol/followers', headers: { 'x-user-id': '202' } });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page.totalElements).toBe(2);
    expect(page.content.map((u: { username: string }) => u.username)).toEqual(['erin', 'dave']);
    expect(page.content[0]).toEqual({
      id: 203,
      username: 'erin',
      displayName: 'ERIN',
      avatarUrl: null,
      tier: 'FREE',
      isFollowing: true,
      followerCount: 0,
      trackCount: 0,
    });
    expect(page.content[1].isFollowing).toBe(false); // dave is the caller himself
  });

  it('pages with the Page wrapper', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/users/201/followers?page=1&size=1' });
    expect(res.json()).toMatchObject({ pageNumber: 1, pageSize: 1, totalElements: 2, totalPages: 2, isLast: true });
    expect(res.json().content).toHaveLength(1);
  });

  it('answers 403 PROFILE_PRIVATE for a private profile, except to the user and admins', async () => {
    const stranger = await app.inject({ method: 'GET', url: '/api/users/frank/followers', headers: { 'x-user-id': '202' } });
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().code).toBe('PROFILE_PRIVATE');
    const self = await app.inject({ method: 'GET', url: '/api/users/frank/followers', headers: { 'x-user-id': '204' } });
    expect(self.json().totalElements).toBe(1);
    const admin = await app.inject({ method: 'GET', url: '/api/users/204/followers', headers: { 'x-user-id': '1', 'x-user-role': 'ADMIN' } });
    expect(admin.statusCode).toBe(200);
  });

  it('answers 404 USER_NOT_FOUND for an unknown user and 400 for bad paging', async () => {
    const missing = await app.inject({ method: 'GET', url: '/api/users/nobody/followers' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 404, code: 'USER_NOT_FOUND', path: '/api/users/nobody/followers' });
    for (const query of ['size=0', 'size=101', 'page=-1', 'size=abc', 'page=1.5']) {
      const bad = await app.inject({ method: 'GET', url: `/api/users/201/followers?${query}` });
      expect(bad.statusCode, query).toBe(400);
      expect(bad.json().code).toBe('VALIDATION_FAILED');
      expect(bad.json().errors.length).toBeGreaterThan(0);
    }
  });
});
