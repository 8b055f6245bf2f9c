import pg from 'pg';
import type { UserSummarySource } from '@msp/contracts';
import type { Sql } from '@msp/db';
import { empty, pgStatement, raw, sql } from '@msp/db';
import type { TrackRow } from './track.mapper.js';
import { ANCHOR_STEP, type PageAnchor } from './artist-page-anchors.js';
import { TrackRowCache } from './track-row-cache.js';
import { HISTORY_ANCHOR_STEP, type HistoryAnchor, type HistoryOutline } from './history-index.js';
import { blockedSql, listedTrackSql, notHeldBackOfArtistSql } from '../discovery/discovery-sql.js';

/**
 * A track row with what every read needs about its artist, from ONE statement: the artist's
 * summary (catalog's projection; null when identity's event has not arrived yet), whether the
 * artist is hidden (deleted or banned, R14) and whether a block separates the viewer from the
 * artist (R7, catalog's copy of social's blocks).
 */
export type ReadTrack = TrackRow & {
  artist: UserSummarySource | null;
  artistHidden: boolean;
  /** R14 banned, or pending deletion (ACC-3): a secret token or signed URL opens nothing. */
  artistBanned: boolean;
  blocked: boolean;
};

const pgTypes = pg.types;
const TIMESTAMPTZ_OID = 1184;

/**
 * The track's row version for the row cache: its `tracks` row's and its pending play counts' (the
 * play log adds counted plays to `track_play_deltas` and folds them into `tracks` every second:
 * docs/insights.md), so a counted play is a new version as before.
 */
const TRACK_VERSION = sql`(t.xmin::text || '.' || coalesce(pd.xmin::text, ''))`;
const COUNTS_JOIN = sql`LEFT JOIN track_play_deltas pd ON pd.track_id = t.id`;

/** Columns of `TrackRow` (track.mapper's `trackSelect`) in SQL, plus the artist's; playCount and completedPlayCount with the pending plays. */
const TRACK_COLUMNS = sql`t.id, t.artist_id AS "artistId", t.title, t.track_slug AS "trackSlug", t.description, t.genre, t.tags,
  (t.release_date::timestamp AT TIME ZONE 'UTC') AS "releaseDate", t.state::text AS state, t.is_private AS "isPrivate", t.held_back AS "heldBack",
  t.access::text AS access, t.secret_token AS "secretToken", t.duration_seconds AS "durationSeconds",
  GREATEST(t.play_count + coalesce(pd.plays, 0), 0) AS "playCount",
  GREATEST(t.completed_play_count + coalesce(pd.completions, 0), 0) AS "completedPlayCount", t.like_count AS "likeCount", t.repost_count AS "repostCount",
  t.comment_count AS "commentCount", t.published_at AS "publishedAt", t.created_at AS "createdAt", t.deleted_at AS "deletedAt",
  t.upload_id::text AS "uploadId", t.cover_key AS "coverKey", t.progressive_key AS "progressiveKey",
  t.hls_playlist_key AS "hlsPlaylistKey", t.preview_key AS "previewKey", t.waveform_key AS "waveformKey",
  t.status_step AS "statusStep", t.status_progress AS "statusProgress", t.error_message AS "errorMessage",
  t.status_updated_at AS "statusUpdatedAt", t.loudness,
  u.user_id AS "u_userId", u.username AS "u_username", u.display_name AS "u_displayName", u.avatar_url AS "u_avatarUrl",
  u.tier AS "u_tier", u.follower_count AS "u_followerCount", u.track_count AS "u_trackCount",
  coalesce(u.is_deleted OR u.is_banned, false) AS "artistHidden", coalesce(u.is_banned OR u.is_deleted, false) AS "artistBanned",
  ${TRACK_VERSION} AS tv, u.xmin AS uv`;

/** R7 between the viewer and the track's artist. */
const blockedArtist = (viewer: number | Sql): Sql => blockedSql(viewer, 't.artist_id');
/** R7 between the viewer and the user `u`. */
const blockedUser = (viewer: number | Sql): Sql => blockedSql(viewer, 'u.user_id');
/** R2 for the track `t` and the viewer. */
const listedTrack = (viewer: number | Sql): Sql => listedTrackSql('t', viewer);
/** The artist's held-back tracks left out (`artistId` a value or a scalar subquery). */
const notHeldBack = (artistId: number | Sql): Sql => notHeldBackOfArtistSql('t', artistId);

