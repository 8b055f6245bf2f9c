import http from 'node:http';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jetstream } from '@nats-io/jetstream';
import { ErrorResponseSchema, MeProfileSchema, PublicProfileSchema } from '@msp/contracts';
import { ArtistTrackCountChanged, CountsRecounted, createEnvelope, UserFollowed } from '@msp/events';
import { ASSERTION_HEADER, DEV_GATEWAY_SIGNING_KEY, deriveAssertionKey, signAssertion } from '@msp/http';
import { waitFor } from '@msp/testing';
import { callerHeaders, startIdentity, verifiedUser, type Harness } from './helpers.js';

/** Stand-ins for social (relationships) and billing (subscription state) with scripted answers. */
const peers = {
  relationships: new Map<number, { isFollowing: boolean; isFollowed: boolean; isBlocked: boolean; hasBlockedViewer: boolean }>(),
  subscription: new Map<number, string>(),
  calls: [] as string[],
};
const peerServer = http.createServer((req, res) => {
  peers.calls.push(`${req.method} ${req.url}`);
  if (req.method === 'POST' && req.url === '/internal/relationships') {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const { userIds } = JSON.parse(raw) as { viewerId: number; userIds: number[] };
      const items = userIds.map((userId) => ({
        userId,
        ...(peers.relationships.get(userId) ?? { isFollowing: false, isFollowed: false, isBlocked: false, hasBlockedViewer: false }),
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items }));
    });
    return;
  }
  const sub = /^\/internal\/subscriptions\/(\d+)$/.exec(req.url ?? '');
  if (sub) {
    const status = peers.subscription.get(Number(sub[1]));
    if (!status) res.writeHead(404).end();
    else {
      // The declared answer (INTERNAL_OPERATIONS.subscription): identity checks it against the contract.
      const answer = { userId: Number(sub[1]), status, currentPeriodEnd: null, cancelAtPeriodEnd: false };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }
    return;
  }
  res.writeHead(404).end();
});

let h: Harness;
let peerUrl: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => peerServer.listen(0, '127.0.0.1', resolve));
  peerUrl = `http://127.0.0.1:${(peerServer.address() as { port: number }).port}`;
  h = await startIdentity('identity_profiles', { SOCIAL_URL: peerUrl, BILLING_URL: peerUrl });
});

afterAll(async () => {
  await h?.close();
  await new Promise<void>((resolve) => peerServer.close(() => resolve()));
});

const get = (url: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url, headers });
const patch = (url: string, payload: object, headers: Record<string, string>) => h.app.inject({ method: 'PATCH', url, payload, headers });

describe('USR-1 and USR-2 own profile', () => {
  it('returns the Me profile and applies updates (null clears), announcing identity.user.updated.v1', async () => {
    const u = await verifiedUser(h, 'mia@example.com', 'Mia');
    const me = await get('/api/users/me', u.headers);
    expect(me.statusCode).toBe(200);
    expect(MeProfileSchema.strict().safeParse(me.json()).success).toBe(true);
    expect(me.json()).toMatchObject({
      username: 'mia',
      email: 'mia@example.com',
      emailVerified: true,
      hasPassword: true,
      role: 'LISTENER',
      isFollowing: false,
    });

    const res = await patch(
      '/api/users/me',
      { displayName: 'Mia M', bio: 'Hi', city: 'Oslo', favoriteGenres: ['Jazz', 'Jazz', 'Pop'], socialLinks: { website: 'https://mia.example' } },
      u.headers,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      displayName: 'Mia M',
      profile: { bio: 'Hi', city: 'Oslo', favoriteGenres: ['Jazz', 'Pop'], email: 'mia@example.com' },
      socialLinks: { website: 'https://mia.example', instagram: null },
    });
    const cleared = await patch('/api/users/me', { bio: null, city: '' }, u.headers);
    expect(cleared.json().profile).toMatchObject({ bio: null, city: null });
    const events = await h.app.infra.prisma.outboxEvent.findMany({ where: { type: 'identity.user.updated.v1' }, select: { payload: true } });
    expect(events.some((e) => JSON.stringify(e.payload).includes('"displayName":"Mia M"'))).toBe(true);
  });

  it('refuses bad input with the failing fields and changes nothing', async () => {
    const u = await verifiedUser(h, 'nils@example.com', 'Nils');
    const cases: Array<[object, string]> = [
      [{ displayName: '' }, 'displayName'],
      [{ displayName: 'x'.repeat(51) }, 'displayName'],
      [{ bio: 'b'.repeat(501) }, 'bio'],
      [{ favoriteGenres: Array.from({ length: 11 }, (_, i) => `g${i}`) }, 'favoriteGenres'],
      [{ socialLinks: { website: 'javascript:alert(1)' } }, 'socialLinks.website'],
      [{ city: 42 }, 'city'],
      [{ displayName: '<script>'.repeat(120000) }, 'displayName'],
    ];
    for (const [body, field] of cases) {
      const res = await patch('/api/users/me', body, u.headers);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await get('/api/users/me', u.headers)).json().displayName).toBe('Nils');
  });
});

