import type pg from 'pg';
import type { Sql } from '@msp/db';
import { empty, join, pgShapeStatement, pgStatement, raw, sql } from '@msp/db';
import type { UserSummarySource } from '@msp/contracts';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { PlaylistRow } from '../playlists/playlists.repository.js';
import type { ReadTrack, TrackReadsRepository } from '../tracks/track-reads.repository.js';
import {
  blockedSql,
  listedPlaylistSql,
  listedTrackCandidateSql,
  listedTrackSql,
  listedUserSql,
  ownerHiddenSql,
  stationPoolSql,
  stationTrackSql,
} from './discovery-sql.js';
import { SharedTtlCache } from '../../shared-cache.js';
import { SHORT_PREFIX_MAX, ShortPrefixesRepository, type KeptShortPrefixes, type ShortPrefixKind } from './short-prefixes.repository.js';
import { SearchWordStats } from './search-word-stats.js';
import { candidatesQuery, correctable, MAX_COMPLETIONS, type CandidatesQuery, type SearchTerms } from './search-query.js';

export type SearchKind = 'TRACK' | 'USER' | 'PLAYLIST';
export interface SearchHit {
  type: SearchKind;
  id: number;
}

/**
 * How many matches of each kind are ranked: the most played tracks, most followed users and most
 * liked playlists among the matches. A rare word has fewer matches than this and all are ranked;
 * a very common word (a third of the catalogue says "love") is ranked among its most popular
 * matches only, so a search never scores hundreds of thousands of rows. Totals count the same set.
 */
export const SEARCH_CANDIDATES = 200;
/**
 * In a search of every kind (ALL), each kind ranks its this many most popular matches: the page
 * mixes the kinds, so ALL costs about one and a half searches of one kind instead of three (its
 * total counts at most 3 × this many).
 */
export const ALL_CANDIDATES_PER_KIND = 100;
/** Below this many word (exact or prefix) matches, typo corrections are looked for too. */
export const FUZZY_FALLBACK = 20;
/** Corrections taken per query word, the most similar first. */
export const CORRECTIONS_PER_WORD = 3;

/**
 * A whole number written into a statement's text (a constant of the statement: a LIMIT, an id the
 * statement is planned with), never a bound parameter; `Math.trunc` makes it digits only.
 */
const int = (n: number): Sql => raw(String(Math.trunc(n) || 0));
/** A search kind as the SQL string literal of its name (the kinds are a fixed set). */
const kindLiteral = (kind: SearchKind): Sql => raw(`'${kind}'`);

interface KindSql {
  /** Row source with the listing rule of the kind (R2, R6, R7, R14) for the viewer, alias `x`. */
  from: (viewer: number) => Sql;
  table: Sql;
  /** The popularity index's predicate (alias `x`). */
  partial: Sql;
  popularity: string;
  /** The popularity column and the id column (the order's tie-break). */
  pop: string;
  idCol: string;
  columns: Sql;
  /** The genre's column or expression (alias `x`), compared with the genre. */
  genre: string | null;
}

const KINDS: Record<SearchKind, KindSql> = {
  TRACK: {
    from: (viewer) => sql`tracks x WHERE ${listedTrackSql('x', viewer)}`,
    table: raw('tracks'),
    partial: sql`x.deleted_at IS NULL AND NOT x.is_private AND x.state = 'FINISHED'`,
    popularity: 'x.play_count DESC, x.id DESC',
    pop: 'x.play_count',
    idCol: 'x.id',
    columns: sql`x.id, x.search_doc, x.search_text, x.search_title AS whole`,
    genre: 'x.genre_key',
  },
  PLAYLIST: {
    from: (viewer) => sql`playlists x WHERE ${listedPlaylistSql('x', viewer)}`,
    table: raw('playlists'),
    partial: sql`NOT x.is_private`,
    popularity: 'x.like_count DESC, x.id DESC',
    pop: 'x.like_count',
    idCol: 'x.id',
    columns: sql`x.id, x.search_doc, x.search_text, x.search_text AS whole`,
    genre: 'lower(x.genre)',
  },
  USER: {
    from: (viewer) => sql`user_summaries x WHERE ${listedUserSql('x', viewer)}`,
    table: raw('user_summaries'),
    partial: sql`true`,
    popularity: 'x.follower_count DESC, x.user_id DESC',
    pop: 'x.follower_count',
    idCol: 'x.user_id',
    columns: sql`x.user_id AS id, x.search_doc, x.search_text, x.search_username AS whole, x.search_display_name AS whole2`,
    genre: null,
  },
};

/** The values of a search statement (see hitsSql). */
interface SearchParams {
  exact: string;
  prefix: string;
  text: string;
  viewer: number;
  /** The whole query, or only the words before an open prefix (`anchor`). */
  match: string;
  /** The whole query. */
  whole: string;
  genre: string | null;
  /** The word of a query of one short prefix whose candidates are kept. */
  shortWord: string | null;
}

/**
 * The candidates of one kind: its SEARCH_CANDIDATES most popular matches of the candidates' query
 * (the words, the last as a prefix or as its completions; or, in the tolerant pass, each word or
 * one of its corrections), found through the full-text GIN index (`p.match`: the whole query, or only
 * the words before an open prefix, the whole query `p.whole` then checked on the rows found). Then the
 * tiers, best first: 3 the whole title or name equals the query, 2 every word exact, 1 the last word
 * as a prefix, 0 through a correction only; inside a tier ts_rank (title and names over tags over
 * genre), the word similarity and the similarity of the whole title or name (the closer, shorter
 * one first). In tiers 2 and 3 every word of the query is a word of the row, so the word similarity
 * (which there only tells how close together the words stand) is taken as 1 and computed for the
 * prefix and corrected tiers only; the folded titles and names are stored
 * (migration `…_search_folded_names`). Query texts are folded here as the documents are.
 */