/** `viewer` is the caller's id (0 when anonymous: no user has id 0), or the column holding it. */
const withArtist = (viewer: number | Sql, extra: Sql = empty) => sql`${TRACK_COLUMNS}, ${blockedArtist(viewer)} AS blocked${extra}
  FROM tracks t LEFT JOIN user_summaries u ON u.user_id = t.artist_id ${COUNTS_JOIN}`;

/**
 * A list's rows as versions only (TrackRowCache): the track's id, the `xmin` of its row and of its
 * artist's summary (the row versions, as text), and the viewer's block state. `extra`: more columns.
 */
const versionsOf = (viewer: number, extra: Sql = empty) => sql`${versionColumns(viewer, extra)}
  FROM tracks t LEFT JOIN user_summaries u ON u.user_id = t.artist_id ${COUNTS_JOIN}`;
/** versionsOf's columns, for a statement whose `t` already carries the track's id, `xmin` and artist. */
const versionColumns = (viewer: number, extra: Sql = empty) => sql`t.id, ${TRACK_VERSION} AS tv, u.xmin AS uv, ${blockedArtist(viewer)} AS blocked${extra}`;

/** A row of a list read by `versionsOf`. */
type RowVersion = { id: number; tv: string; uv: string | null; blocked: boolean };

/** The LIMITs of USR-17's page statements (the entries to skip and the page's, rounded up). */
const HISTORY_LIMITS = [20, 50, 120];

/** USR-17: the listener's own tracks (not deleted), or tracks anybody may see. */
const historyVisible = (userId: number) => sql`((t.artist_id = ${userId} AND t.deleted_at IS NULL) OR (${listedTrack(userId)}))`;

/** The viewer's flags for one track, as read with it (`byIdForViewer`). */
export interface OneTrackFlags {
  isLiked: boolean;
  isReposted: boolean;
  isFollowing: boolean;
}

/** The viewer's flags of a page read with it (`inOrderForViewer`): the ids that are set. */
export interface ViewerPageFlags {
  liked: number[];
  reposted: number[];
  /** Artists of the page the viewer follows. */
  following: number[];
}

/**
 * The viewer's flags of the track `t` as one bit mask: 1 liked, 2 reposted, 4 following its
 * artist; from catalog's copies (`track_engagements` kinds 'L'/'R', `user_follows`), index-only probes.
 */
const viewerOneFlags = (
  viewer: number,
) => sql`(CASE WHEN EXISTS (SELECT 1 FROM track_engagements e WHERE e.kind = 'L' AND e.user_id = ${viewer} AND e.track_id = t.id) THEN 1 ELSE 0 END
   | CASE WHEN EXISTS (SELECT 1 FROM track_engagements e WHERE e.kind = 'R' AND e.user_id = ${viewer} AND e.track_id = t.id) THEN 2 ELSE 0 END
   | CASE WHEN t.artist_id <> ${viewer} AND EXISTS (SELECT 1 FROM user_follows f WHERE f.follower_id = ${viewer} AND f.followee_id = t.artist_id) THEN 4 ELSE 0 END) AS vf`;

/**
 * viewerOneFlags for every row of a page, as scalar subqueries: one
 * primary-key probe per row and flag. An EXISTS there may become a hashed subplan, which reads every
 * like of the viewer (hundreds, or tens of thousands for a heavy listener) for a page of 20.
 */
function pageFlagsSql(viewer: number): Sql {
  return sql`(CASE WHEN (SELECT 1 FROM track_engagements e WHERE e.kind = 'L' AND e.user_id = ${viewer} AND e.track_id = t.id) IS NOT NULL THEN 1 ELSE 0 END
   | CASE WHEN (SELECT 1 FROM track_engagements e WHERE e.kind = 'R' AND e.user_id = ${viewer} AND e.track_id = t.id) IS NOT NULL THEN 2 ELSE 0 END
   | CASE WHEN t.artist_id <> ${viewer} AND (SELECT 1 FROM user_follows f WHERE f.follower_id = ${viewer} AND f.followee_id = t.artist_id) IS NOT NULL
          THEN 4 ELSE 0 END) AS vf`;
}