describe('USR-3, USR-4, USR-6, USR-7, USR-8', () => {
  it('privacy, role, permalink and social links', async () => {
    const u = await verifiedUser(h, 'olga@example.com', 'Olga');
    expect((await get('/api/users/me/privacy', u.headers)).json()).toEqual({ isPrivate: false, showHistory: true });
    expect((await patch('/api/users/me/privacy', { isPrivate: true }, u.headers)).json()).toEqual({ isPrivate: true, showHistory: true });
    expect((await patch('/api/users/me/privacy', { isPrivate: 'yes' }, u.headers)).statusCode).toBe(400);

    expect((await patch('/api/users/me/role', { newRole: 'ARTIST' }, u.headers)).json().role).toBe('ARTIST');
    expect((await patch('/api/users/me/role', { newRole: 'ADMIN' }, u.headers)).statusCode).toBe(400);

    const renamed = await patch('/api/users/me/permalink', { permalink: 'Olga.Beats' }, u.headers);
    expect(renamed.json()).toMatchObject({ username: 'olga.beats', profileUrl: 'http://localhost:3000/olga.beats' });
    expect((await patch('/api/users/me/permalink', { permalink: 'mia' }, u.headers)).json().code).toBe('USERNAME_TAKEN');
    expect((await patch('/api/users/me/permalink', { permalink: 'settings' }, u.headers)).json().code).toBe('VALIDATION_FAILED');
    expect((await get('/api/users/username/olga')).statusCode).toBe(404);

    const links = await patch('/api/users/me/social-links', { instagram: 'https://instagram.com/olga', twitter: null }, u.headers);
    expect(links.json()).toEqual({ instagram: 'https://instagram.com/olga', twitter: null, website: null, supportLink: null });
    expect((await patch('/api/users/me/social-links', {}, u.headers)).statusCode).toBe(400);
    expect((await patch('/api/users/me/social-links', { website: 'ftp://x.example' }, u.headers)).statusCode).toBe(400);
  });
});

