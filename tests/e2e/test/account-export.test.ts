import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { waitFor } from '@msp/testing';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildMedia } from '@msp/media-processing';
import { startStripeStandIn, type StripeStandIn } from '@msp/billing/stripe-stand-in';
import { Fleet } from './fleet.js';

/**
 * ACC-1/ACC-2 across the fleet (docs/account-control.md "Export"): a user with a track, a playlist,
 * likes, a repost, a comment, plays, a conversation, notifications and a paid subscription asks for
 * an export; every service writes its part, identity streams one ZIP, the ZIP holds every item and
 * the original upload byte for byte, and an EXPORT_READY notification reaches the user.
 */
const execFileAsync = promisify(execFile);
const fleet = new Fleet();
const PASSWORD = 'a long enough secret';
const PRICE = 'price_e2e_export';

interface User {
  userId: number;
  username: string;
  displayName: string;
  token: string;
}

let dir: string;
let wav: string;
let stripe: StripeStandIn;

const identity = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const media = () => fleet.apps.get('media-processing') as Awaited<ReturnType<typeof buildMedia>>;

const sign = (userId: number, username: string) =>
  identity().keys.sign({ sub: String(userId), username, role: 'ARTIST', tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');

async function call(
  method: string,
  url: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fleet.fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const ok = (res: { status: number; body: unknown }, what: string) => expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);

async function register(prefix: string): Promise<User> {
  const tag = randomBytes(4).toString('hex');
  const displayName = `${prefix}${tag}`;
  const res = await call('POST', '/api/auth/register/local', null, {
    email: `${prefix}-${tag}@example.com`,
    displayName,
    password: PASSWORD,
    dateOfBirth: '1990-02-03',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { userId, username } = res.body as { userId: number; username: string };
  return { userId, username, displayName, token: await sign(userId, username) };
}

async function uploadTrack(user: User, title: string): Promise<number> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ title, genre: 'Electronic', uploadId: randomUUID() })) form.append(k, v);
  form.append('audioFile', new Blob([await readFile(wav)]), 'tone.wav');
  const res = await fetch(`${fleet.gatewayUrl}/api/tracks/upload/v2`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
    signal: AbortSignal.timeout(80_000),
  });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  const trackId = (JSON.parse(text) as { id: number }).id;
  await waitFor(
    async () => {
      const s = await call('GET', `/api/tracks/${trackId}/status`, user.token);
      if (s.body.status === 'FAILED') throw new Error(`track ${trackId} failed`);
      return s.body.status === 'FINISHED';
    },
    { timeoutMs: 60_000, intervalMs: 200, message: `track ${trackId} did not finish` },
  );
  return trackId;
}

/** SUB-2, the customer pays: checkout completed, subscription created, first invoice paid (SUB-5 webhooks). */
async function subscribe(user: User): Promise<void> {
  const checkout = await call('POST', '/api/subscription/checkout', user.token, { plan: 'pro' });
  ok(checkout, 'SUB-2');
  const { session, subscription } = stripe.completeCheckout(checkout.body.sessionId as string);
  for (const event of [
    stripe.event('checkout.session.completed', session),
    stripe.event('customer.subscription.created', subscription),
    stripe.event('invoice.paid', stripe.invoiceFor(subscription, 'paid')),
  ]) {
    const body = JSON.stringify(event);
    const res = await fleet.fetch('/api/webhook/stripe', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(body) },
      body,
    });
    expect(res.status, await res.text()).toBe(200);
  }
  await waitFor(async () => (await call('GET', '/api/subscription/status', user.token)).body.status === 'active', {
    timeoutMs: 15_000,
    message: 'not subscribed',
  });
}

