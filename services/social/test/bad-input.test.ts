import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema, ROUTES } from '@msp/contracts';
import { as, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

let h: Harness;

/** The follow, block and engagement operations; reports (MOD-*) and the feed (DSC-1) have their own tests. */
const OPS = /^(FOL-\d|BLK-\d|ENG-\d+|USR-(16|20|21|22))$/;
const routes = ROUTES.filter((r) => r.owner === 'social' && OPS.test(r.id));

const BAD_SEGMENTS = ['0', '-1', '1.5', '9999999999999999999', "1' OR '1'='1", '%00', '<script>', 'ü'.repeat(90), 'x'.repeat(101)];
const BAD_BODIES = [
  '{"body":',
  '[]',
  '"text"',
  'null',
  JSON.stringify({ body: 12 }),
  JSON.stringify({ body: 'x'.repeat(1024 * 1024 - 100) }),
  JSON.stringify({ body: "'; DROP TABLE comments; --", timestampSeconds: '5; DELETE' }),
  JSON.stringify({ body: 'ok', timestampSeconds: 1e300 }),
  JSON.stringify({ body: '\ud800 lone surrogate' }),
];

function fill(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, encodeURIComponent(value));
}

async function expectClientError(method: string, url: string, payload?: string) {
  const res = await h.app.inject({
    method: method as 'GET',
    url,
    headers: { ...as(40), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload }),
  });
  expect(res.statusCode, `${method} ${url} ${payload?.slice(0, 40) ?? ''} → ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(200);
  expect(res.statusCode, `${method} ${url} ${payload?.slice(0, 40) ?? ''} → ${res.body.slice(0, 200)}`).toBeLessThan(500);
  if (res.statusCode >= 400) ErrorResponseSchema.strict().parse(res.json());
  return res;
}

beforeAll(async () => {
  h = await startSocial('social_bad_input');
  await seedUsers(h.app, [
    { id: 40, username: 'prober' },
    { id: 41, username: 'target' },
  ]);
  await seedTrack(h.app, { id: 1, artistId: 41 });
});

afterAll(async () => {
  await h?.close();
});

describe('every social route refuses bad input with a 4xx ErrorResponse, never 500', () => {
  it('covers the follow, block and engagement operations', () => {
    expect(routes.length).toBe(4 + 3 + 20 + 4);
  });

  it('path ids that are not positive integers (or unknown usernames)', async () => {
    for (const route of routes.filter((r) => r.path.includes('{'))) {
      for (const value of BAD_SEGMENTS) {
        const res = await expectClientError(route.method, `/api${fill(route.path, value)}`);
        expect(res.statusCode, `${route.id} ${value}`).toBeGreaterThanOrEqual(400);
      }
    }
  });

  it('bad paging', async () => {
    for (const route of routes.filter((r) => r.method === 'GET')) {
      for (const query of ['size=0', 'size=101', 'page=-1', 'page=abc', 'size=1e2', 'page=1.5', 'limit=0']) {
        const url = `/api${fill(route.path, route.path.includes('username') ? 'target' : '1')}?${query}`;
        const res = await expectClientError('GET', url);
        if (query !== 'limit=0' || route.id === 'USR-16') expect(res.statusCode, `${route.id} ${query}`).toBe(400);
      }
    }
  });

  it('malformed, wrongly typed, oversized and hostile JSON bodies', async () => {
    for (const route of routes.filter((r) => r.method === 'POST')) {
      for (const body of BAD_BODIES) {
        await expectClientError('POST', `/api${fill(route.path, '1')}`, body);
      }
    }
    expect(await h.app.infra.prisma.comment.count()).toBe(0);
  });
});
