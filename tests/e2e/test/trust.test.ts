import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_ROUTES, type Role } from '@msp/contracts';
import { ASSERTION_HEADER, deriveAssertionKey, internalCallHeaders, signAssertion } from '@msp/http';
import type { buildApp as buildIdentity } from '@msp/identity';
import type { buildApp as buildCatalog } from '@msp/catalog';
import { Fleet } from './fleet.js';

/**
 * Identity between gateway and services cannot be forged from inside the network, and the
 * client address cannot be chosen by the client.
 */
const fleet = new Fleet();
const ARTIST = 31;
const TRACK = 3101;

const identity = () => fleet.apps.get('identity') as Awaited<ReturnType<typeof buildIdentity>>;
const catalog = () => fleet.apps.get('catalog') as Awaited<ReturnType<typeof buildCatalog>>;

async function token(userId: number, role: Role = 'ARTIST'): Promise<string> {
  return identity().keys.sign({ sub: String(userId), username: `u${userId}`, role, tier: 'FREE', sid: randomUUID(), jti: randomUUID() }, 1800, 'msp-identity');
}

const forged = (userId: number, role: string) => ({ 'x-user-id': String(userId), 'x-user-role': role, 'x-user-tier': 'PRO', 'x-username': `u${userId}` });

beforeAll(async () => {
  await fleet.start();
  await catalog().infra.prisma.track.create({
    data: {
      id: TRACK,
      artistId: ARTIST,
      title: 'Trusted',
      trackSlug: 'trusted',
      genre: 'House',
      releaseDate: new Date(),
      state: 'FINISHED',
      secretToken: randomUUID().replace(/-/g, ''),
      uploadId: randomUUID(),
      durationSeconds: 200,
      publishedAt: new Date(),
    },
  });
}, 120_000);

afterAll(async () => {
  await fleet.close();
});

describe('gateway assertion: identity headers straight to a service port (USR-1, USR-2, ENG-20, MSG-1, NOT-1, SUB-1)', () => {
  it('treats X-User-* without the gateway signature as anonymous, on every service', async () => {
    // USR-1 (identity), TRK-15-like own lists (catalog), FOL lists of me (social): bearer routes answer 401.
    const probes: Array<[string, string]> = [
      ['identity', '/api/users/me'],
      ['catalog', '/api/users/me/tracks'],
      ['social', '/api/users/me/liked-tracks'],
      ['messaging', '/api/conversations'],
      ['notification', '/api/notifications'],
      ['billing', '/api/subscription/status'],
    ];
    for (const [service, path] of probes) {
      const res = await fetch(`${fleet.urlOf(service as never)}${path}`, { headers: forged(ARTIST, 'ADMIN') });
      expect(res.status, `${service} ${path}`).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('UNAUTHORIZED');
    }
  });

  it('does not let a forged ADMIN delete a track (MOD-11) or see a private one', async () => {
    const res = await fetch(`${fleet.urlOf('catalog')}/api/admin/tracks/${TRACK}`, { method: 'DELETE', headers: forged(1, 'ADMIN') });
    expect(res.status).toBe(401);
    expect(await catalog().infra.prisma.track.count({ where: { id: TRACK, deletedAt: null } })).toBe(1);
  });

  it('refuses an assertion signed with another service key, or replayed for another URL', async () => {
    const catalogKey = deriveAssertionKey('dev-only-gateway-signing-key-change-me', 'catalog');
    const socialKey = deriveAssertionKey('dev-only-gateway-signing-key-change-me', 'social');
    const requestId = randomUUID();
    const headers = { ...forged(ARTIST, 'ARTIST'), 'x-request-id': requestId };
    const wrongService = signAssertion(socialKey, { method: 'GET', url: '/api/users/me/tracks', requestId, headers });
    const a = await fetch(`${fleet.urlOf('catalog')}/api/users/me/tracks`, { headers: { ...headers, [ASSERTION_HEADER]: wrongService } });
    expect(a.status).toBe(401);
    const otherUrl = signAssertion(catalogKey, { method: 'GET', url: '/api/users/me/tracks?page=1', requestId, headers });
    const b = await fetch(`${fleet.urlOf('catalog')}/api/users/me/tracks`, { headers: { ...headers, [ASSERTION_HEADER]: otherUrl } });
    expect(b.status).toBe(401);
    // The right key for the right request is accepted (what the gateway sends).
    const right = signAssertion(catalogKey, { method: 'GET', url: '/api/users/me/tracks', requestId, headers });
    const c = await fetch(`${fleet.urlOf('catalog')}/api/users/me/tracks`, { headers: { ...headers, [ASSERTION_HEADER]: right } });
    expect(c.status).toBe(200);
  });

  it('keeps working through the gateway, which signs for the owner service', async () => {
    const res = await fleet.fetch('/api/users/me/tracks', { headers: { authorization: `Bearer ${await token(ARTIST)}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { totalElements: number }).totalElements).toBe(1);
  });
});

describe('service credential: /internal/* routes', () => {
  it('refuses a call without X-Service-Token (403) and answers one with it', async () => {
    const body = JSON.stringify({ viewerId: 1, trackIds: [TRACK] });
    const url = `${fleet.urlOf('catalog')}${INTERNAL_ROUTES.tracks}`;
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(refused.status).toBe(403);
    const badToken = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': 'catalog.1.forged' }, body });
    expect(badToken.status).toBe(403);
    const social = await fetch(`${fleet.urlOf('social')}${INTERNAL_ROUTES.relationships}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ viewerId: 1, userIds: [2] }),
    });
    expect(social.status).toBe(403);
    const accepted = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...internalCallHeaders() }, body });
    expect(accepted.status).toBe(200);
  });
});

describe('client address (TRK-17): X-Forwarded-For from a client that is not a trusted proxy', () => {
  it('TRK-17 counts one anonymous play however the header rotates (R9 de-duplication keeps the socket address)', async () => {
    for (let i = 0; i < 6; i += 1) {
      const res = await fleet.fetch(`/api/tracks/${TRACK}/play`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i + 1}`, 'user-agent': 'fuzzer' },
        body: '{}',
      });
      expect(res.status).toBeLessThan(300);
    }
    // Counted plays wait in track_play_deltas until they are folded into the track (docs/insights.md).
    const [row] = await catalog().infra.prisma.$queryRaw<{ plays: number }[]>`
      SELECT (t.play_count + COALESCE(d.plays, 0))::int AS plays FROM tracks t
      LEFT JOIN track_play_deltas d ON d.track_id = t.id WHERE t.id = ${TRACK}`;
    expect(row?.plays).toBe(1);
  });
});
