/**
 * SQL fragments shared by the repositories, as tagged `sql` (docs/decisions.md, "One style of
 * SQL"). An expression argument is either a value, bound as a parameter (a viewer id, an `admin`
 * boolean), or an `Sql` fragment (a column: `col('u.user_id')`); an alias is an identifier named in
 * code. Every query stays one statement.
 */
import type { Sql } from '@msp/db';
import { col, raw, sql } from '@msp/db';

/** A value to bind or an SQL expression to splice. */
export type SqlArg = Sql | number | boolean;

/** Columns and aliases are named with @msp/db's `col`; re-exported for this service's repositories. */
export { col };

/** Columns of a UserSummarySource (see @msp/contracts) from a `user_summaries` alias, prefixed. */
export function userColumns(alias: string, prefix = ''): Sql {
  if (!/^[A-Za-z]*$/.test(prefix)) throw new Error(`invalid column prefix "${prefix}"`);
  const a = col(alias);
  const p = (name: string) => raw(`"${prefix}${prefix ? name[0]!.toUpperCase() + name.slice(1) : name}"`);
  return sql`${a}.user_id AS ${p('userId')}, ${a}.username AS ${p('username')}, ${a}.display_name AS ${p('displayName')},
    ${a}.avatar_url AS ${p('avatarUrl')}, ${a}.tier AS ${p('tier')}, ${a}.follower_count AS ${p('followerCount')},
    ${a}.track_count AS ${p('trackCount')}`;
}

/** True when `viewer` follows `user`. */
export function followsSql(viewer: SqlArg, user: SqlArg): Sql {
  return sql`EXISTS (SELECT 1 FROM follows fx WHERE fx.follower_id = ${viewer} AND fx.followee_id = ${user})`;
}

/** R7: a block in either direction separates the two users. */
export function blockedBetweenSql(viewer: SqlArg, user: SqlArg): Sql {
  return sql`EXISTS (SELECT 1 FROM blocks bx WHERE (bx.blocker_id = ${viewer} AND bx.blocked_id = ${user})
                                        OR (bx.blocker_id = ${user} AND bx.blocked_id = ${viewer}))`;
}

/**
 * R14: `user` is not banned, or the reader is an admin (`admin`: a boolean value or expression).
 * Social's copy of identity's bans is `banned_users` (user-bans.consumer.ts). Every list and check
 * that shows a user or their content applies it, so a ban hides them before paging and the unban
 * brings them back.
 */
export function notBannedSql(user: SqlArg, admin: SqlArg): Sql {
  return sql`(${admin}::boolean OR NOT EXISTS (SELECT 1 FROM banned_users bnx WHERE bnx.user_id = ${user}))`;
}

/**
 * R8 in others' lists: a private user's own likes, reposts and follows name them only to
 * callers who may read that user's activity, i.e. the user themself and admins (the same check
 * as `assertActivityVisible` for their own lists). `u` is a `user_summaries` alias of the listed
 * user (already joined by primary key, so no extra lookup), `viewer` the viewer's id (0 when
 * anonymous), `admin` a boolean. Lists apply it in SQL before paging, in the page and its total;
 * the stored counts (likeCount, repostCount, followerCount) still include them.
 */
export function activityListedSql(u: string, viewer: SqlArg, admin: SqlArg): Sql {
  const a = col(u);
  return sql`(NOT ${a}.is_private OR ${a}.user_id = ${viewer} OR ${admin}::boolean)`;
}

/** R14: `user` is banned (social's copy `banned_users`). */
export function bannedSql(user: SqlArg): Sql {
  return sql`EXISTS (SELECT 1 FROM banned_users bny WHERE bny.user_id = ${user})`;
}

/**
 * R14 + R9: a comment row `c` counts in its track's commentCount when others can see it: its
 * author is not banned and, for a reply, neither is the parent's author (a banned user's comment
 * hides its replies with it). The increments of CommentsRepository and the recount of
 * BanCountsRepository both use this one definition, so they agree.
 */
export function countedCommentSql(c: string): Sql {
  const a = col(c);
  return sql`(NOT ${bannedSql(sql`${a}.user_id`)}
      AND (${a}.reply_to_comment_id IS NULL
           OR NOT EXISTS (SELECT 1 FROM comments cpx JOIN banned_users bnp ON bnp.user_id = cpx.user_id
                           WHERE cpx.id = ${a}.reply_to_comment_id)))`;
}

/**
 * R2 + R7: a track row `t` is visible to the viewer (`viewer` id, `admin` boolean) when it is not
 * deleted, its artist still exists and is not banned (R14, admins excepted), no block separates
 * them, and it is the viewer's own, the viewer is an admin, or it is public, FINISHED and not held
 * back (duplicate detection, docs/fingerprints.md). `banExempt` (default: `admin`) is true where the
 * artist's ban does not hide the track (undoing one's own like or repost of it).
 */
export function trackVisibleSql(t: string, viewer: SqlArg, admin: SqlArg, banExempt: SqlArg = admin): Sql {
  const a = col(t);
  return sql`(NOT ${a}.is_deleted
      AND EXISTS (SELECT 1 FROM user_summaries ax WHERE ax.user_id = ${a}.artist_id AND NOT ax.is_deleted)
      AND ${notBannedSql(sql`${a}.artist_id`, banExempt)}
      AND NOT ${blockedBetweenSql(viewer, sql`${a}.artist_id`)}
      AND (${a}.artist_id = ${viewer} OR ${admin}::boolean OR (NOT ${a}.is_private AND NOT ${a}.held_back AND ${a}.state = 'FINISHED')))`;
}

/**
 * R6 + R7 for a playlist row `p`: the owner, an admin, or anyone when public; never across a
 * block; a banned owner's playlists only for admins (R14) or where `banExempt` says so.
 */
export function playlistVisibleSql(p: string, viewer: SqlArg, admin: SqlArg, banExempt: SqlArg = admin): Sql {
  const a = col(p);
  return sql`(NOT ${a}.is_deleted
      AND EXISTS (SELECT 1 FROM user_summaries ox WHERE ox.user_id = ${a}.owner_id AND NOT ox.is_deleted)
      AND ${notBannedSql(sql`${a}.owner_id`, banExempt)}
      AND NOT ${blockedBetweenSql(viewer, sql`${a}.owner_id`)}
      AND (${a}.owner_id = ${viewer} OR ${admin}::boolean OR NOT ${a}.is_private))`;
}
