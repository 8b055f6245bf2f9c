import type { FeedItemType } from '@msp/contracts';
import { join, sql, type Sql } from '@msp/db';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { col, notBannedSql, playlistVisibleSql, trackVisibleSql, userColumns } from '../users/user-sql.js';
import type { PlaylistListRow, TrackListRow } from '../engagement/track.mapper.js';

export interface FeedRow {
  feedId: number;
  type: FeedItemType;
  resourceType: 'TRACK' | 'PLAYLIST';
  resourceId: number;
  actorId: number;
  at: Date;
}

/**
 * The feed's sources: one row per post or action, each with its (user, time) and (time) indexes.
 * `type`, `rtype` and `prio` are SQL literals written here (constants of the statement, not bound
 * parameters); the names are identifiers.
 */
const SOURCES: ReadonlyArray<{ type: Sql; rtype: Sql; table: string; id: string; user: string; at: string; prio: Sql }> = [
  { type: sql`'TRACK_POSTED'`, rtype: sql`'TRACK'`, table: 'track_refs', id: 'track_id', user: 'artist_id', at: 'published_at', prio: sql`0` },
  { type: sql`'TRACK_REPOSTED'`, rtype: sql`'TRACK'`, table: 'track_reposts', id: 'track_id', user: 'user_id', at: 'created_at', prio: sql`1` },
  { type: sql`'TRACK_LIKED'`, rtype: sql`'TRACK'`, table: 'track_likes', id: 'track_id', user: 'user_id', at: 'created_at', prio: sql`2` },
  { type: sql`'PLAYLIST_POSTED'`, rtype: sql`'PLAYLIST'`, table: 'playlist_refs', id: 'playlist_id', user: 'owner_id', at: 'posted_at', prio: sql`0` },
  {
    type: sql`'PLAYLIST_REPOSTED'`,
    rtype: sql`'PLAYLIST'`,
    table: 'playlist_reposts',
    id: 'playlist_id',
    user: 'user_id',
    at: 'created_at',
    prio: sql`1`,
  },
  { type: sql`'PLAYLIST_LIKED'`, rtype: sql`'PLAYLIST'`, table: 'playlist_likes', id: 'playlist_id', user: 'user_id', at: 'created_at', prio: sql`2` },
];

/** From this many followed users on, the feed walks the sources newest first instead of per followed user. */
export const WIDE_FOLLOWING = 200;

/**
 * The newest actions of the followed users inside the window, at most `cap` of each kind; `prio`
 * breaks ties of the same instant (a post before a repost before a like). Two shapes, same rows:
 * few followed users → each source through its (user, time) index, per followed user; many →
 * each source's (time) index newest first, keeping the followed users' rows until `cap` (the
 * `OFFSET 0` keeps the planner from turning it back into the first shape, which reads every
 * action of 1,000 busy artists in the window).
 */
function events(since: Date, cap: number, wide: boolean): Sql {
  return join(
    SOURCES.map((x) => {
      const [table, id, user, at] = [col(x.table), col(`x.${x.id}`), col(`x.${x.user}`), col(`x.${x.at}`)];
      const select = sql`SELECT ${x.type} AS type, ${x.rtype} AS rtype, ${id} AS rid, ${user} AS actor, ${at} AS at, x.feed_id AS fid, ${x.prio} AS prio`;
      const followed = sql`${user} IN (SELECT uid FROM fol)`;
      return wide
        ? sql`(${select} FROM (SELECT ${id}, ${user}, ${at}, x.feed_id FROM ${table} x WHERE ${at} >= ${since} ORDER BY ${at} DESC OFFSET 0) x
          WHERE ${followed} LIMIT ${cap})`
        : sql`(${select} FROM ${table} x WHERE ${followed} AND ${at} >= ${since} ORDER BY ${at} DESC LIMIT ${cap})`;
    }),
    '\n  UNION ALL\n  ',
  );
}

/**
 * DSC-1, fan-out on read (see README): the followed users' actions, one item per resource at its
 * newest action (ties: post, repost, like; then the lowest actor id), only resources visible to
 * the viewer (R2, R6, R7) and actors still present and not banned (R14), newest first, at most
 * `cap` items. The page and the total come from one statement, visibility applied before paging.
 */
