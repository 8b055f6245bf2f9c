import { userSummarySourceSelect } from '@msp/contracts';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { playlistSelect, type PlaylistRow } from '../playlists/playlists.repository.js';
import type { ReadTrack, TrackReadsRepository } from '../tracks/track-reads.repository.js';
import { listedPlaylistSql, listedTrackSql, listedUserSql, stationPoolSql } from './discovery-sql.js';
import type { SearchTerms } from './search-query.js';

export type SearchKind = 'TRACK' | 'USER' | 'PLAYLIST';
export interface SearchHit {
  type: SearchKind;
  id: number;
}

/** Trigram word similarity from which a word counts as a typo of another (pg_trgm's `<%`). */
export const FUZZY_THRESHOLD = 0.35;

/**
 * How many matches of each kind are ranked: the most played tracks, most followed users and most
 * liked playlists among the matches. A rare word has fewer matches than this and all are ranked;
 * a very common word (a third of the catalogue says "love") is ranked among its most popular
 * matches only, so a search never scores hundreds of thousands of rows. Totals count the same set.
 */
export const SEARCH_CANDIDATES = 200;
/** Below this many word (exact or prefix) matches, typo matches are looked for too. */
export const FUZZY_FALLBACK = 20;

interface KindSql {
  /** Row source with the listing rule of the kind (R2, R6, R7, R14), alias `x`. */
  from: string;
  id: string;
  popularity: string;
  columns: string;
  genre: string | null;
  /** Whole title or name, for tier 3 and the closeness score. */
  whole: string;
}

const KINDS: Record<SearchKind, KindSql> = {
  TRACK: {
    from: `tracks x WHERE ${listedTrackSql('x', '$4')}`,
    id: 'x.id',
    popularity: 'x.play_count DESC, x.id DESC',
    columns: 'x.id, x.search_doc, x.search_text, msp_fold(x.title) AS whole',
    genre: 'x.genre_key = $5',
    whole: 'msp_fold(x.title)',
  },
  PLAYLIST: {
    from: `playlists x WHERE ${listedPlaylistSql('x', '$4')}`,
    id: 'x.id',
    popularity: 'x.like_count DESC, x.id DESC',
    columns: 'x.id, x.search_doc, x.search_text, x.search_text AS whole',
    genre: 'lower(x.genre) = $5',
    whole: 'x.search_text',
  },
  USER: {
    from: `user_summaries x WHERE ${listedUserSql('x', '$4')}`,
    id: 'x.user_id',
    popularity: 'x.follower_count DESC, x.user_id DESC',
    columns: 'x.user_id AS id, x.search_doc, x.search_text, msp_fold(x.username) AS whole, msp_fold(x.display_name) AS whole2',
    genre: null,
    whole: 'msp_fold(x.username)',
  },
};

/**
 * The candidates of one kind: its SEARCH_CANDIDATES most popular word matches (every word, the
 * last as a prefix), plus, when `fuzzy`, its most popular typo matches (trigram word similarity;
 * a separate branch so each uses its own GIN index). Then the tiers, best first: 3 the whole title
 * or name equals the query, 2 every word exact, 1 the last word as a prefix, 0 a typo match only;
 * inside a tier ts_rank (title and names over tags over genre), the word similarity and the
 * similarity of the whole title or name (the closer, shorter one first).
 */
