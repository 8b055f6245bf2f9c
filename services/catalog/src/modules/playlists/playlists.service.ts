import { randomBytes } from 'node:crypto';
import { toPage, type EmbedCode, type Page, type Playlist, type PlaylistSecretLink, type ResolveResult, type TrackSummary } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { PlaylistChanged, PlaylistDeleted, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import type { ObjectStorage } from '@msp/storage';
import { slugify } from '../uploads/upload-fields.js';
import type { CoverInput, PlaylistFields } from './playlist-input.js';
import { storeCover } from './playlist-input.js';
import { ownsOrAdmin, type PlaylistPresenter } from './playlist-presenter.js';
import { isUniqueViolation, type PlaylistRow, type PlaylistsRepository, type Tx } from './playlists.repository.js';

/** R6: at most this many distinct tracks per playlist. */
export const MAX_TRACKS = 500;

/** R5: 32 URL-safe characters. */
const newSecretToken = () => randomBytes(24).toString('base64url');

export interface PlaylistsServiceDeps {
  repo: PlaylistsRepository;
  presenter: PlaylistPresenter;
  storage: ObjectStorage;
  webBaseUrl: string;
}

interface PageQuery {
  page: number;
  size: number;
}

const DEFAULT_TRACK_PAGE: PageQuery = { page: 0, size: 20 };

export class PlaylistsService {
  readonly repo: PlaylistsRepository;

  constructor(private readonly deps: PlaylistsServiceDeps) {
    this.repo = deps.repo;
  }

  private get web() {
    return this.deps.webBaseUrl.replace(/\/+$/, '');
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

  // ───────────────────────────── visibility (R6, R7, R14) ─────────────────────────────

  /** The playlist row when R6 lets the caller see it (owner, admin, or public); else 404. */
  private async visibleRow(playlistId: number, caller: Caller | null): Promise<PlaylistRow> {
    const row = await this.repo.findById(playlistId);
    if (!row) throw new AppError('PLAYLIST_NOT_FOUND');
    if (ownsOrAdmin(row, caller)) return row;
    if (row.isPrivate) throw new AppError('PLAYLIST_NOT_FOUND');
    await this.ownerPresent(row);
    return row;
  }

  /** A banned or deleted owner's playlists disappear for everyone but admins (R14). */
  private async ownerPresent(row: PlaylistRow): Promise<void> {
    if (await this.repo.ownerHidden(row.ownerId)) throw new AppError('PLAYLIST_NOT_FOUND');
  }

  private async render(row: PlaylistRow, caller: Caller | null, viaToken: boolean, query: PageQuery = DEFAULT_TRACK_PAGE): Promise<Playlist> {
    const playlist = await this.deps.presenter.presentOne(row, caller, { viaToken, ...query });
    if (!playlist) throw new AppError('PLAYLIST_NOT_FOUND');
    return playlist;
  }

  /**
   * Owner-only operations: the owner passes; an admin (who can see every playlist) gets 403; anyone
   * else 404, so a stranger learns nothing about playlists that are not theirs.
   */
  private async ownedRow(playlistId: number, caller: Caller): Promise<PlaylistRow> {
    const row = await this.repo.findById(playlistId);
    if (!row) throw new AppError('PLAYLIST_NOT_FOUND');
    if (row.ownerId === caller.userId) return row;
    if (caller.role === 'ADMIN') throw new AppError('FORBIDDEN', 'Only the owner may change this playlist.');
    throw new AppError('PLAYLIST_NOT_FOUND');
  }

  // ───────────────────────────── reads ─────────────────────────────

  /** PLS-1: every playlist of the caller, newest first, private ones and secret tokens included. */
  async listOwn(caller: Caller, query: PageQuery): Promise<Page<Playlist>> {
    const { rows, total } = await this.repo.listByOwner(caller.userId, false, query.page, query.size);
    return toPage(await this.deps.presenter.presentList(rows, caller), total, query.page, query.size);
  }

  /** USR-19: a user's playlists, newest first; private ones only for the owner (and admins); banned user → 404 (R14). */
  async listByUser(who: { userId?: number; username?: string }, caller: Caller | null, query: PageQuery): Promise<Page<Playlist>> {
    const user = await this.repo.findUser(who);
    // R14: a banned user's profile and content answer 404 to all but admins (as identity's profile does).
    if (!user || (user.isBanned && caller?.role !== 'ADMIN')) throw new AppError('USER_NOT_FOUND');
    const all = !!caller && (caller.userId === user.userId || caller.role === 'ADMIN');
    // R7 from catalog's copy of the blocks: never depends on social answering.
    if (caller && !all && (await this.repo.blocked(caller.userId, user.userId))) throw new AppError('USER_NOT_FOUND');
    const { rows, total } = await this.repo.listByOwner(user.userId, !all, query.page, query.size);
    return toPage(await this.deps.presenter.presentList(rows, caller), total, query.page, query.size);
  }

  /** PLS-2: the caller's own playlist (404 for anyone else's). */
  async getOwn(playlistId: number, caller: Caller, query: PageQuery): Promise<Playlist> {
    const row = await this.repo.findById(playlistId);
    if (!row || row.ownerId !== caller.userId) throw new AppError('PLAYLIST_NOT_FOUND');
    return this.render(row, caller, false, query);
  }

  /** PLS-4. */
  async get(playlistId: number, caller: Caller | null, query: PageQuery): Promise<Playlist> {
    return this.render(await this.visibleRow(playlistId, caller), caller, false, query);
  }

  /** PLS-17: as PLS-4, and 404 unless the playlist belongs to that user. */
  async getOfUser(who: { userId?: number; username?: string }, playlistId: number, caller: Caller | null, query: PageQuery): Promise<Playlist> {
    const user = await this.repo.findUser(who);
    const row = await this.visibleRow(playlistId, caller);
    if (!user || user.userId !== row.ownerId) throw new AppError('PLAYLIST_NOT_FOUND');
    return this.render(row, caller, false, query);
  }

  /** PLS-14 (R5): the token opens the playlist even when private, with the owner's own private tracks. */
  async byToken(token: string, caller: Caller | null, query: PageQuery): Promise<Playlist> {
    const row = await this.repo.findByToken(token);
    if (!row) throw new AppError('PLAYLIST_NOT_FOUND');
    if (!ownsOrAdmin(row, caller)) await this.ownerPresent(row);
    return this.render(row, caller, true, query);
  }

  /** PLS-11: the tracks alone, as a page of Track summaries in position order. */
  async tracks(playlistId: number, caller: Caller | null, query: PageQuery): Promise<Page<TrackSummary>> {
    const playlist = await this.get(playlistId, caller, query);
    if (!playlist.paginatedTrackResponse) throw new AppError('PLAYLIST_NOT_FOUND');
    return playlist.paginatedTrackResponse;
  }

  /** PLS-16 (tokens never resolve: R5). */
  async resolve(playlistSlug: string, caller: Caller | null): Promise<ResolveResult> {
    const row = await this.repo.findBySlug(playlistSlug);
    if (!row) throw new AppError('PLAYLIST_NOT_FOUND');
    await this.get(row.id, caller, { page: 0, size: 1 });
    return { type: 'PLAYLIST', id: row.id, resourceType: 'PLAYLIST', resourceId: row.id };
  }

  private async ownerUsername(row: PlaylistRow, caller: Caller | null): Promise<string> {
    const owner = await this.repo.username(row.ownerId);
    return owner ?? (caller?.userId === row.ownerId ? caller.username : null) ?? `user-${row.ownerId}`;
  }

  /** Web link of a playlist (R1): `{webBaseUrl}/{username}/sets/{playlistSlug}`. */
  permalink(username: string, playlistSlug: string): string {
    return `${this.web}/${username}/sets/${playlistSlug}`;
  }

  /** PLS-15: iframe for the player page; private playlists for the owner (and admins) only, with the token. */
  async embed(playlistId: number, caller: Caller | null): Promise<EmbedCode> {
    const row = await this.visibleRow(playlistId, caller);
    const playlist = await this.render(row, caller, false, { page: 0, size: 1 });
    const permalink = this.permalink(playlist.owner.username, row.playlistSlug);
    let embedUrl = `${this.web}/embed/player?url=${encodeURIComponent(permalink)}`;
    if (row.isPrivate) embedUrl += `&token=${encodeURIComponent(row.secretToken)}`;
    const title = row.title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const embedCode = `<iframe width="100%" height="450" scrolling="no" frameborder="no" allow="autoplay" title="${title}" src="${embedUrl.replace(/&/g, '&amp;')}"></iframe>`;
    return { embedCode, embedUrl };
  }

  // ───────────────────────────── secret links (R5) ─────────────────────────────

  private secretLink(row: PlaylistRow, username: string): PlaylistSecretLink {
    return {
      secretToken: row.secretToken,
      secretUrl: `${this.permalink(username, row.playlistSlug)}?token=${encodeURIComponent(row.secretToken)}`,
      expiresAt: null,
    };
  }

  /** PLS-12. */
  async getSecretLink(playlistId: number, caller: Caller): Promise<PlaylistSecretLink> {
    const row = await this.ownedRow(playlistId, caller);
    return this.secretLink(row, await this.ownerUsername(row, caller));
  }

  /** PLS-13: the old token stops working with this commit. */
  async regenerateSecretLink(playlistId: number, caller: Caller): Promise<PlaylistSecretLink> {
    await this.ownedRow(playlistId, caller);
    const row = await this.repo.setSecretToken(playlistId, newSecretToken());
    return this.secretLink(row, await this.ownerUsername(row, caller));
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
          return await this.render(row, caller, false);
        } catch (err) {
          // A concurrent create took the slug: retry with a random suffix.
          if (attempt < 2 && isUniqueViolation(err)) continue;
          throw err;
        }
      }
    } catch (err) {
      if (coverKey) await this.deps.storage.remove([coverKey]).catch(() => undefined);
      throw err;
    }
  }

  /** PLS-5: given fields only; `CoverArt: ""` removes the cover. The slug never changes (R1). */
  async update(playlistId: number, caller: Caller, fields: PlaylistFields, cover: CoverInput, correlationId: string): Promise<Playlist> {
    await this.ownedRow(playlistId, caller);
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
        await this.deps.storage.remove([oldCover]).catch(() => undefined);
      }
      return await this.render(row, caller, false);
    } catch (err) {
      if (coverKey) await this.deps.storage.remove([coverKey]).catch(() => undefined);
      throw err;
    }
  }

  /** PLS-6. Memberships go with the row (cascade). */
  async delete(playlistId: number, caller: Caller, correlationId: string): Promise<void> {
    const row = await this.ownedRow(playlistId, caller);
    await this.repo.transaction(async (tx) => {
      await this.repo.delete(tx, playlistId);
      await writeOutbox(tx, PlaylistDeleted, { playlistId, ownerId: row.ownerId }, { correlationId });
    });
    if (row.coverKey) await this.deps.storage.remove([row.coverKey]).catch(() => undefined);
  }

  /** PLS-7. */
  async deleteCover(playlistId: number, caller: Caller, correlationId: string): Promise<void> {
    const row = await this.ownedRow(playlistId, caller);
    if (!row.coverKey) return;
    await this.repo.transaction(async (tx) => {
      const updated = await this.repo.update(tx, playlistId, { coverKey: null });
      await this.emitChanged(tx, updated, correlationId);
    });
    await this.deps.storage.remove([row.coverKey]).catch(() => undefined);
  }

  // ───────────────────────────── membership (R6) ─────────────────────────────

  /** R2 for the owner: their own tracks in any state, others' public FINISHED tracks (no block between them). */
  private async assertTrackVisibleToOwner(trackId: number, caller: Caller): Promise<void> {
    const track = await this.repo.track(trackId);
    if (!track || track.deletedAt) throw new AppError('TRACK_NOT_FOUND');
    if (track.artistId === caller.userId || caller.role === 'ADMIN') return;
    if (track.isPrivate || track.state !== 'FINISHED') throw new AppError('TRACK_NOT_FOUND');
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
    await this.ownedRow(playlistId, caller);
    await this.assertTrackVisibleToOwner(trackId, caller);
    await this.underLock(playlistId, async (tx) => {
      const members = await this.repo.memberIds(tx, playlistId);
      if (members.includes(trackId)) throw new AppError('TRACK_ALREADY_IN_PLAYLIST');
      if (members.length >= MAX_TRACKS) throw new AppError('PLAYLIST_FULL', `A playlist holds at most ${MAX_TRACKS} tracks.`);
      await this.repo.append(tx, playlistId, trackId);
    });
    return this.render(await this.ownedRow(playlistId, caller), caller, false);
  }

  /** PLS-9. */
  async removeTrack(playlistId: number, trackId: number, caller: Caller): Promise<void> {
    await this.ownedRow(playlistId, caller);
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
    const before = await this.ownedRow(playlistId, caller);
    await this.underLock(playlistId, async (tx) => {
      const owned = await this.repo.visibleEntries(playlistId, { viewerId: before.ownerId, admin: false, tokenOwnerId: null }, tx);
      const visibleToOwner = new Set(owned.map((e) => e.trackId));
      const members = await this.repo.memberIds(tx, playlistId);
      const current = members.filter((id) => visibleToOwner.has(id));
      const given = new Set(trackIds);
      const permutation =
        given.size === trackIds.length && trackIds.length === current.length && current.every((id) => given.has(id));
      if (!permutation) throw new AppError('INVALID_PLAYLIST_ORDER', 'trackIds must list every track of the playlist exactly once.');
      const rest = members.filter((id) => !given.has(id));
      await this.repo.renumber(tx, playlistId, [...trackIds, ...rest]);
    });
    return this.render(await this.ownedRow(playlistId, caller), caller, false);
  }
}
