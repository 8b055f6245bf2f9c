import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type IFrame, type IMessage, type IStompSocket } from '@stomp/stompjs';
import WebSocket from 'ws';
import SockJS from 'sockjs-client';
import { ErrorResponseSchema, REVOCATION_KEYS, UploadStatusMessageSchema, type UploadStatusMessage } from '@msp/contracts';
import { createEnvelope, TrackUploadStatus, UserBanned, UserSuspended, type EventDefinition } from '@msp/events';
import { createTestJwks, startServiceTestEnv, testInfra, waitFor, type ServiceTestEnv, type TestJwks } from '@msp/testing';
import { Redis } from 'ioredis';
import { buildApp, loadNotificationConfig } from '../src/app.js';

const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const StrictStatus = UploadStatusMessageSchema.strict();

let env: ServiceTestEnv;
let jwks: TestJwks;
let app: Awaited<ReturnType<typeof buildApp>>;
let base = '';
let redis: Redis;
let closed = false;
const clients: Client[] = [];
// Ids far from other test files' users: Redis (revocation keys) is shared.
const idBase = 800_000_000 + Math.floor(Math.random() * 100_000_000);
let nextId = 0;
const newUserId = () => idBase + ++nextId;

interface TokenOptions {
  userId: number;
  sid?: string;
  expiresIn?: string | number;
  foreign?: boolean;
  /** An app's token: its client id (`azp`) and scopes. */
  app?: { clientId: string; scope: string };
}

function token(o: TokenOptions): Promise<string> {
  return jwks.sign(
    {
      sub: String(o.userId),
      username: `user${o.userId}`,
      role: 'ARTIST',
      tier: 'FREE',
      sid: o.sid ?? randomUUID(),
      jti: randomUUID(),
      ...(o.app ? { azp: o.app.clientId, scope: o.app.scope } : {}),
    },
    { expiresIn: o.expiresIn, signWithForeignKey: o.foreign },
  );
}

interface StompHandle {
  client: Client;
  connected: Promise<IFrame>;
  error: Promise<IFrame>;
  closed: Promise<number>;
  messages(destination: string): IMessage[];
  subscribe(destination: string): IMessage[];
}

/** A real @stomp/stompjs client over `ws` (or SockJS), without automatic reconnects. */
function stomp(connectHeaders: Record<string, string>, transport: 'ws' | 'sockjs' = 'ws'): StompHandle {
  let onConnected!: (f: IFrame) => void;
  let onError!: (f: IFrame) => void;
  let onClosed!: (code: number) => void;
  const connected = new Promise<IFrame>((r) => (onConnected = r));
  const error = new Promise<IFrame>((r) => (onError = r));
  const closedP = new Promise<number>((r) => (onClosed = r));
  const received = new Map<string, IMessage[]>();
  const client = new Client({
    webSocketFactory: () =>
      transport === 'ws'
        ? (new WebSocket(`${base.replace('http', 'ws')}/api/ws`) as unknown as IStompSocket)
        : (new SockJS(`${base}/api/ws`) as unknown as IStompSocket),
    connectHeaders,
    reconnectDelay: 0,
    debug: () => undefined,
    onConnect: onConnected,
    onStompError: onError,
    onWebSocketClose: (evt: { code: number }) => onClosed(evt.code),
  });
  client.activate();
  clients.push(client);
  const bucket = (destination: string) => {
    let list = received.get(destination);
    if (!list) received.set(destination, (list = []));
    return list;
  };
  return {
    client,
    connected,
    error,
    closed: closedP,
    messages: bucket,
    subscribe(destination) {
      const list = bucket(destination);
      client.subscribe(destination, (m) => list.push(m));
      return list;
    },
  };
}

async function connectedAs(userId: number, transport: 'ws' | 'sockjs' = 'ws'): Promise<StompHandle> {
  const handle = stomp({ Authorization: `Bearer ${await token({ userId })}` }, transport);
  await withTimeout(handle.connected, 'CONNECTED');
  return handle;
}

function withTimeout<T>(p: Promise<T>, what: string, ms = 5000): Promise<T> {
  return Promise.race([p, new Promise<T>((_r, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms))]);
}

