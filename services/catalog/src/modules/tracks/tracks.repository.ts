import type { Prisma, PrismaClient, TrackState } from '../../generated/prisma/client.js';
import { userSummarySourceSelect } from '@msp/contracts';
import { trackSelect } from './track.mapper.js';

export class TracksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** One page of an artist's non-deleted tracks, newest first: one query for the page, one for the total. */
  async listByArtist(artistId: number, state: TrackState | undefined, page: number, size: number) {
    const where: Prisma.TrackWhereInput = { artistId, deletedAt: null, ...(state ? { state } : {}) };
    const [rows, total] = await Promise.all([
      this.prisma.track.findMany({
        where,
        select: trackSelect,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: page * size,
        take: size,
      }),
      this.prisma.track.count({ where }),
    ]);
    return { rows, total };
  }

  /** The summaries of these users in one query (deleted ones included: callers decide). */
  findUserSummaries(userIds: readonly number[]) {
    if (userIds.length === 0) return Promise.resolve([]);
    return this.prisma.userSummary.findMany({
      where: { userId: { in: [...new Set(userIds)] } },
      select: userSummarySourceSelect,
    });
  }
}
