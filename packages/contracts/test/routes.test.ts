import { describe, it, expect } from 'vitest';

import {
  CURATED_GENRES,
  IdParamSchema,
  PageQuerySchema,
  ROUTES,
  SERVICE_NAMES,
  SearchTypeSchema,
  TrackSchema,
  UPLOAD_STEPS,
  UploadStepSchema,
  pageSchema,
  routeById,
  routesOf,
  toFastifyPath,
  toPage,
  type Track,
  type UserSummary,
} from '../src/index.js';

/** Operation counts per group of the contract. */
const EXPECTED_COUNTS: Record<string, number> = {
  AUTH: 15,
  SEC: 4,
  USR: 22,
  FOL: 4,
  BLK: 3,
  TRK: 23,
  MOD: 12,
  PLS: 17,
  ENG: 20,
  DSC: 7,
  MSG: 4,
  NOT: 8,
  SUB: 5,
  // Not API operations: public byte paths and the embed player (see routes.ts).
  MEDIA: 3,
  EMBED: 2,
  // The uploader's sound report (docs/sound.md).
  SND: 1,
  // Apps and the OAuth authorization server (docs/developer-platform.md).
  APP: 22,
  // Two-factor sign-in and passkeys (docs/account-security.md).
  MFA: 13,
  // Artist insights and play counting (docs/insights.md).
  INS: 4,
  // Account export and deletion (docs/account-control.md).
  ACC: 5,
};

function range(group: string, from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => `${group}-${from + i}`);
}

/** The routes that need no token (docs/api.md "Auth rules"), expanded. */
const PUBLIC_IDS = [
  // The consent page and the OAuth endpoints (clients authenticate themselves there).
  ...range('APP', 11, 16),
  // Listening progress: anonymous players report it too (docs/insights.md).
  'INS-4',
  // Restoring an account pending deletion: its sessions are gone, the password proves the owner.
  'ACC-4',
  ...range('AUTH', 1, 3),
  ...range('AUTH', 5, 15),
  'MOD-1',
  'SUB-5',
  'WS-1',
  ...range('USR', 13, 15),
  'USR-18',
  'USR-19',
  'USR-21',
  'USR-22',
  'FOL-3',
  'FOL-4',
  'TRK-6',
  ...range('TRK', 13, 18),
  'TRK-20',
  'TRK-22',
  'TRK-23',
  'PLS-4',
  'PLS-11',
  ...range('PLS', 14, 17),
  'ENG-3',
  'ENG-6',
  'ENG-9',
  'ENG-12',
  'ENG-14',
  'ENG-17',
  'ENG-19',
  'ENG-20',
  ...range('DSC', 2, 6),
  ...range('MEDIA', 1, 3),
  ...range('EMBED', 1, 2),
  // The second login step, passkey sign-in and the development passkey page.
  'MFA-4',
  ...range('MFA', 11, 13),
];

const ARTIST: UserSummary = {
  id: 7,
  username: 'alice',
  displayName: 'Alice',
  avatarUrl: null,
  tier: 'FREE',
  isFollowing: false,
  followerCount: 3,
  trackCount: 1,
};

const TRACK_FIXTURE: Track = {
  id: 12,
  title: 'My Song',
  trackSlug: 'my-song',
  artist: ARTIST,
  description: null,
  genre: 'Lo-fi',
  tags: ['chill', 'night'],
  releaseDate: '2025-03-01',
  uploadDate: '2025-03-01T12:00:00.000Z',
  createdAt: '2025-03-01T12:00:00.000Z',
  publishedAt: '2025-03-01T12:01:00.000Z',
  state: 'FINISHED',
  isPrivate: false,
  access: 'PLAYABLE',
  trackUrl: 'https://media.example/t/12.m4a?sig=abc',
  trackPreviewUrl: 'https://media.example/t/12-preview.m4a?sig=abc',
  hlsUrl: 'https://media.example/t/12/index.m3u8?sig=abc',
  coverUrl: null,
  waveformUrl: 'https://media.example/w/12.json',
  trackDurationSeconds: 184,
  playCount: 10,
  completedPlayCount: 4,
  likeCount: 2,
  repostCount: 1,
  commentCount: 0,
  isLiked: false,
  isReposted: false,
  secretToken: null,
};