async function unzip(body: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(body, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
        stream.on('error', reject);
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

beforeAll(async () => {
  stripe = await startStripeStandIn({ secretKey: 'sk_test_e2e_export', webhookSecret: 'whsec_e2e_export' });
  await fleet.start(
    { RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_USER_PER_MINUTE: '100000' },
    {
      identity: { EXPORT_POLL_MS: '300' },
      billing: { ...stripe.billingEnv(), STRIPE_PRICE_ID: PRICE, WEB_BASE_URL: 'http://web.test', WEBHOOK_POLL_MS: '200' },
    },
  );
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-export-'));
  wav = path.join(dir, 'tone.wav');
  await execFileAsync(media().media.ffmpeg.path, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=8000:duration=2',
    '-y',
    wav,
  ]);
}, 180_000);

afterAll(async () => {
  await fleet.close();
  await stripe?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('ACC-1 request an export of my data / ACC-2 state of an export', () => {
  it('exports every item of the user across the fleet, the original byte for byte, and notifies', async () => {
    const user = await register('Exporter');
    const other = await register('Friend');
    const otherTrack = await uploadTrack(other, 'Friend Song');
    const track = await uploadTrack(user, 'My Own Song');

    const playlist = await call('POST', '/api/playlists', user.token, { title: 'Export Mix', isPrivate: false });
    ok(playlist, 'PLS-3');
    const playlistId = playlist.body.id as number;
    ok(await call('POST', `/api/playlists/${playlistId}/tracks`, user.token, { trackId: otherTrack }), 'PLS-8');
    ok(await call('POST', `/api/playlists/${playlistId}/tracks`, user.token, { trackId: track }), 'PLS-8 own');
    ok(await call('POST', `/api/tracks/${otherTrack}/like`, user.token), 'ENG-1');
    ok(await call('POST', `/api/tracks/${otherTrack}/repost`, user.token), 'ENG-4');
    ok(await call('POST', `/api/tracks/${otherTrack}/comments`, user.token, { body: 'comment to export' }), 'ENG-13');
    ok(await call('POST', `/api/tracks/${otherTrack}/play`, user.token, {}), 'TRK-17');
    ok(await call('POST', `/api/users/${other.userId}/follow`, user.token), 'FOL-1');
    ok(await call('POST', `/api/tracks/${track}/like`, other.token), 'ENG-1 other');
    const started = await call('POST', `/api/conversations/${other.userId}/start`, user.token, {});
    ok(started, 'MSG-2');
    const conversationId = started.body.id as number;
    ok(await call('POST', `/api/conversations/${conversationId}/messages`, user.token, { body: 'message to export' }), 'MSG-4');
    ok(await call('POST', `/api/conversations/${conversationId}/messages`, other.token, { body: 'answer to export' }), 'MSG-4 other');
    await subscribe(user);
    // Notifications are fed by events: let them land before the export.
    await waitFor(async () => ((await call('GET', '/api/notifications', user.token)).body.content as unknown[] | undefined)?.length, {
      timeoutMs: 15_000,
      message: 'no notification reached the user',
    });

    const requested = await call('POST', '/api/users/me/export', user.token);
    expect(requested.status, JSON.stringify(requested.body)).toBe(202);
    const exportId = requested.body.exportId as string;
    expect((await call('POST', '/api/users/me/export', user.token)).status).toBe(409);

    const ready = await waitFor(
      async () => {
        const s = await call('GET', `/api/users/me/export/${exportId}`, user.token);
        expect(s.status).toBe(200);
        if (s.body.status === 'FAILED') throw new Error('export failed');
        return s.body.status === 'READY' ? s.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 300, message: 'export not READY' },
    );
    expect(ready).toMatchObject({ id: exportId, status: 'READY', url: expect.any(String) });
    const res = await fetch(ready.url as string);
    expect(res.status).toBe(200);
    const entries = await unzip(Buffer.from(await res.arrayBuffer()));
    const names = [...entries.keys()];
    for (const part of ['identity', 'catalog', 'social', 'messaging', 'notification', 'billing']) expect(names).toContain(`${part}.json`);
    const part = (name: string) => JSON.parse(entries.get(`${name}.json`)!.toString()) as Record<string, Array<Record<string, unknown>>>;

    // The original as uploaded, byte for byte.
    const original = names.find((n) => n.startsWith(`catalog/originals/${track}-`));
    expect(original, names.join(', ')).toBeDefined();
    expect(entries.get(original!)!.equals(await readFile(wav))).toBe(true);
    expect(names.some((n) => n.startsWith(`catalog/originals/${otherTrack}-`))).toBe(false);

    expect((part('identity').profile as unknown as Record<string, unknown>).username).toBe(user.username);
    const catalog = part('catalog');
    expect(catalog.tracks!.map((t) => t.title)).toEqual(['My Own Song']);
    expect(catalog.playlists!.map((p) => [p.title, (p.tracks as Array<{ trackId: number }>).map((t) => t.trackId)])).toEqual([
      ['Export Mix', [otherTrack, track]],
    ]);
    expect(catalog.plays!.map((p) => p.trackId)).toContain(otherTrack);
    const social = part('social');
    expect(social.trackLikes!.map((l) => l.trackId)).toEqual([otherTrack]);
    expect(social.trackReposts!.map((l) => l.trackId)).toEqual([otherTrack]);
    expect(social.comments!.map((c) => c.body)).toEqual(['comment to export']);
    expect(social.following!.map((f) => f.username)).toEqual([other.username]);
    const messaging = part('messaging');
    expect(messaging.messages!.map((m) => [m.content, m.sentByMe, m.otherParty])).toEqual([
      ['message to export', true, other.displayName],
      ['answer to export', false, other.displayName],
    ]);
    // The other party by display name only.
    expect(entries.get('messaging.json')!.toString()).not.toContain(other.username);
    for (const m of messaging.messages!)
      expect(Object.keys(m).sort()).toEqual(['content', 'conversationId', 'createdAt', 'id', 'otherParty', 'readAt', 'resources', 'sentByMe']);
    expect(part('notification').notifications!.length).toBeGreaterThan(0);
    const billing = part('billing');
    expect(billing.subscription!.map((s) => s.status)).toEqual(['active']);
    expect(billing.invoices!.map((i) => i.status)).toEqual(['paid']);

    // EXPORT_READY reaches the user.
    await waitFor(
      async () => ((await call('GET', '/api/notifications', user.token)).body.content as Array<{ type: string }>).some((n) => n.type === 'EXPORT_READY'),
      { timeoutMs: 15_000, message: 'no EXPORT_READY notification' },
    );
    // The parts are removed once the ZIP holds them (identity.user.export-closed.v1), in every service's bucket.
    await waitFor(
      async () => {
        for (const s of ['identity', 'catalog', 'social', 'messaging', 'notification', 'billing'] as const) {
          const storage = (fleet.apps.get(s) as unknown as { infra: { storage: { list(prefix: string): Promise<string[]> } } }).infra.storage;
          if ((await storage.list(`exports/${exportId}/parts/`)).length > 0) return false;
        }
        return true;
      },
      { timeoutMs: 15_000, message: 'export parts left behind' },
    );
    // One export per 24 h.
    const again = await call('POST', '/api/users/me/export', user.token);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 240_000);

  it('answers 401 to an anonymous caller', async () => {
    expect((await call('POST', '/api/users/me/export', null)).status).toBe(401);
  });
});