describe('USR-14 and USR-15 public profiles', () => {
  it('return exactly the Public profile fields, with stats from events and flags from social', async () => {
    const pia = await verifiedUser(h, 'pia@example.com', 'Pia');
    const viewer = await verifiedUser(h, 'quinn@example.com', 'Quinn');
    const js = jetstream(h.app.infra.nc);
    await js.publish(
      'social.user.followed.v1',
      JSON.stringify(
        createEnvelope(UserFollowed, {
          followerId: viewer.userId,
          followeeId: pia.userId,
          followerFollowingCount: 1,
          followeeFollowerCount: 7,
          at: new Date().toISOString(),
        }),
      ),
    );
    await js.publish('catalog.artist.track-count-changed.v1', JSON.stringify(createEnvelope(ArtistTrackCountChanged, { userId: pia.userId, trackCount: 3 })));
    await waitFor(async () => (await get(`/api/users/${pia.userId}`)).json().stats.trackCount === 3 || undefined, { timeoutMs: 5000 });

    const anon = await get('/api/users/username/pia');
    expect(anon.statusCode).toBe(200);
    const body = anon.json();
    expect(PublicProfileSchema.strict().safeParse(body).success).toBe(true);
    expect(Object.keys(body).sort()).toEqual([
      'displayName',
      'id',
      'isBlocked',
      'isFollowed',
      'isFollowing',
      'privacySettings',
      'profile',
      'profileUrl',
      'socialLinks',
      'stats',
      'tier',
      'username',
    ]);
    expect(body.stats).toEqual({ followersCount: 7, followingCount: 0, trackCount: 3 });
    expect(body.profile.email).toBeNull();

    peers.relationships.set(pia.userId, { isFollowing: true, isFollowed: false, isBlocked: false, hasBlockedViewer: false });
    const signedIn = await get(`/api/users/${pia.userId}`, viewer.headers);
    expect(signedIn.json()).toMatchObject({ isFollowing: true, isFollowed: false, isBlocked: false, profile: { isFollowing: true } });
    expect((await get('/api/users/pia', viewer.headers)).json().id).toBe(pia.userId);

    peers.relationships.set(pia.userId, { isFollowing: false, isFollowed: false, isBlocked: false, hasBlockedViewer: true });
    expect((await get(`/api/users/${pia.userId}`, viewer.headers)).json().code).toBe('USER_NOT_FOUND');
    peers.relationships.delete(pia.userId);
  });

  it('MOD-8 ban counts (R14): social.counts.recounted.v1 sets followersCount and followingCount', async () => {
    const rex = await verifiedUser(h, 'recount-rex@example.com', 'Rex');
    const js = jetstream(h.app.infra.nc);
    const event = createEnvelope(CountsRecounted, {
      userId: 424242,
      cause: 'USER_BANNED',
      tracks: [],
      playlists: [],
      users: [{ userId: rex.userId, followerCount: 6, followingCount: 2 }],
      at: new Date().toISOString(),
    });
    await js.publish(event.type, JSON.stringify(event));
    await waitFor(async () => (await get(`/api/users/${rex.userId}`)).json().stats.followersCount === 6 || undefined, { timeoutMs: 5000 });
    expect((await get(`/api/users/${rex.userId}`)).json().stats).toEqual({ followersCount: 6, followingCount: 2, trackCount: 0 });
  });

  it('answers 404 for unknown users and 400 for malformed ids', async () => {
    expect((await get('/api/users/username/nobody-here')).json().code).toBe('USER_NOT_FOUND');
    expect((await get('/api/users/99999')).statusCode).toBe(404);
    expect((await get('/api/users/0')).statusCode).toBe(400);
    expect((await get("/api/users/1'%20OR%201=1")).statusCode).toBe(400);
  });
});

describe('USR-5 update account tier', () => {
  it('needs a paid subscription for PRO (402), none for FREE (409), and returns new tokens with the tier', async () => {
    const u = await verifiedUser(h, 'rex@example.com', 'Rex');
    const pro = (headers: Record<string, string>) => patch('/api/users/me/tier', { newTier: 'PRO' }, headers);
    expect((await pro(u.headers)).json().code).toBe('PAYMENT_REQUIRED');
    peers.subscription.set(u.userId, 'active');
    const res = await pro(u.headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ tier: 'PRO', expiresIn: 1800, login: { tokenType: 'Bearer', user: { tier: 'PRO' } } });
    expect(callerHeaders(body.accessToken)['x-user-tier']).toBe('PRO');
    expect(String(res.headers['set-cookie'])).toMatch(/^refreshToken=/);
    expect((await patch('/api/users/me/tier', { targetTier: 'FREE' }, u.headers)).json().code).toBe('SUBSCRIPTION_STATE_CONFLICT');
    const old = await h.app.inject({ method: 'POST', url: '/api/auth/refreshtoken', payload: { refreshToken: u.refreshToken } });
    expect(old.json().code).toBe('REFRESH_TOKEN_REUSED');
  });
});

