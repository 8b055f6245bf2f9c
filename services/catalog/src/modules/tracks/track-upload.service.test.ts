import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ProbeResult, Track } from '@msp/contracts';
import { TrackChanged, TrackUploaded, TrackUploadStatus } from '@msp/events';
import type { Caller } from '@msp/http';
import { outboxRecorder } from '@msp/testing/fakes';
import { bob, trackRow } from '../../../test/unit/fakes.js';
import type { UploadSource } from '../uploads/upload-receiver.js';
import type { TrackRow } from './track.mapper.js';
import { TrackEvents } from './track-events.js';
import { formatDuration, TrackUploadService, type TrackUploadServiceDeps } from './track-upload.service.js';
import type { Tx } from './tracks.repository.js';

const UPLOAD_ID = '0b5a7c3e-2f1d-4e6a-9b8c-1d2e3f4a5b6c';
const MP3 = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(64, 1)]);
const mp3Probe = (durationSeconds: number | null = 120): ProbeResult => ({
  readable: true,
  formatName: 'mp3',
  durationSeconds,
  audioStreams: [{ codecName: 'mp3', packets: 10 }],
  videoStreams: 0,
});

/** A multipart body: text fields and, unless `audio` is null, the audio file part. */
function body(fields: Record<string, string>, audio: Buffer | null = MP3, contentLength = Number.NaN): UploadSource {
  return {
    contentLength,
    async *parts() {
      for (const [fieldname, value] of Object.entries(fields)) yield { type: 'field', fieldname, value } as never;
      if (audio) yield { type: 'file', fieldname: 'audioFile', file: Readable.from([audio]) } as never;
    },
  };
}

interface World {
  tier?: string;
  owned?: number;
  probe?: ProbeResult;
  uploadIdTaken?: boolean;
  /** The state processing reaches while TRK-1 waits. */
  processed?: Partial<TrackRow>;
}

function world(options: World = {}) {
  const { tx, events } = outboxRecorder({ correlationIds: true });
  const stored = new Map<string, number>();
  const removed: string[] = [];
  let created: TrackRow | null = null;
  const repo: TrackUploadServiceDeps['repo'] = {
    transaction: async (fn) => fn(tx as unknown as Tx),
    countOwned: async () => options.owned ?? 0,
    lockArtist: async () => undefined,
    uploadIdTaken: async () => options.uploadIdTaken ?? false,
    freeSlug: async (base) => base,
    create: async (_tx, track) => {
      created = trackRow({ ...track, id: 70, state: 'PROCESSING', isPrivate: track.isPrivate, publishedAt: null });
      return created;
    },
    findById: async () => (created ? { ...created, ...options.processed } : null),
  };
  const presenter = {
    assetUrl: () => null,
    presentOne: async (row: TrackRow) => ({ id: row.id, state: row.state }) as unknown as Track,
  };
  const uploadStorage = {
    bucket: 'catalog',
    putStream: async (key: string, source: AsyncIterable<Buffer>) => {
      let size = 0;
      for await (const chunk of source) size += chunk.length;
      stored.set(key, size);
      return size;
    },
    remove: async (keys: string[]) => {
      removed.push(...keys);
    },
  };
  const service = new TrackUploadService({
    repo,
    reads: { userFlags: async () => ({ showHistory: true, tier: options.tier ?? 'FREE' }) },
    events: new TrackEvents({ countPublic: async () => 0, setTrackCount: async () => undefined }, presenter),
    presenter,
    storage: { bucket: 'catalog' },
    uploadStorage,
    media: { probe: async () => options.probe ?? mp3Probe() },
    limits: { audioMaxBytes: 1_000, coverMaxBytes: 1_000, audioMaxDurationSeconds: 10_800, freeTrackQuota: 3, uploadWaitMs: 0 },
  });
  return { service, events, stored, removed, created: () => created };
}

const fields = { title: 'First Light', genre: 'Ambient', uploadId: UPLOAD_ID };
const free: Caller = bob;