type RawRow = Record<string, unknown> & { id: number; u_userId: number | null; tv: string; uv: string | null };

/**
 * The row as read, with its artist summary attached. The artist's `u_*` columns stay on the row
 * (nothing renders them: the answers are written from their schemas): copying the other 35 columns
 * into a new object cost more than the rest of the mapping.
 */
function toReadTrack(raw: RawRow): ReadTrack {
  const row = raw as unknown as ReadTrack;
  row.artist =
    raw.u_userId === null
      ? null
      : {
          userId: raw.u_userId,
          username: raw.u_username as string,
          displayName: raw.u_displayName as string,
          avatarUrl: raw.u_avatarUrl as string | null,
          tier: raw.u_tier as string,
          followerCount: raw.u_followerCount as number,
          trackCount: raw.u_trackCount as number,
        };
  return row;
}

/**
 * PostgreSQL's `timestamptz` text in a UTC session ('2026-11-26 04:35:14.453123+00') read by V8's
 * own ISO parser: half the time of pg's general parser, which stays for any other form.
 */
const parseTimestamptz = (() => {
  const general = pgTypes.getTypeParser(TIMESTAMPTZ_OID, 'text');
  return (value: string): Date | string =>
    value.length >= 22 && value.charCodeAt(10) === 32 && value.endsWith('+00')
      ? new Date(`${value.slice(0, 10)}T${value.slice(11, value.length - 3)}Z`)
      : general(value);
})();

/** Type parsers of the hot reads: pg's own, but for `timestamptz` (above). */
const READ_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ_OID && format !== 'binary' ? parseTimestamptz : pgTypes.getTypeParser(oid, format ?? 'text')) as typeof pgTypes.getTypeParser,
};

/**
 * The hot reads of tracks, written as SQL on the service's pg pool instead of Prisma: a read
 * here is one named statement (parsed and planned once per connection, then only bound and
 * executed), with the artist joined in, so a track GET costs one round trip and no query
 * compilation in Node. Writes, migrations and the cold paths stay on Prisma.
 */
export class TrackReadsRepository {
  /** Full rows read lately, by row version: list reads take them instead of reading them again. */
  private readonly cache: TrackRowCache<ReadTrack>;

  constructor(
    private readonly pool: pg.Pool,
    cachedRows = 10_000,
  ) {
    this.cache = new TrackRowCache(cachedRows);
  }

  /** Full rows (with `TRACK_COLUMNS`), kept in the row cache under their versions. */
  private async rows(name: string, query: Sql): Promise<ReadTrack[]> {
    const result = await this.pool.query<RawRow>({ ...pgStatement(query, name), types: READ_TYPES });
    return result.rows.map((raw) => {
      const row = toReadTrack(raw);
      this.cache.set(TrackRowCache.key(raw.id, raw.tv, raw.uv), row);
      return row;
    });
  }

  /**
   * The rows of a list read as versions (`versionsOf`), in its order: from the row cache where it
   * holds that version, the others in ONE full read by id. A track gone between the two reads is
   * left out; one changed between them comes as it is now.
   */
  private async hydrate(versions: readonly RowVersion[], viewerId: number): Promise<ReadTrack[]> {
    const found: Array<ReadTrack | undefined> = new Array(versions.length);
    let missing: number[] | undefined;
    for (let i = 0; i < versions.length; i++) {
      const v = versions[i]!;
      const hit = this.cache.get(TrackRowCache.key(v.id, v.tv, v.uv));
      if (!hit) (missing ??= []).push(v.id);
      // The block state is the viewer's: a row cached for another viewer is copied if it differs (rare).
      else found[i] = hit.blocked === v.blocked ? hit : { ...hit, blocked: v.blocked };
    }
    if (missing) {
      const read = await this.rows('catalog_tracks_by_ids', sql`SELECT ${withArtist(viewerId)} WHERE t.id = ANY(${missing}::int[])`);
      const byId = new Map(read.map((row) => [row.id, row]));
      for (let i = 0; i < versions.length; i++) found[i] ??= byId.get(versions[i]!.id);
    }
    return found.filter((row): row is ReadTrack => row !== undefined);
  }