async function publish<T>(def: EventDefinition<T>, data: T): Promise<void> {
  await app.infra.js.publish(def.type, JSON.stringify(createEnvelope(def, data)));
}

function statusRecord(uploadId: string, over: Partial<UploadStatusMessage> = {}): UploadStatusMessage {
  return {
    uploadId,
    trackId: 41,
    trackState: 'PROCESSING',
    status: 'PROCESSING',
    progressPercentage: 40,
    progressPercent: 40,
    stepName: 'Transcoding audio',
    errorMessage: null,
    trackResponse: null,
    updatedAt: new Date().toISOString(),
    ...over,
  };
}

async function expectRefused(connectHeaders: Record<string, string>, code: string): Promise<IFrame> {
  const handle = stomp(connectHeaders);
  const frame = await withTimeout(handle.error, 'ERROR frame');
  expect(frame.headers.message).toMatch(new RegExp(`^${code}: `));
  await withTimeout(handle.closed, 'close');
  return frame;
}

/** A bare `ws` client for frames stompjs would never send. */
async function rawSocket(): Promise<{ ws: WebSocket; frames: string[]; closed: Promise<number> }> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/api/ws`);
  const frames: string[] = [];
  const closedP = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  ws.on('message', (data) => frames.push(data.toString()));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, frames, closed: closedP };
}

beforeAll(async () => {
  [env, jwks] = await Promise.all([startServiceTestEnv('notification_rt', migrations), createTestJwks()]);
  app = await buildApp(loadNotificationConfig({ ...env.env, JWKS_URL: jwks.url, WS_REVOCATION_SWEEP_MS: '500' }), { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // The service's keys live under the file's prefix: so must the revocation keys this test writes.
  redis = new Redis(testInfra().redisUrl, { keyPrefix: env.redisKeyPrefix });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.deactivate()));
  if (!closed) await app?.close();
  redis?.disconnect();
  await Promise.allSettled([env?.close(), jwks?.close()]);
});

describe('WS-1 STOMP websocket: CONNECT', () => {
  it('answers CONNECTED (STOMP 1.2, heart-beat 10000,10000) to a valid bearer token', async () => {
    const handle = await connectedAs(newUserId());
    const frame = await handle.connected;
    expect(frame.headers.version).toBe('1.2');
    expect(frame.headers['heart-beat']).toBe('10000,10000');
    expect(frame.headers.server).toMatch(/^msp-notification/);
  });

  it('accepts the token as passcode for clients that cannot set Authorization', async () => {
    const handle = stomp({ login: 'token', passcode: await token({ userId: newUserId() }) });
    await withTimeout(handle.connected, 'CONNECTED');
  });

  it('refuses CONNECT without a token with ERROR UNAUTHORIZED, then closes', async () => {
    await expectRefused({}, 'UNAUTHORIZED');
  });

  it('refuses a token signed by another key, an expired one and garbage with UNAUTHORIZED', async () => {
    await expectRefused({ Authorization: `Bearer ${await token({ userId: newUserId(), foreign: true })}` }, 'UNAUTHORIZED');
    const expired = await expectRefused(
      { Authorization: `Bearer ${await token({ userId: newUserId(), expiresIn: Math.floor(Date.now() / 1000) - 60 })}` },
      'UNAUTHORIZED',
    );
    expect(expired.headers.message).toContain('expired');
    await expectRefused({ Authorization: 'Bearer not.a.jwt' }, 'UNAUTHORIZED');
  });

  it('refuses a revoked session with UNAUTHORIZED, a banned user with ACCOUNT_BANNED, a suspended one with ACCOUNT_SUSPENDED', async () => {
    const sid = randomUUID();
    const revokedUser = newUserId();
    const banned = newUserId();
    const suspended = newUserId();
    await redis.set(REVOCATION_KEYS.revokedSession(sid), '1', 'EX', 120);
    await redis.set(REVOCATION_KEYS.userStatus(banned), 'banned', 'EX', 120);
    await redis.set(REVOCATION_KEYS.userStatus(suspended), `suspended:${new Date(Date.now() + 3_600_000).toISOString()}`, 'EX', 120);
    const revoked = await expectRefused({ Authorization: `Bearer ${await token({ userId: revokedUser, sid })}` }, 'UNAUTHORIZED');
    expect(revoked.headers.message).toContain('revoked');
    await expectRefused({ Authorization: `Bearer ${await token({ userId: banned })}` }, 'ACCOUNT_BANNED');
    await expectRefused({ Authorization: `Bearer ${await token({ userId: suspended })}` }, 'ACCOUNT_SUSPENDED');
  });

  it('answers a plain GET on /api/ws with 400 and /ready reports the realtime endpoint', async () => {
    const res = await fetch(`${base}/api/ws`);
    expect(res.status).toBe(400);
    expect(ErrorResponseSchema.parse(await res.json())).toMatchObject({ code: 'VALIDATION_FAILED', path: '/api/ws' });
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect(ready.json().checks).toMatchObject({ realtime: 'up' });
  });
});

describe('WS-1 protocol rules', () => {
  const connectFrame = async (userId: number) => `CONNECT\naccept-version:1.2\nhost:x\nAuthorization:Bearer ${await token({ userId })}\n\n\0`;

  it('refuses a frame before CONNECT, an oversize frame, SEND and unknown destinations with ERROR then close', async () => {
    const early = await rawSocket();
    early.ws.send('SUBSCRIBE\nid:1\ndestination:/user/queue/messages\n\n\0');
    expect(await withTimeout(early.closed, 'close')).toBe(1008);
    expect(early.frames[0]).toMatch(/^ERROR\n(.*\n)*message:UNAUTHORIZED: /);

    const big = await rawSocket();
    big.ws.send(`CONNECT\naccept-version:1.2\nx:${'a'.repeat(70 * 1024)}\n\n\0`);
    expect(await withTimeout(big.closed, 'close')).toBe(1009);
    expect(big.frames[0]).toContain('message:PAYLOAD_TOO_LARGE: ');

    const sender = await rawSocket();
    sender.ws.send(await connectFrame(newUserId()));
    await waitFor(() => sender.frames[0]?.startsWith('CONNECTED\n'));
    sender.ws.send('SEND\ndestination:/topic/x\nreceipt:r1\n\nhi\0');
    await withTimeout(sender.closed, 'close');
    expect(sender.frames[1]).toMatch(/^ERROR\n/);
    expect(sender.frames[1]).toContain('message:FORBIDDEN\\c ');
    expect(sender.frames[1]).toContain('receipt-id:r1');

    const unknown = await rawSocket();
    unknown.ws.send(await connectFrame(newUserId()));
    unknown.ws.send('SUBSCRIBE\nid:1\ndestination:/topic/everything\n\n\0');
    await withTimeout(unknown.closed, 'close');
    expect(unknown.frames[1]).toContain('message:FORBIDDEN\\c ');
  });

  it('refuses clients that do not speak STOMP 1.2', async () => {
    const old = await rawSocket();
    old.ws.send(`CONNECT\naccept-version:1.0,1.1\nAuthorization:Bearer ${await token({ userId: newUserId() })}\n\n\0`);
    await withTimeout(old.closed, 'close');
    expect(old.frames[0]).toContain('version:1.2');
  });

  it('sends RECEIPT for SUBSCRIBE, UNSUBSCRIBE and DISCONNECT, then closes normally', async () => {
    const s = await rawSocket();
    s.ws.send(await connectFrame(newUserId()));
    s.ws.send('SUBSCRIBE\nid:7\ndestination:/user/queue/notifications\nreceipt:a\n\n\0UNSUBSCRIBE\nid:7\nreceipt:b\n\n\0');
    s.ws.send('DISCONNECT\nreceipt:c\n\n\0');
    expect(await withTimeout(s.closed, 'close')).toBe(1000);
    expect(s.frames.filter((f) => f.startsWith('RECEIPT')).map((f) => /receipt-id:(\w)/.exec(f)?.[1])).toEqual(['a', 'b', 'c']);
  });
});

describe('WS-2 track upload status topic', () => {
  it('sends the placeholder at once, then each published status; a late subscriber gets the last one; others get nothing', async () => {
    const uploader = newUserId();
    const uploadId = randomUUID();
    const topic = `/topic/track-status/${uploadId}`;
    const first = await connectedAs(uploader);
    const seen = first.subscribe(topic);
    const placeholder = StrictStatus.parse(JSON.parse((await waitFor(() => seen[0], { message: 'no placeholder' })).body));
    expect(placeholder).toMatchObject({
      uploadId,
      trackId: null,
      trackState: 'UPLOADING',
      status: 'UPLOADING',
      progressPercentage: 0,
      progressPercent: 0,
      stepName: 'Waiting for server...',
      errorMessage: null,
      trackResponse: null,
    });
    expect(seen[0]?.headers['content-type']).toMatch(/^application\/json/);
    expect(seen[0]?.headers.destination).toBe(topic);

    const processing = statusRecord(uploadId);
    await publish(TrackUploadStatus, { uploadId, artistId: uploader, trackId: 41, status: processing });
    await waitFor(() => seen.length === 2, { message: 'live status not delivered' });
    expect(StrictStatus.parse(JSON.parse(seen[1]!.body))).toEqual(processing);

    // An older status arriving late (redelivery) is neither stored nor sent.
    const older = statusRecord(uploadId, {
      progressPercentage: 30,
      progressPercent: 30,
      stepName: 'Duration extracted',
      updatedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    await publish(TrackUploadStatus, { uploadId, artistId: uploader, trackId: 41, status: older });

    const late = await connectedAs(uploader);
    const lateSeen = late.subscribe(topic);
    await waitFor(() => lateSeen[0], { message: 'no replay' });
    expect(JSON.parse(lateSeen[0]!.body)).toEqual(processing);

    const stranger = await connectedAs(newUserId());
    const strangerSeen = stranger.subscribe(topic);
    const receipt = randomUUID();
    const receiptSeen = new Promise<void>((resolve) => stranger.client.watchForReceipt(receipt, () => resolve()));
    stranger.client.subscribe('/user/queue/messages', () => undefined, { receipt });
    await withTimeout(receiptSeen, 'RECEIPT');

    const done = statusRecord(uploadId, { trackState: 'FINISHED', status: 'FINISHED', progressPercentage: 100, progressPercent: 100, stepName: 'Done' });
    await publish(TrackUploadStatus, { uploadId, artistId: uploader, trackId: 41, status: done });
    await waitFor(() => seen.length === 3 && lateSeen.length === 2, { message: 'FINISHED not delivered to both uploader sessions' });
    expect(JSON.parse(seen[2]!.body)).toEqual(done);
    expect(JSON.parse(lateSeen[1]!.body)).toEqual(done);
    expect(strangerSeen).toEqual([]);
  });

  it('works over SockJS with sockjs-client too, and /api/ws/info answers', async () => {
    const info = await fetch(`${base}/api/ws/info`);
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ websocket: true });
    const huge = await fetch(`${base}/api/ws/000/${randomUUID()}/xhr_send`, { method: 'POST', body: 'x'.repeat(300 * 1024) });
    expect(huge.status).toBe(413);
    expect(ErrorResponseSchema.parse(await huge.json())).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });

    const uploader = newUserId();
    const uploadId = randomUUID();
    const handle = await connectedAs(uploader, 'sockjs');
    const seen = handle.subscribe(`/topic/track-status/${uploadId}`);
    await waitFor(() => seen[0], { message: 'no placeholder over SockJS' });
    const status = statusRecord(uploadId, { stepName: 'Generating preview', progressPercentage: 60, progressPercent: 60 });
    await publish(TrackUploadStatus, { uploadId, artistId: uploader, trackId: 41, status });
    await waitFor(() => seen.length === 2, { message: 'status not delivered over SockJS' });
    expect(JSON.parse(seen[1]!.body)).toEqual(status);
  });
});

describe('WS-3 / WS-4 per-user queues', () => {
  it('accepts the subscriptions and delivers what the service pushes to all of the user’s sessions', async () => {
    const userId = newUserId();
    const a = await connectedAs(userId);
    const b = await connectedAs(userId, 'sockjs');
    const aNotifications = a.subscribe('/user/queue/notifications');
    const bMessages = b.subscribe('/user/queue/messages');
    const receipt = randomUUID();
    const acked = new Promise<void>((resolve) => b.client.watchForReceipt(receipt, () => resolve()));
    b.client.subscribe('/user/queue/notifications', () => undefined, { receipt });
    await withTimeout(acked, 'RECEIPT');
    await waitFor(async () => {
      // The first subscription of a races its SUBSCRIBE frame; push until it has arrived.
      if (aNotifications.length === 0) app.realtime.fanout.sendNotificationEvent(userId, { event: 'NOTIFICATIONS_READ', notification: null, unreadCount: 0 });
      return aNotifications.length > 0;
    });
    expect(JSON.parse(aNotifications[0]!.body)).toEqual({ event: 'NOTIFICATIONS_READ', notification: null, unreadCount: 0 });
    const event = { event: 'MESSAGES_READ' as const, conversationId: 3, message: null, readerId: userId, readAt: new Date().toISOString() };
    app.realtime.fanout.sendMessageEvent([userId, newUserId()], event);
    await waitFor(() => bMessages.length === 1);
    expect(JSON.parse(bMessages[0]!.body)).toEqual(event);
  });
});

describe('R14 moderation closes websocket sessions', () => {
  it('a ban event closes the user’s open sessions with ERROR ACCOUNT_BANNED; a suspension with ACCOUNT_SUSPENDED', async () => {
    const banned = newUserId();
    const bystander = newUserId();
    const handle = await connectedAs(banned);
    const other = await connectedAs(bystander);
    await publish(UserBanned, { userId: banned, reason: 'spam', bannedAt: new Date().toISOString() });
    const frame = await withTimeout(handle.error, 'ERROR on ban');
    expect(frame.headers.message).toMatch(/^ACCOUNT_BANNED: /);
    await withTimeout(handle.closed, 'close on ban');

    const suspended = newUserId();
    const s = await connectedAs(suspended);
    await publish(UserSuspended, { userId: suspended, suspendedUntil: new Date(Date.now() + 86_400_000).toISOString() });
    expect((await withTimeout(s.error, 'ERROR on suspension')).headers.message).toMatch(/^ACCOUNT_SUSPENDED: /);
    expect(other.client.connected).toBe(true);
  });

  it('closes a session whose token is revoked after CONNECT within the sweep period', async () => {
    const sid = randomUUID();
    const userId = newUserId();
    const handle = stomp({ Authorization: `Bearer ${await token({ userId, sid })}` });
    await withTimeout(handle.connected, 'CONNECTED');
    await redis.set(REVOCATION_KEYS.revokedSession(sid), '1', 'EX', 120);
    const frame = await withTimeout(handle.error, 'ERROR after revocation');
    expect(frame.headers.message).toMatch(/^UNAUTHORIZED: /);
  });
});

describe('WS-1 app tokens (docs/developer-platform.md)', () => {
  it("refuses an app's token without the messages scope, and a suspended app's token at CONNECT and on the sweep", async () => {
    const clientId = `app_ws_${randomUUID()}`;
    const app = { clientId, scope: 'read messages' };
    await expectRefused({ Authorization: `Bearer ${await token({ userId: newUserId(), app: { clientId, scope: 'read' } })}` }, 'UNAUTHORIZED');

    const open = stomp({ Authorization: `Bearer ${await token({ userId: newUserId(), app })}` });
    await withTimeout(open.connected, 'CONNECTED with an app token');

    await redis.set(REVOCATION_KEYS.appStatus(clientId), 'suspended', 'EX', 120);
    const refused = await expectRefused({ Authorization: `Bearer ${await token({ userId: newUserId(), app })}` }, 'UNAUTHORIZED');
    expect(refused.headers.message).toContain('app has been suspended');
    // The session opened before the suspension closes within the sweep period.
    const frame = await withTimeout(open.error, 'ERROR after the suspension');
    expect(frame.headers.message).toMatch(/^UNAUTHORIZED: The app has been suspended/);
    // Another app's and a user's own tokens are not affected.
    const other = stomp({ Authorization: `Bearer ${await token({ userId: newUserId(), app: { clientId: `app_ws_${randomUUID()}`, scope: 'messages' } })}` });
    await withTimeout(other.connected, 'CONNECTED with another app');
    await redis.del(REVOCATION_KEYS.appStatus(clientId));
  });
});

describe('WS-2 after a NATS restart', () => {
  it('keeps delivering statuses to an open subscription once NATS is back', async () => {
    const uploader = newUserId();
    const uploadId = randomUUID();
    const handle = await connectedAs(uploader);
    const seen = handle.subscribe(`/topic/track-status/${uploadId}`);
    await waitFor(() => seen[0], { message: 'no placeholder' });
    await env.nats.stop();
    await env.nats.start();
    const status = statusRecord(uploadId, { progressPercentage: 70, progressPercent: 70, stepName: 'Generating waveform' });
    await waitFor(
      async () => {
        // A failed re-publish is retried by the next poll.
        if (seen.length === 1) await publish(TrackUploadStatus, { uploadId, artistId: uploader, trackId: 41, status }).catch(() => undefined);
        return seen.length >= 2;
      },
      { timeoutMs: 20_000, intervalMs: 500, message: 'no status after the NATS restart' },
    );
    expect(JSON.parse(seen[1]!.body)).toEqual(status);
    expect(seen).toHaveLength(2);
  }, 30_000);
});

describe('several notification replicas', () => {
  it('a status handled by either replica reaches the socket held by the other one', async () => {
    const second = await buildApp(loadNotificationConfig({ ...env.env, JWKS_URL: jwks.url }), { logger: false });
    try {
      await second.listen({ host: '127.0.0.1', port: 0 });
      const secondBase = `http://127.0.0.1:${(second.server.address() as AddressInfo).port}`;
      const uploader = newUserId();
      const uploadId = randomUUID();
      const client = new Client({
        webSocketFactory: () => new WebSocket(`${secondBase.replace('http', 'ws')}/api/ws`) as unknown as IStompSocket,
        connectHeaders: { Authorization: `Bearer ${await token({ userId: uploader })}` },
        reconnectDelay: 0,
        debug: () => undefined,
      });
      clients.push(client);
      const connected = new Promise<void>((resolve) => (client.onConnect = () => resolve()));
      client.activate();
      await withTimeout(connected, 'CONNECTED on the second replica');
      const seen: IMessage[] = [];
      client.subscribe(`/topic/track-status/${uploadId}`, (m) => seen.push(m));
      await waitFor(() => seen[0], { message: 'no placeholder' });
      // Each replica reads the events in stream order itself: none is skipped or reordered.
      const steps = [25, 30, 40, 60, 70, 80];
      for (const [i, progress] of steps.entries()) {
        const status = statusRecord(uploadId, { progressPercentage: progress, progressPercent: progress, updatedAt: new Date(Date.now() + i).toISOString() });
        await publish(TrackUploadStatus, { uploadId, artistId: uploader, trackId: 41, status });
      }
      await waitFor(() => seen.length === steps.length + 1, { message: 'statuses missing on the second replica' });
      expect(seen.slice(1).map((m) => (JSON.parse(m.body) as UploadStatusMessage).progressPercentage)).toEqual(steps);
      await client.deactivate();
    } finally {
      await second.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('sends ERROR SERVICE_UNAVAILABLE to every open session and closes it', async () => {
    const handle = await connectedAs(newUserId());
    const sock = await connectedAs(newUserId(), 'sockjs');
    const closing = app.close();
    closed = true;
    expect((await withTimeout(handle.error, 'ERROR on shutdown')).headers.message).toMatch(/^SERVICE_UNAVAILABLE: /);
    expect((await withTimeout(sock.error, 'ERROR on shutdown (SockJS)')).headers.message).toMatch(/^SERVICE_UNAVAILABLE: /);
    await withTimeout(closing, 'app close', 10_000);
  });
});