describe('TRK-2 upload a track (v2)', () => {
  it('stores the track, answers 201 with its uploadId and emits TrackUploaded, its status and TrackChanged together', async () => {
    const w = world();
    const result = await w.service.upload(body(fields), free, 'v2', 'corr');
    expect(result).toEqual({ status: 201, body: { id: 70, title: 'First Light', uploadId: UPLOAD_ID, trackState: 'PROCESSING' } });
    expect(w.created()).toMatchObject({ artistId: 2, trackSlug: 'first-light', access: 'PLAYABLE', isPrivate: false });
    expect(w.events.map((e) => e.type)).toEqual([TrackUploaded.type, TrackUploadStatus.type, TrackChanged.type]);
    expect(w.events[0]!.data).toMatchObject({ trackId: 70, uploadId: UPLOAD_ID, format: 'mp3', sizeBytes: MP3.length, attempt: 1 });
    expect(w.removed).toEqual([]);
  });

  it('requires the uploadId in v2 and the audio file, with the fields named (VALIDATION_FAILED), and discards what was stored', async () => {
    const w = world();
    await expect(w.service.upload(body({ title: 'x', genre: 'g' }), free, 'v2', 'c')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'uploadId', message: 'Required' }],
    });
    expect(w.removed).toHaveLength(1);
    await expect(w.service.upload(body(fields, null), free, 'v2', 'c')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'audioFile', message: 'Required' }],
    });
  });

  it('answers UPLOAD_ID_CONFLICT for an uploadId already used', async () => {
    const w = world({ uploadIdTaken: true });
    await expect(w.service.upload(body(fields), free, 'v2', 'c')).rejects.toMatchObject({ code: 'UPLOAD_ID_CONFLICT' });
    expect(w.events).toEqual([]);
    expect(w.removed).toHaveLength(1);
  });
});

describe('R11 audio checks', () => {
  it('refuses bytes that are no audio format with UNSUPPORTED_AUDIO_FORMAT before probing', async () => {
    await expect(world().service.upload(body(fields, Buffer.from('hello, this is text')), free, 'v2', 'c')).rejects.toMatchObject({
      code: 'UNSUPPORTED_AUDIO_FORMAT',
    });
  });

  it('refuses a file the probe does not find playable in its format, and discards it', async () => {
    const w = world({ probe: { ...mp3Probe(), videoStreams: 1 } });
    await expect(w.service.upload(body(fields), free, 'v2', 'c')).rejects.toMatchObject({ code: 'UNSUPPORTED_AUDIO_FORMAT' });
    expect(w.removed).toEqual([...w.stored.keys()]);
  });

  it('refuses audio longer than the limit on audioFile, saying both durations', async () => {
    await expect(world({ probe: mp3Probe(10_801) }).service.upload(body(fields), free, 'v2', 'c')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'audioFile', message: 'Audio may be at most 3 h long; this file is 3 h 1 s.' }],
    });
  });

  it('refuses a declared body far beyond the limits with PAYLOAD_TOO_LARGE before reading it', async () => {
    const w = world();
    await expect(w.service.upload(body(fields, MP3, 50 * 1024 * 1024), free, 'v2', 'c')).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(w.stored.size).toBe(0);
  });

  it('refuses an audio part larger than the limit with PAYLOAD_TOO_LARGE', async () => {
    await expect(world().service.upload(body(fields, Buffer.concat([MP3, Buffer.alloc(2_000)])), free, 'v2', 'c')).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
  });
});

describe('R12 upload quota', () => {
  it('refuses a FREE account at its quota with UPLOAD_QUOTA_EXCEEDED, from the stored tier', async () => {
    const w = world({ owned: 3 });
    await expect(w.service.upload(body(fields), { ...free, tier: 'PRO' }, 'v2', 'c')).rejects.toMatchObject({ code: 'UPLOAD_QUOTA_EXCEEDED' });
    expect(w.stored.size).toBe(0);
  });

  it('lets a PRO account upload beyond it', async () => {
    await expect(world({ owned: 50, tier: 'PRO' }).service.upload(body(fields), free, 'v2', 'c')).resolves.toMatchObject({ status: 201 });
  });
});

describe('TRK-1 upload and wait for processing (v1)', () => {
  it('answers 201 when processing finished, 202 while it runs, TRACK_PROCESSING_FAILED when it failed', async () => {
    const v1 = { title: 'First Light', genre: 'Ambient' };
    await expect(world({ processed: { state: 'FINISHED' } }).service.upload(body(v1), free, 'v1', 'c')).resolves.toMatchObject({
      status: 201,
      body: { id: 70, durationSeconds: 60 },
    });
    await expect(world().service.upload(body(v1), free, 'v1', 'c')).resolves.toMatchObject({ status: 202 });
    await expect(world({ processed: { state: 'FAILED', errorMessage: 'bad file' } }).service.upload(body(v1), free, 'v1', 'c')).rejects.toMatchObject({
      code: 'TRACK_PROCESSING_FAILED',
      message: 'bad file',
    });
  });
});

describe('formatDuration', () => {
  it('names hours, minutes and seconds that are not zero', () => {
    expect(formatDuration(10_800)).toBe('3 h');
    expect(formatDuration(5_400)).toBe('1 h 30 min');
    expect(formatDuration(90)).toBe('1 min 30 s');
    expect(formatDuration(0)).toBe('0 s');
  });
});