  private async versions<Row extends RowVersion = RowVersion>(name: string, query: Sql): Promise<Row[]> {
    return (await this.pool.query<Row>({ ...pgStatement(query, name), types: READ_TYPES })).rows;
  }

  /** One track with its artist and the viewer's block state (TRK-6 and every by-id check). */
  async byId(id: number, viewerId: number): Promise<ReadTrack | null> {
    const [row] = await this.rows('catalog_track_by_id', sql`SELECT ${withArtist(viewerId)} WHERE t.id = ${id}`);
    return row ?? null;
  }

  /**
   * TRK-6 for a signed-in viewer: the row (as `byId`) and the viewer's isLiked/isReposted/isFollowing
   * in the SAME statement (three primary-key probes of catalog's copies, viewerOneFlags), so a
   * viewer's read costs no second round trip. The flags leave the row before it is cached: a cached
   * row serves every viewer.
   */
  async byIdForViewer(id: number, viewerId: number): Promise<{ row: ReadTrack; flags: OneTrackFlags } | null> {
    const result = await this.pool.query<RawRow & { vf: number }>({
      ...pgStatement(sql`SELECT ${withArtist(viewerId, sql`, ${viewerOneFlags(viewerId)}`)} WHERE t.id = ${id}`, 'catalog_track_by_id_viewer'),
      types: READ_TYPES,
    });
    const raw = result.rows[0];
    if (!raw) return null;
    const vf = raw.vf;
    delete (raw as Partial<typeof raw>).vf;
    const row = toReadTrack(raw);
    this.cache.set(TrackRowCache.key(raw.id, raw.tv, raw.uv), row);
    return { row, flags: { isLiked: (vf & 1) !== 0, isReposted: (vf & 2) !== 0, isFollowing: (vf & 4) !== 0 } };
  }

  /**
   * `byId` for many (track, viewer) pairs in ONE statement: the answer's i-th entry is the i-th
   * pair's row, or null when no such track (TRK-17/18 read the tracks of a batch of plays at once).
   */
  async byIdsForViewers(pairs: ReadonlyArray<{ id: number; viewerId: number }>): Promise<Array<ReadTrack | null>> {
    if (pairs.length === 0) return [];
    const rows = await this.rows(
      'catalog_tracks_by_id_viewers',
      sql`SELECT ${withArtist(raw('x.viewer'), sql`, x.n::int AS n`)} JOIN unnest(${pairs.map((p) => p.id)}::int[], ${pairs.map((p) => p.viewerId)}::int[]) WITH ORDINALITY AS x(id, viewer, n) ON x.id = t.id`,
    );
    const found: Array<ReadTrack | null> = pairs.map(() => null);
    for (const row of rows as Array<ReadTrack & { n?: number }>) {
      found[row.n! - 1] = row;
      delete row.n;
    }
    return found;
  }

  async bySlug(trackSlug: string, viewerId: number): Promise<ReadTrack | null> {
    const [row] = await this.rows('catalog_track_by_slug', sql`SELECT ${withArtist(viewerId)} WHERE t.track_slug = ${trackSlug}`);
    return row ?? null;
  }

  async byToken(secretToken: string, viewerId: number): Promise<ReadTrack | null> {
    const [row] = await this.rows('catalog_track_by_token', sql`SELECT ${withArtist(viewerId)} WHERE t.secret_token = ${secretToken}`);
    return row ?? null;
  }

  /** Tracks by id in the order asked (ids not found are left out); one statement whatever the count. */
  async inOrder(ids: readonly number[], viewerId: number): Promise<ReadTrack[]> {
    if (ids.length === 0) return [];
    const versions = await this.versions(
      'catalog_tracks_in_order',
      sql`SELECT ${versionsOf(viewerId)} JOIN unnest(${ids}::int[]) WITH ORDINALITY AS x(id, n) ON x.id = t.id ORDER BY x.n`,
    );
    return this.hydrate(versions, viewerId);
  }

