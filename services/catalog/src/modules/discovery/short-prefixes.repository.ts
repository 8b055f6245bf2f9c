import type pg from 'pg';
import { pgStatement, raw, sql, type Sql } from '@msp/db';
import { listedPlaylistCandidateSql, listedTrackCandidateSql, listedUserCandidateSql } from './discovery-sql.js';

export type ShortPrefixKind = 'TRACK' | 'USER' | 'PLAYLIST';

export interface KeptShortPrefixes {
  prefixes: ReadonlySet<string>;
}

/** A query word this short, searched as a prefix, takes its candidates from `search_short_prefixes`. */
export const SHORT_PREFIX_MAX = 2;

/** What one kind's refresh reads: its table, id and popularity order, and its viewer-free listing rule. */
export const SHORT_PREFIX_KINDS: Record<ShortPrefixKind, { table: string; id: string; popularity: string; listed: Sql }> = {
  TRACK: { table: 'tracks', id: 'x.id', popularity: 'x.play_count DESC, x.id DESC', listed: listedTrackCandidateSql('x') },
  PLAYLIST: { table: 'playlists', id: 'x.id', popularity: 'x.like_count DESC, x.id DESC', listed: listedPlaylistCandidateSql('x') },
  USER: { table: 'user_summaries', id: 'x.user_id', popularity: 'x.follower_count DESC, x.user_id DESC', listed: listedUserCandidateSql('x') },
};

/** One refresh of one kind may take this long (a million tracks: a few seconds). */
const REFRESH_TIMEOUT_MS = 10 * 60_000;

/**
 * `search_short_prefixes` (migration `…_search_short_prefixes`): the most popular listed matches of
 * every one- and two-letter prefix, per kind.
 */
export class ShortPrefixesRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Per kind, the prefixes computed (a prefix not listed is searched live). The highest id the
   * refresh saw (`max_id`: higher ids are searched live) is read by the search statement itself.
   */
  async computed(): Promise<Map<ShortPrefixKind, KeptShortPrefixes>> {
    const { rows } = await this.pool.query<{ kind: ShortPrefixKind; prefixes: string[] }>(
      pgStatement(sql`SELECT kind, prefixes FROM search_short_prefix_refreshes`, 'catalog_short_prefixes_computed'),
    );
    return new Map(rows.map((r) => [r.kind, { prefixes: new Set(r.prefixes) }]));
  }

  /**
   * Recomputes one kind's candidates when they are older than `maxAgeMs` and no other replica is at
   * it (a transaction-scoped advisory lock): the prefixes are every letter and digit and every one-
   * and two-letter start of a vocabulary word; each prefix's candidates come from its own statement,
   * planned for that prefix (the full-text index for a rare letter, the popularity index for a
   * common one). Readers see the old set or the new one, never a mix. Returns whether it ran.
   */
  async refresh(kind: ShortPrefixKind, limit: number, maxAgeMs: number): Promise<boolean> {
    const k = SHORT_PREFIX_KINDS[kind];
    const [id, table, listed, popularity] = [raw(k.id), raw(k.table), k.listed, raw(k.popularity)];
    // Whole numbers of the code written into the text (a SET takes no parameter; the LIMIT is the statement's).
    const timeout = raw(String(Math.trunc(REFRESH_TIMEOUT_MS)));
    const top = raw(String(Math.trunc(limit)));
    const client = await this.pool.connect();
    try {
      await client.query(pgStatement(sql`BEGIN`));
      await client.query(pgStatement(sql`SET LOCAL statement_timeout = ${timeout}`));
      const lock = await client.query<{ ok: boolean }>(pgStatement(sql`SELECT pg_try_advisory_xact_lock(hashtext('search_short_prefixes:' || ${kind})) AS ok`));
      const fresh = await client.query(
        pgStatement(sql`SELECT 1 FROM search_short_prefix_refreshes WHERE kind = ${kind} AND refreshed_at > now() - make_interval(secs => ${maxAgeMs / 1000})`),
      );
      if (!lock.rows[0]?.ok || fresh.rows.length > 0) {
        await client.query(pgStatement(sql`ROLLBACK`));
        return false;
      }
      const { rows: highest } = await client.query<{ max: number | null }>(pgStatement(sql`SELECT max(${id}) AS max FROM ${table} x`));
      const { rows: prefixes } = await client.query<{ p: string }>(
        pgStatement(sql`SELECT DISTINCT p COLLATE "C" AS p FROM (
           SELECT left(w.word, n) AS p FROM search_words w, generate_series(1, ${raw(String(SHORT_PREFIX_MAX))}) n
           UNION ALL SELECT chr(c) FROM generate_series(ascii('a'), ascii('z')) c
           UNION ALL SELECT chr(c) FROM generate_series(ascii('0'), ascii('9')) c) s ORDER BY 1`),
      );
      await client.query(pgStatement(sql`DELETE FROM search_short_prefixes WHERE kind = ${kind}`));
      for (const { p } of prefixes) {
        // Unnamed on purpose: each prefix gets a plan of its own.
        await client.query(
          pgStatement(sql`INSERT INTO search_short_prefixes (kind, prefix, rank, id)
           SELECT ${kind}, ${p}, row_number() OVER (), c.id FROM (
             SELECT ${id} AS id FROM ${table} x WHERE ${listed} AND x.search_doc @@ to_tsquery('simple', quote_literal(${p}) || ':*')
             ORDER BY ${popularity} LIMIT ${top}) c`),
        );
      }
      await client.query(
        pgStatement(sql`INSERT INTO search_short_prefix_refreshes (kind, refreshed_at, max_id, prefixes) VALUES (${kind}, now(), ${highest[0]?.max ?? 0}, ${prefixes.map((r) => r.p)})
         ON CONFLICT (kind) DO UPDATE SET refreshed_at = EXCLUDED.refreshed_at, max_id = EXCLUDED.max_id, prefixes = EXCLUDED.prefixes`),
      );
      await client.query(pgStatement(sql`COMMIT`));
      return true;
    } catch (err) {
      // The transaction is lost with the error anyway: the original error is the one worth throwing.
      await client.query(pgStatement(sql`ROLLBACK`)).catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
