import type pg from 'pg';
import { pgStatement, sql } from '@msp/db';

type Kind = 'TRACK' | 'USER' | 'PLAYLIST';
const TABLES: Record<Kind, string> = { TRACK: 'tracks', USER: 'user_summaries', PLAYLIST: 'playlists' };

/**
 * Below this many estimated matches a query is "rare": its matches come from the GIN index at
 * once, without first walking the popularity index (`popularMatchesSql`).
 */
export const RARE_MATCHES = 5_000;

/** Folds a word roughly as `msp_fold` does (lower case, accents off), to look it up in the statistics. */
const fold = (w: string) => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * The most common words of each kind's search documents and their frequencies, as ANALYZE keeps
 * them (`pg_stats.most_common_elems` of `search_doc`, statistics target 1000): a word not among them
 * is rarer than the rarest of them. A query's frequency is estimated as the product over its
 * clauses (AND) of the sum over each clause's alternatives (OR; a prefix sums the common words it
 * starts). This decides whether a search walks the popularity index first (a common query) or asks
 * the GIN index at once (a rare one); either way `popularMatchesSql` checks the answer, so a wrong
 * estimate costs time, never results. Without statistics (a new table) every query is rare.
 */
export class SearchWordStats {
  private constructor(private readonly kinds: Map<Kind, { rows: number; freq: Map<string, number>; words: string[] }>) {}

  static async read(pool: pg.Pool): Promise<SearchWordStats> {
    const { rows } = await pool.query<{ table: string; elems: string[] | null; freqs: number[] | null; rows: number }>(
      pgStatement(
        sql`SELECT c.relname AS table, s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs, greatest(c.reltuples, 0)::float8 AS rows
               FROM pg_class c LEFT JOIN pg_stats s ON s.tablename = c.relname AND s.attname = 'search_doc' AND s.schemaname = current_schema()
              WHERE c.relname = ANY(${Object.values(TABLES)}::text[]) AND c.relnamespace = current_schema()::regnamespace`,
        'catalog_search_word_stats',
      ),
    );
    const kinds = new Map<Kind, { rows: number; freq: Map<string, number>; words: string[] }>();
    for (const [kind, table] of Object.entries(TABLES) as Array<[Kind, string]>) {
      const row = rows.find((r) => r.table === table);
      const freq = new Map<string, number>();
      (row?.elems ?? []).forEach((e, i) => freq.set(e, Number(row?.freqs?.[i] ?? 0)));
      kinds.set(kind, { rows: Number(row?.rows ?? 0), freq, words: [...freq.keys()].sort() });
    }
    return new SearchWordStats(kinds);
  }

  /** Whether the tsquery text of `candidatesQuery` (clauses joined by `&`, alternatives by `|`) is estimated to match fewer than RARE_MATCHES items. */
  isRare(kind: Kind, tsquery: string): boolean {
    const k = this.kinds.get(kind);
    if (!k || k.freq.size === 0) return true;
    let frac = 1;
    for (const clause of tsquery.split(' & ')) {
      let sum = 0;
      for (const alt of clause.replace(/^\(|\)$/g, '').split(' | ')) {
        const m = /^'(.*)'(:\*)?$/.exec(alt.trim());
        if (!m) continue;
        const word = fold(m[1]!);
        if (m[2]) {
          // A prefix: the common words it starts (a sorted list, one range).
          let i = lowerBound(k.words, word);
          for (; i < k.words.length && k.words[i]!.startsWith(word); i++) sum += k.freq.get(k.words[i]!) ?? 0;
        } else sum += k.freq.get(word) ?? 0;
      }
      frac *= Math.min(1, sum);
    }
    return frac * k.rows < RARE_MATCHES;
  }
}

function lowerBound(xs: readonly string[], x: string): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