  /**
   * `inOrder` for a page cut from a list shared by every viewer (stations, the trending chart), in
   * ONE statement: the rows, the viewer's flags of each (`pageFlagsSql`: liked, reposted,
   * following its artist, primary-key probes of catalog's copies) and whether any block involves the
   * viewer at all (`viewerBlocks`: without one, the common case, the cut was the viewer's page; with
   * one, the caller filters the list and reads again). An anonymous viewer has neither.
   */
  async inOrderForViewer(ids: readonly number[], viewerId: number): Promise<{ rows: ReadTrack[]; flags: ViewerPageFlags; viewerBlocks: boolean }> {
    const flags: ViewerPageFlags = { liked: [], reposted: [], following: [] };
    if (viewerId === 0) return { rows: await this.inOrder(ids, 0), flags, viewerBlocks: false };
    const result = await this.pool.query<Partial<RowVersion> & { vb: boolean; vf: number | null; artistId: number | null }>({
      ...pgStatement(
        sql`SELECT one.vb, r.* FROM (SELECT EXISTS (SELECT 1 FROM user_blocks b WHERE b.blocker_id = ${viewerId} OR b.blocked_id = ${viewerId}) AS vb) one
               LEFT JOIN LATERAL (SELECT ${versionsOf(viewerId, sql`, t.artist_id AS "artistId", x.n, ${pageFlagsSql(viewerId)}`)}
                                   JOIN unnest(${ids}::int[]) WITH ORDINALITY AS x(id, n) ON x.id = t.id) r ON true
              ORDER BY r.n`,
        'catalog_tracks_in_order_viewer',
      ),
      types: READ_TYPES,
    });
    const versions: RowVersion[] = [];
    for (const r of result.rows) {
      if (r.id === null || r.id === undefined) continue;
      versions.push(r as RowVersion);
      const vf = r.vf ?? 0;
      if (vf & 1) flags.liked.push(r.id);
      if (vf & 2) flags.reposted.push(r.id);
      if (vf & 4) flags.following.push(r.artistId!);
    }
    return { rows: versions.length === 0 ? [] : await this.hydrate(versions, viewerId), flags, viewerBlocks: result.rows[0]?.vb ?? false };
  }

  /**
   * A page of an artist's tracks, newest first. `publicOnly`: public FINISHED (R2). The page's ids
   * come from the index alone (`tracks_artist_listed_idx` / `(artist_id, created_at)`), so a deep
   * page skips index entries, not heap rows; then the page's versions, and the rows (`hydrate`).
   */
  async artistPage(artistId: number, publicOnly: boolean, state: string | null, page: number, size: number, viewerId: number): Promise<ReadTrack[]> {
    const filter = publicOnly
      ? sql`AND NOT t.is_private AND t.state = 'FINISHED' AND ${notHeldBack(artistId)}`
      : sql`AND (${state}::text IS NULL OR t.state::text = ${state})`;
    const name = publicOnly ? 'catalog_artist_page_public' : 'catalog_artist_page_all';
    const versions = await this.versions(
      name,
      sql`WITH p AS (SELECT t.id, t.created_at FROM tracks t WHERE t.artist_id = ${artistId} AND t.deleted_at IS NULL ${filter}
                  ORDER BY t.created_at DESC, t.id DESC LIMIT ${size} OFFSET ${page * size})
       SELECT ${versionsOf(viewerId)} JOIN p ON p.id = t.id ORDER BY p.created_at DESC, p.id DESC`,
    );
    return this.hydrate(versions, viewerId);
  }

