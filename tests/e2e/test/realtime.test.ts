import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type IFrame, type IMessage, type IStompSocket } from '@stomp/stompjs';
import WebSocket from 'ws';
import { jetstream } from '@nats-io/jetstream';
import { TrackSchema, UploadAcceptedSchema, UploadStatusMessageSchema, type UploadStatusMessage, type Role } from '@msp/contracts';
import { connectNats, createEnvelope, TrackUploadStatus, type NatsConnection } from '@msp/events';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { Fleet } from './fleet.js';

const fleet = new Fleet();
let nc: NatsConnection;
const clients: Client[] = [];

async function tokenFor(userId: number, role: Role = 'ARTIST'): Promise<string> {
  const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
  return identity.keys.sign({ sub: String(userId), username: `user${userId}`, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

function withTimeout<T>(p: Promise<T>, what: string, ms = 10_000): Promise<T> {
  return Promise.race([p, new Promise<T>((_r, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms))]);
}

/** @stomp/stompjs over the gateway's /api/ws, as the web and mobile clients connect. */
function stompThroughGateway(connectHeaders: Record<string, string>) {
  let onConnected!: (f: IFrame) => void;
  let onError!: (f: IFrame) => void;
  const connected = new Promise<IFrame>((r) => (onConnected = r));
  const error = new Promise<IFrame>((r) => (onError = r));
  const client = new Client({
    webSocketFactory: () => new WebSocket(`${fleet.gatewayUrl.replace(/^http/, 'ws')}/api/ws`) as unknown as IStompSocket,
    connectHeaders,
    reconnectDelay: 0,
    debug: () => undefined,
    onConnect: onConnected,
    onStompError: onError,
  });
  client.activate();
  clients.push(client);
  return {
    client,
    connected,
    error,
    subscribe(destination: string): IMessage[] {
      const seen: IMessage[] = [];
      client.subscribe(destination, (m) => seen.push(m));
      return seen;
    },
  };
}

async function publishStatus(artistId: number, status: UploadStatusMessage): Promise<void> {
  // As catalog does: an envelope on its stream, subject = event type.
  const envelope = createEnvelope(TrackUploadStatus, { uploadId: status.uploadId, artistId, trackId: status.trackId, status });
  await jetstream(nc).publish(TrackUploadStatus.type, JSON.stringify(envelope), { msgID: envelope.id });
}

let scratch = '';

beforeAll(async () => {
  await fleet.start({}, { 'media-processing': { JOB_POLL_MS: '200' } });
  nc = await connectNats(fleet.nats.url, 'e2e-catalog');
  scratch = await mkdtemp(path.join(os.tmpdir(), 'e2e-realtime-'));
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.deactivate()));
  await nc?.close();
  await fleet.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
}, 60_000);

describe('WS-1 STOMP websocket through the gateway', () => {
  it('connects with an identity token and refuses CONNECT without one', async () => {
    const ok = stompThroughGateway({ Authorization: `Bearer ${await tokenFor(7101)}` });
    const frame = await withTimeout(ok.connected, 'CONNECTED');
    expect(frame.headers).toMatchObject({ version: '1.2', 'heart-beat': '10000,10000' });

    const anonymous = stompThroughGateway({});
    expect((await withTimeout(anonymous.error, 'ERROR')).headers.message).toMatch(/^UNAUTHORIZED: /);
  });

  it('serves the SockJS info endpoint under /api/ws/', async () => {
    const res = await fleet.fetch('/api/ws/info');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ websocket: true });
  });
});

describe('WS-2 track upload status through the gateway', () => {
  it('sends the placeholder on SUBSCRIBE, then the status catalog publishes, to the uploader only', async () => {
    const uploader = 7102;
    const uploadId = randomUUID();
    const topic = `/topic/track-status/${uploadId}`;
    const mine = stompThroughGateway({ Authorization: `Bearer ${await tokenFor(uploader)}` });
    await withTimeout(mine.connected, 'CONNECTED');
    const seen = mine.subscribe(topic);
    await waitFor(() => seen[0], { message: 'no placeholder', timeoutMs: 10_000 });
    expect(UploadStatusMessageSchema.strict().parse(JSON.parse(seen[0]!.body))).toMatchObject({
      uploadId,
      trackState: 'UPLOADING',
      progressPercentage: 0,
      stepName: 'Waiting for server...',
    });

    const status: UploadStatusMessage = {
      uploadId,
      trackId: 12,
      trackState: 'PROCESSING',
      status: 'PROCESSING',
      progressPercentage: 25,
      progressPercent: 25,
      stepName: 'Extracting audio duration',
      errorMessage: null,
      trackResponse: null,
      updatedAt: new Date().toISOString(),
    };
    await publishStatus(uploader, status);
    await waitFor(() => seen.length === 2, { message: 'status not delivered through the gateway', timeoutMs: 10_000 });
    expect(JSON.parse(seen[1]!.body)).toEqual(status);

    const other = stompThroughGateway({ Authorization: `Bearer ${await tokenFor(7103)}` });
    await withTimeout(other.connected, 'CONNECTED');
    const otherSeen = other.subscribe(topic);
    const late = stompThroughGateway({ Authorization: `Bearer ${await tokenFor(uploader)}` });
    await withTimeout(late.connected, 'CONNECTED');
    const lateSeen = late.subscribe(topic);
    await waitFor(() => lateSeen[0], { message: 'no replay for the late subscriber', timeoutMs: 10_000 });
    expect(JSON.parse(lateSeen[0]!.body)).toEqual(status);
    expect(otherSeen).toEqual([]);
  });
});

