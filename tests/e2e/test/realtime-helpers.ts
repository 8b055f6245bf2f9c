import { createDecipheriv, createECDH, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, type IMessage, type IStompSocket } from '@stomp/stompjs';
import WebSocket from 'ws';
import { jetstream } from '@nats-io/jetstream';
import { createEnvelope, TrackChanged, TrackPublished, UserRegistered, type EventEnvelope, type NatsConnection, type TrackSnapshot } from '@msp/events';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import type { Fleet } from './fleet.js';

/** What one fleet test file needs to act as clients: tokens, JSON calls, STOMP sessions, seeded data. */
export class FleetClient {
  private readonly tokens = new Map<number, string>();
  private readonly stomps: Client[] = [];

  constructor(
    readonly fleet: Fleet,
    private readonly nc: () => NatsConnection,
  ) {}

  async token(userId: number): Promise<string> {
    let token = this.tokens.get(userId);
    if (!token) {
      const identity = this.fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
      token = await identity.keys.sign(
        { sub: String(userId), username: `user${userId}`, role: 'LISTENER', tier: 'FREE', sid: randomUUID(), jti: randomUUID() },
        1800,
        'msp-identity',
      );
      this.tokens.set(userId, token);
    }
    return token;
  }

  /** A JSON call through the gateway; `raw` sends the body text as is. */
  async call(method: string, path: string, userId?: number, body?: unknown, options: { raw?: string } = {}) {
    const headers: Record<string, string> = userId ? { authorization: `Bearer ${await this.token(userId)}` } : {};
    const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fleet.fetch(path, { method, headers, body: payload });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as any };
  }

  async publish(envelope: EventEnvelope) {
    await jetstream(this.nc()).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
  }

  async registerUser(userId: number, username: string) {
    await this.publish(
      createEnvelope(UserRegistered, {
        userId,
        username,
        displayName: username.toUpperCase(),
        avatarUrl: null,
        tier: 'FREE',
        role: 'LISTENER',
        isPrivate: false,
        createdAt: new Date().toISOString(),
      }),
    );
  }

  /** A FINISHED track as the upload pipeline leaves it: catalog's row and the events the others copy. */
  async createTrack(trackId: number, artistId: number, options: { isPrivate?: boolean; title?: string } = {}) {
    const isPrivate = options.isPrivate ?? false;
    const title = options.title ?? `Song ${trackId}`;
    const snapshot: TrackSnapshot = {
      trackId,
      artistId,
      title,
      trackSlug: `song-${trackId}`,
      state: 'FINISHED',
      isPrivate,
      access: 'PLAYABLE',
      durationSeconds: 200,
      coverUrl: null,
      genre: 'House',
      publishedAt: isPrivate ? null : new Date().toISOString(),
      createdAt: new Date().toISOString(),
    };
    const catalog = this.fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;
    await catalog.infra.prisma.track.create({
      data: {
        id: trackId,
        artistId,
        title,
        trackSlug: snapshot.trackSlug,
        genre: 'House',
        releaseDate: new Date(),
        isPrivate,
        state: 'FINISHED',
        secretToken: randomUUID().replace(/-/g, ''),
        uploadId: randomUUID(),
        durationSeconds: 200,
        publishedAt: isPrivate ? null : new Date(),
      },
    });
    await this.publish(createEnvelope(TrackChanged, snapshot));
    if (!isPrivate) await this.publish(createEnvelope(TrackPublished, snapshot));
  }

  /** @stomp/stompjs over the gateway's /api/ws, subscribed to `destination` once CONNECTED. */
  async stomp(userId: number, destination: string): Promise<{ received: Array<{ at: number; body: unknown }>; client: Client }> {
    const received: Array<{ at: number; body: unknown }> = [];
    let onSubscribed!: () => void;
    let onError!: (e: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      onSubscribed = resolve;
      onError = reject;
    });
    const client = new Client({
      webSocketFactory: () => new WebSocket(`${this.fleet.gatewayUrl.replace(/^http/, 'ws')}/api/ws`) as unknown as IStompSocket,
      connectHeaders: { Authorization: `Bearer ${await this.token(userId)}` },
      reconnectDelay: 0,
      debug: () => undefined,
      onConnect: () => {
        const receipt = randomUUID();
        client.watchForReceipt(receipt, () => onSubscribed());
        client.subscribe(destination, (m: IMessage) => received.push({ at: Date.now(), body: JSON.parse(m.body) as unknown }), { receipt });
      },
      onStompError: (frame) => onError(new Error(frame.headers.message)),
    });
    client.activate();
    this.stomps.push(client);
    await Promise.race([ready, new Promise((_r, reject) => setTimeout(() => reject(new Error('STOMP subscribe timed out')), 10_000))]);
    return { received, client };
  }

  async close() {
    await Promise.allSettled(this.stomps.map((c) => c.deactivate()));
  }
}

/** Waits until every condition holds, polling (bounded). */
export function eventually<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, message: string, timeoutMs = 10_000) {
  return waitFor(probe, { timeoutMs, intervalMs: 50, message });
}

// ─────────────────────────── a push service stand-in (RFC 8030 endpoint) ───────────────────────────

export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A local HTTP server playing the browser vendor's push service; `status` is what it answers. */
export class PushServiceStandIn {
  readonly received: ReceivedPush[] = [];
  status = 201;
  private server: Server | null = null;
  url = '';

  async start() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        res.statusCode = this.status;
        res.end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close() {
    await new Promise((r) => this.server?.close(r));
  }
}

/** A browser's PushSubscription: its JSON is the WEB device token; the private key stays here. */
export function browserSubscription(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const json = { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
  return { token: JSON.stringify(json), ecdh, auth };
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 8291 (aes128gcm, RFC 8188) decryption with the subscription's private key: the plaintext. */
export function decryptWebPush(body: Buffer, subscription: ReturnType<typeof browserSubscription>): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const serverPublic = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (ciphertext.length > recordSize) throw new Error('more than one record');
  const shared = subscription.ecdh.computeSecret(serverPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), subscription.ecdh.getPublicKey(), serverPublic]);
  const ikm = hmac(hmac(subscription.auth, shared), Buffer.concat([keyInfo, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02 followed by zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('bad padding delimiter');
  return padded.subarray(0, end).toString('utf8');
}
