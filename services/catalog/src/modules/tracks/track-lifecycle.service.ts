import { randomBytes } from 'node:crypto';
import type { PublishResult, Track, UploadStatusMessage } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { TrackDeleted, TrackUploaded, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import type { CoverImages } from '../uploads/cover-images.js';
import type { TrackUpdate } from '../uploads/upload-fields.js';
import type { TrackAccess } from './track-access.js';
import { counted, type TrackEvents } from './track-events.js';
import type { TrackPresenter } from './track-presenter.js';
import type { TracksRepository } from './tracks.repository.js';

export const newSecretToken = () => randomBytes(24).toString('base64url');

export interface TrackLifecycleServiceDeps {
  repo: Pick<TracksRepository, 'transaction' | 'restartProcessing' | 'update' | 'username' | 'findById' | 'softDelete' | 'setSecretToken'>;
  access: TrackAccess;
  events: TrackEvents;
  presenter: Pick<TrackPresenter, 'presentOne'>;
  /** Catalog's bucket (renditions, originals). */
  storage: Pick<ObjectStorage, 'bucket' | 'list' | 'remove'>;
  covers: Pick<CoverImages, 'store' | 'remove'>;
  webBaseUrl: string;
}

/** TRK-3 … TRK-12 and MOD-11: status, retry, publish, metadata, deletion, covers, secret tokens. */
export class TrackLifecycleService {
  constructor(private readonly deps: TrackLifecycleServiceDeps) {}

  async status(trackId: number, caller: Caller): Promise<UploadStatusMessage> {
    const row = await this.deps.access.owned(trackId, caller, 'TRACK_NOT_FOUND');
    const trackResponse = row.state === 'FINISHED' ? await this.deps.presenter.presentOne(row, caller) : null;
    return this.deps.events.statusMessage(row, trackResponse);
  }

  /** TRK-4: a FAILED track goes back to the worker with the next attempt. */
  async retry(trackId: number, caller: Caller, correlationId: string): Promise<UploadStatusMessage> {
    const row = await this.deps.access.owned(trackId, caller, 'TRACK_NOT_FOUND');
    if (row.state !== 'FAILED') throw new AppError('INVALID_TRACK_STATE', 'Only a FAILED track can be processed again.');
    const updated = await this.deps.repo.transaction(async (tx) => {
      const { original, next } = await this.deps.repo.restartProcessing(tx, trackId);
      await writeOutbox(
        tx,
        TrackUploaded,
        {
          trackId,
          uploadId: next.uploadId,
          artistId: next.artistId,
          bucket: this.deps.storage.bucket,
          originalKey: original.originalKey ?? '',
          format: original.originalFormat ?? '',
          sizeBytes: Number(original.originalSize ?? 0),
          coverKey: original.coverUploadKey,
          attempt: next.processingAttempt,
        },
        { correlationId },
      );
      await this.deps.events.publishStatus(tx, next, correlationId);
      await this.deps.events.afterChange(tx, row, next, correlationId);
      return next;
    });
    return this.deps.events.statusMessage(updated, null);
  }

  async publish(trackId: number, caller: Caller, correlationId: string): Promise<PublishResult> {
    const row = await this.deps.access.owned(trackId, caller, 'TRACK_NOT_FOUND');
    if (row.state !== 'FINISHED') throw new AppError('INVALID_TRACK_STATE', 'Only a FINISHED track can be published.');
    if (!row.isPrivate && row.publishedAt) throw new AppError('ALREADY_PUBLISHED', 'The track is already public.');
    const updated = await this.deps.repo.transaction(async (tx) => {
      const next = await this.deps.repo.update(tx, trackId, { isPrivate: false, publishedAt: row.publishedAt ?? new Date() });
      await this.deps.events.afterChange(tx, row, next, correlationId);
      return next;
    });
    const username = row.artist?.username ?? (await this.deps.repo.username(row.artistId)) ?? caller.username ?? `user-${caller.userId}`;
    return {
      id: updated.id,
      slug: updated.trackSlug,
      permalink: `${this.deps.webBaseUrl.replace(/\/+$/, '')}/${username}/${updated.trackSlug}`,
      publishedAt: (updated.publishedAt ?? new Date()).toISOString(),
    };
  }

  /** TRK-8: metadata and an optional new cover (stored before the change, removed if the change fails). */
  async update(trackId: number, caller: Caller, input: TrackUpdate, cover: Buffer | null, correlationId: string): Promise<Track> {
    const row = await this.deps.access.owned(trackId, caller, 'FORBIDDEN');
    const coverKey = cover ? await this.deps.covers.store(cover) : null;
    try {
      const makesPublic = input.isPrivate === false || (input.isPrivate === undefined && !row.isPrivate);
      const publishedAt = !row.publishedAt && makesPublic && row.state === 'FINISHED' ? new Date() : undefined;
      const next = await this.deps.repo.transaction(async (tx) => {
        const updated = await this.deps.repo.update(tx, trackId, {
          title: input.title,
          genre: input.genre,
          tags: input.tags,
          description: input.description,
          releaseDate: input.releaseDate !== undefined ? new Date(`${input.releaseDate}T00:00:00.000Z`) : undefined,
          isPrivate: input.isPrivate,
          access: input.access,
          ...(coverKey ? { coverKey } : {}),
          publishedAt,
        });
        await this.deps.events.afterChange(tx, row, updated, correlationId);
        return updated;
      });
      if (coverKey && row.coverKey && row.coverKey !== coverKey) await this.deps.covers.remove([row.coverKey]);
      const track = await this.deps.presenter.presentOne(next, caller);
      if (!track) throw new AppError('TRACK_NOT_FOUND');
      return track;
    } catch (err) {
      await this.deps.covers.remove([coverKey]);
      throw err;
    }
  }

  /** TRK-9 / MOD-11: soft delete with its events, then the files (R14: MOD-11 deletes them too). */
  async delete(trackId: number, caller: Caller, byAdmin: boolean, correlationId: string): Promise<void> {
    const row = byAdmin ? await this.deps.repo.findById(trackId) : await this.deps.access.owned(trackId, caller, 'FORBIDDEN');
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    const keys = await this.deps.repo.transaction(async (tx) => {
      const removed = await this.deps.repo.softDelete(tx, trackId);
      await writeOutbox(tx, TrackDeleted, { trackId, artistId: row.artistId, byAdmin }, { correlationId });
      if (counted(row)) await this.deps.events.recount(tx, row.artistId, correlationId);
      return removed;
    });
    await this.removeMedia(trackId, keys);
  }

  async removeMedia(trackId: number, keys: string[]): Promise<void> {
    const renditions = await this.deps.storage.list(`tracks/${trackId}/`).catch(() => [] as string[]);
    await this.deps.storage.remove([...keys, ...renditions]).catch(() => undefined); // the track row is gone already; left-over files cost storage, never visibility
  }

  async deleteCover(trackId: number, caller: Caller, correlationId: string): Promise<void> {
    const row = await this.deps.access.owned(trackId, caller, 'FORBIDDEN');
    if (!row.coverKey) return;
    await this.deps.repo.transaction(async (tx) => {
      const updated = await this.deps.repo.update(tx, trackId, { coverKey: null });
      await this.deps.events.emitChanged(tx, updated, correlationId);
    });
    await this.deps.covers.remove([row.coverKey]);
  }

  async secretToken(trackId: number, caller: Caller): Promise<{ secretToken: string }> {
    const row = await this.deps.access.owned(trackId, caller, 'FORBIDDEN');
    return { secretToken: row.secretToken };
  }

  async regenerateToken(trackId: number, caller: Caller): Promise<{ secretToken: string }> {
    await this.deps.access.owned(trackId, caller, 'FORBIDDEN');
    return this.deps.repo.setSecretToken(trackId, newSecretToken());
  }
}
