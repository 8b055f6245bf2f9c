import { randomBytes } from 'node:crypto';
import type { Playlist } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { PlaylistChanged, PlaylistDeleted, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { slugify } from '../uploads/upload-fields.js';
import { storeCover, type CoverInput, type PlaylistFields } from './playlist-input.js';
import type { PlaylistPresenter } from './playlist-presenter.js';
import { isUniqueViolation } from '../../unique-violation.js';
import type { PlaylistRow, PlaylistWrites, Tx } from './playlists.repository.js';
import { MAX_TRACKS, newSecretToken, type PlaylistsService } from './playlists.service.js';

export interface PlaylistEditsServiceDeps {
  repo: PlaylistWrites;
  reads: Pick<PlaylistsService, 'ownedRow' | 'render'>;
  presenter: Pick<PlaylistPresenter, 'coverUrl'>;
  storage: Pick<ObjectStorage, 'put' | 'remove'>;
}

/**
 * PLS-3, PLS-5 … PLS-10: creating, changing and deleting playlists and their membership (R6).
 * Each change and its event commit together (outbox); membership changes of one playlist run one
 * at a time under its row lock.
 */
export class PlaylistEditsService {
  private readonly repo: PlaylistWrites;

  constructor(private readonly deps: PlaylistEditsServiceDeps) {
    this.repo = deps.repo;
  }

  private async emitChanged(tx: Tx, row: PlaylistRow, correlationId: string) {
    await writeOutbox(
      tx,
      PlaylistChanged,
      {
        playlistId: row.id,
        ownerId: row.ownerId,
        title: row.title,
        playlistSlug: row.playlistSlug,
        isPrivate: row.isPrivate,
        coverArtUrl: this.deps.presenter.coverUrl(row),
        createdAt: row.createdAt.toISOString(),
      },
      { correlationId },
    );
  }

  // ───────────────────────────── create, update, delete ─────────────────────────────

  private async coverKeyFor(cover: CoverInput): Promise<string | null> {
    return cover.kind === 'image' ? storeCover(cover.bytes, this.deps.storage) : null;
  }

  /** PLS-3. The slug comes from the title, first free `base`, `base-2`, … (R1). */
  async create(caller: Caller, fields: PlaylistFields, cover: CoverInput, correlationId: string): Promise<Playlist> {
    const title = fields.title ?? '';
    const coverKey = await this.coverKeyFor(cover);
    const base = slugify(title);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const row = await this.repo.transaction(async (tx) => {
            const playlistSlug = attempt === 0 ? await this.repo.freeSlug(base, tx) : `${base}-${randomBytes(3).toString('hex')}`;
            const created = await this.repo.create(tx, {
              ownerId: caller.userId,
              title,
              playlistSlug,
              description: fields.description ?? null,
              type: fields.type ?? 'PLAYLIST',
              isPrivate: fields.isPrivate ?? false,
              genre: fields.genre ? fields.genre : null,
              tags: fields.tags ?? [],
              secretToken: newSecretToken(),
              coverKey,
            });
            await this.emitChanged(tx, created, correlationId);
            return created;
          });
          return await this.deps.reads.render(row, caller, false);
        } catch (err) {
          // A concurrent create took the slug: retry with a random suffix.
          if (attempt < 2 && isUniqueViolation(err)) continue;
          throw err;
        }
      }
    } catch (err) {
      if (coverKey) await this.deps.storage.remove([coverKey]).catch(() => undefined); // an orphaned cover costs storage, never correctness: the change itself stands
      throw err;
    }
  }

  /** PLS-5: given fields only; `CoverArt: ""` removes the cover. The slug never changes (R1). */
  async update(playlistId: number, caller: Caller, fields: PlaylistFields, cover: CoverInput, correlationId: string): Promise<Playlist> {
    await this.deps.reads.ownedRow(playlistId, caller);
    const coverKey = await this.coverKeyFor(cover);
    let oldCover: string | null = null;
    try {
      const row = await this.repo.transaction(async (tx) => {
        if (!(await this.repo.lock(tx, playlistId))) throw new AppError('PLAYLIST_NOT_FOUND');
        const current = await this.repo.findById(playlistId, tx);
        oldCover = current?.coverKey ?? null;
        const updated = await this.repo.update(tx, playlistId, {
          ...(fields.title !== undefined ? { title: fields.title } : {}),
          ...(fields.description !== undefined ? { description: fields.description } : {}),
          ...(fields.type !== undefined ? { type: fields.type } : {}),
          ...(fields.isPrivate !== undefined ? { isPrivate: fields.isPrivate } : {}),
          ...(fields.genre !== undefined ? { genre: fields.genre ? fields.genre : null } : {}),
          ...(fields.tags !== undefined ? { tags: fields.tags } : {}),
          ...(coverKey ? { coverKey } : cover.kind === 'remove' ? { coverKey: null } : {}),
        });
        await this.emitChanged(tx, updated, correlationId);
        return updated;
      });
      if (oldCover && (coverKey || cover.kind === 'remove') && oldCover !== row.coverKey) {
        await this.deps.storage.remove([oldCover]).catch(() => undefined); // an orphaned cover costs storage, never correctness: the change itself stands
      }
      return await this.deps.reads.render(row, caller, false);
    } catch (err) {
      if (coverKey) await this.deps.storage.remove([coverKey]).catch(() => undefined); // an orphaned cover costs storage, never correctness: the change itself stands
      throw err;
    }
  }

  /** PLS-6. Memberships go with the row (cascade). */
  async delete(playlistId: number, caller: Caller, correlationId: string): Promise<void> {
    const row = await this.deps.reads.ownedRow(playlistId, caller);
    await this.repo.transaction(async (tx) => {
      await this.repo.delete(tx, playlistId);
      await writeOutbox(tx, PlaylistDeleted, { playlistId, ownerId: row.ownerId }, { correlationId });
    });
    if (row.coverKey) await this.deps.storage.remove([row.coverKey]).catch(() => undefined); // an orphaned cover costs storage, never correctness: the change itself stands
  }

  /** PLS-7. */
  async deleteCover(playlistId: number, caller: Caller, correlationId: string): Promise<void> {
    const row = await this.deps.reads.ownedRow(playlistId, caller);
    if (!row.coverKey) return;
    await this.repo.transaction(async (tx) => {
      const updated = await this.repo.update(tx, playlistId, { coverKey: null });
      await this.emitChanged(tx, updated, correlationId);
    });
    await this.deps.storage.remove([row.coverKey]).catch(() => undefined); // an orphaned cover costs storage, never correctness: the change itself stands
  }

  // ───────────────────────────── membership (R6) ─────────────────────────────

  /** R2 for the owner: their own tracks in any state, others' public FINISHED tracks (no block between them). */
  private async assertTrackVisibleToOwner(trackId: number, caller: Caller): Promise<void> {
    const track = await this.repo.track(trackId);
    if (!track || track.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    if (track.artistId === caller.userId || caller.role === 'ADMIN') return;
    if (track.isPrivate || track.heldBack || track.state !== 'FINISHED') throw new AppError('TRACK_NOT_FOUND');
    if (await this.repo.ownerHidden(track.artistId)) throw new AppError('TRACK_NOT_FOUND');
    if (await this.repo.blocked(caller.userId, track.artistId)) throw new AppError('TRACK_NOT_FOUND');
  }

  /** Runs `fn` in a transaction holding the playlist's row lock, after sweeping deleted tracks out. */
  private async underLock<T>(playlistId: number, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.repo.transaction(async (tx) => {
      if (!(await this.repo.lock(tx, playlistId))) throw new AppError('PLAYLIST_NOT_FOUND');
      await this.repo.sweepDeleted(tx, playlistId);
      const result = await fn(tx);
      await this.repo.touch(tx, playlistId);
      return result;
    });
  }

  /** PLS-8: append (409 when present or full). */
  async addTrack(playlistId: number, trackId: number, caller: Caller): Promise<Playlist> {
    await this.deps.reads.ownedRow(playlistId, caller);
    await this.assertTrackVisibleToOwner(trackId, caller);
    await this.underLock(playlistId, async (tx) => {
      const members = await this.repo.memberIds(tx, playlistId);
      if (members.includes(trackId)) throw new AppError('TRACK_ALREADY_IN_PLAYLIST');
      if (members.length >= MAX_TRACKS) throw new AppError('PLAYLIST_FULL', `A playlist holds at most ${MAX_TRACKS} tracks.`);
      await this.repo.append(tx, playlistId, trackId);
    });
    return this.deps.reads.render(await this.deps.reads.ownedRow(playlistId, caller), caller, false);
  }

  /** PLS-9. */
  async removeTrack(playlistId: number, trackId: number, caller: Caller): Promise<void> {
    await this.deps.reads.ownedRow(playlistId, caller);
    await this.underLock(playlistId, async (tx) => {
      if (!(await this.repo.removeMember(tx, playlistId, trackId))) throw new AppError('TRACK_NOT_IN_PLAYLIST');
    });
  }

  /**
   * PLS-10: `trackIds` must be a permutation of the ids the owner sees in the playlist. Tracks the
   * owner cannot see right now (made private or removed by their artist) keep their relative order
   * after the given ones, so they come back at the end if they become visible again.
   */
  async reorder(playlistId: number, trackIds: readonly number[], caller: Caller): Promise<Playlist> {
    const before = await this.deps.reads.ownedRow(playlistId, caller);
    await this.underLock(playlistId, async (tx) => {
      const owned = await this.repo.visibleEntries(playlistId, { viewerId: before.ownerId, admin: false, tokenOwnerId: null }, tx);
      const visibleToOwner = new Set(owned.map((e) => e.trackId));
      const members = await this.repo.memberIds(tx, playlistId);
      const current = members.filter((id) => visibleToOwner.has(id));
      const given = new Set(trackIds);
      const permutation = given.size === trackIds.length && trackIds.length === current.length && current.every((id) => given.has(id));
      if (!permutation) throw new AppError('INVALID_PLAYLIST_ORDER', 'trackIds must list every track of the playlist exactly once.');
      const rest = members.filter((id) => !given.has(id));
      await this.repo.renumber(tx, playlistId, [...trackIds, ...rest]);
    });
    return this.deps.reads.render(await this.deps.reads.ownedRow(playlistId, caller), caller, false);
  }
}
