import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import {
  toPage,
  UploadStepSchema,
  type EmbedCode,
  type Page,
  type PublishResult,
  type ResolveResult,
  type Track,
  type TrackState,
  type UploadAccepted,
  type UploadStatusMessage,
  type WaveformUrl,
} from '@msp/contracts';
import { AppError } from '@msp/errors';
import {
  ArtistTrackCountChanged,
  TrackChanged,
  TrackDeleted,
  TrackPublished,
  TrackUploaded,
  TrackUploadStatus,
  writeOutbox,
} from '@msp/events';
import type { Caller } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import type { CatalogConfig } from '../../config.js';
import type { MediaClient } from '../../clients/media.client.js';
import { AUDIO_CONTENT_TYPES, probeMatches, type AudioFormat } from '../uploads/audio-format.js';
import { discard, receiveUpload } from '../uploads/upload-receiver.js';
import { slugify, todayUtc, UploadFieldsSchema, type TrackUpdate } from '../uploads/upload-fields.js';
import { toSnapshot, trackSelect, type TrackRow } from './track.mapper.js';
import { isOwnerOrAdmin, type TrackPresenter } from './track-presenter.js';
import { PUBLIC_TRACK, TracksRepository } from './tracks.repository.js';
import type { ReadTrack, TrackReadsRepository } from './track-reads.repository.js';
import { bumpStat } from '../discovery/trending-stats.js';

type Tx = Prisma.TransactionClient;

export interface TracksServiceDeps {
  prisma: PrismaClient;
  presenter: TrackPresenter;
  storage: ObjectStorage;
  /** Where uploads stream to (catalog's bucket). */
  uploadStorage: ObjectStorage;
  media: MediaClient;
  reads: TrackReadsRepository;
  redis: Redis;
  config: CatalogConfig;
}

const EXTENSIONS: Record<string, string> = { mp3: 'mp3', wav: 'wav', flac: 'flac', aac: 'aac', m4a: 'm4a', ogg: 'ogg' };

const newSecretToken = () => randomBytes(24).toString('base64url');

/** A track counts for trackCount (R9) when public, FINISHED and not deleted. */
const counted = (row: { isPrivate: boolean; state: TrackState; deletedAt: Date | null }) =>
  !row.isPrivate && row.state === 'FINISHED' && !row.deletedAt;

export class TracksService {
  readonly repo: TracksRepository;

  constructor(private readonly deps: TracksServiceDeps) {
    this.repo = new TracksRepository(deps.prisma);
  }

  private get presenter() {
    return this.deps.presenter;
  }

  // ───────────────────────────── lookups and visibility (R2, R7) ─────────────────────────────

  /**
   * The track if the caller may see it (R2, R14, R7 from catalog's copy of the blocks), else 404
   * TRACK_NOT_FOUND (deleted, private, unfinished, blocked, artist gone or banned). One statement.
   */
  private async visibleRow(trackId: number, caller: Caller | null): Promise<ReadTrack> {
    return this.check(await this.deps.reads.byId(trackId, caller?.userId ?? 0), caller);
  }

  private check(row: ReadTrack | null, caller: Caller | null): ReadTrack {
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    if (!isOwnerOrAdmin(row, caller) && (row.isPrivate || row.state !== 'FINISHED' || row.artistHidden || row.blocked)) {
      throw new AppError('TRACK_NOT_FOUND');
    }
    return row;
  }

  /** The track as the caller sees it (one statement, then at most one call to social for the flags). */
  private async visible(trackId: number, caller: Caller | null): Promise<{ row: TrackRow; track: Track }> {
    const row = await this.visibleRow(trackId, caller);
    const track = await this.presenter.presentOne(row, caller);
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    return { row, track };
  }

  /** Owner-only operations: 404 when the caller cannot see the track, else `notOwner` (403 or 404 per API.md). */
  private async owned(trackId: number, caller: Caller, notOwner: 'FORBIDDEN' | 'TRACK_NOT_FOUND'): Promise<TrackRow> {
    const row = await this.deps.reads.byId(trackId, caller.userId);
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    if (row.artistId === caller.userId) return row;
    if (notOwner === 'TRACK_NOT_FOUND') throw new AppError('TRACK_NOT_FOUND');
    await this.visibleRow(trackId, caller);
    throw new AppError('FORBIDDEN', 'Only the artist may do this.');
  }

