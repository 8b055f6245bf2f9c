import { randomBytes, randomUUID } from 'node:crypto';
import type { Track, UploadAccepted } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { TrackUploaded, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import type { MediaClient } from '../../clients/media.client.js';
import { probeMatches } from '../uploads/audio-format.js';
import { discard, receiveUpload, type UploadSource } from '../uploads/upload-receiver.js';
import { slugify, todayUtc, UploadFieldsSchema, type UploadFields } from '../uploads/upload-fields.js';
import type { TrackRow } from './track.mapper.js';
import type { TrackEvents } from './track-events.js';
import { newSecretToken } from './track-lifecycle.service.js';
import type { TrackPresenter } from './track-presenter.js';
import type { TrackReadsRepository } from './track-reads.repository.js';
import { overQuota, quotaMessage } from './track-rules.js';
import { uniqueViolationTarget } from '../../unique-violation.js';
import type { TracksRepository, Tx } from './tracks.repository.js';

export interface TrackUploadServiceDeps {
  repo: Pick<TracksRepository, 'transaction' | 'countOwned' | 'lockArtist' | 'uploadIdTaken' | 'freeSlug' | 'create' | 'findById'>;
  reads: Pick<TrackReadsRepository, 'userFlags'>;
  events: TrackEvents;
  presenter: Pick<TrackPresenter, 'presentOne'>;
  /** Catalog's bucket, named in the upload event. */
  storage: Pick<ObjectStorage, 'bucket'>;
  /** Where uploads stream to (catalog's bucket). */
  uploadStorage: Pick<ObjectStorage, 'bucket' | 'putStream' | 'remove'>;
  media: Pick<MediaClient, 'probe'>;
  limits: { audioMaxBytes: number; coverMaxBytes: number; audioMaxDurationSeconds: number; freeTrackQuota: number; uploadWaitMs: number };
}

/** TRK-1, TRK-2 (R11, R12): uploads, from the multipart stream to the stored track and its events. */
export class TrackUploadService {
  constructor(private readonly deps: TrackUploadServiceDeps) {}

  /** R12: FREE accounts own at most the quota (the tier from catalog's projection, not the token). */
  private async checkQuota(caller: Caller, tx?: Tx) {
    const tier = (await this.deps.reads.userFlags(caller.userId))?.tier;
    if (tier === 'PRO') return;
    const owned = await this.deps.repo.countOwned(caller.userId, tx);
    if (overQuota(tier, owned, this.deps.limits.freeTrackQuota)) throw new AppError('UPLOAD_QUOTA_EXCEEDED', quotaMessage(this.deps.limits.freeTrackQuota));
  }

  async upload(source: UploadSource, caller: Caller, mode: 'v1' | 'v2', correlationId: string): Promise<{ status: 201 | 202; body: Track | UploadAccepted }> {
    const { limits, uploadStorage } = this.deps;
    await this.checkQuota(caller);
    if (Number.isFinite(source.contentLength) && source.contentLength > limits.audioMaxBytes + limits.coverMaxBytes + 1024 * 1024) {
      throw new AppError('PAYLOAD_TOO_LARGE', `The audio file is larger than ${limits.audioMaxBytes} bytes.`);
    }
    const received = await receiveUpload(source, {
      storage: uploadStorage,
      audioMaxBytes: limits.audioMaxBytes,
      coverMaxBytes: limits.coverMaxBytes,
      audioField: 'audioFile',
      coverField: 'coverImage',
    });
    try {
      const parsed = UploadFieldsSchema.safeParse(received.fields);
      const problems = parsed.success ? [] : parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message }));
      if (!received.audio) problems.push({ field: 'audioFile', message: 'Required' });
      if (mode === 'v2' && !received.fields.uploadId) problems.push({ field: 'uploadId', message: 'Required' });
      if (problems.length > 0 || !parsed.success || !received.audio) throw AppError.validation(problems);
      const fields = parsed.data;
      const audio = received.audio;

      const probe = await this.deps.media.probe(uploadStorage.bucket, audio.key);
      if (!probeMatches(audio.format, probe)) {
        throw new AppError('UNSUPPORTED_AUDIO_FORMAT', 'The file is not playable audio in an accepted format.');
      }
      const maxSeconds = limits.audioMaxDurationSeconds;
      if (probe.durationSeconds !== null && probe.durationSeconds > maxSeconds) {
        const message = `Audio may be at most ${formatDuration(maxSeconds)} long; this file is ${formatDuration(Math.round(probe.durationSeconds))}.`;
        throw AppError.validation([{ field: 'audioFile', message }], message);
      }

      const uploadId = fields.uploadId ?? randomUUID();
      const row = await this.createTrack(caller, fields, uploadId, audio, received.cover?.key ?? null, correlationId);
      if (mode === 'v2') return { status: 201, body: { id: row.id, title: row.title, uploadId: row.uploadId, trackState: row.state } };
      return this.waitForProcessing(row.id, caller);
    } catch (err) {
      await discard(uploadStorage, received.keys);
      throw err;
    }
  }

  private async createTrack(
    caller: Caller,
    fields: UploadFields,
    uploadId: string,
    audio: { key: string; format: string; size: number },
    coverUploadKey: string | null,
    correlationId: string,
  ): Promise<TrackRow> {
    const { repo, events, storage } = this.deps;
    const base = slugify(fields.title);
    for (let attempt = 0; ; attempt++) {
      try {
        return await repo.transaction(async (tx) => {
          // R12 again under a per-artist lock: two parallel uploads cannot both take the last slot.
          await repo.lockArtist(tx, caller.userId);
          await this.checkQuota(caller, tx);
          if (await repo.uploadIdTaken(tx, uploadId)) throw new AppError('UPLOAD_ID_CONFLICT', 'This uploadId was already used.');
          const trackSlug = attempt === 0 ? await repo.freeSlug(base, tx) : `${base}-${randomBytes(3).toString('hex')}`;
          const row = await repo.create(tx, {
            artistId: caller.userId,
            title: fields.title,
            trackSlug,
            description: fields.description ?? null,
            genre: fields.genre,
            tags: fields.tags ?? [],
            releaseDate: new Date(`${fields.releaseDate ?? todayUtc()}T00:00:00.000Z`),
            isPrivate: fields.isPrivate ?? false,
            access: fields.access ?? 'PLAYABLE',
            secretToken: newSecretToken(),
            uploadId,
            originalKey: audio.key,
            originalFormat: audio.format,
            originalSize: audio.size,
            coverUploadKey,
          });
          await writeOutbox(
            tx,
            TrackUploaded,
            {
              trackId: row.id,
              uploadId,
              artistId: caller.userId,
              bucket: storage.bucket,
              originalKey: audio.key,
              format: audio.format,
              sizeBytes: audio.size,
              coverKey: coverUploadKey,
              attempt: 1,
            },
            { correlationId },
          );
          await events.publishStatus(tx, row, correlationId);
          await events.emitChanged(tx, row, correlationId);
          return row;
        });
      } catch (err) {
        const target = uniqueViolationTarget(err);
        if (target !== null) {
          if (target.includes('upload')) throw new AppError('UPLOAD_ID_CONFLICT', 'This uploadId was already used.');
          if (attempt < 2) continue; // slug taken by a concurrent upload
        }
        throw err;
      }
    }
  }

  /** TRK-1: 201 when FINISHED within the wait, 422 when FAILED, else 202 with the PROCESSING track. */
  private async waitForProcessing(trackId: number, caller: Caller): Promise<{ status: 201 | 202; body: Track }> {
    const deadline = Date.now() + this.deps.limits.uploadWaitMs;
    let row = await this.deps.repo.findById(trackId);
    while (row && row.state !== 'FINISHED' && row.state !== 'FAILED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      row = await this.deps.repo.findById(trackId);
    }
    if (!row) throw new AppError('TRACK_NOT_FOUND');
    if (row.state === 'FAILED') throw new AppError('TRACK_PROCESSING_FAILED', row.errorMessage ?? 'Processing failed.');
    const track = await this.deps.presenter.presentOne(row, caller);
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    return { status: row.state === 'FINISHED' ? 201 : 202, body: { ...track, durationSeconds: row.durationSeconds } };
  }
}

/** 10800 → "3 h", 5400 → "1 h 30 min", 90 → "1 min 30 s". */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h ? `${h} h` : '', m ? `${m} min` : '', s || (!h && !m) ? `${s} s` : ''].filter(Boolean).join(' ');
}
