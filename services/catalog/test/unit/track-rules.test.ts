import { describe, expect, it } from 'vitest';
import type { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import { TrackAccess } from '../../src/modules/tracks/track-access.js';
import type { ReadTrack, TrackReadsRepository } from '../../src/modules/tracks/track-reads.repository.js';
import { canSee, overQuota, renditionsFor } from '../../src/modules/tracks/track-rules.js';
import { TrackUploadService, type TrackUploadServiceDeps } from '../../src/modules/tracks/track-upload.service.js';
import { pageTotal } from '../../src/modules/tracks/track-reads.service.js';

const ARTIST = 7;
const caller = (userId: number, role: Caller['role'] = 'LISTENER'): Caller => ({ userId, role, tier: 'FREE', sessionId: null, username: null });
const facts = (over: Partial<Parameters<typeof canSee>[0]> = {}) => ({
  artistId: ARTIST,
  deletedAt: null,
  isPrivate: false,
  heldBack: false,
  state: 'FINISHED',
  artistHidden: false,
  blocked: false,
  ...over,
});

describe('R2 visibility (with R7 blocks and R14 hidden artists)', () => {
  it('shows a public FINISHED track of a present artist to anyone, anonymous callers included', () => {
    expect(canSee(facts(), null)).toBe(true);
    expect(canSee(facts(), caller(1))).toBe(true);
  });

  it('hides private, unfinished, deleted tracks, banned or deleted artists and blocked artists from others', () => {
    for (const over of [
      { isPrivate: true },
      { heldBack: true },
      { state: 'PROCESSING' },
      { state: 'FAILED' },
      { deletedAt: new Date() },
      { artistHidden: true },
      { blocked: true },
    ]) {
      expect(canSee(facts(over), caller(1)), JSON.stringify(over)).toBe(false);
    }
  });

  it('shows the artist and admins their private and unfinished tracks, never deleted ones', () => {
    for (const who of [caller(ARTIST, 'ARTIST'), caller(99, 'ADMIN')]) {
      expect(canSee(facts({ isPrivate: true, state: 'PROCESSING' }), who)).toBe(true);
      expect(canSee(facts({ heldBack: true }), who)).toBe(true);
      expect(canSee(facts({ deletedAt: new Date() }), who)).toBe(false);
    }
    // Admins see through blocks and bans (R14: hidden from all but admins).
    expect(canSee(facts({ blocked: true, artistHidden: true }), caller(99, 'ADMIN'))).toBe(true);
  });
});

describe('R3 access levels', () => {
  const row = (access: string, over: Partial<{ state: string; progressiveKey: string | null }> = {}) => ({
    access,
    state: 'FINISHED',
    progressiveKey: 'k',
    ...over,
  });

  it('gives others the full stream for PLAYABLE, the preview only for PREVIEW, nothing for BLOCKED', () => {
    expect(renditionsFor(row('PLAYABLE'), 'v')).toEqual({ full: true, preview: true });
    expect(renditionsFor(row('PREVIEW'), 'v')).toEqual({ full: false, preview: true });
    expect(renditionsFor(row('BLOCKED'), 't')).toEqual({ full: false, preview: false });
  });

  it('gives the artist and admins everything, and nobody anything before the track is FINISHED', () => {
    expect(renditionsFor(row('BLOCKED'), 'o')).toEqual({ full: true, preview: true });
    expect(renditionsFor(row('PLAYABLE', { state: 'PROCESSING' }), 'o')).toEqual({ full: false, preview: false });
    expect(renditionsFor(row('PLAYABLE', { progressiveKey: null }), 'o')).toEqual({ full: false, preview: false });
  });
});

describe('TrackAccess with a fake repository (404 for what the caller may not see, 403 for non-owners)', () => {
  const rows = new Map<number, object>([
    [1, facts()],
    [2, facts({ isPrivate: true })],
    [3, facts({ blocked: true })],
  ]);
  const reads = { byId: async (id: number) => (rows.get(id) ? ({ id, ...rows.get(id) } as ReadTrack) : null) } as unknown as TrackReadsRepository;
  const access = new TrackAccess(reads);
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'OK',
      (err: AppError) => err.code,
    );

  it('answers TRACK_NOT_FOUND for unknown, private and blocked tracks alike', async () => {
    expect(await code(access.visible(1, caller(1)))).toBe('OK');
    for (const id of [2, 3, 404]) expect(await code(access.visible(id, caller(1)))).toBe('TRACK_NOT_FOUND');
  });

  it('answers FORBIDDEN to a non-owner who can see the track, TRACK_NOT_FOUND when they cannot', async () => {
    expect(await code(access.owned(1, caller(ARTIST, 'ARTIST'), 'FORBIDDEN'))).toBe('OK');
    expect(await code(access.owned(1, caller(1), 'FORBIDDEN'))).toBe('FORBIDDEN');
    expect(await code(access.owned(2, caller(1), 'FORBIDDEN'))).toBe('TRACK_NOT_FOUND');
    expect(await code(access.owned(1, caller(1), 'TRACK_NOT_FOUND'))).toBe('TRACK_NOT_FOUND');
  });
});