  private async tierOf(userId: number): Promise<'FREE' | 'PRO'> {
    const user = await this.deps.reads.userFlags(userId);
    return user?.tier === 'PRO' ? 'PRO' : 'FREE';
  }

  // ───────────────────────────── events ─────────────────────────────

  async emitChanged(tx: Tx, row: TrackRow, correlationId: string | null) {
    await writeOutbox(tx, TrackChanged, toSnapshot(row, this.presenter.assetUrl(row.coverKey)), { correlationId });
  }

  /** R9: the artist's trackCount changed; catalog's own projection row and the event (identity, social). */
  async recount(tx: Tx, artistId: number, correlationId: string | null) {
    const trackCount = await this.repo.countPublic(artistId, tx);
    await tx.userSummary.updateMany({ where: { userId: artistId }, data: { trackCount } });
    await writeOutbox(tx, ArtistTrackCountChanged, { userId: artistId, trackCount }, { correlationId });
  }

  /** Events after a change of privacy, state or deletion: TrackChanged, TrackPublished the first time (R2), the count. */
  async afterChange(tx: Tx, before: TrackRow | null, after: TrackRow, correlationId: string | null) {
    await this.emitChanged(tx, after, correlationId);
    if (!before?.publishedAt && after.publishedAt) {
      await writeOutbox(tx, TrackPublished, toSnapshot(after, this.presenter.assetUrl(after.coverKey)), { correlationId });
    }
    if ((before ? counted(before) : false) !== counted(after)) await this.recount(tx, after.artistId, correlationId);
  }

  /** WS-2 record (API.md §2 Upload status message) from the stored status. */
  statusMessage(row: TrackRow, trackResponse: Track | null): UploadStatusMessage {
    const failed = row.state === 'FAILED';
    const progress = failed ? null : (row.statusProgress ?? 0);
    const step = UploadStepSchema.safeParse(row.statusStep);
    return {
      uploadId: row.uploadId,
      trackId: row.id,
      trackState: row.state,
      status: row.state,
      progressPercentage: progress,
      progressPercent: progress,
      stepName: step.success ? step.data : null,
      errorMessage: failed ? (row.errorMessage ?? 'Processing failed') : null,
      trackResponse: row.state === 'FINISHED' ? trackResponse : null,
      updatedAt: row.statusUpdatedAt.toISOString(),
    };
  }

  /** The uploader's view, without social calls (used inside event transactions). */
  async ownerView(row: TrackRow): Promise<Track | null> {
    const owner: Caller = { userId: row.artistId, role: 'ARTIST', tier: 'FREE', sessionId: null, username: null };
    return this.presenter.presentOne(row, owner, { keepBlocked: true, offline: true });
  }

  async publishStatus(tx: Tx, row: TrackRow, correlationId: string | null) {
    const trackResponse = row.state === 'FINISHED' ? await this.ownerView(row) : null;
    await writeOutbox(
      tx,
      TrackUploadStatus,
      { uploadId: row.uploadId, artistId: row.artistId, trackId: row.id, status: this.statusMessage(row, trackResponse) },
      { correlationId },
    );
  }

  // ───────────────────────────── TRK-1, TRK-2 uploads (R11, R12) ─────────────────────────────

  private async checkQuota(caller: Caller, db: PrismaClient | Tx = this.deps.prisma) {
    if ((await this.tierOf(caller.userId)) === 'PRO') return;
    const owned = await this.repo.countOwned(caller.userId, db);
    if (owned >= this.deps.config.FREE_TRACK_QUOTA) {
      throw new AppError('UPLOAD_QUOTA_EXCEEDED', `You are out of free tracks: FREE accounts may own ${this.deps.config.FREE_TRACK_QUOTA} tracks. Delete one or go Pro.`);
    }
  }