function hitsSql(kind: SearchKind, p: SearchParams, anchored: boolean, limit: number, rare: boolean): Sql {
  const candidates = p.shortWord !== null ? shortPrefixCandidatesSql(kind, p, p.shortWord, limit) : popularMatchesSql(kind, p, anchored, limit, rare);
  const text = folded(p.text);
  const exactWhole = kind === 'USER' ? sql`c.whole = ${text} OR c.whole2 = ${text}` : sql`c.whole = ${text}`;
  return sql`SELECT ${kindLiteral(kind)} AS type, r.id, r.tier,
            r.rank + CASE WHEN r.tier >= 2 THEN 1 ELSE word_similarity(${text}, r.search_text) END + similarity(${text}, r.whole) AS score
          FROM (SELECT c.id, c.search_text, c.whole,
                  CASE WHEN ${exactWhole} THEN 3
                       WHEN c.search_doc @@ ${tsquery(p.exact)} THEN 2
                       WHEN c.search_doc @@ ${tsquery(p.prefix)} THEN 1 ELSE 0 END AS tier,
                  ts_rank(c.search_doc, ${tsquery(p.whole)}) AS rank
                FROM (${candidates}) c) r`;
}

/**
 * A value folded as the documents are (`msp_fold`), or as a tsquery, computed once per statement
 * (an InitPlan), never per row: search statements run with generic plans (`searchClient`), where a
 * function of a parameter is not folded when planning but would be evaluated for every row walked.
 */
const folded = (value: string) => sql`(SELECT msp_fold(${value}))`;
const tsquery = (value: string) => sql`(SELECT to_tsquery('simple', msp_fold(${value})))`;

/** How many entries of the popularity index a search walks before it asks the GIN index instead. */
export const SEARCH_WALK = 50_000;
/** At most this many GIN matches are sorted by popularity; a query with more walks the popularity index to its end. */
export const GIN_MATCHES = 20_000;

/** What the walk of a kind's popularity index reads from the index alone (alias `s`), and the listing rule on it for the viewer. */
const WALKS: Record<SearchKind, { columns: Sql; check: (viewer: number) => Sql; genre: string | null }> = {
  TRACK: {
    columns: sql`x.id, x.search_doc, x.artist_id, x.genre_key, x.held_back`,
    check: (viewer) => sql`NOT s.held_back AND NOT ${ownerHiddenSql('s.artist_id')} AND NOT ${blockedSql(viewer, 's.artist_id')}`,
    genre: 's.genre_key',
  },
  PLAYLIST: {
    columns: sql`x.id, x.search_doc, x.owner_id, x.genre`,
    check: (viewer) => sql`NOT ${ownerHiddenSql('s.owner_id')} AND NOT ${blockedSql(viewer, 's.owner_id')}`,
    genre: 'lower(s.genre)',
  },
  USER: {
    columns: sql`x.user_id AS id, x.search_doc, x.is_deleted, x.is_banned, x.username`,
    check: (viewer) => sql`NOT s.is_deleted AND NOT s.is_banned AND s.username NOT LIKE '~%' AND NOT ${blockedSql(viewer, 's.id')}`,
    genre: null,
  },
};

/**
 * The `limit` most popular matches of the candidates' query, the plan decided by what the query
 * really matches, not by the planner's estimate of its words' frequency (for rare words and ORs of
 * corrections that estimate could be far too high, and the planner then walked the whole popularity
 * index: seconds at 1M tracks; or too low, and it read a common word's whole posting list):
 * 1. the SEARCH_WALK most popular listable items are walked in the popularity index, which carries
 *    the search document and what the listing rule reads (an index-only scan, migration
 *    `…_search_popular_covering`), stopping as soon as `limit` of them match: enough for any query
 *    matching more than limit / SEARCH_WALK of the items;
 * 2. otherwise the query is rare, and its matches come from the GIN index alone
 *    (`msp_search_matches`, migration `…_search_gin_first`: a bitmap scan and nothing else), at most
 *    GIN_MATCHES of them, sorted by popularity (by primary key, never a walk: the `+ 0`);
 * 3. a query between the two (more than GIN_MATCHES matches, fewer than limit in the walk) walks the
 *    popularity index until `limit` matches turned up.
 * Each step runs only when the one before it did not answer.
 */
