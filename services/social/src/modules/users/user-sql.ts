/**
 * SQL fragments shared by the repositories. Each takes the SQL expressions to use, so every
 * query stays one statement with its own parameter numbers.
 */

/** Columns of a UserSummarySource (see @msp/contracts) from a `user_summaries` alias, prefixed. */
export function userColumns(alias: string, prefix = ''): string {
  const p = (name: string) => `"${prefix}${prefix ? name[0]!.toUpperCase() + name.slice(1) : name}"`;
  return [
    `${alias}.user_id AS ${p('userId')}`,
    `${alias}.username AS ${p('username')}`,
    `${alias}.display_name AS ${p('displayName')}`,
    `${alias}.avatar_url AS ${p('avatarUrl')}`,
    `${alias}.tier AS ${p('tier')}`,
    `${alias}.follower_count AS ${p('followerCount')}`,
    `${alias}.track_count AS ${p('trackCount')}`,
  ].join(', ');
}

/** True when `viewer` follows `user`. */
export function followsSql(viewer: string, user: string): string {
  return `EXISTS (SELECT 1 FROM follows fx WHERE fx.follower_id = ${viewer} AND fx.followee_id = ${user})`;
}

/** R7: a block in either direction separates the two users. */
export function blockedBetweenSql(viewer: string, user: string): string {
  return `EXISTS (SELECT 1 FROM blocks bx WHERE (bx.blocker_id = ${viewer} AND bx.blocked_id = ${user})
                                        OR (bx.blocker_id = ${user} AND bx.blocked_id = ${viewer}))`;
}

/**
 * R14: `user` is not banned, or the reader is an admin (`admin`: a boolean SQL expression).
 * Social's copy of identity's bans is `banned_users` (user-bans.consumer.ts). Every list and check
 * that shows a user or their content applies it, so a ban hides them before paging and the unban
 * brings them back.
 */
export function notBannedSql(user: string, admin: string): string {
  return `(${admin} OR NOT EXISTS (SELECT 1 FROM banned_users bnx WHERE bnx.user_id = ${user}))`;
}

/**
 * R8 in others' lists: a private user's own likes, reposts and follows name them only to
 * callers who may read that user's activity, i.e. the user themself and admins (the same check
 * as `assertActivityVisible` for their own lists). `u` is a `user_summaries` alias of the listed
 * user (already joined by primary key, so no extra lookup), `viewer` the viewer's id (0 when
 * anonymous), `admin` a boolean SQL expression. Lists apply it in SQL before paging, in the page
 * and its total; the stored counts (likeCount, repostCount, followerCount) still include them.
 */
export function activityListedSql(u: string, viewer: string, admin: string): string {
  return `(NOT ${u}.is_private OR ${u}.user_id = ${viewer} OR ${admin})`;
}

/** R14: `user` is banned (social's copy `banned_users`). */
export function bannedSql(user: string): string {
  return `EXISTS (SELECT 1 FROM banned_users bny WHERE bny.user_id = ${user})`;
}

/**
 * R14 + R9: a comment row `c` counts in its track's commentCount when others can see it: its
 * author is not banned and, for a reply, neither is the parent's author (a banned user's comment
 * hides its replies with it). The increments of CommentsRepository and the recount of
 * BanCountsRepository both use this one definition, so they agree.
 */
export function countedCommentSql(c: string): string {
  return `(NOT ${bannedSql(`${c}.user_id`)}
      AND (${c}.reply_to_comment_id IS NULL
           OR NOT EXISTS (SELECT 1 FROM comments cpx JOIN banned_users bnp ON bnp.user_id = cpx.user_id
                           WHERE cpx.id = ${c}.reply_to_comment_id)))`;
}

/**
 * R2 + R7: a track row `t` is visible to the viewer (`viewer` id, `admin` boolean expression)
 * when it is not deleted, its artist still exists and is not banned (R14, admins excepted), no
 * block separates them, and it is the viewer's own, the viewer is an admin, or it is public,
 * FINISHED and not held back (duplicate detection, docs/fingerprints.md). `banExempt` (default: `admin`) is true where the artist's ban does not hide the track
 * (undoing one's own like or repost of it).
 */
export function trackVisibleSql(t: string, viewer: string, admin: string, banExempt: string = admin): string {
  return `(NOT ${t}.is_deleted
      AND EXISTS (SELECT 1 FROM user_summaries ax WHERE ax.user_id = ${t}.artist_id AND NOT ax.is_deleted)
      AND ${notBannedSql(`${t}.artist_id`, banExempt)}
      AND NOT ${blockedBetweenSql(viewer, `${t}.artist_id`)}
      AND (${t}.artist_id = ${viewer} OR ${admin} OR (NOT ${t}.is_private AND NOT ${t}.held_back AND ${t}.state = 'FINISHED')))`;
}

/**
 * R6 + R7 for a playlist row `p`: the owner, an admin, or anyone when public; never across a
 * block; a banned owner's playlists only for admins (R14) or where `banExempt` says so.
 */
export function playlistVisibleSql(p: string, viewer: string, admin: string, banExempt: string = admin): string {
  return `(NOT ${p}.is_deleted
      AND EXISTS (SELECT 1 FROM user_summaries ox WHERE ox.user_id = ${p}.owner_id AND NOT ox.is_deleted)
      AND ${notBannedSql(`${p}.owner_id`, banExempt)}
      AND NOT ${blockedBetweenSql(viewer, `${p}.owner_id`)}
      AND (${p}.owner_id = ${viewer} OR ${admin} OR NOT ${p}.is_private))`;
}