  async upload(request: FastifyRequest, caller: Caller, mode: 'v1' | 'v2'): Promise<{ status: 201 | 202; body: Track | UploadAccepted }> {
    const { config, uploadStorage } = this.deps;
    await this.checkQuota(caller);
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > config.AUDIO_MAX_BYTES + config.COVER_MAX_BYTES + 1024 * 1024) {
      throw new AppError('PAYLOAD_TOO_LARGE', `The audio file is larger than ${config.AUDIO_MAX_BYTES} bytes.`);
    }
    const received = await receiveUpload(request, {
      storage: uploadStorage,
      audioMaxBytes: config.AUDIO_MAX_BYTES,
      coverMaxBytes: config.COVER_MAX_BYTES,
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
      const maxSeconds = this.deps.config.AUDIO_MAX_DURATION_SECONDS;
      if (probe.durationSeconds !== null && probe.durationSeconds > maxSeconds) {
        const message = `Audio may be at most ${formatDuration(maxSeconds)} long; this file is ${formatDuration(Math.round(probe.durationSeconds))}.`;
        throw AppError.validation([{ field: 'audioFile', message }], message);
      }

      const uploadId = fields.uploadId ?? randomUUID();
      const correlationId = String(request.id);
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
    fields: ReturnType<typeof UploadFieldsSchema.parse>,
    uploadId: string,
    audio: { key: string; format: string; size: number },
    coverUploadKey: string | null,
    correlationId: string,
  ): Promise<TrackRow> {
    const { prisma, storage } = this.deps;
    const base = slugify(fields.title);
    for (let attempt = 0; ; attempt++) {
      try {
        return await prisma.$transaction(async (tx) => {
          // R12 again under a per-artist lock: two parallel uploads cannot both take the last slot.
          await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(4242, $1)', caller.userId);
          await this.checkQuota(caller, tx);
          if (await tx.track.findUnique({ where: { uploadId }, select: { id: true } })) throw new AppError('UPLOAD_ID_CONFLICT', 'This uploadId was already used.');
          const trackSlug = attempt === 0 ? await this.repo.freeSlug(base, tx) : `${base}-${randomBytes(3).toString('hex')}`;
          const row = await tx.track.create({
            data: {
              artistId: caller.userId,
              title: fields.title,
              trackSlug,
              description: fields.description ?? null,
              genre: fields.genre,
              genreKey: fields.genre.toLowerCase(),
              tags: fields.tags ?? [],
              releaseDate: new Date(`${fields.releaseDate ?? todayUtc()}T00:00:00.000Z`),
              isPrivate: fields.isPrivate ?? false,
              access: fields.access ?? 'PLAYABLE',
              secretToken: newSecretToken(),
              uploadId,
              originalKey: audio.key,
              originalFormat: audio.format,
              originalSize: BigInt(audio.size),
              coverUploadKey,
              state: 'UPLOADING',
              statusStep: 'Upload received',
              statusProgress: 5,
            },
            select: trackSelect,
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
          await this.publishStatus(tx, row, correlationId);
          await this.emitChanged(tx, row, correlationId);
          return row;
        });
      } catch (err) {
        if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
          const target = JSON.stringify(err.meta ?? {});
          if (target.includes('upload')) throw new AppError('UPLOAD_ID_CONFLICT', 'This uploadId was already used.');
          if (attempt < 2) continue; // slug taken by a concurrent upload
        }
        throw err;
      }
    }
  }

  /** TRK-1: 201 when FINISHED within the wait, 422 when FAILED, else 202 with the PROCESSING track. */
  private async waitForProcessing(trackId: number, caller: Caller): Promise<{ status: 201 | 202; body: Track }> {
    const deadline = Date.now() + this.deps.config.UPLOAD_WAIT_MS;
    let row = await this.repo.findById(trackId);
    while (row && row.state !== 'FINISHED' && row.state !== 'FAILED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      row = await this.repo.findById(trackId);
    }
    if (!row) throw new AppError('TRACK_NOT_FOUND');
    if (row.state === 'FAILED') throw new AppError('TRACK_PROCESSING_FAILED', row.errorMessage ?? 'Processing failed.');
    const track = await this.presenter.presentOne(row, caller, { keepBlocked: true });
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    return { status: row.state === 'FINISHED' ? 201 : 202, body: { ...track, durationSeconds: row.durationSeconds } };
  }

  // ───────────────────────────── TRK-3, TRK-4, TRK-5 ─────────────────────────────

  async status(trackId: number, caller: Caller): Promise<UploadStatusMessage> {
    const row = await this.owned(trackId, caller, 'TRACK_NOT_FOUND');
    const trackResponse = row.state === 'FINISHED' ? await this.presenter.presentOne(row, caller, { keepBlocked: true }) : null;
    return this.statusMessage(row, trackResponse);
  }

  async retry(trackId: number, caller: Caller, correlationId: string): Promise<UploadStatusMessage> {
    const row = await this.owned(trackId, caller, 'TRACK_NOT_FOUND');
    if (row.state !== 'FAILED') throw new AppError('INVALID_TRACK_STATE', 'Only a FAILED track can be processed again.');
    const updated = await this.deps.prisma.$transaction(async (tx) => {
      const full = await tx.track.findUniqueOrThrow({ where: { id: trackId }, select: { originalKey: true, originalFormat: true, originalSize: true, coverUploadKey: true } });
      const next = await tx.track.update({
        where: { id: trackId, state: 'FAILED' },
        data: {
          state: 'PROCESSING',
          processingAttempt: { increment: 1 },
          statusStep: 'Processing started',
          statusProgress: 20,
          errorMessage: null,
          statusUpdatedAt: new Date(),
        },
        select: { ...trackSelect, processingAttempt: true },
      });
      await writeOutbox(
        tx,
        TrackUploaded,
        {
          trackId,
          uploadId: next.uploadId,
          artistId: next.artistId,
          bucket: this.deps.storage.bucket,
          originalKey: full.originalKey ?? '',
          format: full.originalFormat ?? '',
          sizeBytes: Number(full.originalSize ?? 0),
          coverKey: full.coverUploadKey,
          attempt: next.processingAttempt,
        },
        { correlationId },
      );
      await this.publishStatus(tx, next, correlationId);
      await this.afterChange(tx, row, next, correlationId);
      return next;
    });
    return this.statusMessage(updated, null);
  }

  async publish(trackId: number, caller: Caller, correlationId: string): Promise<PublishResult> {
    const row = await this.owned(trackId, caller, 'TRACK_NOT_FOUND');
    if (row.state !== 'FINISHED') throw new AppError('INVALID_TRACK_STATE', 'Only a FINISHED track can be published.');
    if (!row.isPrivate && row.publishedAt) throw new AppError('ALREADY_PUBLISHED', 'The track is already public.');
    const updated = await this.deps.prisma.$transaction(async (tx) => {
      const next = await tx.track.update({
        where: { id: trackId },
        data: { isPrivate: false, publishedAt: row.publishedAt ?? new Date() },
        select: trackSelect,
      });
      await this.afterChange(tx, row, next, correlationId);
      return next;
    });
    const username = (await this.deps.prisma.userSummary.findUnique({ where: { userId: row.artistId }, select: { username: true } }))?.username
      ?? caller.username ?? `user-${caller.userId}`;
    return {
      id: updated.id,
      slug: updated.trackSlug,
      permalink: this.permalink(username, updated.trackSlug),
      publishedAt: (updated.publishedAt ?? new Date()).toISOString(),
    };
  }

  permalink(username: string, trackSlug: string): string {
    return `${this.deps.config.WEB_BASE_URL.replace(/\/+$/, '')}/${username}/${trackSlug}`;
  }

  // ───────────────────────────── reads ─────────────────────────────

  async get(trackId: number, caller: Caller | null): Promise<Track> {
    return (await this.visible(trackId, caller)).track;
  }

  /** TRK-7: the caller's own track in any state. */
  async getOwn(trackId: number, caller: Caller): Promise<Track> {
    const row = await this.deps.reads.byId(trackId, caller.userId);
    if (!row || row.deletedAt || row.artistId !== caller.userId) throw new AppError('TRACK_NOT_FOUND');
    const track = await this.presenter.presentOne(row, caller, { keepBlocked: true });
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    return track;
  }

  /** TRK-13 (R5): the token opens the track even when private; never lists it. */
  async byToken(token: string, caller: Caller | null): Promise<Track> {
    const row = await this.deps.reads.byToken(token, caller?.userId ?? 0);
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    if (!isOwnerOrAdmin(row, caller) && row.state !== 'FINISHED') throw new AppError('TRACK_NOT_FOUND');
    // R14: a banned artist's token opens nothing for anyone but admins; R7: nor across a block.
    if (caller?.role !== 'ADMIN' && (row.artistBanned || row.blocked)) throw new AppError('TRACK_NOT_FOUND');
    const track = await this.presenter.presentOne(row, caller, { viaToken: true });
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    return track;
  }

  async resolve(trackSlug: string, caller: Caller | null): Promise<ResolveResult> {
    const row = this.check(await this.deps.reads.bySlug(trackSlug, caller?.userId ?? 0), caller);
    return { type: 'TRACK', id: row.id, resourceType: 'TRACK', resourceId: row.id };
  }

  async waveformUrl(trackId: number, caller: Caller | null): Promise<WaveformUrl> {
    const { row, track } = await this.visible(trackId, caller);
    const finished = row.state === 'FINISHED';
    return { trackId, waveformUrl: finished ? track.waveformUrl : null, duration: finished ? row.durationSeconds : null };
  }

  /** TRK-16: iframe for `{webBaseUrl}/embed/player?url=<permalink>` (+ token for a private track, owner only). */
  async embed(trackId: number, caller: Caller | null): Promise<EmbedCode> {
    const { row, track } = await this.visible(trackId, caller);
    if (row.isPrivate && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_FOUND');
    const permalink = this.permalink(track.artist.username, row.trackSlug);
    let embedUrl = `${this.deps.config.WEB_BASE_URL.replace(/\/+$/, '')}/embed/player?url=${encodeURIComponent(permalink)}`;
    if (row.isPrivate) embedUrl += `&token=${encodeURIComponent(row.secretToken)}`;
    const title = track.title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const embedCode = `<iframe width="100%" height="166" scrolling="no" frameborder="no" allow="autoplay" title="${title}" src="${embedUrl.replace(/&/g, '&amp;')}"></iframe>`;
    return { embedCode, embedUrl };
  }

  /** TRK-21. */
  async listOwn(caller: Caller, query: { page: number; size: number; state?: TrackState }): Promise<Page<Track>> {
    const state = query.state ?? null;
    const rows = await this.deps.reads.artistPage(caller.userId, false, state, query.page, query.size, caller.userId);
    const total = await this.pageTotal(rows.length, query, () => this.deps.reads.artistCount(caller.userId, false, state));
    return toPage(await this.presenter.present(rows, caller, { keepBlocked: true }), total, query.page, query.size);
  }

  /**
   * The total of a page list without counting when the page itself tells it: a page with rows
   * but fewer than `size` ends the list. `known` is a count kept elsewhere (the R9 trackCount),
   * taken when it agrees with the page; otherwise `count` runs.
   */
  private async pageTotal(rows: number, query: { page: number; size: number }, count: () => Promise<number>, known?: number): Promise<number> {
    const before = query.page * query.size;
    if (rows > 0 && rows < query.size) return before + rows;
    if (known !== undefined && rows === query.size && known >= before + rows) return known;
    return count();
  }

  /** USR-18, TRK-22, TRK-23: the owner (and admins) see every track, others the public FINISHED ones (R2, R7); banned user → 404 (R14). */
  async listByUser(who: { userId?: number; username?: string }, caller: Caller | null, query: { page: number; size: number }): Promise<Page<Track>> {
    const viewerId = caller?.userId ?? 0;
    const user = await this.deps.reads.user(who, viewerId);
    // R14: a banned user's profile and content answer 404 to all but admins (as identity's profile does).
    if (!user || (user.isBanned && caller?.role !== 'ADMIN')) throw new AppError('USER_NOT_FOUND');
    const all = !!caller && (caller.userId === user.userId || caller.role === 'ADMIN');
    // R7 from catalog's copy of the blocks: never depends on social answering.
    if (!all && user.blocked) throw new AppError('USER_NOT_FOUND');
    const rows = await this.deps.reads.artistPage(user.userId, !all, null, query.page, query.size, viewerId);
    // Others see the public FINISHED tracks: exactly the R9 trackCount catalog keeps with every change.
    const total = await this.pageTotal(rows.length, query, () => this.deps.reads.artistCount(user.userId, !all, null), all ? undefined : user.trackCount);
    return toPage(await this.presenter.present(rows, caller, { keepBlocked: all }), total, query.page, query.size);
  }

  /** USR-17. R8: with showHistory off the page is empty; the entries come back when it is on again. */
  async history(caller: Caller, query: { page: number; size: number }): Promise<Page<Track>> {
    if (!(await this.showsHistory(caller.userId))) return toPage([], 0, query.page, query.size);
    const { rows, total } = await this.deps.reads.history(caller.userId, query.page, query.size);
    const tracks = await this.presenter.present(rows, caller);
    const playedAt = new Map(rows.map((r) => [r.id, r.lastPlayedAt.toISOString()]));
    return toPage(tracks.map((t) => ({ ...t, lastPlayedAt: playedAt.get(t.id) })), total, query.page, query.size);
  }

  // ───────────────────────────── TRK-8 … TRK-12 ─────────────────────────────

  async update(trackId: number, caller: Caller, input: TrackUpdate, coverKey: string | null, correlationId: string): Promise<Track> {
    const row = await this.owned(trackId, caller, 'FORBIDDEN');
    const makesPublic = input.isPrivate === false || (input.isPrivate === undefined && !row.isPrivate);
    const publishedAt = !row.publishedAt && makesPublic && row.state === 'FINISHED' ? new Date() : undefined;
    const oldCover = row.coverKey;
    const next = await this.deps.prisma.$transaction(async (tx) => {
      const updated = await tx.track.update({
        where: { id: trackId },
        data: {
          ...(input.title !== undefined ? { title: input.title } : {}),
          ...(input.genre !== undefined ? { genre: input.genre, genreKey: input.genre.toLowerCase() } : {}),
          ...(input.tags !== undefined ? { tags: input.tags } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.releaseDate !== undefined ? { releaseDate: new Date(`${input.releaseDate}T00:00:00.000Z`) } : {}),
          ...(input.isPrivate !== undefined ? { isPrivate: input.isPrivate } : {}),
          ...(input.access !== undefined ? { access: input.access } : {}),
          ...(coverKey ? { coverKey } : {}),
          ...(publishedAt ? { publishedAt } : {}),
        },
        select: trackSelect,
      });
      await this.afterChange(tx, row, updated, correlationId);
      return updated;
    });
    if (coverKey && oldCover && oldCover !== coverKey) await this.deps.storage.remove([oldCover]).catch(() => undefined);
    const track = await this.presenter.presentOne(next, caller, { keepBlocked: true });
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    return track;
  }

  /** TRK-9 / MOD-11: soft delete with its events, then the files (R14: MOD-11 deletes them too). */
  async delete(trackId: number, caller: Caller, byAdmin: boolean, correlationId: string): Promise<void> {
    const row = byAdmin ? await this.repo.findById(trackId) : await this.owned(trackId, caller, 'FORBIDDEN');
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    const keys = await this.deps.prisma.$transaction(async (tx) => {
      const full = await tx.track.update({
        where: { id: trackId },
        data: { deletedAt: new Date() },
        select: { ...trackSelect, originalKey: true, coverUploadKey: true, waveformJsonKey: true },
      });
      await writeOutbox(tx, TrackDeleted, { trackId, artistId: row.artistId, byAdmin }, { correlationId });
      await tx.listeningHistory.deleteMany({ where: { trackId } });
      // R6: deleting a track removes it from every playlist.
      await tx.playlistTrack.deleteMany({ where: { trackId } });
      if (counted(row)) await this.recount(tx, row.artistId, correlationId);
      return [full.originalKey, full.coverUploadKey, full.coverKey, full.waveformKey, full.waveformJsonKey].filter((k): k is string => !!k);
    });
    await this.removeMedia(trackId, keys);
  }

  async removeMedia(trackId: number, keys: string[]): Promise<void> {
    const renditions = await this.deps.storage.list(`tracks/${trackId}/`).catch(() => [] as string[]);
    await this.deps.storage.remove([...keys, ...renditions]).catch(() => undefined);
  }

  async deleteCover(trackId: number, caller: Caller, correlationId: string): Promise<void> {
    const row = await this.owned(trackId, caller, 'FORBIDDEN');
    if (!row.coverKey) return;
    await this.deps.prisma.$transaction(async (tx) => {
      const updated = await tx.track.update({ where: { id: trackId }, data: { coverKey: null }, select: trackSelect });
      await this.emitChanged(tx, updated, correlationId);
    });
    await this.deps.storage.remove([row.coverKey]).catch(() => undefined);
  }

  async secretToken(trackId: number, caller: Caller): Promise<{ secretToken: string }> {
    const row = await this.owned(trackId, caller, 'FORBIDDEN');
    return { secretToken: row.secretToken };
  }

  async regenerateToken(trackId: number, caller: Caller): Promise<{ secretToken: string }> {
    await this.owned(trackId, caller, 'FORBIDDEN');
    const updated = await this.deps.prisma.track.update({ where: { id: trackId }, data: { secretToken: newSecretToken() }, select: { secretToken: true } });
    return updated;
  }

  // ───────────────────────────── TRK-17, TRK-18 (R9), TRK-19 ─────────────────────────────

  async play(
    trackId: number,
    caller: Caller | null,
    secretToken: string | undefined,
    listener: { ip: string; userAgent: string },
    kind: 'play' | 'complete',
  ): Promise<{ message: string }> {
    const row = await this.deps.reads.byId(trackId, caller?.userId ?? 0);
    if (!row || row.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    const viaToken = !!secretToken && secretToken === row.secretToken;
    if (!viaToken) this.check(row, caller);
    else if (row.state !== 'FINISHED' && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_FOUND');
    else if (caller?.role !== 'ADMIN' && (row.artistBanned || row.blocked)) throw new AppError('TRACK_NOT_FOUND');
    if (row.access === 'BLOCKED' && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_PLAYABLE', 'This track cannot be played.');
    const who = caller ? `u${caller.userId}` : `a${createHash('sha256').update(`${listener.ip}\n${listener.userAgent}`).digest('base64url').slice(0, 22)}`;
    const fresh = await this.deps.redis.set(`catalog:${kind}:${trackId}:${who}`, '1', 'EX', this.deps.config.PLAY_DEDUP_SECONDS, 'NX');
    if (fresh === 'OK') {
      await this.deps.prisma.$transaction(async (tx) => {
        await tx.track.update({
          where: { id: trackId },
          data: kind === 'play' ? { playCount: { increment: 1 } } : { completedPlayCount: { increment: 1 } },
        });
        // DSC-2: counted plays feed the day's counter and the stored trending score.
        if (kind === 'play') await bumpStat(tx, trackId, new Date(), 'plays', 1);
      });
    }
    if (kind === 'play' && caller && (await this.showsHistory(caller.userId))) {
      const now = new Date();
      await this.deps.prisma.listeningHistory.upsert({
        where: { userId_trackId: { userId: caller.userId, trackId } },
        create: { userId: caller.userId, trackId, lastPlayedAt: now },
        update: { lastPlayedAt: now },
      });
    }
    if (kind === 'play') return { message: fresh === 'OK' ? 'Play counted.' : 'Play already counted.' };
    return { message: fresh === 'OK' ? 'Completed play counted.' : 'Completed play already counted.' };
  }

  /** R8 showHistory from the user projection (true until identity says otherwise). */
  private async showsHistory(userId: number): Promise<boolean> {
    const user = await this.deps.reads.userFlags(userId);
    return user?.showHistory ?? true;
  }

  /** TRK-19: PRO (server-side tier, R12), FINISHED, PLAYABLE unless the owner. */
  async download(trackId: number, caller: Caller): Promise<{ key: string; filename: string; contentType: string }> {
    const { row } = await this.visible(trackId, caller);
    if ((await this.tierOf(caller.userId)) !== 'PRO') throw new AppError('PRO_REQUIRED', 'Offline download needs a Pro account.');
    if (row.state !== 'FINISHED') throw new AppError('INVALID_TRACK_STATE', 'The track is not processed yet.');
    if (row.access !== 'PLAYABLE' && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_PLAYABLE', 'This track cannot be downloaded.');
    const original = await this.deps.prisma.track.findUniqueOrThrow({ where: { id: trackId }, select: { originalKey: true, originalFormat: true } });
    if (!original.originalKey) throw new AppError('TRACK_NOT_FOUND');
    const ext = EXTENSIONS[original.originalFormat ?? ''] ?? 'bin';
    const contentType = AUDIO_CONTENT_TYPES[ext as AudioFormat] ?? 'application/octet-stream';
    return { key: original.originalKey, filename: `${row.trackSlug}.${ext}`, contentType };
  }
}

export { PUBLIC_TRACK };

/** 10800 → "3 h", 5400 → "1 h 30 min", 90 → "1 min 30 s". */
function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h ? `${h} h` : '', m ? `${m} min` : '', s || (!h && !m) ? `${s} s` : ''].filter(Boolean).join(' ');
}