function popularMatchesSql(kind: SearchKind, p: SearchParams, anchored: boolean, limit: number, rare: boolean): Sql {
  const k = KINDS[kind];
  const wk = WALKS[kind];
  const idCol = raw(k.idCol);
  const matchOn = (a: string) =>
    sql`${raw(a)}.search_doc @@ ${tsquery(p.match)}${anchored ? sql` AND ts_match_vq(${raw(a)}.search_doc, ${tsquery(p.whole)})` : empty}`;
  const genre = () => (p.genre !== null && k.genre ? sql` AND ${raw(k.genre)} = ${p.genre}` : empty);
  const walkGenre = p.genre !== null && wk.genre ? sql` AND ${raw(wk.genre)} = ${p.genre}` : empty;
  const ginOrder = raw(k.popularity.replace(`${k.pop} DESC`, `${k.pop} + 0 DESC`));
  // A rare query (by the words' statistics: `SearchWordStats`) skips the walk.
  const walk = rare ? 0 : SEARCH_WALK;
  return sql`WITH w AS MATERIALIZED (
              SELECT s.id FROM (SELECT ${wk.columns} FROM ${k.table} x WHERE ${k.partial} ORDER BY ${raw(k.popularity)} LIMIT ${int(walk)}) s
               WHERE ${matchOn('s')}${walkGenre} AND ${wk.check(p.viewer)} LIMIT ${int(limit)}),
            g AS MATERIALIZED (
              SELECT m.id FROM msp_search_matches(${kindLiteral(kind)}, ${tsquery(p.match)}, ${int(GIN_MATCHES)}) m WHERE (SELECT count(*) FROM w) < ${int(limit)})
          SELECT ${k.columns} FROM (
              SELECT w.id AS cid FROM w WHERE (SELECT count(*) FROM w) >= ${int(limit)}
              UNION ALL
              (SELECT ${idCol} FROM ${k.from(p.viewer)} AND ${idCol} IN (SELECT g.id FROM g) AND ${matchOn('x')}${genre()}
                 AND (SELECT count(*) FROM g) < ${int(GIN_MATCHES)} ORDER BY ${ginOrder} LIMIT ${int(limit)})
              UNION ALL
              (SELECT ${idCol} FROM ${k.from(p.viewer)} AND ${matchOn('x')}${genre()}
                 AND (SELECT count(*) FROM g) >= ${int(GIN_MATCHES)} ORDER BY ${raw(k.popularity)} LIMIT ${int(limit)})) ids
            JOIN ${k.table} x ON ${idCol} = ids.cid`;
}

/**
 * At most this many items created since the last refresh of the kept candidates (the newest) are
 * checked live in a short prefix's search: refreshes run every SEARCH_PREFIX_REFRESH_MS (10 minutes),
 * so this is 8 new items a second of one kind before the newest-first bound leaves older new ones
 * to the next refresh.
 */
export const SHORT_PREFIX_NEW_ITEMS = 5_000;

/**
 * The candidates of a query of one short prefix (`prefix`, at most SHORT_PREFIX_MAX letters, no
 * genre): the kept candidates of the prefix (`search_short_prefixes`, ids up to the refresh's
 * highest) and the items created since (ids above it: the newest SHORT_PREFIX_NEW_ITEMS of one
 * range of the primary key), each checked as it is now (listing rules, the viewer's blocks, the
 * prefix), the `limit` most popular. The refresh's highest id is read by the statement (an InitPlan,
 * in the same snapshot as the candidates), so the text is the same from one refresh to the next and
 * runs as a prepared statement on its generic plan: with the id written into the text it was planned
 * on every search (2.4 of the 7.5 ms PostgreSQL spent on an ALL one-letter search, 2026-11-29). The
 * new items' ids are read first (the newest, a bounded range of the primary key) and their rows
 * by key (`= ANY (ARRAY(…))`): written as a join, the generic plan read the whole table for a
 * letter no item starts with (a hash join whose first side found nothing: 22 ms for USER "x").
 */
function shortPrefixCandidatesSql(kind: SearchKind, p: SearchParams, prefix: string, limit: number): Sql {
  const k = KINDS[kind];
  const idCol = raw(k.idCol);
  const newId = raw(k.idCol.replace('x.', 'y.'));
  const pop = raw(k.pop);
  const keptUpTo = sql`(SELECT r.max_id FROM search_short_prefix_refreshes r WHERE r.kind = ${kindLiteral(kind)})`;
  // The match is written so that no index can serve it (`IS TRUE`): PostgreSQL estimated a
  // one-letter prefix's full-text matches at 500 rows and read them all through the GIN index
  // instead of the few hundred kept ids (10,685 users or 9,076 playlists for "r", 11–17 ms, against
  // 2–3 ms from the candidates).
  const match = sql`(x.search_doc @@ ${tsquery(p.match)}) IS TRUE`;
  return sql`SELECT s.* FROM (
            SELECT ${k.columns}, ${pop} AS pop, ${idCol} AS pop_id FROM ${k.from(p.viewer)} AND ${match} AND ${idCol} <= ${keptUpTo}
               AND ${idCol} IN (SELECT sp.id FROM search_short_prefixes sp WHERE sp.kind = ${kindLiteral(kind)} AND sp.prefix = msp_fold(${prefix}))
            UNION ALL
            SELECT ${k.columns}, ${pop}, ${idCol} FROM ${k.from(p.viewer)} AND ${match}
               AND ${idCol} = ANY (ARRAY(SELECT ${newId} FROM ${k.table} y WHERE ${newId} > ${keptUpTo} ORDER BY ${newId} DESC LIMIT ${int(SHORT_PREFIX_NEW_ITEMS)}))) s
          ORDER BY s.pop DESC, s.pop_id DESC LIMIT ${int(limit)}`;
}

/** Most tracks a station holds on one day (R18: a radio needs hundreds, not a genre's 100,000). */
export const STATION_SIZE = 500;
/** The chart: the best-scored tracks only (DSC-2). */
export const TRENDING_SIZE = 1000;
/**
 * How far past TRENDING_SIZE the chart shared by every viewer reaches, so that the tracks of the
 * artists a block separates from a viewer, taken out of it, rarely leave fewer than TRENDING_SIZE.
 */