describe('USR-9, USR-10 and USR-11 images', () => {
  const form = (parts: Array<{ name: string; value: Buffer | string; filename?: string }>) => {
    const boundary = '----identity-test';
    const chunks: Buffer[] = [];
    for (const p of parts) {
      const disposition = p.filename ? `form-data; name="${p.name}"; filename="${p.filename}"` : `form-data; name="${p.name}"`;
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.filename ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`));
      chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
      chunks.push(Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
  };

  it('stores resized images at unguessable public URLs, replaces and deletes them', async () => {
    const u = await verifiedUser(h, 'sara@example.com', 'Sara');
    const png = await sharp({ create: { width: 900, height: 700, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    const { payload, contentType } = form([
      { name: 'profilePic', value: png, filename: 'me.txt' },
      { name: 'coverPic', value: png, filename: 'c.png' },
    ]);
    const res = await h.app.inject({ method: 'PATCH', url: '/api/users/me/images', headers: { ...u.headers, 'content-type': contentType }, payload });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.profilePic).toBe(body.avatarUrl);
    expect(body.avatarUrl).toMatch(/\/images\/users\/\d+\/avatar-[\w-]{32}\.jpg$/);
    const served = await fetch(body.avatarUrl);
    expect(served.status).toBe(200);
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 400, 400]);
    const cover = await sharp(Buffer.from(await (await fetch(body.coverPhotoUrl)).arrayBuffer())).metadata();
    expect([cover.width, cover.height]).toEqual([1500, 500]);

    const oldKey = new URL(body.avatarUrl).pathname.split('/').slice(2).join('/');
    const again = form([{ name: 'profilePic', value: png, filename: 'again.png' }]);
    const replaced = await h.app.inject({
      method: 'PATCH',
      url: '/api/users/me/images',
      headers: { ...u.headers, 'content-type': again.contentType },
      payload: again.payload,
    });
    expect(replaced.json().avatarUrl).not.toBe(body.avatarUrl);
    expect(replaced.json().coverPhotoUrl).toBe(body.coverPhotoUrl);
    expect(await h.app.infra.storage.stat(oldKey)).toBeNull();

    const del = await h.app.inject({ method: 'DELETE', url: '/api/users/me/images/avatar', headers: u.headers });
    expect(del.statusCode).toBe(204);
    expect((await get('/api/users/me', u.headers)).json().profile.avatarUrl).toBeNull();
    expect((await h.app.inject({ method: 'DELETE', url: '/api/users/me/images/cover', headers: u.headers })).statusCode).toBe(204);
    expect(await h.app.infra.storage.list(`images/users/${u.userId}/`)).toEqual([]);
  });

  it('judges images by content (400 UNSUPPORTED_IMAGE_FORMAT), refuses > 10 MB (413) and empty forms (400)', async () => {
    const u = await verifiedUser(h, 'tom@example.com', 'Tom');
    const gif = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
      .gif()
      .toBuffer();
    for (const value of [gif, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'), Buffer.from('plain text pretending.png')]) {
      const f = form([{ name: 'profilePic', value, filename: 'x.png' }]);
      const res = await h.app.inject({
        method: 'PATCH',
        url: '/api/users/me/images',
        headers: { ...u.headers, 'content-type': f.contentType },
        payload: f.payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('UNSUPPORTED_IMAGE_FORMAT');
    }
    const big = form([{ name: 'coverPic', value: Buffer.alloc(10 * 1024 * 1024 + 10, 1), filename: 'big.jpg' }]);
    const tooBig = await h.app.inject({
      method: 'PATCH',
      url: '/api/users/me/images',
      headers: { ...u.headers, 'content-type': big.contentType },
      payload: big.payload,
    });
    expect(tooBig.statusCode).toBe(413);
    const empty = form([{ name: 'unrelated', value: 'x' }]);
    expect(
      (
        await h.app.inject({
          method: 'PATCH',
          url: '/api/users/me/images',
          headers: { ...u.headers, 'content-type': empty.contentType },
          payload: empty.payload,
        })
      ).statusCode,
    ).toBe(400);
    expect((await get('/api/users/me', u.headers)).json().profile.avatarUrl).toBeNull();
  });
});

describe('USR-9 multipart bodies that end without their closing delimiter', () => {
  const BOUNDARY = 'trunc-5e2b';
  /** What a prompt answer means here: far below the 30 s body idle timeout. */
  const PROMPT_MS = 2000;
  let port = 0;

  beforeAll(async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as net.AddressInfo).port;
  });

  /** Sends exact bytes (fetch and inject would fix the body up) as the gateway would, signed; in two writes when `split`. */
  function send(identity: Record<string, string>, body: Buffer, split: boolean): Promise<{ status: number; body: string; ms: number }> {
    const requestId = randomUUID();
    const signed = { ...identity, 'x-request-id': requestId };
    const url = '/api/users/me/images';
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': String(body.length),
      ...signed,
      [ASSERTION_HEADER]: signAssertion(deriveAssertionKey(DEV_GATEWAY_SIGNING_KEY, 'identity'), { method: 'PATCH', url, requestId, headers: signed }),
    };
    const head = `PATCH ${url} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let received = Buffer.alloc(0);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer within ${PROMPT_MS} ms`));
      }, PROMPT_MS);
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const end = received.indexOf('\r\n\r\n');
        if (end === -1) return;
        const headText = received.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(headText)?.[1] ?? NaN);
        if (!Number.isFinite(length) || received.length < end + 4 + length) return;
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(headText.split(' ')[1]), body: received.subarray(end + 4, end + 4 + length).toString('utf8'), ms: Date.now() - started });
      });
      socket.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      const bytes = Buffer.concat([Buffer.from(head, 'latin1'), body]);
      const half = split ? head.length + Math.floor(body.length / 2) : bytes.length;
      socket.write(bytes.subarray(0, half));
      if (split) setTimeout(() => socket.write(bytes.subarray(half)), 50);
    });
  }

  const partHead = (name: string, filename?: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: application/octet-stream` : ''}\r\n\r\n`;

  it('answers 400 VALIDATION_FAILED at once for every truncation and stores no image', async () => {
    const u = await verifiedUser(h, 'cut@example.com', 'Cut');
    const png = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#aa3366' } })
      .png()
      .toBuffer();
    const field = Buffer.from(`${partHead('removeCoverPic')}true\r\n`);
    const file = Buffer.concat([Buffer.from(partHead('profilePic', 'me.png')), png, Buffer.from('\r\n')]);
    const truncations: Array<[string, Buffer]> = [
      ['every part, then no closing delimiter', Buffer.concat([field, file])],
      ['every part, then a delimiter without its closing dashes', Buffer.concat([field, file, Buffer.from(`--${BOUNDARY}`)])],
      ['cut in the middle of the file part headers', Buffer.concat([field, Buffer.from(partHead('profilePic', 'me.png').slice(0, 50))])],
      ['cut in the middle of the file data', Buffer.concat([field, Buffer.from(partHead('profilePic', 'me.png')), png.subarray(0, png.length >> 1)])],
      ['no part at all: only the opening delimiter', Buffer.from(`--${BOUNDARY}\r\n`)],
      ['only a preamble, no delimiter at all', Buffer.from('This body has a preamble and nothing else.\r\n')],
      ['no bytes at all', Buffer.alloc(0)],
    ];
    for (const [name, body] of truncations) {
      for (const split of [false, true]) {
        const label = `${name}${split ? ' (two writes)' : ''}`;
        const answer = await send(u.headers, body, split).catch((err: Error) => {
          throw new Error(`${label}: ${err.message}`);
        });
        expect(answer.status, `${label}: ${answer.body}`).toBe(400);
        expect(ErrorResponseSchema.parse(JSON.parse(answer.body)).code, label).toBe('VALIDATION_FAILED');
        expect(answer.ms, label).toBeLessThan(PROMPT_MS);
      }
    }
    expect(await h.app.infra.storage.list(`images/users/${u.userId}/`)).toEqual([]);
    expect((await get('/api/users/me', u.headers)).json().profile.avatarUrl).toBeNull();

    // The same bytes with their closing delimiter are an image update.
    const whole = await send(u.headers, Buffer.concat([file, Buffer.from(`--${BOUNDARY}--\r\n`)]), true);
    expect(whole.status, whole.body).toBe(200);
    expect((JSON.parse(whole.body) as { avatarUrl: string | null }).avatarUrl).toMatch(/avatar-/);
  });
});