function hitsSql(kind: SearchKind, withGenre: boolean, fuzzy: boolean): string {
  const k = KINDS[kind];
  const genre = withGenre && k.genre ? ` AND ${k.genre}` : '';
  const branch = (match: string) => `(SELECT ${k.columns} FROM ${k.from} AND ${match}${genre} ORDER BY ${k.popularity} LIMIT ${SEARCH_CANDIDATES})`;
  const words = branch(`x.search_doc @@ to_tsquery('simple', $2)`);
  const candidates = fuzzy ? `${words} UNION ${branch('$3 <% x.search_text')}` : words;
  const exactWhole = kind === 'USER' ? `c.whole = $3 OR c.whole2 = $3` : `c.whole = $3`;
  return `SELECT '${kind}' AS type, c.id,
            CASE WHEN ${exactWhole} THEN 3
                 WHEN c.search_doc @@ to_tsquery('simple', $1) THEN 2
                 WHEN c.search_doc @@ to_tsquery('simple', $2) THEN 1 ELSE 0 END AS tier,
            ts_rank(c.search_doc, to_tsquery('simple', $2)) + word_similarity($3, c.search_text) + similarity($3, c.whole) AS score
          FROM (${candidates}) c`;
}

/** Most tracks a station holds on one day (R18: a radio needs hundreds, not a genre's 100,000). */
export const STATION_SIZE = 500;
/** The chart: the best-scored tracks only (DSC-2). */
export const TRENDING_SIZE = 1000;

/** One track of a station's day, with its artist (R7 filtering per viewer happens on the pool). */
export interface StationPick {
  id: number;
  artistId: number;
}