  /**
   * USR-18/TRK-22/TRK-23 for someone who sees only the public FINISHED tracks: the user (not
   * deleted; banned, R9 trackCount, block with the viewer) AND the page of their tracks' versions, in
   * ONE statement (one round trip instead of two), then the rows (`hydrate`). `user` is null when no
   * such user.
   */
  async publicArtistPage(
    ref: { userId?: number; username?: string },
    viewerId: number,
    page: number,
    size: number,
    from?: { anchor: PageAnchor; skip: number },
  ) {
    const byId = ref.userId !== undefined;
    // A deep page seeks to its anchor's sort key (ArtistPageAnchors), then skips what remains.
    const seek = from ? sql`AND (t.created_at, t.id) <= (${from.anchor.createdAt}::timestamptz, ${from.anchor.id}::int)` : empty;
    const result = await this.pool.query<
      Partial<RowVersion> & { o_userId: number; o_isBanned: boolean; o_trackCount: number; o_blocked: boolean; created_at: Date | null }
    >({
      ...pgStatement(
        sql`WITH u AS (SELECT u.user_id, u.is_banned, u.track_count, ${blockedUser(viewerId)} AS blocked
                          FROM user_summaries u WHERE ${byId ? sql`u.user_id = ${ref.userId}` : sql`u.username = ${ref.username ?? ''}`} AND NOT u.is_deleted),
                  p AS (SELECT t.id, t.created_at FROM tracks t
                         WHERE t.artist_id = (SELECT user_id FROM u) AND t.deleted_at IS NULL AND NOT t.is_private AND t.state = 'FINISHED'
                           AND ${notHeldBack(sql`(SELECT user_id FROM u)`)} ${seek}
                         ORDER BY t.created_at DESC, t.id DESC LIMIT ${size} OFFSET ${from ? from.skip : page * size}),
                  r AS (SELECT ${versionsOf(viewerId, sql`, p.created_at`)} JOIN p ON p.id = t.id)
             SELECT u.user_id AS "o_userId", u.is_banned AS "o_isBanned", u.track_count AS "o_trackCount", u.blocked AS "o_blocked", r.*
               FROM u LEFT JOIN r ON true ORDER BY r.created_at DESC, r.id DESC`,
        `catalog_public_artist_page_by_${byId ? 'id' : 'name'}${from ? '_seek' : ''}`,
      ),
    });
    const [first] = result.rows;
    if (!first) return { user: null, rows: [] as ReadTrack[] };
    const user = { userId: first.o_userId, isBanned: first.o_isBanned, trackCount: first.o_trackCount, blocked: first.o_blocked };
    const versions = result.rows.filter((r): r is typeof r & RowVersion => r.id !== null && r.id !== undefined);
    return { user, rows: versions.length === 0 ? [] : await this.hydrate(versions, viewerId) };
  }

  /**
   * The sort keys of every ANCHOR_STEP-th public FINISHED track of the artist, newest first (positions
   * 100, 200, …): one walk of `tracks_artist_listed_idx`, index only.
   */
  async artistAnchors(artistId: number): Promise<PageAnchor[]> {
    const result = await this.pool.query<PageAnchor>(
      pgStatement(
        sql`SELECT x.created_at::text AS "createdAt", x.id FROM (
               SELECT t.created_at, t.id, row_number() OVER (ORDER BY t.created_at DESC, t.id DESC) AS n FROM tracks t
                WHERE t.artist_id = ${artistId} AND t.deleted_at IS NULL AND NOT t.is_private AND t.state = 'FINISHED'
                  AND ${notHeldBack(artistId)}) x
              WHERE x.n > 1 AND x.n % ${ANCHOR_STEP} = 1 ORDER BY x.n`,
        'catalog_artist_page_anchors',
      ),
    );
    return result.rows;
  }

  /** How many of the artist's non-deleted tracks a page list holds (the owner's view, or a fallback). */
  async artistCount(artistId: number, publicOnly: boolean, state: string | null): Promise<number> {
    const filter = publicOnly
      ? sql`AND NOT t.is_private AND t.state = 'FINISHED' AND ${notHeldBack(artistId)}`
      : sql`AND (${state}::text IS NULL OR t.state::text = ${state})`;
    const result = await this.pool.query<{ n: number }>(
      pgStatement(
        sql`SELECT count(*)::int AS n FROM tracks t WHERE t.artist_id = ${artistId} AND t.deleted_at IS NULL ${filter}`,
        publicOnly ? 'catalog_artist_count_public' : 'catalog_artist_count_all',
      ),
    );
    return result.rows[0]?.n ?? 0;
  }

