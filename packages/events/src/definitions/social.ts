import { z } from 'zod';
import { defineEvent } from '../envelope.js';

const Id = z.number().int().positive();
const Count = z.number().int().min(0);

/**
 * Every engagement event carries the counts as they are after the change (computed under the
 * counter row's lock), so consumers SET their copies instead of incrementing: redelivery and
 * replays cannot drift them.
 */
export const UserFollowed = defineEvent(
  'social.user.followed.v1',
  z.object({ followerId: Id, followeeId: Id, followerFollowingCount: Count, followeeFollowerCount: Count, at: z.string() }),
);
export const UserUnfollowed = defineEvent(
  'social.user.unfollowed.v1',
  z.object({ followerId: Id, followeeId: Id, followerFollowingCount: Count, followeeFollowerCount: Count, at: z.string() }),
);

/** Blocking removes follows both ways (R7); the counts of both users after that are included. */
export const UserBlocked = defineEvent(
  'social.user.blocked.v1',
  z.object({
    blockerId: Id,
    blockedId: Id,
    counts: z.array(z.object({ userId: Id, followerCount: Count, followingCount: Count })),
    at: z.string(),
  }),
);
export const UserUnblocked = defineEvent('social.user.unblocked.v1', z.object({ blockerId: Id, blockedId: Id, at: z.string() }));

const targetType = z.enum(['TRACK', 'PLAYLIST']);

export const ItemLiked = defineEvent('social.item.liked.v1', z.object({ userId: Id, targetType, targetId: Id, ownerId: Id, likeCount: Count, at: z.string() }));
export const ItemUnliked = defineEvent(
  'social.item.unliked.v1',
  z.object({ userId: Id, targetType, targetId: Id, ownerId: Id, likeCount: Count, at: z.string() }),
);
export const ItemReposted = defineEvent(
  'social.item.reposted.v1',
  z.object({ userId: Id, targetType, targetId: Id, ownerId: Id, repostCount: Count, at: z.string() }),
);
export const ItemUnreposted = defineEvent(
  'social.item.unreposted.v1',
  z.object({ userId: Id, targetType, targetId: Id, ownerId: Id, repostCount: Count, at: z.string() }),
);

/** A comment or a reply (replyToCommentId set) on a track; commentCount counts both (R9). */
export const CommentAdded = defineEvent(
  'social.comment.added.v1',
  z.object({
    commentId: Id,
    trackId: Id,
    trackOwnerId: Id,
    authorId: Id,
    replyToCommentId: Id.nullable(),
    parentAuthorId: Id.nullable(),
    body: z.string(),
    commentCount: Count,
    at: z.string(),
  }),
);
export const CommentDeleted = defineEvent(
  'social.comment.deleted.v1',
  z.object({ commentId: Id, trackId: Id, deletedReplies: z.number().int().min(0), commentCount: Count, at: z.string() }),
);

/**
 * R14: a ban or unban changes which likes, reposts, comments and follows count (a banned user's
 * do not, R14 "the counts shown to others follow"). Social recounts, under the counters' row
 * locks, every counter the user's rows contribute to and sends the results as values (at most
 * `RECOUNT_CHUNK` entries per list and event); consumers SET their copies.
 * `userId` is the banned or unbanned user (null for the migration's one-off backfill and for
 * USER_DELETED, whose rows are gone).
 */
export const RECOUNT_CHUNK = 500;
export const CountsRecounted = defineEvent(
  'social.counts.recounted.v1',
  z.object({
    userId: Id.nullable(),
    /** USER_DELETION_*: ACC-3 hides like a ban, ACC-4 unhides, and the deletion (ACC-5) removes the user's rows. */
    cause: z.enum(['USER_BANNED', 'USER_UNBANNED', 'BACKFILL', 'USER_DELETION_SCHEDULED', 'USER_DELETION_CANCELLED', 'USER_DELETED']),
    tracks: z.array(z.object({ trackId: Id, likeCount: Count, repostCount: Count, commentCount: Count })).max(RECOUNT_CHUNK),
    playlists: z.array(z.object({ playlistId: Id, likeCount: Count, repostCount: Count })).max(RECOUNT_CHUNK),
    users: z.array(z.object({ userId: Id, followerCount: Count, followingCount: Count })).max(RECOUNT_CHUNK),
    at: z.string(),
  }),
);

/**
 * An admin set a duplicate-detection COPYRIGHT report (no reporter) to DISMISSED (MOD-7): catalog
 * releases the held-back track (docs/fingerprints.md). Sent on each change to DISMISSED.
 */
export const CopyrightHoldDismissed = defineEvent('social.copyright-hold.dismissed.v1', z.object({ reportId: Id, trackId: Id, at: z.string() }));
