import { toPage, type EmbedCode, type Page, type ResolveResult, type Track, type TrackState, type WaveformUrl } from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { Caller } from '@msp/http';
import { AUDIO_CONTENT_TYPES, type AudioFormat } from '../uploads/audio-format.js';
import type { TrackRow } from './track.mapper.js';
import { ANCHOR_STEP, ArtistPageAnchors } from './artist-page-anchors.js';
import type { TrackAccess } from './track-access.js';
import { HISTORY_ANCHOR_STEP, type HistoryIndex } from './history-index.js';
import type { TrackPresenter } from './track-presenter.js';
import type { TrackReadsRepository } from './track-reads.repository.js';
import { isOwnerOrAdmin } from './track-rules.js';
import type { TracksRepository } from './tracks.repository.js';

const EXTENSIONS: Record<string, string> = { mp3: 'mp3', wav: 'wav', flac: 'flac', aac: 'aac', m4a: 'm4a', ogg: 'ogg' };

export interface TrackReadsServiceDeps {
  reads: Pick<
    TrackReadsRepository,
    | 'byId'
    | 'byToken'
    | 'bySlug'
    | 'artistPage'
    | 'artistCount'
    | 'artistAnchors'
    | 'publicArtistPage'
    | 'user'
    | 'historyOutline'
    | 'historyPage'
    | 'userFlags'
  >;
  repo: Pick<TracksRepository, 'original'>;
  access: TrackAccess;
  presenter: Pick<TrackPresenter, 'presentOne' | 'present'>;
  historyIndex: Pick<HistoryIndex, 'locate'>;
  /** Deep pages of an artist's public tracks seek to cached anchors (default: a cache of its own). */
  anchors?: ArtistPageAnchors;
  webBaseUrl: string;
}

interface PageQuery {
  page: number;
  size: number;
}

/**
 * TRK-6/7/13/14/15/16/19/21/22/23, USR-17/18: what a caller may read of tracks. Each read is one SQL
 * statement with the artist joined (TrackReadsRepository) plus at most one call to social for the
 * caller's flags (the presenter); visibility never waits for social.
 */
export class TrackReadsService {
  private readonly anchors: ArtistPageAnchors;

  constructor(private readonly deps: TrackReadsServiceDeps) {
    this.anchors = deps.anchors ?? new ArtistPageAnchors();
  }

  private async visible(trackId: number, caller: Caller | null): Promise<{ row: TrackRow; track: Track }> {
    // A signed-in caller's flags come with the row: one statement either way.
    const { row, flags } = caller
      ? await this.deps.access.visibleWithFlags(trackId, caller)
      : { row: await this.deps.access.visible(trackId, null), flags: undefined };
    const track = await this.deps.presenter.presentOne(row, caller, { known: flags });
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    return { row, track };
  }

  permalink(username: string, trackSlug: string): string {
    return `${this.deps.webBaseUrl.replace(/\/+$/, '')}/${username}/${trackSlug}`;
  }

  async get(trackId: number, caller: Caller | null): Promise<Track> {
    return (await this.visible(trackId, caller)).track;
  }

  /** TRK-7: the caller's own track in any state. */
  async getOwn(trackId: number, caller: Caller): Promise<Track> {
    const row = await this.deps.reads.byId(trackId, caller.userId);
    if (!row || row.deletedAt || row.artistId !== caller.userId) throw new AppError('TRACK_NOT_FOUND');
    const track = await this.deps.presenter.presentOne(row, caller);
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
    const track = await this.deps.presenter.presentOne(row, caller, { viaToken: true });
    if (!track) throw new AppError('TRACK_NOT_FOUND');
    return track;
  }

  async resolve(trackSlug: string, caller: Caller | null): Promise<ResolveResult> {
    const row = this.deps.access.check(await this.deps.reads.bySlug(trackSlug, caller?.userId ?? 0), caller);
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
    let embedUrl = `${this.deps.webBaseUrl.replace(/\/+$/, '')}/embed/player?url=${encodeURIComponent(permalink)}`;
    if (row.isPrivate) embedUrl += `&token=${encodeURIComponent(row.secretToken)}`;
    const title = track.title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const embedCode = `<iframe width="100%" height="166" scrolling="no" frameborder="no" allow="autoplay" title="${title}" src="${embedUrl.replace(/&/g, '&amp;')}"></iframe>`;
    return { embedCode, embedUrl };
  }

  /** TRK-21. */
  async listOwn(caller: Caller, query: PageQuery & { state?: TrackState }): Promise<Page<Track>> {
    const state = query.state ?? null;
    const rows = await this.deps.reads.artistPage(caller.userId, false, state, query.page, query.size, caller.userId);
    const total = await pageTotal(rows.length, query, () => this.deps.reads.artistCount(caller.userId, false, state));
    return toPage(await this.deps.presenter.present(rows, caller), total, query.page, query.size);
  }

