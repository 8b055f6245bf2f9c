import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { StoredObject } from '@msp/storage';
import { MediaSigner, type MediaGrant, type MediaScope, type SignedQuery } from './media-signer.js';
import type { MediaTrackRow } from './media.repository.js';
import { MediaService } from './media.service.js';

const signer = new MediaSigner('unit-test-secret', 600, 'https://example.test/');

function track(overrides: Partial<MediaTrackRow> = {}): MediaTrackRow {
  return {
    id: 7,
    artistId: 2,
    state: 'FINISHED',
    isPrivate: false,
    heldBack: false,
    access: 'PLAYABLE',
    deletedAt: null,
    secretToken: 'tok',
    progressiveKey: 'tracks/7/full.m4a',
    previewKey: 'tracks/7/preview.m4a',
    hlsPlaylistKey: 'tracks/7/hls/index.m3u8',
    hlsPrefix: 'tracks/7/hls/',
    artistBanned: false,
    ...overrides,
  };
}

/** A signed query as the signer mints it for the track. */
function signed(scope: MediaScope, grant: MediaGrant, binding = ''): SignedQuery {
  const params = new URLSearchParams(signer.query(7, scope, grant, signer.expiry(), binding));
  return { e: Number(params.get('e')), g: params.get('g') as MediaGrant, s: params.get('s')! };
}

function service(row: MediaTrackRow | null, objects: Record<string, string> = {}) {
  const storage = {
    stat: async (key: string) => (key in objects ? ({ size: objects[key]!.length } as StoredObject) : null),
    get: async (key: string) => Readable.from([Buffer.from(objects[key] ?? '')]),
  };
  return new MediaService({ track: async () => row }, signer, storage);
}

describe('MEDIA-1 R4: every byte request re-checks the signature and the track as it is now', () => {
  it("accepts a viewer's URL of a public playable track", async () => {
    await expect(service(track()).authorise(7, 'full', signed('full', 'v'))).resolves.toMatchObject({ id: 7 });
  });

  it('refuses a forged, expired or other-scope signature with FORBIDDEN', async () => {
    const q = signed('preview', 'v');
    await expect(service(track()).authorise(7, 'full', q)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service(track()).authorise(7, 'preview', { ...q, s: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service(track()).authorise(7, 'preview', { ...q, e: 1 })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('binds token URLs to the secret token (TRK-12 kills the old ones)', async () => {
    const q = signed('full', 't', 'tok');
    await expect(service(track()).authorise(7, 'full', q)).resolves.toMatchObject({ id: 7 });
    await expect(service(track({ secretToken: 'new' })).authorise(7, 'full', q)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('answers TRACK_NOT_FOUND for a deleted or unfinished track, and for a viewer once it turns private or held back', async () => {
    const q = signed('full', 'v');
    await expect(service(track({ deletedAt: new Date() })).authorise(7, 'full', q)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(track({ state: 'PROCESSING' })).authorise(7, 'full', q)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(track({ isPrivate: true })).authorise(7, 'full', q)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(track({ heldBack: true })).authorise(7, 'full', q)).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(track({ isPrivate: true })).authorise(7, 'full', signed('full', 'o'))).resolves.toMatchObject({ id: 7 });
  });

  it("R14: a viewer's or token URL stops working when the artist is banned, the owner's does not", async () => {
    const banned = track({ artistBanned: true });
    await expect(service(banned).authorise(7, 'full', signed('full', 'v'))).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(banned).authorise(7, 'full', signed('full', 't', 'tok'))).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(banned).authorise(7, 'full', signed('full', 'o'))).resolves.toMatchObject({ id: 7 });
  });

  it('R3: PREVIEW tracks serve only the preview to viewers, BLOCKED tracks nothing (TRACK_NOT_PLAYABLE); owners get all', async () => {
    await expect(service(track({ access: 'PREVIEW' })).authorise(7, 'full', signed('full', 'v'))).rejects.toMatchObject({ code: 'TRACK_NOT_PLAYABLE' });
    await expect(service(track({ access: 'PREVIEW' })).authorise(7, 'preview', signed('preview', 'v'))).resolves.toMatchObject({ id: 7 });
    await expect(service(track({ access: 'BLOCKED' })).authorise(7, 'preview', signed('preview', 'v'))).rejects.toMatchObject({
      code: 'TRACK_NOT_PLAYABLE',
    });
    await expect(service(track({ access: 'BLOCKED' })).authorise(7, 'full', signed('full', 'o'))).resolves.toMatchObject({ id: 7 });
  });
});

describe('MEDIA-1 / MEDIA-2 HLS playlists', () => {
  const master = '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000\naac_64k.m3u8\nunknown.m3u8\n';
  const media = '#EXTM3U\n#EXTINF:4,\naac_64k_0001.ts\n../../etc/passwd\n#EXT-X-ENDLIST';

  it("signs the master's media playlists with the playlist's grant and expiry and drops names no route serves", async () => {
    const q = signed('full', 'v');
    const text = await service(null, { 'tracks/7/hls/index.m3u8': master }).hlsPlaylist(track(), 'index.m3u8', q);
    const lines = text.split('\n');
    expect(lines[0]).toBe('#EXTM3U');
    expect(lines[2]).toMatch(new RegExp(`^https://example.test/api/media/tracks/7/aac_64k.m3u8\\?e=${q.e}&g=v&s=`));
    expect(lines[3]).toBe('');
  });

  it('signs segments and leaves out anything that is not a segment name', async () => {
    const text = await service(null, { 'tracks/7/hls/aac_64k.m3u8': media }).hlsPlaylist(track(), 'aac_64k.m3u8', signed('full', 'v'));
    const lines = text.split('\n');
    expect(lines[2]).toMatch(/^https:\/\/example\.test\/api\/media\/tracks\/7\/segments\/aac_64k_0001\.ts\?e=/);
    expect(lines[3]).toBe('');
    expect(lines[4]).toBe('#EXT-X-ENDLIST');
  });

  it('answers TRACK_NOT_FOUND for a track without HLS or a missing object', async () => {
    await expect(service(null).hlsPlaylist(track({ hlsPrefix: null }), 'index.m3u8', signed('full', 'v'))).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
    await expect(service(null).hlsPlaylist(track(), 'aac_128k.m3u8', signed('full', 'v'))).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });
});
