import { AppError } from '@msp/errors';
import type { ObjectStorage } from '@msp/storage';
import { PLAYLISTS, SEGMENT_NAME, type MediaScope, type MediaSigner, type Rendition, type SignedQuery } from './media-signer.js';
import type { MediaTrackRow, MediaTracks } from './media.repository.js';

/**
 * The rules behind the URLs of R4. Every request re-checks the signature (bound to the track,
 * scope, grant and expiry) and the track as it is now: deleted or unfinished → 404; a viewer's URL
 * stops working when the track turns private, BLOCKED, or PREVIEW for the full rendition, or its
 * artist is banned (R2, R3, R14).
 */
export class MediaService {
  constructor(
    private readonly repo: MediaTracks,
    private readonly signer: MediaSigner,
    private readonly storage: Pick<ObjectStorage, 'stat' | 'get'>,
  ) {}

  async authorise(trackId: number, scope: MediaScope, query: SignedQuery): Promise<MediaTrackRow> {
    const track = await this.repo.track(trackId);
    if (!this.signer.verify(trackId, scope, query, track?.secretToken ?? '')) throw new AppError('FORBIDDEN', 'The media URL is invalid or expired.');
    if (!track || track.deletedAt || track.state !== 'FINISHED') throw new AppError('TRACK_NOT_FOUND');
    if (query.g === 'v' && (track.isPrivate || track.heldBack)) throw new AppError('TRACK_NOT_FOUND');
    if (query.g !== 'o') {
      // R14: a viewer's or token URL stops working when the artist is banned.
      if (track.artistBanned) throw new AppError('TRACK_NOT_FOUND');
      const allowed = scope === 'full' ? track.access === 'PLAYABLE' : track.access !== 'BLOCKED';
      if (!allowed) throw new AppError('TRACK_NOT_PLAYABLE', 'This rendition is not available for this track.');
    }
    return track;
  }

  /**
   * An HLS playlist with its URI lines as absolute signed URLs, all with the playlist's own expiry
   * and grant: the master's media playlists (MEDIA-1) and a media playlist's segments (MEDIA-2). A
   * track processed before the ladder has one media playlist at `index.m3u8`; the same rewriting
   * serves it. A name the playlist holds that no route serves is left out rather than signed.
   */
  async hlsPlaylist(track: MediaTrackRow, rendition: Rendition, query: SignedQuery): Promise<string> {
    if (!track.hlsPlaylistKey || !track.hlsPrefix) throw new AppError('TRACK_NOT_FOUND');
    const key = rendition === 'index.m3u8' ? track.hlsPlaylistKey : `${track.hlsPrefix}${rendition}`;
    if (!(await this.storage.stat(key))) throw new AppError('TRACK_NOT_FOUND');
    const chunks: Buffer[] = [];
    for await (const chunk of await this.storage.get(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .map((line) => {
        const name = line.trim();
        if (!name || name.startsWith('#')) return line;
        if (PLAYLISTS.has(name as Rendition) && name !== 'index.m3u8') {
          return this.signer.renditionUrl(track.id, name as Rendition, query.g, query.e, track.secretToken);
        }
        return SEGMENT_NAME.test(name) ? this.signer.segmentUrl(track.id, name, query.g, query.e, track.secretToken) : '';
      })
      .join('\n');
  }
}
