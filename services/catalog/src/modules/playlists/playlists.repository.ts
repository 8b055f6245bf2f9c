import { userSummarySourceSelect, type UserSummarySource } from '@msp/contracts';
import { empty, pgShapeStatement, sql, type Sql } from '@msp/db';
import type pg from 'pg';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { trackSelect, type TrackRow } from '../tracks/track.mapper.js';
import type { TrackReadsRepository } from '../tracks/track-reads.repository.js';
import { hiddenOwnerIds, ownerHiddenFragment } from '../user-bans/hidden-owners.repository.js';

/** A transaction handle, opaque to services: they pass it back to repository methods and the outbox. */
export type Tx = Prisma.TransactionClient;
type Db = PrismaClient | Tx;

export { isUniqueViolation } from '../../unique-violation.js';

/** The fields a create or an update writes (undefined: unchanged). */
export interface PlaylistChanges {
  title?: string;
  description?: string | null;
  type?: 'PLAYLIST' | 'ALBUM' | 'SINGLE' | 'EP';
  isPrivate?: boolean;
  genre?: string | null;
  tags?: string[];
  coverKey?: string | null;
}

export const playlistSelect = {
  id: true,
  ownerId: true,
  title: true,
  playlistSlug: true,
  description: true,
  type: true,
  isPrivate: true,
  genre: true,
  tags: true,
  secretToken: true,
  coverKey: true,
  likeCount: true,
  repostCount: true,
  createdAt: true,
  updatedAt: true,
} as const satisfies Prisma.PlaylistSelect;

export type PlaylistRow = Prisma.PlaylistGetPayload<{ select: typeof playlistSelect }>;

/**
 * Which tracks of a playlist one caller may see (R2, R5, R6): every non-deleted track for admins;
 * otherwise the caller's own tracks, public FINISHED tracks of artists still present and not banned
 * (R14), and — through the playlist's token — the FINISHED tracks of the playlist owner even when
 * private.
 */
export interface TrackScope {
  viewerId: number | null;
  admin: boolean;
  tokenOwnerId: number | null;
  /** Artists a block separates from the caller (R7). */
  hiddenArtists?: readonly number[];
}

function visibleSql(scope: TrackScope): Sql {
  const hidden = scope.hiddenArtists?.length ? sql` AND t.artist_id <> ALL(${[...scope.hiddenArtists]}::int[])` : empty;
  if (scope.admin) return sql`t.deleted_at IS NULL${hidden}`;
  const own = scope.viewerId ? sql` OR t.artist_id = ${scope.viewerId}` : empty;
  const token = scope.tokenOwnerId ? sql` OR (t.artist_id = ${scope.tokenOwnerId} AND t.state = 'FINISHED')` : empty;
  return sql`t.deleted_at IS NULL${hidden} AND (
    (t.is_private = false AND t.state = 'FINISHED' AND NOT t.held_back
      AND NOT ${ownerHiddenFragment('t.artist_id')})${own}${token})`;
}

export interface PlaylistAggregate {
  playlistId: number;
  artistId: number;
  genre: string;
  n: number;
  secs: number;
  first: number;
}

