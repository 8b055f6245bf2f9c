import type { PrismaClient } from '../../generated/prisma/client.js';
import { trackSelect, type TrackRow } from '../tracks/track.mapper.js';
import { listedPlaylistSql, listedTrackSql, listedUserSql, stationTrackSql } from './discovery-sql.js';
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
export const SEARCH_CANDIDATES = 1000;

/**
 * Match tiers, best first: 3 the whole field equals the query, 2 every word matches exactly,
 * 1 the last word as a prefix, 0 only by trigram similarity (typos). Inside a tier, ts_rank
 * (title and names weigh more than tags, tags more than genre), the word similarity and the
 * similarity of the whole title or name (the closer, shorter one first).
 */
function hitsSql(kind: SearchKind, withGenre: boolean): string {
  const match = (alias: string) => `(${alias}.search_doc @@ to_tsquery('simple', $2) OR $3 <% ${alias}.search_text)`;
  const tier = (alias: string, whole: string) => `CASE WHEN ${whole} = $3 THEN 3
              WHEN ${alias}.search_doc @@ to_tsquery('simple', $1) THEN 2
              WHEN ${alias}.search_doc @@ to_tsquery('simple', $2) THEN 1 ELSE 0 END`;
  const score = (alias: string, whole: string) =>
    `ts_rank(${alias}.search_doc, to_tsquery('simple', $2)) + word_similarity($3, ${alias}.search_text) + similarity($3, ${whole})`;
  const cap = `LIMIT ${SEARCH_CANDIDATES}`;
  if (kind === 'TRACK') {
    return `SELECT 'TRACK' AS type, c.id, ${tier('c', 'msp_fold(c.title)')} AS tier, ${score('c', 'msp_fold(c.title)')} AS score
              FROM (SELECT t.id, t.title, t.search_doc, t.search_text FROM tracks t
                     WHERE ${match('t')} AND ${listedTrackSql('t', '$4')}${withGenre ? ' AND t.genre_key = $5' : ''}
                     ORDER BY t.play_count DESC, t.id DESC ${cap}) c`;
  }
  if (kind === 'PLAYLIST') {
    return `SELECT 'PLAYLIST' AS type, c.id, ${tier('c', 'c.search_text')} AS tier, ${score('c', 'c.search_text')} AS score
              FROM (SELECT p.id, p.search_doc, p.search_text FROM playlists p
                     WHERE ${match('p')} AND ${listedPlaylistSql('p', '$4')}${withGenre ? ' AND lower(p.genre) = $5' : ''}
                     ORDER BY p.like_count DESC, p.id DESC ${cap}) c`;
  }
  return `SELECT 'USER' AS type, c.user_id AS id,
                 CASE WHEN msp_fold(c.username) = $3 OR msp_fold(c.display_name) = $3 THEN 3
                      WHEN c.search_doc @@ to_tsquery('simple', $1) THEN 2
                      WHEN c.search_doc @@ to_tsquery('simple', $2) THEN 1 ELSE 0 END AS tier,
                 ${score('c', 'c.search_text')} AS score
            FROM (SELECT u.user_id, u.username, u.display_name, u.search_doc, u.search_text FROM user_summaries u
                   WHERE ${match('u')} AND ${listedUserSql('u', '$4')}
                   ORDER BY u.follower_count DESC, u.user_id DESC ${cap}) c`;
}

/** Stations' order fixed for the day (as DSC-5): a hash of the id and the UTC date. */
const DAY_ORDER = 'ORDER BY md5(t.id::text || $2), t.id';