describe('R12 quota', () => {
  it('refuses FREE accounts at the quota (every non-deleted track counts), never PRO', () => {
    expect(overQuota('FREE', 9, 10)).toBe(false);
    expect(overQuota('FREE', 10, 10)).toBe(true);
    expect(overQuota(undefined, 10, 10)).toBe(true); // not in the projection yet: FREE
    expect(overQuota('PRO', 1000, 10)).toBe(false);
  });

  /** An upload service whose repositories are fakes; the body source is never read when the quota refuses. */
  function uploads(tier: string | null, owned: number) {
    const deps = {
      reads: { userFlags: async () => (tier ? { tier, showHistory: true } : null) },
      repo: { countOwned: async () => owned },
      limits: { audioMaxBytes: 100, coverMaxBytes: 10, audioMaxDurationSeconds: 60, freeTrackQuota: 10, uploadWaitMs: 0 },
    } as unknown as TrackUploadServiceDeps;
    const source = {
      contentLength: 5_000_000,
      raw: { complete: true, once: () => undefined, off: () => undefined },
      parts: () => {
        throw new Error('body read');
      },
    };
    return (callerTier: Caller) => new TrackUploadService(deps).upload(source, callerTier, 'v2', 'req').catch((err: AppError) => err);
  }

  it('answers UPLOAD_QUOTA_EXCEEDED with "out of free tracks" before reading the body, from the stored tier not the token', async () => {
    const pro = { ...caller(ARTIST, 'ARTIST'), tier: 'PRO' as const };
    const err = (await uploads('FREE', 10)(pro)) as AppError;
    expect(err.code).toBe('UPLOAD_QUOTA_EXCEEDED');
    expect(err.message).toContain('out of free tracks');
    // Under the quota (or PRO) the next rule applies: the declared size (5 MB > the limits + 1 MB) → 413, body still unread.
    expect(((await uploads('FREE', 9)(caller(ARTIST))) as AppError).code).toBe('PAYLOAD_TOO_LARGE');
    expect(((await uploads('PRO', 50)(caller(ARTIST))) as AppError).code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('page totals without a count', () => {
  const never = async () => {
    throw new Error('counted');
  };
  it('takes the total from a short page, or from a kept count that agrees with a full page', async () => {
    expect(await pageTotal(3, { page: 2, size: 20 }, never)).toBe(43);
    expect(await pageTotal(20, { page: 100, size: 20 }, never, 5000)).toBe(5000);
  });
  it('counts when the page cannot tell (empty, or the kept count disagrees)', async () => {
    expect(await pageTotal(0, { page: 9, size: 20 }, async () => 4)).toBe(4);
    expect(await pageTotal(20, { page: 100, size: 20 }, async () => 2100, 1500)).toBe(2100);
  });
});