export class PlaylistsRepository {
  /**
   * `reads`: where a page's tracks and people come from (named statements and the row cache of
   * TrackReadsRepository) instead of Prisma queries; without it (unit wiring), from Prisma.
   */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly reads?: Pick<TrackReadsRepository, 'inOrder' | 'summaries'>,
    /** The list reads (blocks, aggregates, first tracks) as named statements on this pool; without it, through Prisma. */
    private readonly pool?: pg.Pool,
  ) {}

  /** A read of a list page: a prepared statement per shape on the pool (`pgShapeStatement`), or through Prisma. */
  private async listRead<T>(query: Sql, name: string): Promise<T[]> {
    if (!this.pool) return this.prisma.$queryRaw<T[]>(query);
    return (await this.pool.query(pgShapeStatement(query, name))).rows as T[];
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(fn);
  }

  create(tx: Tx, data: PlaylistChanges & { ownerId: number; title: string; playlistSlug: string; secretToken: string }): Promise<PlaylistRow> {
    return tx.playlist.create({ data, select: playlistSelect });
  }

  update(tx: Tx, id: number, changes: PlaylistChanges): Promise<PlaylistRow> {
    return tx.playlist.update({ where: { id }, data: changes, select: playlistSelect });
  }

  /** The last change of the playlist's membership (updatedAt). */
  async touch(tx: Tx, id: number): Promise<void> {
    await tx.playlist.update({ where: { id }, data: { updatedAt: new Date() }, select: { id: true } });
  }

  /** Memberships go with the row (cascade), and catalog's copies of its likes and reposts. */
  async delete(tx: Tx, id: number): Promise<void> {
    await tx.playlistEngagement.deleteMany({ where: { playlistId: id } });
    await tx.playlist.delete({ where: { id } });
  }

  async removeMember(tx: Tx, playlistId: number, trackId: number): Promise<boolean> {
    return (await tx.playlistTrack.deleteMany({ where: { playlistId, trackId } })).count > 0;
  }

  setSecretToken(id: number, secretToken: string): Promise<PlaylistRow> {
    return this.prisma.playlist.update({ where: { id }, data: { secretToken }, select: playlistSelect });
  }

  findManyByIds(ids: readonly number[], scope: { viewerId: number | null; admin: boolean }): Promise<PlaylistRow[]> {
    const visible: Prisma.PlaylistWhereInput = scope.admin
      ? {}
      : scope.viewerId
        ? { OR: [{ ownerId: scope.viewerId }, { isPrivate: false }] }
        : { isPrivate: false };
    return this.prisma.playlist.findMany({ where: { id: { in: [...ids] }, ...visible }, select: playlistSelect });
  }

  /** Of these owners, those whose content is hidden (deleted or banned, R14): one query. */
  hiddenOwners(userIds: readonly number[]): Promise<Set<number>> {
    return hiddenOwnerIds(this.prisma, userIds);
  }

  async ownerHidden(userId: number): Promise<boolean> {
    return (await this.hiddenOwners([userId])).has(userId);
  }

  async username(userId: number): Promise<string | null> {
    return (await this.prisma.userSummary.findUnique({ where: { userId }, select: { username: true } }))?.username ?? null;
  }

  /** What adding a track to a playlist needs to know of it (R2 for the owner). */
  track(trackId: number): Promise<Pick<TrackRow, 'artistId' | 'isPrivate' | 'heldBack' | 'state' | 'deletedAt'> | null> {
    return this.prisma.track.findUnique({ where: { id: trackId }, select: { artistId: true, isPrivate: true, heldBack: true, state: true, deletedAt: true } });
  }

  findById(id: number, db: Db = this.prisma): Promise<PlaylistRow | null> {
    return db.playlist.findUnique({ where: { id }, select: playlistSelect });
  }

  findBySlug(playlistSlug: string): Promise<PlaylistRow | null> {
    return this.prisma.playlist.findUnique({ where: { playlistSlug }, select: playlistSelect });
  }

  findByToken(secretToken: string): Promise<PlaylistRow | null> {
    return this.prisma.playlist.findUnique({ where: { secretToken }, select: playlistSelect });
  }

  /** One page of a user's playlists, newest first: one query for the page, one for the total. */
  async listByOwner(ownerId: number, publicOnly: boolean, page: number, size: number): Promise<{ rows: PlaylistRow[]; total: number }> {
    const where: Prisma.PlaylistWhereInput = { ownerId, ...(publicOnly ? { isPrivate: false } : {}) };
    const [rows, total] = await Promise.all([
      this.prisma.playlist.findMany({ where, select: playlistSelect, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page * size, take: size }),
      this.prisma.playlist.count({ where }),
    ]);
    return { rows, total };
  }

  /** The first free slug among `base`, `base-2`, … (one query). */
  async freeSlug(base: string, db: Db): Promise<string> {
    const taken = await db.playlist.findMany({
      where: { OR: [{ playlistSlug: base }, { playlistSlug: { startsWith: `${base}-` } }] },
      select: { playlistSlug: true },
    });
    const used = new Set(taken.map((t) => t.playlistSlug));
    if (!used.has(base)) return base;
    for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  /**
   * Counts, durations and genres of the tracks each playlist shows the caller, per artist (so a
   * later block filter can subtract an artist without another query): one query for a whole page.
   */
  aggregates(playlistIds: readonly number[], scope: TrackScope): Promise<PlaylistAggregate[]> {
    if (playlistIds.length === 0) return Promise.resolve([]);
    return this.listRead<PlaylistAggregate>(
      sql`
      SELECT pt.playlist_id AS "playlistId", t.artist_id AS "artistId", t.genre AS "genre",
             count(*)::int AS "n", coalesce(sum(t.duration_seconds), 0)::int AS "secs", min(pt.position)::int AS "first"
      FROM playlist_tracks pt JOIN tracks t ON t.id = pt.track_id
      WHERE pt.playlist_id = ANY(${[...playlistIds]}::int[]) AND ${visibleSql(scope)}
      GROUP BY pt.playlist_id, t.artist_id, t.genre`,
      'catalog_playlist_aggregates',
    );
  }

  /** The first `limit` visible tracks of each playlist in position order (one query for a page). */
  async firstTrackIds(playlistIds: readonly number[], scope: TrackScope, limit: number): Promise<Array<{ playlistId: number; trackId: number }>> {
    if (playlistIds.length === 0) return [];
    return this.listRead<{ playlistId: number; trackId: number }>(
      sql`
      SELECT x."playlistId", x."trackId" FROM (
        SELECT pt.playlist_id AS "playlistId", pt.track_id AS "trackId", pt.position,
               row_number() OVER (PARTITION BY pt.playlist_id ORDER BY pt.position, pt.track_id) AS rn
        FROM playlist_tracks pt JOIN tracks t ON t.id = pt.track_id
        WHERE pt.playlist_id = ANY(${[...playlistIds]}::int[]) AND ${visibleSql(scope)}
      ) x WHERE x.rn <= ${limit} ORDER BY x."playlistId", x.position, x."trackId"`,
      'catalog_playlist_first_tracks',
    );
  }

  /** Every track of one playlist the caller may see, in position order (≤ 500 rows: R6 limit). */
  async visibleEntries(playlistId: number, scope: TrackScope, db: Db = this.prisma): Promise<Array<{ trackId: number; artistId: number }>> {
    return db.$queryRaw<Array<{ trackId: number; artistId: number }>>(sql`
      SELECT pt.track_id AS "trackId", t.artist_id AS "artistId"
      FROM playlist_tracks pt JOIN tracks t ON t.id = pt.track_id
      WHERE pt.playlist_id = ${playlistId} AND ${visibleSql(scope)}
      ORDER BY pt.position, pt.track_id`);
  }

  tracksByIds(ids: readonly number[]): Promise<TrackRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    if (this.reads) return this.reads.inOrder([...new Set(ids)], 0);
    return this.prisma.track.findMany({ where: { id: { in: [...new Set(ids)] } }, select: trackSelect });
  }

  userSummaries(userIds: readonly number[]): Promise<UserSummarySource[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    if (this.reads) return this.reads.summaries([...new Set(userIds)]);
    return this.prisma.userSummary.findMany({ where: { userId: { in: [...new Set(userIds)] } }, select: userSummarySourceSelect });
  }

  /** Everyone a block separates from the viewer, either way (R7, catalog's copy of social's blocks). */
  async blockedUsers(viewerId: number): Promise<Set<number>> {
    const rows = await this.listRead<{ id: number }>(
      sql`
      SELECT blocked_id AS id FROM user_blocks WHERE blocker_id = ${viewerId}
      UNION SELECT blocker_id FROM user_blocks WHERE blocked_id = ${viewerId}`,
      'catalog_playlist_blocks',
    );
    return new Set(rows.map((r) => r.id));
  }

  /** A block between the two users, either way (R7, catalog's copy). */
  async blocked(viewerId: number, userId: number): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<unknown[]>(sql`
      SELECT 1 FROM user_blocks WHERE (blocker_id = ${viewerId} AND blocked_id = ${userId}) OR (blocker_id = ${userId} AND blocked_id = ${viewerId})`);
    return rows.length > 0;
  }

  findUser(idOrName: { userId?: number; username?: string }): Promise<{ userId: number; username: string; isBanned: boolean } | null> {
    return this.prisma.userSummary.findFirst({
      where: { ...(idOrName.userId ? { userId: idOrName.userId } : { username: idOrName.username ?? '' }), isDeleted: false },
      select: { userId: true, username: true, isBanned: true },
    });
  }

  // ───────────── membership, inside a transaction holding the playlist's row lock ─────────────

  /** Locks the playlist row (FOR UPDATE): membership changes of one playlist run one at a time. */
  async lock(tx: Prisma.TransactionClient, playlistId: number): Promise<boolean> {
    const rows = await tx.$queryRaw<Array<{ id: number }>>(sql`SELECT id FROM playlists WHERE id = ${playlistId} FOR UPDATE`);
    return rows.length > 0;
  }

  /** R6: a deleted track leaves every playlist (swept here, under the lock, before counting). */
  sweepDeleted(tx: Prisma.TransactionClient, playlistId: number): Promise<number> {
    return tx.$executeRaw(sql`
      DELETE FROM playlist_tracks pt USING tracks t
      WHERE pt.playlist_id = ${playlistId} AND t.id = pt.track_id AND t.deleted_at IS NOT NULL`);
  }

  async append(tx: Prisma.TransactionClient, playlistId: number, trackId: number): Promise<void> {
    await tx.$executeRaw(sql`
      INSERT INTO playlist_tracks (playlist_id, track_id, position)
      SELECT ${playlistId}, ${trackId}, coalesce(max(position), 0) + 1 FROM playlist_tracks WHERE playlist_id = ${playlistId}`);
  }

  /** Track ids of the playlist in position order. */
  async memberIds(tx: Prisma.TransactionClient, playlistId: number): Promise<number[]> {
    const rows = await tx.$queryRaw<Array<{ trackId: number }>>(sql`
      SELECT track_id AS "trackId" FROM playlist_tracks WHERE playlist_id = ${playlistId} ORDER BY position, track_id`);
    return rows.map((r) => r.trackId);
  }

  /** Positions 1…n in the given order: one statement. */
  async renumber(tx: Prisma.TransactionClient, playlistId: number, orderedTrackIds: readonly number[]): Promise<void> {
    if (orderedTrackIds.length === 0) return;
    await tx.$executeRaw(sql`
      UPDATE playlist_tracks pt SET position = x.pos::int
      FROM unnest(${[...orderedTrackIds]}::int[]) WITH ORDINALITY AS x(track_id, pos)
      WHERE pt.playlist_id = ${playlistId} AND pt.track_id = x.track_id`);
  }
}

/** What PlaylistsService reads (unit tests give a fake). */
export type PlaylistReads = Pick<
  PlaylistsRepository,
  'findById' | 'ownerHidden' | 'listByOwner' | 'findUser' | 'blocked' | 'findByToken' | 'findBySlug' | 'username' | 'setSecretToken'
>;

/** What PlaylistEditsService changes and checks (unit tests give a fake). */
export type PlaylistWrites = Pick<
  PlaylistsRepository,
  | 'transaction'
  | 'freeSlug'
  | 'create'
  | 'update'
  | 'delete'
  | 'lock'
  | 'findById'
  | 'track'
  | 'ownerHidden'
  | 'blocked'
  | 'sweepDeleted'
  | 'touch'
  | 'memberIds'
  | 'append'
  | 'removeMember'
  | 'visibleEntries'
  | 'renumber'
>;
