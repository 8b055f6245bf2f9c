import { AppError } from '@msp/errors';
import type { ObjectStorage } from '@msp/storage';
import type { MediaScope, MediaSigner, SignedQuery } from './media-signer.js';
import type { MediaRepository, MediaTrackRow } from './media.repository.js';

/**
 * The rules behind the URLs of R4. Every request re-checks the signature (bound to the track,
 * scope, grant and expiry) and the track as it is now: deleted or unfinished → 404; a viewer's URL
 * stops working when the track turns private, BLOCKED, or PREVIEW for the full rendition, or its
 * artist is banned (R2, R3, R14).
 */
export class MediaService {
  constructor(
    private readonly repo: MediaRepository,
    private readonly signer: MediaSigner,
    private readonly storage: ObjectStorage,
  ) {}

  async authorise(trackId: number, scope: MediaScope, query: SignedQuery): Promise<MediaTrackRow> {
    const track = await this.repo.track(trackId);
    if (!this.signer.verify(trackId, scope, query, track?.secretToken ?? '')) throw new AppError('FORBIDDEN', 'The media URL is invalid or expired.');
    if (!track || track.deletedAt || track.state !== 'FINISHED') throw new AppError('TRACK_NOT_FOUND');
    if (query.g === 'v' && track.isPrivate) throw new AppError('TRACK_NOT_FOUND');
    if (query.g !== 'o') {
      // R14: a viewer's or token URL stops working when the artist is banned.
      if (track.artistBanned) throw new AppError('TRACK_NOT_FOUND');
      const allowed = scope === 'full' ? track.access === 'PLAYABLE' : track.access !== 'BLOCKED';
      if (!allowed) throw new AppError('TRACK_NOT_PLAYABLE', 'This rendition is not available for this track.');
    }
    return track;
  }

  /** The HLS playlist with its segment lines as absolute signed URLs (the playlist's own expiry and grant). */
  async hlsPlaylist(track: MediaTrackRow, query: SignedQuery): Promise<string> {
    if (!track.hlsPlaylistKey) throw new AppError('TRACK_NOT_FOUND');
    const chunks: Buffer[] = [];
    for await (const chunk of await this.storage.get(track.hlsPlaylistKey)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .map((line) => {
        const name = line.trim();
        return name && !name.startsWith('#') ? this.signer.segmentUrl(track.id, name, query.g, query.e, track.secretToken) : line;
      })
      .join('\n');
  }
}