function feedSql(viewerId: number, since: Date, cap: number, wide: boolean): Sql {
  return sql`
  -- R14: banned followees are no actors at all, so an item another followed user acted on stays,
  -- with that user as its actor.
  WITH fol AS MATERIALIZED (SELECT followee_id AS uid FROM follows WHERE follower_id = ${viewerId} AND ${notBannedSql(col('followee_id'), false)}),
  ev AS (${events(since, cap, wide)}),
  latest AS (SELECT DISTINCT ON (rtype, rid) * FROM ev ORDER BY rtype, rid, at DESC, prio, actor),
  visible AS (
    SELECT l.* FROM latest l
      JOIN user_summaries a ON a.user_id = l.actor AND NOT a.is_deleted
      -- One primary-key lookup per candidate (LIMIT 1 keeps the planner from hashing whole tables).
      LEFT JOIN LATERAL (SELECT * FROM track_refs t WHERE l.rtype = 'TRACK' AND t.track_id = l.rid LIMIT 1) t ON true
      LEFT JOIN LATERAL (SELECT * FROM playlist_refs p WHERE l.rtype = 'PLAYLIST' AND p.playlist_id = l.rid LIMIT 1) p ON true
     WHERE (t.track_id IS NOT NULL AND ${trackVisibleSql('t', viewerId, false)})
        OR (p.playlist_id IS NOT NULL AND ${playlistVisibleSql('p', viewerId, false)})
     ORDER BY l.at DESC, l.fid DESC LIMIT ${cap})`;
}

export class FeedRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async page(viewerId: number, since: Date, cap: number, page: number, size: number): Promise<{ rows: FeedRow[]; total: number }> {
    const [following] = await this.prisma.$queryRaw<Array<{ n: number }>>(sql`SELECT count(*)::int AS n FROM follows WHERE follower_id = ${viewerId}`);
    const wide = (following?.n ?? 0) >= WIDE_FOLLOWING;
    const rows = await this.prisma.$queryRaw<Array<FeedRow & { total: number }>>(
      sql`${feedSql(viewerId, since, cap, wide)}
       SELECT v.fid AS "feedId", v.type, v.rtype AS "resourceType", v.rid AS "resourceId", v.actor AS "actorId", v.at,
              count(*) OVER ()::int AS total
         FROM visible v ORDER BY v.at DESC, v.fid DESC LIMIT ${size} OFFSET ${page * size}`,
    );
    if (rows.length > 0 || page === 0) return { rows, total: rows[0]?.total ?? 0 };
    // Past the end: the window count did not run, count alone.
    const [count] = await this.prisma.$queryRaw<Array<{ total: number }>>(
      sql`${feedSql(viewerId, since, cap, wide)} SELECT count(*)::int AS total FROM visible`,
    );
    return { rows: [], total: count?.total ?? 0 };
  }

  /** Social's own rows of the page's tracks: the fields social owns and the fallback when catalog does not answer. */
  tracks(ids: number[], viewerId: number): Promise<TrackListRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.prisma.$queryRaw<TrackListRow[]>(
      sql`SELECT t.track_id AS "trackId", t.title, t.track_slug AS "trackSlug", t.state, t.is_private AS "isPrivate",
              t.access, t.duration_seconds AS "durationSeconds", t.cover_url AS "coverUrl", t.genre,
              t.published_at AS "publishedAt", t.created_at AS "createdAt", t.like_count AS "likeCount",
              t.repost_count AS "repostCount", t.comment_count AS "commentCount",
              EXISTS (SELECT 1 FROM track_likes l WHERE l.user_id = ${viewerId} AND l.track_id = t.track_id) AS "isLiked",
              EXISTS (SELECT 1 FROM track_reposts r WHERE r.user_id = ${viewerId} AND r.track_id = t.track_id) AS "isReposted",
              EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ${viewerId} AND f.followee_id = a.user_id) AS "artistIsFollowing",
              ${userColumns('a', 'artist')}
         FROM track_refs t JOIN user_summaries a ON a.user_id = t.artist_id
        WHERE t.track_id = ANY(${ids}::int[])`,
    );
  }

  playlists(ids: number[], viewerId: number): Promise<PlaylistListRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.prisma.$queryRaw<PlaylistListRow[]>(
      sql`SELECT p.playlist_id AS "playlistId", p.title, p.playlist_slug AS "playlistSlug", p.is_private AS "isPrivate",
              p.cover_art_url AS "coverArtUrl", p.created_at AS "createdAt", p.like_count AS "likeCount",
              p.repost_count AS "repostCount",
              EXISTS (SELECT 1 FROM playlist_likes l WHERE l.user_id = ${viewerId} AND l.playlist_id = p.playlist_id) AS "isLiked",
              EXISTS (SELECT 1 FROM playlist_reposts r WHERE r.user_id = ${viewerId} AND r.playlist_id = p.playlist_id) AS "isReposted",
              EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ${viewerId} AND f.followee_id = o.user_id) AS "ownerIsFollowing",
              ${userColumns('o', 'owner')}
         FROM playlist_refs p JOIN user_summaries o ON o.user_id = p.owner_id
        WHERE p.playlist_id = ANY(${ids}::int[])`,
    );
  }
}
