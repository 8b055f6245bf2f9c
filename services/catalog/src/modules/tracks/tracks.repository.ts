import type { Prisma, PrismaClient, TrackState } from '../../generated/prisma/client.js';
import { userSummarySourceSelect } from '@msp/contracts';
import { trackSelect, type TrackRow } from './track.mapper.js';

type Db = PrismaClient | Prisma.TransactionClient;

/** Public and FINISHED, not deleted (R2): what everybody may see of someone else's tracks. */
export const PUBLIC_TRACK: Prisma.TrackWhereInput = { deletedAt: null, isPrivate: false, state: 'FINISHED' };

export class TracksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findById(id: number, db: Db = this.prisma): Promise<TrackRow | null> {
    return db.track.findUnique({ where: { id }, select: trackSelect });
  }

  findBySlug(trackSlug: string): Promise<TrackRow | null> {
    return this.prisma.track.findUnique({ where: { trackSlug }, select: trackSelect });
  }

  findByToken(secretToken: string): Promise<TrackRow | null> {
    return this.prisma.track.findUnique({ where: { secretToken }, select: trackSelect });
  }

  /** One page of an artist's non-deleted tracks, newest first: one query for the page, one for the total. */
  async listByArtist(artistId: number, options: { state?: TrackState; publicOnly?: boolean }, page: number, size: number) {
    const where: Prisma.TrackWhereInput = {
      artistId,
      deletedAt: null,
      ...(options.state ? { state: options.state } : {}),
      ...(options.publicOnly ? PUBLIC_TRACK : {}),
    };
    const [rows, total] = await Promise.all([
      this.prisma.track.findMany({ where, select: trackSelect, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page * size, take: size }),
      this.prisma.track.count({ where }),
    ]);
    return { rows, total };
  }

  /** R12: every non-deleted track in any state counts against the FREE quota. */
  countOwned(artistId: number, db: Db = this.prisma): Promise<number> {
    return db.track.count({ where: { artistId, deletedAt: null } });
  }

  /** R9 trackCount: public FINISHED tracks. */
  countPublic(artistId: number, db: Db): Promise<number> {
    return db.track.count({ where: { artistId, ...PUBLIC_TRACK } });
  }

  /** The first free slug among `base`, `base-2`, `base-3`, … (one query). */
  async freeSlug(base: string, db: Db): Promise<string> {
    const taken = await db.track.findMany({
      where: { OR: [{ trackSlug: base }, { trackSlug: { startsWith: `${base}-` } }] },
      select: { trackSlug: true },
    });
    const used = new Set(taken.map((t) => t.trackSlug));
    if (!used.has(base)) return base;
    for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  findUserSummaries(userIds: readonly number[]) {
    if (userIds.length === 0) return Promise.resolve([]);
    return this.prisma.userSummary.findMany({ where: { userId: { in: [...new Set(userIds)] } }, select: userSummarySourceSelect });
  }

  findUser(idOrName: { userId?: number; username?: string }) {
    return this.prisma.userSummary.findFirst({
      where: { ...(idOrName.userId ? { userId: idOrName.userId } : { username: idOrName.username ?? '' }), isDeleted: false },
      select: { userId: true, tier: true, isPrivate: true },
    });
  }

  /** USR-17: the caller's history, latest play first, tracks still visible to them (R2). */
  async history(userId: number, page: number, size: number) {
    const where: Prisma.ListeningHistoryWhereInput = { userId };
    const trackVisible = { OR: [{ artistId: userId, deletedAt: null }, PUBLIC_TRACK] } satisfies Prisma.TrackWhereInput;
    const entries = await this.prisma.listeningHistory.findMany({
      where,
      orderBy: [{ lastPlayedAt: 'desc' }, { trackId: 'desc' }],
      select: { trackId: true, lastPlayedAt: true },
    });
    // History rows carry no track columns; visible ones are looked up in one query (bounded by the user's history).
    const visible = entries.length
      ? await this.prisma.track.findMany({ where: { id: { in: entries.map((e) => e.trackId) }, ...trackVisible }, select: trackSelect })
      : [];
    const byId = new Map(visible.map((r) => [r.id, r]));
    const all = entries.flatMap((e) => {
      const row = byId.get(e.trackId);
      return row ? [{ row, lastPlayedAt: e.lastPlayedAt }] : [];
    });
    return { items: all.slice(page * size, page * size + size), total: all.length };
  }
}
