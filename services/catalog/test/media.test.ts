import { describe, expect, it } from 'vitest';
import { probeMatches, sniffAudio, sniffImage } from '../src/modules/uploads/audio-format.js';
import { slugify, UploadFieldsSchema } from '../src/modules/uploads/upload-fields.js';
import { MediaSigner } from '../src/modules/media/media-signer.js';
import { parseRange } from '../src/modules/media/send-object.js';

const probe = (formatName: string, codecName: string, extra: Partial<{ packets: number; videoStreams: number; streams: number }> = {}) => ({
  readable: true,
  formatName,
  durationSeconds: 3,
  audioStreams: Array.from({ length: extra.streams ?? 1 }, () => ({ codecName, packets: extra.packets ?? 50 })),
  videoStreams: extra.videoStreams ?? 0,
});

describe('R11 audio judged by content', () => {
  it('recognises each accepted format by its first bytes, never by name', () => {
    expect(sniffAudio(Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00', 'latin1'))).toBe('mp3');
    expect(sniffAudio(Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0, 0, 0, 0, 0]))).toBe('mp3');
    expect(sniffAudio(Buffer.from([0xff, 0xf1, 0x50, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]))).toBe('aac');
    expect(sniffAudio(Buffer.from('RIFF\x24\x00\x00\x00WAVE', 'latin1'))).toBe('wav');
    expect(sniffAudio(Buffer.from('fLaC\x00\x00\x00\x22\x00\x00\x00\x00', 'latin1'))).toBe('flac');
    expect(sniffAudio(Buffer.from('OggS\x00\x02\x00\x00\x00\x00\x00\x00', 'latin1'))).toBe('ogg');
    expect(sniffAudio(Buffer.from('\x00\x00\x00\x20ftypM4A ', 'latin1'))).toBe('m4a');
    expect(sniffAudio(Buffer.from('just some text'))).toBeNull();
    expect(sniffAudio(Buffer.alloc(0))).toBeNull();
    expect(sniffAudio(Buffer.from('RIFF\x24\x00\x00\x00WEBP', 'latin1'))).toBeNull();
    expect(sniffImage(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe('png');
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffImage(Buffer.from('RIFF\x24\x00\x00\x00WEBP', 'latin1'))).toBe('webp');
  });

  it('needs ffprobe to find exactly one audio stream of the sniffed format, with packets', () => {
    expect(probeMatches('mp3', probe('mp3', 'mp3'))).toBe(true);
    expect(probeMatches('m4a', probe('mov,mp4,m4a,3gp,3g2,mj2', 'aac'))).toBe(true);
    expect(probeMatches('ogg', probe('ogg', 'opus'))).toBe(true);
    expect(probeMatches('mp3', probe('wav', 'pcm_s16le'))).toBe(false);
    expect(probeMatches('mp3', probe('mp3', 'mp3', { packets: 0 }))).toBe(false);
    expect(probeMatches('m4a', probe('mov,mp4,m4a,3gp,3g2,mj2', 'aac', { videoStreams: 1 }))).toBe(false);
    expect(probeMatches('wav', probe('wav', 'pcm_s16le', { streams: 2 }))).toBe(false);
    expect(probeMatches('mp3', { readable: false, formatName: null, durationSeconds: null, audioStreams: [], videoStreams: 0 })).toBe(false);
  });

  it('validates the upload fields: tags lower-cased and de-duplicated, booleans as text, bad values named', () => {
    const ok = UploadFieldsSchema.parse({ title: '  Night Drive ', genre: 'Techno', tags: '["Night"," night ","Drive"]', isPrivate: 'true' });
    expect(ok).toMatchObject({ title: 'Night Drive', tags: ['night', 'drive'], isPrivate: true });
    const bad = UploadFieldsSchema.safeParse({ title: 'x'.repeat(201), genre: '', tags: '[1]', releaseDate: '2025-02-30', waveformData: '[2]' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path[0]).sort()).toEqual(['genre', 'releaseDate', 'tags', 'title', 'waveformData']);
    expect(slugify('Ünïcödé — Song!! 2')).toBe('unicode-song-2');
    expect(slugify('<script>')).toBe('script');
    expect(slugify('!!!')).toBe('track');
  });
});

describe('R4 signed media URLs', () => {
  const signer = new MediaSigner('a-test-secret-of-enough-length', 3600, 'https://api.test/');

  function query(url: string) {
    const u = new URL(url);
    return { e: Number(u.searchParams.get('e')), g: u.searchParams.get('g') as 'o' | 'v' | 't', s: u.searchParams.get('s')! };
  }

  it('verifies a URL for its own track and scope only, until it expires', () => {
    const exp = signer.expiry();
    const url = signer.renditionUrl(7, 'full.m4a', 'v', exp);
    expect(url).toMatch(/^https:\/\/api\.test\/api\/media\/tracks\/7\/full\.m4a\?e=\d+&g=v&s=/);
    expect(signer.verify(7, 'full', query(url), '')).toBe(true);
    expect(signer.verify(8, 'full', query(url), '')).toBe(false);
    expect(signer.verify(7, 'preview', query(url), '')).toBe(false);
    expect(signer.verify(7, 'full', { ...query(url), g: 'o' }, '')).toBe(false);
    expect(signer.verify(7, 'full', query(url), '', (exp + 1) * 1000)).toBe(false);
    expect(new MediaSigner('another-secret-of-enough-length', 3600, 'https://api.test').verify(7, 'full', query(url), '')).toBe(false);
  });

  it('binds secret-token URLs to the current token (TRK-12 kills them)', () => {
    const url = signer.renditionUrl(7, 'preview.m4a', 't', signer.expiry(), 'token-one');
    expect(signer.verify(7, 'preview', query(url), 'token-one')).toBe(true);
    expect(signer.verify(7, 'preview', query(url), 'token-two')).toBe(false);
  });
});

describe('HTTP Range parsing', () => {
  it('handles the three single-range forms and refuses what lies beyond the end', () => {
    expect(parseRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=990-5000', 1000)).toEqual({ start: 990, end: 999 });
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=5-1', 1000)).toBeNull();
    expect(parseRange('items=0-1', 1000)).toBeNull();
    expect(parseRange(undefined, 1000)).toBeNull();
  });
});
