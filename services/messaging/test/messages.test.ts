import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { ConversationSchema, MessageSchema, pageSchema, type Playlist, type Track } from '@msp/contracts';
import { createEnvelope, UserBanned, UserBlocked, UserFollowed, UserRegistered, UserUnblocked, type EventEnvelope } from '@msp/events';
import { SERVICE_TOKEN_HEADER } from '@msp/http';
import { startServiceTestEnv, waitFor, type ServiceTestEnv } from '@msp/testing';
import { buildApp, loadMessagingConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const MessagePage = pageSchema(MessageSchema.strict());

let env: ServiceTestEnv;
let app: Awaited<ReturnType<typeof buildApp>>;

// ───────────── a stand-in for catalog's batched internal routes ─────────────
const [ANA, BO, CY, DEE] = [41, 42, 43, 44];
const PUBLIC_TRACK = 900;
const PRIVATE_TRACK = 901; // Ana's, visible to her only
const PLAYLIST = 300;
const catalogCalls: Array<{ path: string; body: { viewerId: number; trackIds?: number[]; playlistIds?: number[] }; token: string | undefined }> = [];
let catalogDown = false;
let catalog: Server;

const artist = { id: ANA, username: 'ana', displayName: 'Ana', avatarUrl: null, tier: 'FREE', isFollowing: false, followerCount: 0, trackCount: 1 } as const;

function track(id: number, isPrivate: boolean): Track {
  return {
    id,
    title: `Track ${id}`,
    trackSlug: `track-${id}`,
    artist,
    description: null,
    genre: 'House',
    tags: [],
    releaseDate: '2026-01-01',
    uploadDate: '2026-01-01T00:00:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z',
    publishedAt: null,
    state: 'FINISHED',
    isPrivate,
    access: 'PLAYABLE',
    trackUrl: null,
    trackPreviewUrl: null,
    hlsUrl: null,
    coverUrl: null,
    waveformUrl: null,
    trackDurationSeconds: 10,
    playCount: 0,
    completedPlayCount: 0,
    likeCount: 0,
    repostCount: 0,
    commentCount: 0,
    isLiked: false,
    isReposted: false,
    secretToken: null,
  };
}

function playlist(id: number): Playlist {
  return {
    id,
    title: 'Mix',
    type: 'PLAYLIST',
    description: null,
    isPrivate: false,
    coverArtUrl: null,
    playlistSlug: 'mix',
    genres: [],
    genre: null,
    tags: [],
    totalDurationSeconds: 0,
    trackCount: 0,
    secretToken: null,
    owner: artist,
    isLiked: false,
    isReposted: false,
    likeCount: 0,
    repostCount: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    trackSummaryDto: [],
    tracks: [],
    firstTrackWaveformUrl: null,
    paginatedTrackResponse: null,
  };
}

async function startCatalog(): Promise<string> {
  catalog = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as { viewerId: number; trackIds?: number[]; playlistIds?: number[] };
      catalogCalls.push({ path: req.url ?? '', body, token: req.headers[SERVICE_TOKEN_HEADER] as string | undefined });
      res.setHeader('content-type', 'application/json');
      if (catalogDown) {
        res.statusCode = 503;
        res.end('{}');
        return;
      }
      if (req.url === '/internal/tracks') {
        const visible = (body.trackIds ?? []).filter((id) => id === PUBLIC_TRACK || (id === PRIVATE_TRACK && body.viewerId === ANA));
        res.end(JSON.stringify({ tracks: visible.map((id) => track(id, id === PRIVATE_TRACK)) }));
      } else {
        res.end(JSON.stringify({ playlists: (body.playlistIds ?? []).filter((id) => id === PLAYLIST).map(playlist) }));
      }
    });
  });
  await new Promise<void>((r) => catalog.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(catalog.address() as AddressInfo).port}`;
}

async function publish(envelope: EventEnvelope) {
  await jetstream(app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

const as = (userId?: number) => (userId === undefined ? {} : { 'x-user-id': String(userId), 'x-user-role': 'LISTENER' });
const start = (caller: number, userId: number | string) => app.inject({ method: 'POST', url: `/api/conversations/${userId}/start`, headers: as(caller) });
const send = (caller: number | undefined, conversationId: number | string, payload: unknown) =>
  app.inject({ method: 'POST', url: `/api/conversations/${conversationId}/messages`, headers: as(caller), payload: payload as object });
const read = (caller: number, conversationId: number, query = '') =>
  app.inject({ method: 'GET', url: `/api/conversations/${conversationId}/messages${query}`, headers: as(caller) });

async function outbox(type: string) {
  const rows = await app.infra.prisma.outboxEvent.findMany({ where: { type }, orderBy: { seq: 'asc' } });
  return rows.map((r) => (r.payload as { data: Record<string, unknown> }).data);
}

beforeAll(async () => {
  env = await startServiceTestEnv('messaging_msgs', migrations);
  const catalogUrl = await startCatalog();
  app = await buildApp(loadMessagingConfig({ ...env.env, CATALOG_URL: catalogUrl }), { logger: false });
  await app.ready();
  for (const [id, name] of [
    [ANA, 'ana'],
    [BO, 'bo'],
    [CY, 'cy'],
    [DEE, 'dee'],
  ] as const) {
    await publish(
      createEnvelope(UserRegistered, {
        userId: id,
        username: name,
        displayName: name,
        avatarUrl: null,
        tier: 'FREE',
        role: 'LISTENER',
        isPrivate: false,
        createdAt: new Date().toISOString(),
      }),
    );
  }
  await waitFor(async () => (await app.infra.prisma.userSummary.count()) === 4, { message: 'projection did not catch up' });
});

afterAll(async () => {
  await app?.close();
  await new Promise((r) => catalog?.close(r));
  await env?.close();
});

beforeEach(() => {
  catalogCalls.length = 0;
  catalogDown = false;
});

describe('MSG-2 start a thread', () => {
  it('answers 201 with the Conversation once, then 200 with the same one, from either side', async () => {
    const first = await start(ANA, BO);
    expect(first.statusCode).toBe(201);
    const conversation = ConversationSchema.strict().parse(first.json());
    expect(conversation).toMatchObject({ otherUser: { id: BO, username: 'bo' }, lastMessage: null, lastMessageAt: null, unreadCount: 0 });
    const again = await start(BO, ANA);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id: conversation.id, otherUser: { id: ANA } });
  });

  it('keeps one conversation under 20 concurrent starts from both sides (unique pair, not check-then-insert)', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? start(CY, DEE) : start(DEE, CY))));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.json().id)).size).toBe(1);
    expect(await app.infra.prisma.conversation.count({ where: { userLowId: CY, userHighId: DEE } })).toBe(1);
  });

  it('answers 400 SELF_ACTION_NOT_ALLOWED, 400 for a bad id, 404 USER_NOT_FOUND for an unknown user, 401 without a caller', async () => {
    expect((await start(ANA, ANA)).json().code).toBe('SELF_ACTION_NOT_ALLOWED');
    expect((await start(ANA, 'x1')).json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect((await start(ANA, 12345)).json()).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    expect((await app.inject({ method: 'POST', url: `/api/conversations/${BO}/start` })).json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});

describe('MSG-4 send a message', () => {
  let conversationId: number;
  beforeAll(async () => {
    conversationId = (await start(ANA, BO)).json().id;
  });

  it('renders resources per reader with one catalog call per kind and viewer, and commits the WS-4 event with both renderings', async () => {
    const res = await send(ANA, conversationId, {
      content: 'hear this',
      resources: [
        { resourceType: 'TRACK', resourceId: PUBLIC_TRACK },
        { resourceType: 'TRACK', resourceId: PRIVATE_TRACK },
        { resourceType: 'PLAYLIST', resourceId: PLAYLIST },
      ],
    });
    expect(res.statusCode).toBe(201);
    const message = MessageSchema.strict().parse(res.json());
    expect(message.resources.map((r) => r.track?.id ?? r.playlist?.id)).toEqual([PUBLIC_TRACK, PRIVATE_TRACK, PLAYLIST]);
    // Sender (check + render) and recipient (render): tracks and playlists, one call each.
    expect(catalogCalls.map((c) => `${c.path}:${c.body.viewerId}`).sort()).toEqual(
      [`/internal/playlists:${ANA}`, `/internal/playlists:${BO}`, `/internal/tracks:${ANA}`, `/internal/tracks:${BO}`].sort(),
    );
    expect(catalogCalls.every((c) => /^[a-z-]+\.\d+\.[\w-]+$/.test(c.token ?? ''))).toBe(true);

    const [event] = (await outbox('messaging.message.sent.v1')).filter((e) => e.messageId === message.id);
    expect(event).toMatchObject({ conversationId, senderId: ANA, recipientId: BO, content: 'hear this' });
    const renderings = event!.renderings as Record<string, unknown>;
    expect(renderings[String(ANA)]).toEqual(message);
    const forBo = MessageSchema.strict().parse(renderings[String(BO)]);
    expect(forBo.resources.map((r) => r.track?.id ?? r.playlist?.id ?? null)).toEqual([PUBLIC_TRACK, null, PLAYLIST]);
  });

  it('refuses resources the sender cannot see (404) and answers 503 rather than share unchecked when catalog is down', async () => {
    expect((await send(BO, conversationId, { resources: [{ resourceType: 'TRACK', resourceId: PRIVATE_TRACK }] })).json()).toMatchObject({
      status: 404,
      code: 'TRACK_NOT_FOUND',
    });
    expect((await send(BO, conversationId, { resourceType: 'PLAYLIST', resourceId: 77 })).json()).toMatchObject({ status: 404, code: 'PLAYLIST_NOT_FOUND' });
    catalogDown = true;
    expect((await send(BO, conversationId, { resources: [{ resourceType: 'TRACK', resourceId: PUBLIC_TRACK }] })).json()).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    // Plain text needs no catalog.
    expect((await send(BO, conversationId, { body: 'text only' })).statusCode).toBe(201);
  });

  it('answers 400 VALIDATION_FAILED for blank bodies, too long bodies, more than 5 resources and bad shapes; 404 to a third user', async () => {
    for (const payload of [
      { body: '' },
      { body: ' \n\t ' },
      { body: 'x'.repeat(2001) },
      { body: 'x', resources: Array.from({ length: 6 }, () => ({ resourceType: 'TRACK', resourceId: PUBLIC_TRACK })) },
      {
        body: 'x',
        resources: [
          { resourceType: 'TRACK', resourceId: 1 },
          { resourceType: 'TRACK', resourceId: 2 },
          { resourceType: 'TRACK', resourceId: 3 },
          { resourceType: 'TRACK', resourceId: 4 },
          { resourceType: 'TRACK', resourceId: 5 },
        ],
        resourceType: 'PLAYLIST',
        resourceId: 9,
      },
      { body: 'x', resourceId: 3 },
      { body: 'x', resources: 'TRACK' },
      [],
    ]) {
      const res = await send(ANA, conversationId, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    const malformed = await app.inject({
      method: 'POST',
      url: `/api/conversations/${conversationId}/messages`,
      headers: { ...as(ANA), 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(malformed.json()).toMatchObject({ status: 400, code: 'MALFORMED_REQUEST' });
    expect((await send(CY, conversationId, { body: 'hi' })).json()).toMatchObject({ status: 404, code: 'CONVERSATION_NOT_FOUND' });
    expect((await send(undefined, conversationId, { body: 'hi' })).json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});

describe('MSG-3 messages within a thread', () => {
  it('pages newest first, marks the partner messages read once and emits one read event; null for what the reader cannot see', async () => {
    const conversationId = (await start(ANA, CY)).json().id;
    await send(ANA, conversationId, { body: 'one' });
    await send(ANA, conversationId, { body: 'two', resources: [{ resourceType: 'TRACK', resourceId: PRIVATE_TRACK }] });
    await send(CY, conversationId, { body: 'three' });
    catalogCalls.length = 0;
    const page = MessagePage.parse((await read(CY, conversationId, '?size=2')).json());
    expect(page).toMatchObject({ totalElements: 3, totalPages: 2, isLast: false });
    expect(page.content.map((m) => m.content)).toEqual(['three', 'two']);
    expect(page.content[1]).toMatchObject({ isRead: true, resourceType: 'TRACK', resourceId: PRIVATE_TRACK, resources: [{ track: null, playlist: null }] });
    expect(page.content[0]!.isRead).toBe(false); // Cy's own message, unread by Ana
    expect(catalogCalls).toHaveLength(1);
    const reads = (await outbox('messaging.conversation.read.v1')).filter((e) => e.conversationId === conversationId);
    expect(reads).toEqual([{ conversationId, readerId: CY, partnerId: ANA, readAt: expect.any(String) }]);
    // Reading again changes nothing and emits nothing.
    await read(CY, conversationId);
    expect((await outbox('messaging.conversation.read.v1')).filter((e) => e.conversationId === conversationId)).toHaveLength(1);
    // Catalog down: the page still renders, resources null (never leaked, never failed).
    catalogDown = true;
    const degraded = MessagePage.parse((await read(ANA, conversationId)).json());
    expect(degraded.content.find((m) => m.content === 'two')!.resources[0]!.track).toBeNull();
  });
});

describe('User summaries in MSG-1 / MSG-3 / MSG-4 follow the reader (isFollowing)', () => {
  it("sets isFollowing from messaging's copy of social's follows, per reader", async () => {
    const conversationId = (await start(ANA, BO)).json().id;
    await publish(
      createEnvelope(UserFollowed, { followerId: BO, followeeId: ANA, followerFollowingCount: 1, followeeFollowerCount: 1, at: new Date().toISOString() }),
    );
    await waitFor(async () => (await app.infra.prisma.follow.count()) === 1, { message: 'follow not copied' });
    const forBo = (await app.inject({ method: 'GET', url: '/api/conversations', headers: as(BO) }))
      .json()
      .content.find((c: { id: number }) => c.id === conversationId);
    expect(forBo.otherUser).toMatchObject({ id: ANA, isFollowing: true });
    expect(forBo.participants.find((p: { id: number }) => p.id === BO).isFollowing).toBe(false);
    const forAna = (await app.inject({ method: 'GET', url: '/api/conversations', headers: as(ANA) }))
      .json()
      .content.find((c: { id: number }) => c.id === conversationId);
    expect(forAna.otherUser).toMatchObject({ id: BO, isFollowing: false });
    const sent = MessageSchema.parse((await send(ANA, conversationId, { body: 'followed?' })).json());
    expect(sent.sender.isFollowing).toBe(false); // Ana reading her own message
    const [event] = (await outbox('messaging.message.sent.v1')).filter((e) => e.messageId === sent.id);
    expect(MessageSchema.parse((event!.renderings as Record<string, unknown>)[String(BO)]).sender.isFollowing).toBe(true);
  });
});

describe('MSG-1 R7 / R14 blocks and bans from social and identity events', () => {
  it('refuses MSG-4 both ways across a block and MSG-2 (403 for the blocker, 404 for the blocked); hides a banned partner', async () => {
    const conversationId = (await start(BO, DEE)).json().id;
    await publish(createEnvelope(UserBlocked, { blockerId: BO, blockedId: DEE, counts: [], at: new Date().toISOString() }));
    await waitFor(async () => (await app.infra.prisma.block.count({ where: { blockerId: BO, blockedId: DEE } })) === 1, { message: 'block not copied' });
    expect((await send(BO, conversationId, { body: 'x' })).json()).toMatchObject({ status: 403, code: 'USER_BLOCKED' });
    expect((await send(DEE, conversationId, { body: 'x' })).json()).toMatchObject({ status: 403, code: 'USER_BLOCKED' });
    expect((await start(BO, DEE)).json()).toMatchObject({ status: 403, code: 'USER_BLOCKED' });
    expect((await start(DEE, BO)).json()).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    await publish(createEnvelope(UserUnblocked, { blockerId: BO, blockedId: DEE, at: new Date().toISOString() }));
    await waitFor(async () => (await app.infra.prisma.block.count()) === 0, { message: 'unblock not copied' });
    expect((await send(DEE, conversationId, { body: 'friends again' })).statusCode).toBe(201);

    await publish(createEnvelope(UserBanned, { userId: DEE, reason: null, bannedAt: new Date().toISOString() }));
    await waitFor(async () => (await app.infra.prisma.bannedUser.count()) === 1, { message: 'ban not copied' });
    const list = await app.inject({ method: 'GET', url: '/api/conversations', headers: as(BO) });
    expect(list.json().content.map((c: { id: number }) => c.id)).not.toContain(conversationId);
    expect((await read(BO, conversationId)).json()).toMatchObject({ status: 404, code: 'CONVERSATION_NOT_FOUND' });
  });
});
