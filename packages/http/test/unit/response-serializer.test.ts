import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pageSchema, RadioTrackSchema, TrackSchema } from '@msp/contracts';
import { compileResponseSchema, normaliseJsonSchema, responseSerializerCompiler } from '../../src/response-serializer.js';

const artist = { id: 7, username: 'ada', displayName: 'Ada', avatarUrl: null, tier: 'PRO', isFollowing: true, followerCount: 3, trackCount: 2 };
const track = {
  id: 1,
  title: 'Ti "tle" \u2028 é',
  trackSlug: 'title',
  artist,
  description: null,
  genre: 'Jazz',
  tags: ['a', 'b'],
  releaseDate: '2026-01-02',
  uploadDate: '2026-01-02T03:04:05.678Z',
  createdAt: '2026-01-02T03:04:05.678Z',
  publishedAt: null,
  state: 'FINISHED',
  isPrivate: false,
  access: 'PLAYABLE',
  trackUrl: 'http://x/api/media/tracks/1/full.m4a?e=1&g=v&s=abc',
  trackPreviewUrl: null,
  hlsUrl: 'http://x/api/media/tracks/1/index.m3u8?e=1&g=v&s=abc',
  coverUrl: null,
  waveformUrl: 'http://x/w.json',
  trackDurationSeconds: 180,
  playCount: 0,
  completedPlayCount: 0,
  likeCount: 5,
  repostCount: 1,
  commentCount: 0,
  isLiked: false,
  isReposted: true,
  secretToken: null,
  lastPlayedAt: '2026-01-03T00:00:00.000Z',
  // Not in the schema: never written.
  coverKey: 'public/secret-key',
};

describe('response serialisation (compiled from the zod schemas)', () => {
  it('writes what a zod parse + JSON.stringify wrote for a page of tracks, extra fields dropped', () => {
    const schema = pageSchema(TrackSchema);
    const page = {
      content: [track, { ...track, id: 2, description: 'd', trackDurationSeconds: null }],
      pageNumber: 0,
      pageSize: 20,
      totalElements: 2,
      totalPages: 1,
      isLast: true,
    };
    const compiled = compileResponseSchema(schema)!;
    expect(compiled).not.toBeNull();
    const out = compiled(page);
    expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(schema.parse(page))));
    expect(out).not.toContain('coverKey');
  });

  it('a radio track (literals, nested summary) matches the zod output', () => {
    const radio = {
      id: 1,
      title: 't',
      artist: { id: 7, username: 'ada', displayName: 'Ada', avatarUrl: null },
      trackUrl: 'u',
      coverUrl: null,
      waveformUrl: 'w',
      genre: 'Jazz',
      tags: [],
      state: 'FINISHED',
      releaseDate: '2026-01-02',
      playCount: 1,
      likeCount: 2,
      repostCount: 3,
      createdAt: '2026-01-02T03:04:05.678Z',
      type: 'TRACK',
      track: { ...track },
    };
    const compiled = compileResponseSchema(RadioTrackSchema)!;
    expect(JSON.parse(compiled(radio))).toEqual(JSON.parse(JSON.stringify(RadioTrackSchema.parse(radio))));
  });

  it('a constrained nullable becomes one nullable type (no anyOf left for ajv)', () => {
    const json = normaliseJsonSchema(z.toJSONSchema(z.object({ d: z.string().max(5).nullable(), o: z.object({ a: z.number() }).nullable() }))) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(json.properties.d).toEqual({ type: ['string', 'null'], maxLength: 5 });
    expect(json.properties.o!.nullable).toBe(true);
    expect(json.properties.o!.anyOf).toBeUndefined();
  });

  it('a default is written when the value is missing', () => {
    const schema = z.object({ a: z.string().default('x'), b: z.number() });
    expect(JSON.parse(compileResponseSchema(schema)!({ b: 1 }))).toEqual({ a: 'x', b: 1 });
  });

  it('schemas JSON Schema cannot say keep the zod parse (a transform runs)', () => {
    const schema = z.object({ n: z.number().transform((n) => n * 2) });
    expect(compileResponseSchema(schema)).toBeNull();
    const serialize = responseSerializerCompiler({ validate: false })({ schema, method: 'GET', url: '/x' });
    expect(serialize({ n: 2 })).toBe('{"n":4}');
  });

  it('with validation on, an answer that breaks its schema is refused (as the zod serialiser did)', () => {
    const serialize = responseSerializerCompiler({ validate: true })({ schema: z.object({ a: z.string() }), method: 'GET', url: '/x' });
    expect(serialize({ a: 'ok' })).toBe('{"a":"ok"}');
    expect(() => serialize({ a: 1 })).toThrow(/Response doesn't match the schema|serializ/i);
  });
});