export class DiscoveryRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * DSC-3: one page of hits over the kinds asked for, best first, and the total, in one
   * transaction (the similarity threshold is a transaction-local setting).
   */
  async search(terms: SearchTerms, kinds: readonly SearchKind[], viewerId: number, genreKey: string | null, page: number, size: number) {
    const withGenre = genreKey !== null;
    const union = kinds.map((k) => hitsSql(k, withGenre)).join('\n UNION ALL \n');
    const params: unknown[] = [terms.exact, terms.prefix, terms.text, viewerId, ...(withGenre ? [genreKey] : [])];
    const n = params.length;
    const [, hits, counted] = await this.prisma.$transaction([
      this.prisma.$queryRawUnsafe(`SELECT set_config('pg_trgm.word_similarity_threshold', '${FUZZY_THRESHOLD}', true)`),
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

  /** DSC-2: the ranked tracks (score > 0 over the window) by score, newer first among equals. */
  async trending(viewerId: number, genreKey: string | null, page: number, size: number): Promise<{ rows: TrackRow[]; total: number }> {
    const from = `FROM tracks t WHERE t.trending_score > 0 AND ${listedTrackSql('t', '$1')}${genreKey !== null ? ' AND t.genre_key = $2' : ''}`;
    const params: unknown[] = [viewerId, ...(genreKey !== null ? [genreKey] : [])];
    const n = params.length;
    const [ids, counted] = await Promise.all([
      this.prisma.$queryRawUnsafe<Array<{ id: number }>>(
        `SELECT t.id ${from} ORDER BY t.trending_score DESC, t.published_at DESC, t.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        ...params,
        size,
        page * size,
      ),
      this.prisma.$queryRawUnsafe<Array<{ total: number }>>(`SELECT count(*)::int AS total ${from}`, ...params),
    ]);
    return { rows: await this.rowsInOrder(ids.map((r) => r.id)), total: counted[0]?.total ?? 0 };
  }

  /** DSC-5: public playable tracks of a genre (case-insensitive). */
  genreStation(viewerId: number, genreKey: string, day: string, page: number, size: number) {
    return this.station(`t.genre_key = $3`, [genreKey], viewerId, day, page, size);
  }

  /**
   * DSC-6: the artist's tracks and those of similar artists: the (up to 50) artists with the most
   * public tracks in the artist's main genres (its 3 most frequent among its public tracks).
   */
  artistStation(viewerId: number, artistId: number, day: string, page: number, size: number) {
    const similar = `t.artist_id = $3 OR t.artist_id IN (
        SELECT s.artist_id FROM tracks s
         WHERE s.deleted_at IS NULL AND NOT s.is_private AND s.state = 'FINISHED' AND s.artist_id <> $3
           AND s.genre_key IN (SELECT m.genre_key FROM tracks m
                                WHERE m.artist_id = $3 AND m.deleted_at IS NULL AND NOT m.is_private AND m.state = 'FINISHED'
                                GROUP BY m.genre_key ORDER BY count(*) DESC, m.genre_key LIMIT 3)
         GROUP BY s.artist_id ORDER BY count(*) DESC, s.artist_id LIMIT 50)`;
    return this.station(similar, [artistId], viewerId, day, page, size);
  }

  /** DSC-7: tracks by the artists and in the genres of the caller's likes, minus the liked ones. */
  likesStation(userId: number, day: string, page: number, size: number) {
    const liked = `SELECT e.track_id FROM track_engagements e WHERE e.kind = 'L' AND e.user_id = $1`;
    const seeds = `SELECT l.artist_id, l.genre_key FROM tracks l WHERE l.id IN (${liked})`;
    const filter = `(t.artist_id IN (SELECT artist_id FROM (${seeds}) a) OR t.genre_key IN (SELECT genre_key FROM (${seeds}) g))
        AND t.id NOT IN (${liked})`;
    return this.station(filter, [], userId, day, page, size);
  }

  private async station(filter: string, extra: unknown[], viewerId: number, day: string, page: number, size: number) {
    const from = `FROM tracks t WHERE (${filter}) AND ${stationTrackSql('t', '$1')}`;
    const params = [viewerId, day, ...extra];
    const n = params.length;
    const [ids, counted] = await Promise.all([
      this.prisma.$queryRawUnsafe<Array<{ id: number }>>(`SELECT t.id ${from} ${DAY_ORDER} LIMIT $${n + 1} OFFSET $${n + 2}`, ...params, size, page * size),
      // The day is not part of the count; keep parameter numbers by selecting it.
      this.prisma.$queryRawUnsafe<Array<{ total: number }>>(`SELECT count(*)::int AS total, $2::text AS day ${from}`, ...params),
    ]);
    return { rows: await this.rowsInOrder(ids.map((r) => r.id)), total: counted[0]?.total ?? 0 };
  }

  async rowsInOrder(ids: readonly number[]): Promise<TrackRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.prisma.track.findMany({ where: { id: { in: [...ids] } }, select: trackSelect });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** An artist the caller may see (DSC-6 404 otherwise): present, not banned, no block. */
  async visibleUser(userId: number, viewerId: number): Promise<boolean> {
    const rows = await this.prisma.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM user_summaries u WHERE u.user_id = $1 AND ${listedUserSql('u', '$2')}`, userId, viewerId);
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
