/**
 * SQL fragments of discovery (R2, R7, R14): visibility is decided in SQL, before paging, so a
 * page's total always matches its content. Tagged `sql` (docs/decisions.md, "One style of SQL"):
 * `viewer` is the caller's id, bound (0 for an anonymous caller: no user has id 0), or an SQL
 * expression holding it; a string argument is a column or alias named in code.
 */
import { raw, sql, type Sql } from '@msp/db';

/** A value to bind or an SQL expression to splice. */
export type SqlArg = Sql | number;

/** A column or alias named in code (`t`, `t.artist_id`); anything else is refused. */
export function col(reference: string): Sql {
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(reference)) throw new Error(`invalid column reference "${reference}"`);
  return raw(reference);
}

const column = (reference: string | Sql): Sql => (typeof reference === 'string' ? col(reference) : reference);

/** The owner of an item is gone (deleted in identity) or banned (R14). */
export function ownerHiddenSql(ownerId: string | Sql): Sql {
  return sql`EXISTS (SELECT 1 FROM user_summaries ux WHERE ux.user_id = ${column(ownerId)} AND (ux.is_deleted OR ux.is_banned))`;
}

/** R7: a block in either direction between the viewer and `userId` (catalog's copy of social's blocks). */
export function blockedSql(viewer: SqlArg, userId: string | Sql): Sql {
  const user = column(userId);
  return sql`EXISTS (SELECT 1 FROM user_blocks bx WHERE (bx.blocker_id = ${viewer} AND bx.blocked_id = ${user})
                                             OR (bx.blocker_id = ${user} AND bx.blocked_id = ${viewer}))`;
}

/**
 * The artist's held-back tracks (duplicate detection, docs/fingerprints.md) excluded by id: the ids
 * are read once (`tracks_held_back_idx`), so an artist's page stays an index-only scan.
 * `artistId` is a value or an uncorrelated scalar subquery.
 */
export function notHeldBackOfArtistSql(t: string, artistId: SqlArg): Sql {
  return sql`${col(t)}.id <> ALL (ARRAY(SELECT hb.id FROM tracks hb WHERE hb.artist_id = ${artistId} AND hb.held_back))`;
}

/**
 * A track `t` anybody may see in a list (R2): public, FINISHED, not deleted, not held back
 * (docs/fingerprints.md), its artist present and not banned, no block with the viewer. The first
 * three conditions are written as the partial indexes' predicates so the planner can use them.
 */
export function listedTrackSql(t: string, viewer: SqlArg): Sql {
  return sql`${listedTrackCandidateSql(t)} AND NOT ${blockedSql(viewer, `${t}.artist_id`)}`;
}

/** `listedTrackSql` but the viewer's blocks: what anybody no block involves may see. */
export function listedTrackCandidateSql(t: string): Sql {
  const a = col(t);
  return sql`${a}.deleted_at IS NULL AND NOT ${a}.is_private AND ${a}.state = 'FINISHED' AND NOT ${a}.held_back
      AND NOT ${ownerHiddenSql(`${t}.artist_id`)}`;
}

/**
 * Stations (R18) hold only tracks a radio can play: PLAYABLE, with the stream and waveform ready,
 * public, FINISHED, not deleted, the artist present and not banned. The viewer's blocks (R7) are
 * applied to the day's pool afterwards, so one pool serves every viewer. Written as the station
 * indexes' predicates so the planner uses them.
 */
export function stationPoolSql(t: string): Sql {
  return sql`${stationTrackSql(t)} AND NOT ${ownerHiddenSql(`${t}.artist_id`)}`;
}

/**
 * `stationPoolSql` without the artist's check, for a statement that checks one artist's presence
 * once (an artist's own picks) instead of on every track: per track, the check became a hash
 * anti-join that read all of an artist's playable tracks and sorted them to keep ten.
 */
export function stationTrackSql(t: string): Sql {
  const a = col(t);
  return sql`${a}.deleted_at IS NULL AND NOT ${a}.is_private AND ${a}.state = 'FINISHED' AND NOT ${a}.held_back
      AND ${a}.access = 'PLAYABLE' AND ${a}.progressive_key IS NOT NULL AND ${a}.waveform_key IS NOT NULL`;
}

/** A public playlist `p` whose owner is present and not separated from the viewer (R6, R7). */
export function listedPlaylistSql(p: string, viewer: SqlArg): Sql {
  return sql`${listedPlaylistCandidateSql(p)} AND NOT ${blockedSql(viewer, `${p}.owner_id`)}`;
}

/** `listedPlaylistSql` but the viewer's blocks. */
export function listedPlaylistCandidateSql(p: string): Sql {
  return sql`NOT ${col(p)}.is_private AND NOT ${ownerHiddenSql(`${p}.owner_id`)}`;
}

/** A user `u` that may be listed: present, not banned, not a placeholder row, no block with the viewer. */
export function listedUserSql(u: string, viewer: SqlArg): Sql {
  return sql`${listedUserCandidateSql(u)} AND NOT ${blockedSql(viewer, `${u}.user_id`)}`;
}

/** `listedUserSql` but the viewer's blocks. */
export function listedUserCandidateSql(u: string): Sql {
  const a = col(u);
  return sql`NOT ${a}.is_deleted AND NOT ${a}.is_banned AND ${a}.username NOT LIKE '~%'`;
}