export const TRENDING_SLACK = 200;

/** A track of the shared chart and its artist (R7 is applied per viewer on the chart). */
export interface ChartEntry {
  id: number;
  artistId: number;
}

/**
 * One track of a station's day, with its artist (R7 filtering per viewer happens on the pool) and
 * its place in the day's order (`md5(id || day)`, then the id).
 */
export interface StationPick {
  id: number;
  artistId: number;
  rank: string;
}

/** The day's order of picks: by rank, then id. */
export function byStationRank(a: StationPick, b: StationPick): number {
  return a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.id - b.id;
}

/**
 * A station's day from parts already ordered: the picks of every part, each track once, in the
 * day's order, at most `limit` of them, none of `leaveOut`. Genre parts are shared by every station
 * of that genre, so a station made of cached genre parts only reads its own artists' picks. The
 * parts are merged (each in the day's order, as read: a part that is not is sorted first), so a
 * station costs about `limit` steps, not a sort of every part's picks.
 */
export function composeStation(parts: ReadonlyArray<readonly StationPick[]>, limit: number, leaveOut?: ReadonlySet<number>): StationPick[] {
  const lists = parts.filter((p) => p.length > 0).map((p) => (inStationOrder(p) ? p : [...p].sort(byStationRank)));
  const at = lists.map(() => 0);
  const seen = new Set<number>();
  const out: StationPick[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      if (at[i]! < lists[i]!.length && (best < 0 || byStationRank(lists[i]![at[i]!]!, lists[best]![at[best]!]!) < 0)) best = i;
    }
    if (best < 0) break;
    const pick = lists[best]![at[best]!++]!;
    if (seen.has(pick.id) || leaveOut?.has(pick.id)) continue;
    seen.add(pick.id);
    out.push(pick);
  }
  return out;
}

function inStationOrder(part: readonly StationPick[]): boolean {
  for (let i = 1; i < part.length; i++) if (byStationRank(part[i - 1]!, part[i]!) > 0) return false;
  return true;
}

/** R2 for the track `t` and the viewer. */
const listedTrack = (viewer: number): Sql => listedTrackSql('t', viewer);
/** R2 without the viewer's blocks for the track `t`. */
const LISTED_TRACK_CANDIDATE = listedTrackCandidateSql('t');
/** R18's station pool for the track `t`. */
const STATION_POOL = stationPoolSql('t');
/** STATION_POOL but the artist's check, for statements that check their artists once. */
const STATION_TRACK = stationTrackSql('t');
/** A listed user `u` for the viewer. */
const listedUser = (viewer: number): Sql => listedUserSql('u', viewer);

/** DSC-2's chart in its order for the viewer, filtered by genre when one is given. */
function chartSql(viewerId: number, genreKey: string | null): Sql {
  return sql`SELECT t.id FROM tracks t WHERE t.trending_score > 0 AND ${listedTrack(viewerId)}${genreKey !== null ? sql` AND t.genre_key = ${genreKey}` : empty}
      ORDER BY t.trending_score DESC, t.published_at DESC, t.id DESC`;
}

export class DiscoveryRepository {
  /** The one- and two-letter prefixes whose candidates are kept, per kind (read a minute per replica). */
  private readonly shortPrefixes = new SharedTtlCache<'all', Map<ShortPrefixKind, KeptShortPrefixes>>(60_000, 1);
  /** The words' frequencies PostgreSQL keeps for the search documents (read every 10 minutes per replica). */
  private readonly wordStats = new SharedTtlCache<'all', SearchWordStats>(600_000, 1);

  constructor(
    private readonly prisma: PrismaClient,
    private readonly reads: TrackReadsRepository,
    private readonly pool: pg.Pool,
  ) {}

  /**
   * The word of a query of one short prefix whose candidates are kept for every kind asked for
   * (no genre: the kept candidates are the genre-less ones), or null.
   */
  private async keptShortPrefix(terms: SearchTerms, kinds: readonly SearchKind[], genreKey: string | null): Promise<string | null> {
    const word = terms.words.length === 1 ? terms.words[0]! : null;
    if (!word || genreKey !== null || [...word].length > SHORT_PREFIX_MAX) return null;
    const kept = await this.shortPrefixes.get('all', () => new ShortPrefixesRepository(this.pool).computed());
    return kinds.every((k) => kept.get(k)?.prefixes.has(word)) ? word : null;
  }

