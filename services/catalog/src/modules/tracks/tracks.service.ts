import { toPage, toUserSummary, type Page, type Track, type TrackState, type UserSummary } from '@msp/contracts';
import type { Caller } from '@msp/http';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { NO_MEDIA_URLS, toTrack } from './track.mapper.js';
import { TracksRepository } from './tracks.repository.js';

/**
 * The caller's own summary when catalog's projection has not caught up with identity yet:
 * what the gateway forwarded, with counts that are zero until the projection arrives.
 */
function callerSummary(caller: Caller): UserSummary {
  const username = caller.username ?? `user-${caller.userId}`;
  return {
    id: caller.userId,
    username,
    displayName: username,
    avatarUrl: null,
    tier: caller.tier,
    isFollowing: false,
    followerCount: 0,
    trackCount: 0,
  };
}

export class TracksService {
  private readonly repo: TracksRepository;

  constructor(prisma: PrismaClient) {
    this.repo = new TracksRepository(prisma);
  }

  /** TRK-21: the caller's own tracks in every state and privacy (R2), newest first. */
  async listOwn(caller: Caller, query: { page: number; size: number; state?: TrackState }): Promise<Page<Track>> {
    const { page, size, state } = query;
    const { rows, total } = await this.repo.listByArtist(caller.userId, state, page, size);
    const [summary] = rows.length > 0 ? await this.repo.findUserSummaries([caller.userId]) : [];
    // Self is never "followed" (API.md §2 User summary).
    const artist = summary ? toUserSummary(summary, false) : callerSummary(caller);
    const items = rows.map((row) =>
      toTrack(row, {
        artist,
        media: NO_MEDIA_URLS,
        // Likes and reposts live in social; their caller-relative copies arrive with engagement.
        isLiked: false,
        isReposted: false,
        showSecretToken: true,
      }),
    );
    return toPage(items, total, page, size);
  }
}