export class DiscoveryRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly reads: TrackReadsRepository,
  ) {}

  /**
   * DSC-3: one page of hits over the kinds asked for, best first, and the total, in one
   * transaction (the similarity threshold is a transaction-local setting).
   */
  async search(terms: SearchTerms, kinds: readonly SearchKind[], viewerId: number, genreKey: string | null, page: number, size: number) {
    const words = await this.searchWith(false, terms, kinds, viewerId, genreKey, page, size);
    if (words.total >= FUZZY_FALLBACK) return words;
    return this.searchWith(true, terms, kinds, viewerId, genreKey, page, size);
  }

  /**
   * One page of hits over the kinds asked for, best first, and the total, in one transaction
   * (the similarity threshold is transaction-local; sequential scans are off so the trigram
   * branch always uses its index, which the planner would otherwise skip on mid-sized tables).
   */
  private async searchWith(
    fuzzy: boolean,
    terms: SearchTerms,
    kinds: readonly SearchKind[],
    viewerId: number,
    genreKey: string | null,
    page: number,
    size: number,
  ) {
    const withGenre = genreKey !== null;
    const union = kinds.map((k) => hitsSql(k, withGenre, fuzzy)).join('\n UNION ALL \n');
    const params: unknown[] = [terms.exact, terms.prefix, terms.text, viewerId, ...(withGenre ? [genreKey] : [])];
    const n = params.length;
    const [, hits, counted] = await this.prisma.$transaction([
      this.prisma.$queryRawUnsafe(
        `SELECT set_config('pg_trgm.word_similarity_threshold', '${FUZZY_THRESHOLD}', true), set_config('enable_seqscan', 'off', true)`,
      ),
      this.prisma.$queryRawUnsafe<Array<{ type: SearchKind; id: number }>>(
        `SELECT h.type, h.id FROM (${union}) h ORDER BY h.tier DESC, h.score DESC, h.type, h.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        ...params,
        size,
        page * size,
      ),
      this.prisma.$queryRawUnsafe<Array<{ total: number }>>(`SELECT count(*)::int AS total FROM (${union}) h`, ...params),
    ]);
    return { hits: hits as SearchHit[], total: counted[0]?.total ?? 0 };
  }

  /**
   * DSC-2: the chart, i.e. the TRENDING_SIZE best-scored tracks (score > 0 over the window), by
   * score, newer first among equals. Both queries walk the partial trending index and stop early.
   */
  async trending(viewerId: number, genreKey: string | null, page: number, size: number): Promise<{ rows: ReadTrack[]; total: number }> {
    const chart = `SELECT t.id FROM tracks t WHERE t.trending_score > 0 AND ${listedTrackSql('t', '$1')}${genreKey !== null ? ' AND t.genre_key = $2' : ''}
      ORDER BY t.trending_score DESC, t.published_at DESC, t.id DESC`;
    const params: unknown[] = [viewerId, ...(genreKey !== null ? [genreKey] : [])];
    const n = params.length;
    const offset = Math.min(page * size, TRENDING_SIZE);
    const [ids, counted] = await Promise.all([
      this.prisma.$queryRawUnsafe<Array<{ id: number }>>(
        `${chart} LIMIT $${n + 1} OFFSET $${n + 2}`,
        ...params,
        Math.min(size, TRENDING_SIZE - offset),
        offset,
      ),
      this.prisma.$queryRawUnsafe<Array<{ total: number }>>(`SELECT count(*)::int AS total FROM (${chart} LIMIT ${TRENDING_SIZE}) c`, ...params),
    ]);
    return { rows: await this.rowsInOrder(ids.map((r) => r.id)), total: counted[0]?.total ?? 0 };
  }

  /**
   * A station's day (R18, fixed for the day), viewer-independent: from each genre, the STATION_SIZE
   * playable tracks that follow the day's point in the `shuffle_key` order (a hash of the id; the
   * point is a hash of the date), wrapping around; from each artist, its share of tracks the same
   * way; then the STATION_SIZE of those first by md5(id || date), in that order, with their artists.
   * Every read is an index range of a few hundred rows, whatever the genre's size; R2 and R14 apply
   * here, R7 (the viewer's blocks) after, on the pool (StationPools), so the pool can be shared.
   * `excludeLikesOf` (the likes station) leaves out that user's liked tracks.
   */
  async stationPool(day: string, from: { genres: string[]; artists: number[]; excludeLikesOf: number }): Promise<StationPick[]> {
    const cond = `${stationPoolSql('t')}
      AND NOT EXISTS (SELECT 1 FROM track_engagements le WHERE le.kind = 'L' AND le.user_id = $4 AND le.track_id = t.id)`;
    // Artists share the station: each gives at most its share of the day's tracks.
    const perArtist = Math.max(1, Math.ceil(STATION_SIZE / Math.max(1, from.artists.length)));
    return this.prisma.$queryRawUnsafe<StationPick[]>(
      `WITH picks AS (
        SELECT c.id FROM unnest($2::text[]) g(k) CROSS JOIN LATERAL (
          (SELECT t.id FROM tracks t WHERE t.genre_key = g.k AND ${cond} AND t.shuffle_key >= hashtext($1) ORDER BY t.shuffle_key LIMIT ${STATION_SIZE})
          UNION ALL
          (SELECT t.id FROM tracks t WHERE t.genre_key = g.k AND ${cond} AND t.shuffle_key < hashtext($1) ORDER BY t.shuffle_key LIMIT ${STATION_SIZE})
          LIMIT ${STATION_SIZE}) c
        UNION
        SELECT c.id FROM unnest($3::int[]) a(id) CROSS JOIN LATERAL (
          (SELECT t.id FROM tracks t WHERE t.artist_id = a.id AND ${cond} AND t.shuffle_key >= hashtext($1) ORDER BY t.shuffle_key LIMIT ${perArtist})
          UNION ALL
          (SELECT t.id FROM tracks t WHERE t.artist_id = a.id AND ${cond} AND t.shuffle_key < hashtext($1) ORDER BY t.shuffle_key LIMIT ${perArtist})
          LIMIT ${perArtist}) c),
      pool AS (SELECT id FROM picks ORDER BY md5(id::text || $1), id LIMIT ${STATION_SIZE})
      SELECT p.id, t.artist_id AS "artistId" FROM pool p JOIN tracks t ON t.id = p.id ORDER BY md5(p.id::text || $1), p.id`,
      day,
      from.genres,
      from.artists,
      from.excludeLikesOf,
    );
  }

  /** DSC-6: the artist's 3 most frequent genres among its public tracks. */
  async mainGenres(artistId: number): Promise<string[]> {
    const main = await this.prisma.$queryRawUnsafe<Array<{ genre: string }>>(
      `SELECT t.genre_key AS genre FROM tracks t
        WHERE t.artist_id = $1 AND t.deleted_at IS NULL AND NOT t.is_private AND t.state = 'FINISHED'
        GROUP BY t.genre_key ORDER BY count(*) DESC, t.genre_key LIMIT 3`,
      artistId,
    );
    return main.map((g) => g.genre);
  }

  /** DSC-7: the artists (the 50 most liked) and genres (the 5 most liked) of the user's liked tracks. */
  async likeSeeds(userId: number): Promise<{ artists: number[]; genres: string[] }> {
    const [seeds] = await this.prisma.$queryRawUnsafe<Array<{ artists: number[] | null; genres: string[] | null }>>(
      `WITH liked AS (SELECT t.artist_id, t.genre_key FROM track_engagements e JOIN tracks t ON t.id = e.track_id
                       WHERE e.kind = 'L' AND e.user_id = $1 AND t.deleted_at IS NULL)
       SELECT (SELECT array_agg(artist_id) FROM (SELECT artist_id FROM liked GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 50) a) AS artists,
              (SELECT array_agg(genre_key) FROM (SELECT genre_key FROM liked GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 5) g) AS genres`,
      userId,
    );
    return { artists: seeds?.artists ?? [], genres: seeds?.genres ?? [] };
  }

  /** The rows of already filtered ids, in that order, with their artists (one statement). */
  rowsInOrder(ids: readonly number[]): Promise<ReadTrack[]> {
    return this.reads.inOrder(ids, 0);
  }

  playlists(ids: readonly number[]): Promise<PlaylistRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.prisma.playlist.findMany({ where: { id: { in: [...ids] } }, select: playlistSelect });
  }

  userSummaries(ids: readonly number[]) {
    return this.prisma.userSummary.findMany({ where: { userId: { in: [...ids] } }, select: userSummarySourceSelect });
  }

  userByName(username: string) {
    return this.prisma.userSummary.findFirst({ where: { username, isDeleted: false }, select: { userId: true, isBanned: true } });
  }

  trackBySlug(trackSlug: string, artistId: number) {
    return this.prisma.track.findFirst({ where: { trackSlug, artistId }, select: { id: true, secretToken: true } });
  }

  playlistBySlug(playlistSlug: string, ownerId: number) {
    return this.prisma.playlist.findFirst({ where: { playlistSlug, ownerId }, select: { id: true, secretToken: true } });
  }

  /** Whether `blockerId` blocked `blockedId` (catalog's copy of social's blocks, R7). */
  async hasBlocked(blockerId: number, blockedId: number): Promise<boolean> {
    return !!(await this.prisma.userBlock.findUnique({ where: { blockerId_blockedId: { blockerId, blockedId } }, select: { blockerId: true } }));
  }

  /** An artist the caller may see (DSC-6 404 otherwise): present, not banned, no block. */
  async visibleUser(userId: number, viewerId: number): Promise<boolean> {
    const rows = await this.prisma.$queryRawUnsafe<unknown[]>(
      `SELECT 1 FROM user_summaries u WHERE u.user_id = $1 AND ${listedUserSql('u', '$2')}`,
      userId,
      viewerId,
    );
    return rows.length > 0;
  }

  /** Blocks between the viewer and these users, either way, from catalog's copy (R7). */
  async blockedAmong(viewerId: number, userIds: readonly number[]): Promise<Set<number>> {
    if (viewerId === 0 || userIds.length === 0) return new Set();
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: number }>>(
      `SELECT CASE WHEN blocker_id = $1 THEN blocked_id ELSE blocker_id END AS id FROM user_blocks
        WHERE (blocker_id = $1 AND blocked_id = ANY($2::int[])) OR (blocked_id = $1 AND blocker_id = ANY($2::int[]))`,
      viewerId,
      [...userIds],
    );
    return new Set(rows.map((r) => r.id));
  }
}
