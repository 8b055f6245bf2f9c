import type { Prisma, PrismaClient, TrackState } from '../../generated/prisma/client.js';
import { userSummarySourceSelect } from '@msp/contracts';
import { trackSelect, type TrackRow } from './track.mapper.js';
import { listedTrackSql } from '../discovery/discovery-sql.js';

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
      select: { userId: true, tier: true, isPrivate: true, isBanned: true },
    });
  }

  /**
   * USR-17: the caller's history, latest play first, tracks still visible to them (R2; R7 through
   * catalog's copy of the blocks), filtered in SQL before paging so the total matches the content.
   */
  async history(userId: number, page: number, size: number) {
    const from = `FROM listening_history h JOIN tracks t ON t.id = h.track_id
      WHERE h.user_id = $1 AND ((t.artist_id = $1 AND t.deleted_at IS NULL) OR (${listedTrackSql('t', '$1')}))`;
    const [entries, counted] = await Promise.all([
      this.prisma.$queryRawUnsafe<Array<{ trackId: number; lastPlayedAt: Date }>>(
        `SELECT h.track_id AS "trackId", h.last_played_at AS "lastPlayedAt" ${from}
          ORDER BY h.last_played_at DESC, h.track_id DESC LIMIT $2 OFFSET $3`,
        userId,
        size,
        page * size,
      ),
      this.prisma.$queryRawUnsafe<Array<{ total: number }>>(`SELECT count(*)::int AS total ${from}`, userId),
    ]);
    const rows = entries.length
      ? await this.prisma.track.findMany({ where: { id: { in: entries.map((e) => e.trackId) } }, select: trackSelect })
      : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const items = entries.flatMap((e) => {
      const row = byId.get(e.trackId);
      return row ? [{ row, lastPlayedAt: e.lastPlayedAt }] : [];
    });
    return { items, total: counted[0]?.total ?? 0 };
  }
}