  /** USR-18, TRK-22, TRK-23: the owner (and admins) see every track, others the public FINISHED ones (R2, R7); banned user → 404 (R14). */
  async listByUser(who: { userId?: number; username?: string }, caller: Caller | null, query: PageQuery): Promise<Page<Track>> {
    const viewerId = caller?.userId ?? 0;
    // Most callers see only the public tracks of someone else: the user and the page in one statement.
    const maybeOwn =
      !!caller && (caller.role === 'ADMIN' || who.userId === caller.userId || (!!who.username && who.username === caller.username?.toLowerCase()));
    if (!maybeOwn) {
      const offset = query.page * query.size;
      const artistId = who.userId;
      // A deep page (offset ≥ ANCHOR_STEP) of an artist known by id starts at its anchor (artist-page-anchors.ts).
      const from =
        artistId !== undefined && offset >= ANCHOR_STEP ? await this.anchors.anchorFor(artistId, offset, () => this.deps.reads.artistAnchors(artistId)) : null;
      const { user, rows } = await this.deps.reads.publicArtistPage(who, viewerId, query.page, query.size, from ?? undefined);
      if (user && user.userId !== viewerId) {
        if (user.isBanned || user.blocked) throw new AppError('USER_NOT_FOUND');
        const total = await pageTotal(rows.length, query, () => this.deps.reads.artistCount(user.userId, true, null), user.trackCount);
        return toPage(await this.deps.presenter.present(rows, caller), total, query.page, query.size);
      }
      if (!user) throw new AppError('USER_NOT_FOUND');
    }
    const user = await this.deps.reads.user(who, viewerId);
    // R14: a banned user's profile and content answer 404 to all but admins (as identity's profile does).
    if (!user || (user.isBanned && caller?.role !== 'ADMIN')) throw new AppError('USER_NOT_FOUND');
    const all = !!caller && (caller.userId === user.userId || caller.role === 'ADMIN');
    // R7 from catalog's copy of the blocks: never depends on social answering.
    if (!all && user.blocked) throw new AppError('USER_NOT_FOUND');
    const rows = await this.deps.reads.artistPage(user.userId, !all, null, query.page, query.size, viewerId);
    // Others see the public FINISHED tracks: exactly the R9 trackCount catalog keeps with every change.
    const total = await pageTotal(rows.length, query, () => this.deps.reads.artistCount(user.userId, !all, null), all ? undefined : user.trackCount);
    return toPage(await this.deps.presenter.present(rows, caller), total, query.page, query.size);
  }

  /** USR-17. R8: with showHistory off the page is empty; the entries come back when it is on again. */
  async history(caller: Caller, query: PageQuery): Promise<Page<Track>> {
    const offset = query.page * query.size;
    const locate = () => this.deps.historyIndex.locate(caller.userId, offset, () => this.deps.reads.historyOutline(caller.userId));
    // A deep page starts at its anchor (history-index.ts), so it never walks the entries before it.
    const known = offset >= HISTORY_ANCHOR_STEP ? await locate() : null;
    // The page, the caller's flags of its tracks and showHistory in one statement: the page is thrown
    // away in the rare case that history is off.
    const { rows, playedAt, flags, showHistory } = await this.deps.reads.historyPage(caller.userId, query.page, query.size, known?.start ?? null);
    if (!(showHistory ?? true)) return toPage([], 0, query.page, query.size);
    const total = await pageTotal(rows.length, query, async () => (known ?? (await locate())).total);
    const tracks = await this.deps.presenter.present(rows, caller, { flags });
    return toPage(
      tracks.map((t) => ({ ...t, lastPlayedAt: playedAt.get(t.id) })),
      total,
      query.page,
      query.size,
    );
  }

  /** TRK-19: PRO (server-side tier, R12), FINISHED, PLAYABLE unless the owner. */
  async download(trackId: number, caller: Caller): Promise<{ key: string; filename: string; contentType: string }> {
    const { row } = await this.visible(trackId, caller);
    if ((await this.deps.reads.userFlags(caller.userId))?.tier !== 'PRO') throw new AppError('PRO_REQUIRED', 'Offline download needs a Pro account.');
    if (row.state !== 'FINISHED') throw new AppError('INVALID_TRACK_STATE', 'The track is not processed yet.');
    if (row.access !== 'PLAYABLE' && !isOwnerOrAdmin(row, caller)) throw new AppError('TRACK_NOT_PLAYABLE', 'This track cannot be downloaded.');
    const original = await this.deps.repo.original(trackId);
    if (!original.originalKey) throw new AppError('TRACK_NOT_FOUND');
    const ext = EXTENSIONS[original.originalFormat ?? ''] ?? 'bin';
    const contentType = AUDIO_CONTENT_TYPES[ext as AudioFormat] ?? 'application/octet-stream';
    return { key: original.originalKey, filename: `${row.trackSlug}.${ext}`, contentType };
  }
}

/**
 * The total of a page list without counting when the page itself tells it: a page with rows but
 * fewer than `size` ends the list. `known` is a count kept elsewhere (the R9 trackCount), taken
 * when it agrees with a full page; otherwise `count` runs (an empty page past the end, a stale copy).
 */
export async function pageTotal(rows: number, query: PageQuery, count: () => Promise<number>, known?: number): Promise<number> {
  const before = query.page * query.size;
  if (rows > 0 && rows < query.size) return before + rows;
  if (known !== undefined && rows === query.size && known >= before + rows) return known;
  return count();
}