const STATE_ORDER = { UPLOADING: 0, PROCESSING: 1, FINISHED: 2, FAILED: 3 } as const;

describe('TRK-2 upload watched live on WS-2 from start to finish', () => {
  it('a 3-minute WAV goes UPLOADING → PROCESSING (increasing percentages) → FINISHED with the full track', async () => {
    const registered = await fleet.fetch('/api/auth/register/local', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'live-upload@example.com', displayName: 'Live Upload', password: 'a long enough secret', dateOfBirth: '1990-02-03' }),
    });
    expect(registered.status).toBe(201);
    const { userId, username } = (await registered.json()) as { userId: number; username: string };
    const identity = fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
    const token = await identity.keys.sign(
      { sub: String(userId), username, role: 'ARTIST', tier: 'FREE', sid: randomUUID(), jti: randomUUID() },
      1800,
      'msp-identity',
    );
    const catalog = fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
    await waitFor(async () => (await catalog.infra.prisma.userSummary.count({ where: { userId } })) === 1, {
      timeoutMs: 10_000,
      message: 'catalog never saw the uploader',
    });

    const media = fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>;
    const wav = path.join(scratch, 'three-minutes.wav');
    await promisify(execFile)(media.media.ffmpeg.path, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:sample_rate=8000:duration=180',
      '-y',
      wav,
    ]);

    const uploadId = randomUUID();
    const watcher = stompThroughGateway({ Authorization: `Bearer ${token}` });
    await withTimeout(watcher.connected, 'CONNECTED');
    const seen = watcher.subscribe(`/topic/track-status/${uploadId}`);
    await waitFor(() => seen[0], { message: 'no placeholder before the upload', timeoutMs: 10_000 });

    const form = new FormData();
    form.append('title', 'Live Three Minutes');
    form.append('genre', 'Electronic');
    form.append('uploadId', uploadId);
    form.append('audioFile', new Blob([await readFile(wav)]), 'three-minutes.wav');
    const res = await fetch(`${fleet.gatewayUrl}/api/tracks/upload/v2`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
      signal: AbortSignal.timeout(60_000),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const accepted = UploadAcceptedSchema.parse(await res.json());
    expect(accepted.uploadId).toBe(uploadId);

    const statuses = () => seen.map((m) => UploadStatusMessageSchema.strict().parse(JSON.parse(m.body)));
    await waitFor(
      () => {
        const last = statuses().at(-1);
        if (last?.status === 'FAILED') throw new Error(`processing FAILED: ${last.errorMessage}`);
        return last?.status === 'FINISHED';
      },
      { timeoutMs: 80_000, intervalMs: 200, message: 'no FINISHED message on the topic' },
    );
    const all = statuses();
    for (const s of all) expect(s.uploadId).toBe(uploadId);
    expect(all[0]).toMatchObject({ status: 'UPLOADING', progressPercentage: 0 });
    for (let i = 1; i < all.length; i++) {
      expect(STATE_ORDER[all[i]!.status]).toBeGreaterThanOrEqual(STATE_ORDER[all[i - 1]!.status]);
      expect(all[i]!.progressPercentage!).toBeGreaterThanOrEqual(all[i - 1]!.progressPercentage!);
    }
    const processing = all.filter((s) => s.status === 'PROCESSING').map((s) => s.progressPercentage!);
    expect(new Set(processing).size, `PROCESSING percentages ${processing.join(',')}`).toBeGreaterThanOrEqual(2);
    const done = all.at(-1)!;
    expect(done).toMatchObject({
      trackId: accepted.id,
      trackState: 'FINISHED',
      progressPercentage: 100,
      progressPercent: 100,
      stepName: 'Done',
      errorMessage: null,
    });
    const track = TrackSchema.strict().parse(done.trackResponse);
    expect(track).toMatchObject({ id: accepted.id, title: 'Live Three Minutes', trackDurationSeconds: 180 });
    expect(track.trackUrl).not.toBeNull();
  }, 120_000);
});