  /**
   * A user by id or username (not deleted) with the R9 trackCount and whether a block separates the
   * viewer from them (R7, catalog's copy): one statement.
   */
  async user(ref: { userId?: number; username?: string }, viewerId: number) {
    const byId = ref.userId !== undefined;
    const result = await this.pool.query<{ userId: number; isBanned: boolean; trackCount: number; blocked: boolean }>(
      pgStatement(
        sql`SELECT u.user_id AS "userId", u.is_banned AS "isBanned", u.track_count AS "trackCount", ${blockedUser(viewerId)} AS blocked
               FROM user_summaries u WHERE ${byId ? sql`u.user_id = ${ref.userId}` : sql`u.username = ${ref.username ?? ''}`} AND NOT u.is_deleted`,
        byId ? 'catalog_user_by_id' : 'catalog_user_by_name',
      ),
    );
    return result.rows[0] ?? null;
  }

  /** Of `userIds`, those a block separates from the viewer, either way (R7, catalog's copy). */
  async blockedAmong(viewerId: number, userIds: readonly number[]): Promise<Set<number>> {
    if (viewerId === 0 || userIds.length === 0) return new Set();
    const among = [...new Set(userIds)];
    const result = await this.pool.query<{ id: number }>(
      pgStatement(
        sql`SELECT CASE WHEN blocker_id = ${viewerId} THEN blocked_id ELSE blocker_id END AS id FROM user_blocks
              WHERE (blocker_id = ${viewerId} AND blocked_id = ANY(${among}::int[])) OR (blocked_id = ${viewerId} AND blocker_id = ANY(${among}::int[]))`,
        'catalog_blocked_among',
      ),
    );
    return new Set(result.rows.map((r) => r.id));
  }

  /**
   * USR-17: one page of the caller's history, latest play first, tracks still visible to them
   * (R2; R7 through catalog's copy of the blocks), filtered in SQL before paging; the page walks
   * `(user_id, last_played_at DESC)` and stops after `size` visible entries. A deep page starts
   * after its anchor (`from`, HistoryIndex) and skips what remains. ONE statement: the page's row
   * versions, the caller's flags of each (liked, reposted, following the artist) and their R8
   * `showHistory` (null without a summary yet). `playedAt`: each track's last play (ISO 8601), by
   * track id.
   */
  async historyPage(
    userId: number,
    page: number,
    size: number,
    from?: { anchor: HistoryAnchor; skip: number } | null,
  ): Promise<{ rows: ReadTrack[]; playedAt: Map<number, string>; flags: ViewerPageFlags; showHistory: boolean | null }> {
    // The range condition lets the index start at the anchor; the tie on track_id is checked on its entries.
    const seek = from
      ? sql` AND h.last_played_at <= ${from.anchor.at}::timestamptz AND (h.last_played_at < ${from.anchor.at}::timestamptz OR h.track_id < ${from.anchor.trackId})`
      : empty;
    // The entries before the page (`skip`, fewer than the anchors' step past the first pages) are read
    // and dropped here, and the LIMIT is a constant of the statement (one of a few): with a parameter
    // there, PostgreSQL never took the statement's generic plan and planned every page again (more
    // than half of its time).
    const skip = from ? from.skip : page * size;
    const bucket = HISTORY_LIMITS.find((n) => n >= skip + size);
    // A bucket of HISTORY_LIMITS is written into the text; past the buckets (a page past the end of
    // a history too short for anchors) the statement is unnamed, planned with its values, and the LIMIT is bound.
    const limit = bucket !== undefined ? raw(String(bucket)) : sql`${skip + size}`;
    const result = await this.pool.query<Partial<RowVersion> & { show: boolean | null; lastPlayedAt: Date; artistId: number; vf: number }>({
      ...pgStatement(
        sql`SELECT f.show, r.* FROM (SELECT (SELECT u.show_history FROM user_summaries u WHERE u.user_id = ${userId}) AS show) f
               LEFT JOIN LATERAL (
                 WITH h AS (SELECT t.id, t.xmin, t.artist_id, h.last_played_at FROM listening_history h JOIN tracks t ON t.id = h.track_id
                             WHERE h.user_id = ${userId} AND ${historyVisible(userId)}${seek}
                             ORDER BY h.last_played_at DESC, h.track_id DESC LIMIT ${limit})
                 SELECT ${versionColumns(userId, sql`, t.last_played_at AS "lastPlayedAt", t.artist_id AS "artistId", ${pageFlagsSql(userId)}`)}
                   FROM h t LEFT JOIN user_summaries u ON u.user_id = t.artist_id ${COUNTS_JOIN}) r ON true
              ORDER BY r."lastPlayedAt" DESC, r.id DESC`,
        bucket ? `${from ? 'catalog_history_page_from' : 'catalog_history_page'}_${bucket}` : undefined,
      ),
      types: READ_TYPES,
    });
    const flags: ViewerPageFlags = { liked: [], reposted: [], following: [] };
    const versions: RowVersion[] = [];
    const playedAt = new Map<number, string>();
    let n = 0;
    for (const r of result.rows) {
      if (r.id === null || r.id === undefined || n++ < skip || versions.length === size) continue;
      versions.push(r as RowVersion);
      playedAt.set(r.id, r.lastPlayedAt.toISOString());
      if (r.vf & 1) flags.liked.push(r.id);
      if (r.vf & 2) flags.reposted.push(r.id);
      if (r.vf & 4) flags.following.push(r.artistId);
    }
    const rows = versions.length === 0 ? [] : await this.hydrate(versions, userId);
    return { rows, playedAt, flags, showHistory: result.rows[0]?.show ?? null };
  }

