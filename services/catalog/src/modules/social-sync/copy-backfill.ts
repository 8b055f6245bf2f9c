import { pgStatement, raw, sql, type Sql } from '@msp/db';
import type pg from 'pg';

export interface CopyBackfillResult {
  /** Pairs read from social's table. */
  read: number;
  /** Pairs the copy did not hold yet. */
  inserted: number;
  /** Pairs the copy held that social no longer holds (the reconcile pass). */
  removed: number;
}

/**
 * A copy catalog keeps of one of social's tables of pairs (a follow, a like of a playlist): the
 * source table and its two key columns, the copy's table and columns, and, where the copy holds
 * several kinds in one table, the kind this source is (a constant of the copy's first key column).
 * Names are fixed identifiers of this file's callers, never input.
 */
interface PairCopy {
  source: { table: string; a: string; b: string; at?: string };
  target: { table: string; a: string; b: string; at?: string; kind?: { column: string; value: string } };
}

type Pair = { a: number; b: number; at?: Date };

/**
 * A one-off copy of one of social's pair tables into catalog's copy, for rows older than what
 * social's event stream still holds (7 days): a deployment that adds the copy, or a copy lost with a
 * restore. Run while the consumer that keeps the copy runs, so nothing new is missed:
 *
 * 1. copy: social's rows in primary-key order, `batch` pairs a statement (keyset, never an offset),
 *    inserted with ON CONFLICT DO NOTHING (what the consumer already wrote stays);
 * 2. reconcile: catalog's copy in the same order, each batch checked against social's table, pairs
 *    social no longer holds deleted (an undo the consumer applied before step 1 wrote the pair).
 *
 * Memory is one batch. Idempotent: a second run reads the same pairs and writes nothing.
 */
async function backfillPairs(social: pg.Pool, catalog: pg.Pool, copy: PairCopy, batch: number): Promise<CopyBackfillResult> {
  const { source, target } = copy;
  const [sa, sb, ta, tb] = [raw(source.a), raw(source.b), raw(target.a), raw(target.b)];
  const kind: Sql | null = target.kind ? sql`${raw(target.kind.column)} = ${target.kind.value}` : null;
  const result: CopyBackfillResult = { read: 0, inserted: 0, removed: 0 };
  for (let after: Pair = { a: 0, b: 0 }; ;) {
    const at = source.at ? sql`, ${raw(source.at)} AS at` : sql``;
    const { rows } = await social.query<Pair>(
      pgStatement(sql`SELECT ${sa} AS a, ${sb} AS b${at} FROM ${raw(source.table)}
        WHERE (${sa}, ${sb}) > (${after.a}, ${after.b}) ORDER BY ${sa}, ${sb} LIMIT ${batch}`),
    );
    if (rows.length === 0) break;
    result.read += rows.length;
    const as = rows.map((r) => r.a);
    const bs = rows.map((r) => r.b);
    const columns = [target.kind?.column, target.a, target.b, target.at].filter((c): c is string => !!c).join(', ');
    const values = sql`SELECT ${target.kind ? sql`${target.kind.value}::text, ` : sql``}p.a, p.b${target.at ? sql`, p.at` : sql``}
      FROM unnest(${as}::int[], ${bs}::int[], ${rows.map((r) => r.at ?? new Date(0))}::timestamptz[]) AS p(a, b, at)`;
    const inserted = await catalog.query(pgStatement(sql`INSERT INTO ${raw(target.table)} (${raw(columns)}) ${values} ON CONFLICT DO NOTHING`));
    result.inserted += inserted.rowCount ?? 0;
    after = rows[rows.length - 1]!;
  }
  for (let after: Pair = { a: 0, b: 0 }; ;) {
    const { rows } = await catalog.query<Pair>(
      pgStatement(sql`SELECT ${ta} AS a, ${tb} AS b FROM ${raw(target.table)}
        WHERE ${kind ?? sql`true`} AND (${ta}, ${tb}) > (${after.a}, ${after.b}) ORDER BY ${ta}, ${tb} LIMIT ${batch}`),
    );
    if (rows.length === 0) break;
    const as = rows.map((r) => r.a);
    const bs = rows.map((r) => r.b);
    const held = await social.query<Pair>(
      pgStatement(sql`SELECT s.${sa} AS a, s.${sb} AS b FROM unnest(${as}::int[], ${bs}::int[]) AS p(a, b)
         JOIN ${raw(source.table)} s ON s.${sa} = p.a AND s.${sb} = p.b`),
    );
    const kept = new Set(held.rows.map((r) => `${r.a}:${r.b}`));
    const gone = rows.filter((r) => !kept.has(`${r.a}:${r.b}`));
    if (gone.length > 0) {
      const removed = await catalog.query(
        pgStatement(sql`DELETE FROM ${raw(target.table)} t USING unnest(${gone.map((r) => r.a)}::int[], ${gone.map((r) => r.b)}::int[]) AS p(a, b)
          WHERE ${kind ?? sql`true`} AND t.${ta} = p.a AND t.${tb} = p.b`),
      );
      result.removed += removed.rowCount ?? 0;
    }
    after = rows[rows.length - 1]!;
  }
  return result;
}

/** Social's follows into `user_follows` (what the viewer's isFollowing is read from). */
export function backfillFollows(social: pg.Pool, catalog: pg.Pool, batch = 10_000): Promise<CopyBackfillResult> {
  return backfillPairs(
    social,
    catalog,
    { source: { table: 'follows', a: 'follower_id', b: 'followee_id' }, target: { table: 'user_follows', a: 'follower_id', b: 'followee_id' } },
    batch,
  );
}

/** Social's likes and reposts of playlists into `playlist_engagements` (a viewer's isLiked / isReposted of playlists). */
export async function backfillPlaylistEngagements(
  social: pg.Pool,
  catalog: pg.Pool,
  batch = 10_000,
): Promise<{ likes: CopyBackfillResult; reposts: CopyBackfillResult }> {
  const target = (value: 'L' | 'R') => ({ table: 'playlist_engagements', a: 'user_id', b: 'playlist_id', at: 'created_at', kind: { column: 'kind', value } });
  const likes = await backfillPairs(
    social,
    catalog,
    { source: { table: 'playlist_likes', a: 'user_id', b: 'playlist_id', at: 'created_at' }, target: target('L') },
    batch,
  );
  const reposts = await backfillPairs(
    social,
    catalog,
    { source: { table: 'playlist_reposts', a: 'user_id', b: 'playlist_id', at: 'created_at' }, target: target('R') },
    batch,
  );
  return { likes, reposts };
}