  /**
   * DSC-3: one page of hits over the kinds asked for, best first, and the total. The words (the last
   * as a prefix) first; when they match fewer than FUZZY_FALLBACK items, the words are corrected
   * against the vocabulary (typos) and the search runs again with each word or its corrections. A
   * last word that starts no vocabulary word goes to the corrected search at once.
   * Every candidate set comes from the GIN indexes and is bounded by SEARCH_CANDIDATES per kind
   * (ALL_CANDIDATES_PER_KIND when several kinds are asked for).
   */
  async search(terms: SearchTerms, kinds: readonly SearchKind[], viewerId: number, genreKey: string | null, page: number, size: number) {
    const last = terms.words[terms.words.length - 1]!;
    const completions = correctable(last) ? await this.completions(last) : null;
    if (completions !== null && completions.length === 0) {
      // The last word starts no word of any listed item (the vocabulary holds every word of the
      // documents, kept by triggers in the same transactions), so the words as typed match nothing,
      // or next to nothing: straight to the tolerant pass, which also keeps every word as typed (its
      // matches rank above those through a correction only). The words' pass found nothing there
      // and cost a fifth of a typo's search (TRACK or ALL "nigth", 2026-11-29).
      const fixes = await this.corrections(terms.words.filter(correctable));
      return this.searchPass(candidatesQuery(terms, completions, fixes), terms, kinds, viewerId, genreKey, page, size);
    }
    const short = completions === null ? await this.keptShortPrefix(terms, kinds, genreKey) : null;
    const words = await this.searchPass(candidatesQuery(terms, completions), terms, kinds, viewerId, genreKey, page, size, short);
    if (words.total >= FUZZY_FALLBACK) return words;
    const fixes = await this.corrections(terms.words.filter(correctable));
    if (fixes.size === 0) return words;
    return this.searchPass(candidatesQuery(terms, completions, fixes), terms, kinds, viewerId, genreKey, page, size);
  }