  /**
   * USR-17's outline: one walk of every entry through the same filter, giving the total and the sort
   * key of every HISTORY_ANCHOR_STEP-th visible entry (cached by the service, HistoryIndex).
   */
  async historyOutline(userId: number): Promise<HistoryOutline> {
    const result = await this.pool.query<{ total: number; at: Date; trackId: number; rn: number }>({
      ...pgStatement(
        sql`SELECT s.total, s.at, s.track_id AS "trackId", s.rn FROM (
               SELECT h.last_played_at AS at, h.track_id, row_number() OVER (ORDER BY h.last_played_at DESC, h.track_id DESC)::int AS rn,
                      count(*) OVER ()::int AS total
                 FROM listening_history h JOIN tracks t ON t.id = h.track_id WHERE h.user_id = ${userId} AND ${historyVisible(userId)}) s
             WHERE s.rn = 1 OR s.rn % ${HISTORY_ANCHOR_STEP} = 0 ORDER BY s.rn`,
        'catalog_history_outline',
      ),
      types: READ_TYPES,
    });
    return {
      total: result.rows[0]?.total ?? 0,
      step: HISTORY_ANCHOR_STEP,
      anchors: result.rows.filter((r) => r.rn % HISTORY_ANCHOR_STEP === 0).map((r) => ({ at: r.at.toISOString(), trackId: r.trackId })),
    };
  }

  /** Summaries of these users from catalog's projection (one statement). */
  async summaries(userIds: readonly number[]): Promise<UserSummarySource[]> {
    if (userIds.length === 0) return [];
    const result = await this.pool.query<UserSummarySource>(
      pgStatement(
        sql`SELECT user_id AS "userId", username, display_name AS "displayName", avatar_url AS "avatarUrl", tier,
                    follower_count AS "followerCount", track_count AS "trackCount"
               FROM user_summaries WHERE user_id = ANY(${[...new Set(userIds)]}::int[])`,
        'catalog_user_summaries',
      ),
    );
    return result.rows;
  }

  /** R8 showHistory and the tier from the user projection (one statement). */
  async userFlags(userId: number): Promise<{ showHistory: boolean; tier: string } | null> {
    const result = await this.pool.query<{ showHistory: boolean; tier: string }>(
      pgStatement(sql`SELECT show_history AS "showHistory", tier FROM user_summaries WHERE user_id = ${userId}`, 'catalog_user_flags'),
    );
    return result.rows[0] ?? null;
  }
}
