import { randomBytes } from 'node:crypto';
import { toPage, type EmbedCode, type Page, type Playlist, type PlaylistSecretLink, type ResolveResult, type TrackSummary } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import { ownsOrAdmin, type PlaylistPresenter } from './playlist-presenter.js';
import type { PlaylistReads, PlaylistRow } from './playlists.repository.js';

/** R6: at most this many distinct tracks per playlist. */
export const MAX_TRACKS = 500;

/** R5: 32 URL-safe characters. */
export const newSecretToken = () => randomBytes(24).toString('base64url');

export interface PlaylistsServiceDeps {
  repo: PlaylistReads;
  presenter: Pick<PlaylistPresenter, 'presentOne' | 'presentList'>;
  webBaseUrl: string;
}

interface PageQuery {
  page: number;
  size: number;
}

export const DEFAULT_TRACK_PAGE: PageQuery = { page: 0, size: 20 };

/**
 * What a caller may read of playlists (R5, R6, R7, R14): PLS-1/2/4/11/12/13/14/15/16/17, USR-19.
 * Changes are PlaylistEditsService's.
 */
export class PlaylistsService {
  private readonly repo: PlaylistReads;

  constructor(private readonly deps: PlaylistsServiceDeps) {
    this.repo = deps.repo;
  }

  private get web() {
    return this.deps.webBaseUrl.replace(/\/+$/, '');
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

  /** The playlist as the caller sees it (null from the presenter → 404). */
  async render(row: PlaylistRow, caller: Caller | null, viaToken: boolean, query: PageQuery = DEFAULT_TRACK_PAGE): Promise<Playlist> {
    const playlist = await this.deps.presenter.presentOne(row, caller, { viaToken, ...query });
    if (!playlist) throw new AppError('PLAYLIST_NOT_FOUND');
    return playlist;
  }

  /**
   * Owner-only operations: the owner passes; an admin (who can see every playlist) gets 403; anyone
   * else 404, so a stranger learns nothing about playlists that are not theirs.
   */
  async ownedRow(playlistId: number, caller: Caller): Promise<PlaylistRow> {
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
}