describe('ROUTES table', () => {
  it('has no duplicate (method, path) pairs', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('has no two routes that differ only by parameter names (Fastify would reject them)', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path.replace(/\{[^}]+\}/g, '{}')}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('contains every operation id of the contract exactly once', () => {
    for (const [group, count] of Object.entries(EXPECTED_COUNTS)) {
      const expected = range(group, 1, count);
      const actual = ROUTES.filter((route) => route.id.startsWith(`${group}-`)).map((route) => route.id);
      expect(actual, group).toEqual(expected);
    }
    const httpOperations = ROUTES.filter((route) => route.id !== 'WS-1');
    const total = Object.values(EXPECTED_COUNTS).reduce((sum, count) => sum + count, 0);
    expect(httpOperations).toHaveLength(total);
    expect(ROUTES.filter((route) => route.id === 'WS-1').map((route) => route.path)).toEqual(['/ws', '/ws/**']);
  });

  it('marks exactly the public routes as none/optional/webhook-signature', () => {
    const publicIds = new Set(
      ROUTES.filter((route) => route.auth === 'none' || route.auth === 'optional' || route.auth === 'webhook-signature').map((route) => route.id),
    );
    expect([...publicIds].sort()).toEqual([...new Set(PUBLIC_IDS)].sort());
  });

  it('keeps the specific auth rules the table names', () => {
    expect(routeById('AUTH-3')?.auth).toBe('optional');
    expect(routeById('USR-13')?.auth).toBe('optional');
    expect(routeById('TRK-20')?.auth).toBe('none');
    expect(routeById('SUB-5')?.auth).toBe('webhook-signature');
    const adminIds = ROUTES.filter((route) => route.auth === 'admin').map((route) => route.id);
    expect(adminIds).toEqual(expect.arrayContaining([...range('MOD', 4, 12), 'APP-7', 'APP-8']));
    for (const route of ROUTES) {
      if (route.path.startsWith('/admin/') && route.id !== 'MOD-1') expect(route.auth, route.id).toBe('admin');
    }
  });

  it('flags the deprecated operations', () => {
    const deprecated = ROUTES.filter((route) => route.deprecated === true).map((route) => route.id);
    expect(deprecated).toEqual(['AUTH-13', 'AUTH-14', 'AUTH-15', 'TRK-23']);
  });

  it('assigns the body kinds that decide the gateway limits', () => {
    const withBody = (kind: string) =>
      ROUTES.filter((route) => route.bodyKind === kind)
        .map((route) => route.id)
        .sort();
    expect(withBody('upload')).toEqual(['TRK-1', 'TRK-2']);
    expect(withBody('image')).toEqual(['PLS-3', 'PLS-5', 'TRK-8', 'USR-9']);
    expect(withBody('raw')).toEqual(['SUB-5']);
    for (const route of ROUTES) {
      // ACC-3 (delete my account) is the one DELETE with a body: the password that confirms it.
      if (route.method === 'GET' || (route.method === 'DELETE' && route.id !== 'ACC-3')) expect(route.bodyKind, route.id).toBe('none');
    }
  });

  it('writes paths relative to /api with well-formed {param} segments', () => {
    for (const route of ROUTES) {
      // `.well-known` only as the first segment (RFC 8615: APP-16).
      expect(route.path, route.id).toMatch(/^(\/\.well-known)?(\/([a-z0-9-]+|\{[a-zA-Z]+\}|\*\*))+$/);
      expect(route.path, route.id).not.toMatch(/^\/api\//);
    }
    expect(routeById('FOL-1')?.path).toBe('/users/{userId}/follow');
    expect(routeById('USR-12')?.path).toBe('/users/me/email/start');
  });

  it('only names known owner services, and none for the media-processing worker', () => {
    for (const route of ROUTES) expect(SERVICE_NAMES, route.id).toContain(route.owner);
    expect(routesOf('media-processing')).toEqual([]);
    expect(routesOf('billing').map((route) => route.id)).toEqual(range('SUB', 1, 5));
  });
});

describe('routeById', () => {
  it('finds a route and returns undefined for unknown ids', () => {
    expect(routeById('TRK-12')).toMatchObject({ method: 'POST', path: '/tracks/{trackId}/regenerate-token' });
    expect(routeById('WS-1')?.path).toBe('/ws');
    expect(routeById('NOPE-1')).toBeUndefined();
  });
});

describe('toFastifyPath', () => {
  it('turns {name} into :name', () => {
    expect(toFastifyPath('/users/{userId}/follow')).toBe('/users/:userId/follow');
    expect(toFastifyPath('/playlists/{playlistId}/tracks/{trackId}')).toBe('/playlists/:playlistId/tracks/:trackId');
  });

  it('leaves static paths alone and turns the ** wildcard into *', () => {
    expect(toFastifyPath('/genres')).toBe('/genres');
    expect(toFastifyPath('/ws/**')).toBe('/ws/*');
  });
});

describe('toPage', () => {
  it('gives 0 pages and isLast for an empty result', () => {
    expect(toPage([], 0, 0, 20)).toEqual({
      content: [],
      pageNumber: 0,
      pageSize: 20,
      totalElements: 0,
      totalPages: 0,
      isLast: true,
    });
  });

  it('rounds the page count up and flags the last page', () => {
    const items = Array.from({ length: 5 }, (_, i) => i);
    const last = toPage(items, 45, 2, 20);
    expect(last).toMatchObject({ pageNumber: 2, pageSize: 20, totalElements: 45, totalPages: 3, isLast: true });
    expect(toPage(items, 45, 1, 20).isLast).toBe(false);
  });

  it('treats a page past the end as last', () => {
    expect(toPage([], 45, 7, 20)).toMatchObject({ content: [], totalPages: 3, isLast: true });
  });

  it('produces what pageSchema accepts', () => {
    const schema = pageSchema(TrackSchema);
    expect(schema.safeParse(toPage([TRACK_FIXTURE], 1, 0, 20)).success).toBe(true);
  });
});

describe('PageQuerySchema', () => {
  it('defaults to page 0, size 20', () => {
    expect(PageQuerySchema.parse({})).toEqual({ page: 0, size: 20 });
  });

  it('coerces query-string integers', () => {
    expect(PageQuerySchema.parse({ page: '3', size: '100' })).toEqual({ page: 3, size: 100 });
    expect(PageQuerySchema.parse({ size: '1' })).toEqual({ page: 0, size: 1 });
  });

  it.each([0, 101, -1, 'abc', 1.5, '1.5', '0', '101', '', '1e1'])('rejects size %j', (size) => {
    expect(PageQuerySchema.safeParse({ size }).success).toBe(false);
  });

  it.each([-1, '-1', '0.5', 'x'])('rejects page %j', (page) => {
    expect(PageQuerySchema.safeParse({ page }).success).toBe(false);
  });
});

describe('IdParamSchema', () => {
  const schema = IdParamSchema('trackId');

  it('accepts positive integers, leading zeros included', () => {
    expect(schema.parse({ trackId: '42' })).toEqual({ trackId: 42 });
    expect(schema.parse({ trackId: '007' })).toEqual({ trackId: 7 });
  });

  it.each(['12abc', '', '1.5', '0', '-3', ' 5', '0x1A', '1e3', '99999999999999999999'])('rejects %j', (trackId) => {
    expect(schema.safeParse({ trackId }).success).toBe(false);
  });
});

describe('enums', () => {
  it('lists the upload steps in order with non-decreasing progress', () => {
    const progress = UPLOAD_STEPS.map((step) => step.progress);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(100);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(UploadStepSchema.safeParse('Processing failed').success).toBe(true);
  });

  it('maps the plural search types to their canonical value', () => {
    expect(SearchTypeSchema.parse('USERS')).toBe('USER');
    expect(SearchTypeSchema.parse('TRACKS')).toBe('TRACK');
    expect(SearchTypeSchema.parse('PLAYLISTS')).toBe('PLAYLIST');
    expect(SearchTypeSchema.parse('ALL')).toBe('ALL');
    expect(SearchTypeSchema.safeParse('all').success).toBe(false);
  });

  it('has the 28 curated genres', () => {
    expect(CURATED_GENRES).toHaveLength(28);
  });
});

describe('TrackSchema', () => {
  it('parses a full track', () => {
    expect(TrackSchema.parse(TRACK_FIXTURE)).toEqual(TRACK_FIXTURE);
  });

  it('accepts the operation-specific fields', () => {
    const reposted = { ...TRACK_FIXTURE, repostedBy: ARTIST, repostedAt: '2025-03-02T00:00:00.000Z', trendingRank: 1 };
    expect(TrackSchema.safeParse(reposted).success).toBe(true);
  });

  it('requires nullable fields to be sent as null, not left out', () => {
    const { description: _omitted, ...withoutDescription } = TRACK_FIXTURE;
    expect(TrackSchema.safeParse(withoutDescription).success).toBe(false);
  });

  it('rejects an unknown state', () => {
    expect(TrackSchema.safeParse({ ...TRACK_FIXTURE, state: 'DONE' }).success).toBe(false);
  });
});