  /**
   * The vocabulary words that start with `prefix` (folded), at most MAX_COMPLETIONS + 1 (more means
   * "too many to list"): one range of `search_words`' primary key (its words sort bytewise). The
   * bounds are InitPlans: folded in the text, PostgreSQL's custom plans knew the range and always
   * looked cheaper than the generic plan, so the statement was planned on every search.
   */
  async completions(prefix: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ word: string }>(
      pgStatement(
        sql`SELECT w.word FROM search_words w WHERE w.word >= ${folded(prefix)} AND w.word < (SELECT msp_fold(${prefix}) || chr(1114111))
             ORDER BY w.word LIMIT ${int(MAX_COMPLETIONS + 1)}`,
        'catalog_search_completions',
      ),
    );
    return rows.map((r) => r.word);
  }

  /**
   * Vocabulary words one edit away from each word (a letter wrong, missing, extra, or two neighbours
   * swapped), the most similar first (trigram similarity, then the word), at most
   * CORRECTIONS_PER_WORD: symmetric deletions (migration `…_search_vocabulary`), i.e. primary-key
   * probes of `search_words` and `search_word_variants` with the word and its one-letter deletions,
   * never a scan of the titles or of the vocabulary.
   */
  async corrections(words: readonly string[]): Promise<Map<string, string[]>> {
    const distinct = [...new Set(words)];
    if (distinct.length === 0) return new Map();
    // One word (most queries) as a scalar: with the array, the generic plan assumed ten words and
    // never beat the custom plans, so the statement was planned on every search.
    const source = distinct.length === 1 ? sql`(SELECT ${distinct[0]!}::text AS x) w` : sql`unnest(${distinct}::text[]) w(x)`;
    const { rows } = await this.pool.query<{ word: string; fixes: string[] }>(
      pgStatement(
        sql`SELECT q.word, ARRAY(
               SELECT c.fix FROM (
                 SELECT v.word AS fix FROM search_word_variants v
                  WHERE v.variant = ANY(ARRAY(SELECT q.folded UNION SELECT msp_word_deletions(q.folded)))
                 UNION SELECT w.word FROM search_words w WHERE w.word = ANY(ARRAY(SELECT msp_word_deletions(q.folded)))) c
               WHERE c.fix <> q.folded ORDER BY similarity(c.fix, q.folded) DESC, c.fix LIMIT ${int(CORRECTIONS_PER_WORD)}) AS fixes
             FROM (SELECT w.x AS word, msp_fold(w.x) AS folded FROM ${source}) q`,
        distinct.length === 1 ? 'catalog_search_corrections_one' : 'catalog_search_corrections',
      ),
    );
    return new Map(rows.filter((r) => r.fixes.length > 0).map((r) => [r.word, r.fixes]));
  }

  /**
   * One page of hits for the candidates' query, best first, with the total of the same
   * candidates, in one statement (the total rides on each row; a page past the end counts apart).
   */
  private async searchPass(
    query: CandidatesQuery,
    terms: SearchTerms,
    kinds: readonly SearchKind[],
    viewerId: number,
    genreKey: string | null,
    page: number,
    size: number,
    shortWord: string | null = null,
  ): Promise<{ hits: SearchHit[]; total: number }> {
    const p: SearchParams = {
      exact: terms.exact,
      prefix: terms.prefix,
      text: terms.text,
      viewer: viewerId,
      match: query.anchor ?? query.match,
      whole: query.match,
      genre: genreKey,
      shortWord,
    };
    const stats = await this.wordStats.get('all', () => SearchWordStats.read(this.pool));
    const anchored = query.anchor !== null;
    const rare = kinds.map((k) => stats.isRare(k, query.anchor ?? query.match));
    const union = join(
      kinds.map((k, i) => hitsSql(k, p, anchored, kinds.length > 1 ? ALL_CANDIDATES_PER_KIND : SEARCH_CANDIDATES, rare[i]!)),
      '\n UNION ALL \n',
    );
    const pageSql = sql`SELECT h.type, h.id, count(*) OVER ()::int AS total FROM (${union}) h
                ORDER BY h.tier DESC, h.score DESC, h.type, h.id DESC LIMIT ${size} OFFSET ${page * size}`;
    const statement = pgShapeStatement(pageSql, 'catalog_search');
    const { rows } = await this.pool.query<{ type: SearchKind; id: number; total: number }>(statement);
    if (rows.length > 0 || page === 0) return { hits: rows.map((r) => ({ type: r.type, id: r.id })), total: rows[0]?.total ?? 0 };
    const counted = await this.pool.query<{ total: number }>(
      pgStatement(sql`SELECT count(*)::int AS total FROM (${union}) h`, statement.name ? `${statement.name}_count` : undefined),
    );
    return { hits: [], total: counted.rows[0]?.total ?? 0 };
  }

  /**
   * DSC-2: a page of the chart, i.e. of the TRENDING_SIZE best-scored tracks (score > 0 over the
   * window), by score, newer first among equals; the walk of the partial trending index stops after
   * the page. `viewerBlocks`: whether any block involves the viewer (the chart's length then depends
   * on the viewer, see trendingCount).
   */
  async trendingPage(viewerId: number, genreKey: string | null, page: number, size: number): Promise<{ rows: ReadTrack[]; viewerBlocks: boolean }> {
    const offset = Math.min(page * size, TRENDING_SIZE);
    const { rows } = await this.pool.query<{ id: number | null; viewerBlocks: boolean }>(
      pgStatement(
        sql`SELECT c.id, EXISTS (SELECT 1 FROM user_blocks b WHERE b.blocker_id = ${viewerId} OR b.blocked_id = ${viewerId}) AS "viewerBlocks"
               FROM (SELECT 1) one LEFT JOIN LATERAL (${chartSql(viewerId, genreKey)} LIMIT ${Math.min(size, TRENDING_SIZE - offset)} OFFSET ${offset}) c ON true`,
        genreKey !== null ? 'catalog_trending_genre_page' : 'catalog_trending_page',
      ),
    );
    const ids = rows.flatMap((r) => (r.id === null ? [] : [r.id]));
    return { rows: await this.rowsInOrder(ids), viewerBlocks: rows[0]?.viewerBlocks ?? false };
  }

  /**
   * DSC-2's chart for a viewer no block involves, in its order: the TRENDING_SIZE + TRENDING_SLACK
   * best-scored listed tracks (R2, R14) and their artists, one walk of the partial trending index
   * (kept a few seconds by the service, which applies the viewer's blocks on it).
   */
  async trendingChart(genreKey: string | null): Promise<ChartEntry[]> {
    const { rows } = await this.pool.query<ChartEntry>(
      pgStatement(
        sql`SELECT t.id, t.artist_id AS "artistId" FROM tracks t
              WHERE t.trending_score > 0 AND ${LISTED_TRACK_CANDIDATE}${genreKey !== null ? sql` AND t.genre_key = ${genreKey}` : empty}
              ORDER BY t.trending_score DESC, t.published_at DESC, t.id DESC LIMIT ${int(TRENDING_SIZE + TRENDING_SLACK)}`,
        genreKey !== null ? 'catalog_trending_chart_genre' : 'catalog_trending_chart',
      ),
    );
    return rows;
  }

  /** DSC-2: how many tracks the chart holds for this viewer (at most TRENDING_SIZE): one walk of the trending index. */
  async trendingCount(viewerId: number, genreKey: string | null): Promise<number> {
    const { rows } = await this.pool.query<{ total: number }>(
      pgStatement(
        sql`SELECT count(*)::int AS total FROM (${chartSql(viewerId, genreKey)} LIMIT ${int(TRENDING_SIZE)}) c`,
        genreKey !== null ? 'catalog_trending_genre_count' : 'catalog_trending_count',
      ),
    );
    return rows[0]?.total ?? 0;
  }

  /**
   * A genre's part of a station's day (R18, fixed for the day), viewer-independent: the
   * STATION_SIZE playable tracks that follow the day's point in the `shuffle_key` order (a hash of
   * the id; the point is a hash of the date), wrapping around, in the day's order. Two index ranges
   * of at most STATION_SIZE rows each, whatever the genre's size; R2 and R14 apply here, R7 (the
   * viewer's blocks) after, on the pool, so the pool can be shared.
   */
  async genrePicks(day: string, genre: string): Promise<StationPick[]> {
    const { rows } = await this.pool.query<StationPick>(
      pgStatement(
        sql`SELECT c.id, c.artist_id AS "artistId", md5(c.id::text || ${day}) AS rank FROM (
               (SELECT t.id, t.artist_id FROM tracks t WHERE t.genre_key = ${genre} AND ${STATION_POOL} AND t.shuffle_key >= hashtext(${day})
                 ORDER BY t.shuffle_key LIMIT ${int(STATION_SIZE)})
               UNION ALL
               (SELECT t.id, t.artist_id FROM tracks t WHERE t.genre_key = ${genre} AND ${STATION_POOL} AND t.shuffle_key < hashtext(${day})
                 ORDER BY t.shuffle_key LIMIT ${int(STATION_SIZE)})
               LIMIT ${int(STATION_SIZE)}) c
             ORDER BY 3, 1`,
        'catalog_station_genre',
      ),
    );
    return rows;
  }

  /**
   * The artists' part of a station's day: from each artist, `perArtist` playable tracks the same
   * way as a genre's (the day's point in the artist's `shuffle_key` order), in the day's order.
   * Two index ranges of at most `perArtist` rows per artist, in one statement.
   */
  async artistPicks(day: string, artists: readonly number[], perArtist: number): Promise<StationPick[]> {
    if (artists.length === 0) return [];
    // The LIMIT is a constant of the statement, with a parameter there PostgreSQL never took the
    // generic plan and planned the statement on every pool; one statement per share was a few dozen
    // statements, each planned five times on each connection before its generic plan (6 ms each):
    // most of a cold likes station's PostgreSQL time. So the LIMIT is the share rounded up to a power
    // of two (at most ten statements) and the rows past the share are dropped by a bound filter.
    const share = Math.max(1, Math.min(STATION_SIZE, Math.trunc(perArtist)));
    const bucket = Math.min(STATION_SIZE, 2 ** Math.ceil(Math.log2(share)));
    const { rows } = await this.pool.query<StationPick>(
      pgStatement(
        sql`SELECT c.id, c.artist_id AS "artistId", md5(c.id::text || ${day}) AS rank
              FROM (SELECT a.id FROM unnest(${[...new Set(artists)]}::int[]) a(id) WHERE NOT ${ownerHiddenSql('a.id')}) a CROSS JOIN LATERAL (
               SELECT x.id, x.artist_id, row_number() OVER () AS n FROM (
                 (SELECT t.id, t.artist_id FROM tracks t WHERE t.artist_id = a.id AND ${STATION_TRACK} AND t.shuffle_key >= hashtext(${day})
                   ORDER BY t.shuffle_key LIMIT ${int(bucket)})
                 UNION ALL
                 (SELECT t.id, t.artist_id FROM tracks t WHERE t.artist_id = a.id AND ${STATION_TRACK} AND t.shuffle_key < hashtext(${day})
                   ORDER BY t.shuffle_key LIMIT ${int(bucket)})
                 LIMIT ${int(bucket)}) x) c
             WHERE c.n <= ${share}
             ORDER BY 3, 1`,
        `catalog_station_artists_${bucket}`,
      ),
    );
    return rows;
  }

  /** Everybody a block separates from the viewer, either way (catalog's copy of the blocks, R7): two index ranges. */
  async blocksOf(viewerId: number): Promise<Set<number>> {
    if (viewerId === 0) return new Set();
    const { rows } = await this.pool.query<{ id: number }>(
      pgStatement(
        sql`SELECT blocked_id AS id FROM user_blocks WHERE blocker_id = ${viewerId} UNION SELECT blocker_id FROM user_blocks WHERE blocked_id = ${viewerId}`,
        'catalog_blocks_of',
      ),
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * DSC-6, what an artist's station is made of, in one statement: whether the viewer may see the
   * artist (as `visibleUser`), the artist's 3 most frequent genres among its public tracks, and the
   * artist's own picks of the day (as `artistPicks` with STATION_SIZE), in the day's order.
   */
  async artistSeeds(day: string, artistId: number, viewerId: number): Promise<{ visible: boolean; genres: string[]; own: StationPick[] }> {
    const { rows } = await this.pool.query<{ visible: boolean; genres: string[]; ids: number[] | null; ranks: string[] | null }>(
      pgStatement(
        sql`SELECT EXISTS (SELECT 1 FROM user_summaries u WHERE u.user_id = ${artistId} AND ${listedUser(viewerId)}) AS visible,
                    ARRAY(SELECT t.genre_key FROM tracks t
                           WHERE t.artist_id = ${artistId} AND t.deleted_at IS NULL AND NOT t.is_private AND t.state = 'FINISHED' AND NOT t.held_back
                           GROUP BY t.genre_key ORDER BY count(*) DESC, t.genre_key LIMIT 3) AS genres,
                    p.ids, p.ranks
               FROM (SELECT array_agg(c.id ORDER BY c.rank, c.id) AS ids, array_agg(c.rank ORDER BY c.rank, c.id) AS ranks
                       FROM (SELECT o.id, md5(o.id::text || ${day}) AS rank FROM (
                               (SELECT t.id FROM tracks t WHERE t.artist_id = ${artistId} AND ${STATION_TRACK} AND t.shuffle_key >= hashtext(${day})
                                 ORDER BY t.shuffle_key LIMIT ${int(STATION_SIZE)})
                               UNION ALL
                               (SELECT t.id FROM tracks t WHERE t.artist_id = ${artistId} AND ${STATION_TRACK} AND t.shuffle_key < hashtext(${day})
                                 ORDER BY t.shuffle_key LIMIT ${int(STATION_SIZE)})
                               LIMIT ${int(STATION_SIZE)}) o
                      WHERE NOT ${ownerHiddenSql(sql`${artistId}::int`)}) c) p`,
        'catalog_station_artist_seeds',
      ),
    );
    const seeds = rows[0]!;
    const ranks = seeds.ranks ?? [];
    return { visible: seeds.visible, genres: seeds.genres, own: (seeds.ids ?? []).map((id, i) => ({ id, artistId, rank: ranks[i]! })) };
  }

  /**
   * DSC-7: the artists (the 50 most liked) and genres (the 5 most liked) of the user's liked tracks,
   * and every track they liked (left out of the station), in one named statement.
   */
  async likeSeeds(userId: number): Promise<{ artists: number[]; genres: string[]; liked: number[] }> {
    const { rows } = await this.pool.query<{ artists: number[] | null; genres: string[] | null; liked: number[] | null }>(
      pgStatement(
        sql`WITH e AS MATERIALIZED (SELECT e.track_id FROM track_engagements e WHERE e.kind = 'L' AND e.user_id = ${userId}),
                  liked AS (SELECT t.artist_id, t.genre_key FROM e JOIN tracks t ON t.id = e.track_id WHERE t.deleted_at IS NULL)
             SELECT (SELECT array_agg(artist_id) FROM (SELECT artist_id FROM liked GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 50) a) AS artists,
                    (SELECT array_agg(genre_key) FROM (SELECT genre_key FROM liked GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 5) g) AS genres,
                    (SELECT array_agg(track_id) FROM e) AS liked`,
        'catalog_station_like_seeds',
      ),
    );
    const seeds = rows[0];
    return { artists: seeds?.artists ?? [], genres: seeds?.genres ?? [], liked: seeds?.liked ?? [] };
  }

  /** The rows of already filtered ids, in that order, with their artists (one statement). */
  private rowsInOrder(ids: readonly number[]): Promise<ReadTrack[]> {
    return this.reads.inOrder(ids, 0);
  }

  /** A search page's playlists (one named statement; the fields of `playlistSelect`). */
  async playlists(ids: readonly number[]): Promise<PlaylistRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<PlaylistRow>(
      pgStatement(
        sql`SELECT p.id, p.owner_id AS "ownerId", p.title, p.playlist_slug AS "playlistSlug", p.description, p.type,
                    p.is_private AS "isPrivate", p.genre, COALESCE(p.tags, '{}') AS tags, p.secret_token AS "secretToken",
                    p.cover_key AS "coverKey", p.like_count AS "likeCount", p.repost_count AS "repostCount",
                    p.created_at AS "createdAt", p.updated_at AS "updatedAt"
               FROM playlists p WHERE p.id = ANY(${[...ids]}::int[])`,
        'catalog_search_playlists',
      ),
    );
    return rows;
  }

  /**
   * A search page's users (one named statement; the fields of `userSummarySourceSelect`) and whether
   * the viewer follows each (catalog's copy of social's follows, a primary-key probe per user).
   */
  async userSummaries(ids: readonly number[], viewerId: number): Promise<Array<UserSummarySource & { isFollowing: boolean }>> {
    const { rows } = await this.pool.query<UserSummarySource & { isFollowing: boolean }>(
      pgStatement(
        sql`SELECT u.user_id AS "userId", u.username, u.display_name AS "displayName", u.avatar_url AS "avatarUrl", u.tier,
                    u.follower_count AS "followerCount", u.track_count AS "trackCount",
                    (SELECT 1 FROM user_follows f WHERE f.follower_id = ${viewerId} AND f.followee_id = u.user_id) IS NOT NULL AS "isFollowing"
               FROM user_summaries u WHERE u.user_id = ANY(${[...ids]}::int[])`,
        'catalog_search_user_summaries_viewer',
      ),
    );
    return rows;
  }

  userByName(username: string): Promise<{ userId: number; isBanned: boolean } | null> {
    return this.prisma.userSummary.findFirst({ where: { username, isDeleted: false }, select: { userId: true, isBanned: true } });
  }

  trackBySlug(trackSlug: string, artistId: number): Promise<{ id: number; secretToken: string } | null> {
    return this.prisma.track.findFirst({ where: { trackSlug, artistId }, select: { id: true, secretToken: true } });
  }

  playlistBySlug(playlistSlug: string, ownerId: number): Promise<{ id: number; secretToken: string } | null> {
    return this.prisma.playlist.findFirst({ where: { playlistSlug, ownerId }, select: { id: true, secretToken: true } });
  }

  /** Whether `blockerId` blocked `blockedId` (catalog's copy of social's blocks, R7). */
  async hasBlocked(blockerId: number, blockedId: number): Promise<boolean> {
    return !!(await this.prisma.userBlock.findUnique({ where: { blockerId_blockedId: { blockerId, blockedId } }, select: { blockerId: true } }));
  }

  /** An artist the caller may see (DSC-6 404 otherwise): present, not banned, no block. */
  async visibleUser(userId: number, viewerId: number): Promise<boolean> {
    const { rows } = await this.pool.query(
      pgStatement(sql`SELECT 1 FROM user_summaries u WHERE u.user_id = ${userId} AND ${listedUser(viewerId)}`, 'catalog_visible_user'),
    );
    return rows.length > 0;
  }

  /** Blocks between the viewer and these users, either way, from catalog's copy (R7). */
  async blockedAmong(viewerId: number, userIds: readonly number[]): Promise<Set<number>> {
    if (viewerId === 0 || userIds.length === 0) return new Set();
    const among = [...userIds];
    const rows = await this.prisma.$queryRaw<Array<{ id: number }>>(
      sql`SELECT CASE WHEN blocker_id = ${viewerId} THEN blocked_id ELSE blocker_id END AS id FROM user_blocks
        WHERE (blocker_id = ${viewerId} AND blocked_id = ANY(${among}::int[])) OR (blocked_id = ${viewerId} AND blocker_id = ANY(${among}::int[]))`,
    );
    return new Set(rows.map((r) => r.id));
  }
}

/** What DiscoveryService reads (unit tests give a fake). */
export type DiscoveryStore = Pick<
  DiscoveryRepository,
  | 'search'
  | 'playlists'
  | 'userSummaries'
  | 'trendingPage'
  | 'trendingCount'
  | 'trendingChart'
  | 'userByName'
  | 'trackBySlug'
  | 'playlistBySlug'
  | 'hasBlocked'
  | 'genrePicks'
  | 'visibleUser'
  | 'artistSeeds'
  | 'artistPicks'
  | 'likeSeeds'
  | 'blocksOf'
>;
