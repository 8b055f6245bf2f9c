import { CommentAdded, CommentDeleted, CountsRecounted, ItemLiked, ItemReposted, ItemUnliked, ItemUnreposted, type SqlExecutor } from '@msp/events';
import { blocksCopy, defineProjection, onEvent } from '@msp/runtime';
import { bumpStat } from '../discovery/trending-stats.repository.js';
import { socialCopies, type EngagementKind } from './social-copies.repository.js';

/**
 * Catalog's copies of the engagement counts social owns (R9). Social's events carry the count
 * after each change, so the copy is SET, never incremented: redeliveries and replays cannot
 * drift it, and the stream's order (one message at a time) leaves the latest value in place.
 */
async function setCount(tx: SqlExecutor, column: 'like_count' | 'repost_count', d: { targetType: string; targetId: number }, count: number) {
  if (d.targetType === 'TRACK') await socialCopies.setTrackCount(tx, column, d.targetId, count);
  else if (d.targetType === 'PLAYLIST') await socialCopies.setPlaylistCount(tx, column, d.targetId, count);
}

type EngagementEvent = { userId: number; targetType: string; targetId: number; at: string };

/**
 * The local copy of a track like ('L') or repost ('R') and its trending count (DSC-2, DSC-7), or
 * of a playlist like or repost (`playlist_engagements`: the viewer's flags on playlist pages).
 * Each event is applied once (the consumer remembers event ids); the copy's primary key keeps a
 * replayed like from counting twice, and an undo subtracts from the day of the original action.
 */
async function engage(tx: SqlExecutor, kind: EngagementKind, d: EngagementEvent, on: boolean) {
  if (d.targetType === 'PLAYLIST') {
    // A playlist's copy: the viewer's isLiked / isReposted on the playlists catalog renders.
    if (on) await socialCopies.addPlaylistEngagement(tx, kind, d.userId, d.targetId, new Date(d.at));
    else await socialCopies.removePlaylistEngagement(tx, kind, d.userId, d.targetId);
    return;
  }
  if (d.targetType !== 'TRACK') return;
  const column = kind === 'L' ? 'likes' : 'reposts';
  if (on) {
    const at = new Date(d.at);
    if (await socialCopies.addEngagement(tx, kind, d.userId, d.targetId, at)) await bumpStat(tx, d.targetId, at, column, 1);
    return;
  }
  for (const at of await socialCopies.removeEngagement(tx, kind, d.userId, d.targetId)) await bumpStat(tx, d.targetId, at, column, -1);
}

/** A like, repost or their undo: the count on the track or playlist, then the local copy. */
async function engagement(tx: SqlExecutor, kind: EngagementKind, d: EngagementEvent, count: number, on: boolean) {
  await setCount(tx, kind === 'L' ? 'like_count' : 'repost_count', d, count);
  await engage(tx, kind, d, on);
}

/** The durable `catalog--social-sync` consumer of social's engagement, recount and block events. */
export const startSocialSync = defineProjection({
  service: 'catalog',
  name: 'social-sync',
  from: 'social',
  steps: [
    onEvent(ItemLiked, (d, tx) => engagement(tx, 'L', d, d.likeCount, true)),
    onEvent(ItemUnliked, (d, tx) => engagement(tx, 'L', d, d.likeCount, false)),
    onEvent(ItemReposted, (d, tx) => engagement(tx, 'R', d, d.repostCount, true)),
    onEvent(ItemUnreposted, (d, tx) => engagement(tx, 'R', d, d.repostCount, false)),
    onEvent(CommentAdded, async (d, tx) => {
      await socialCopies.setTrackCount(tx, 'comment_count', d.trackId, d.commentCount);
      const at = new Date(d.at);
      if (await socialCopies.addComment(tx, d.commentId, d.trackId, d.replyToCommentId, at)) await bumpStat(tx, d.trackId, at, 'comments', 1);
    }),
    onEvent(CommentDeleted, async (d, tx) => {
      await socialCopies.setTrackCount(tx, 'comment_count', d.trackId, d.commentCount);
      // The comment and its replies (deleted with it) leave the days they were counted on.
      for (const at of await socialCopies.removeComment(tx, d.commentId)) await bumpStat(tx, d.trackId, at, 'comments', -1);
    }),
    // R14: social recounted on a ban or unban (a banned user's likes, reposts and comments do not
    // count); the copies take the values. Trending day counters are left as they are.
    onEvent(CountsRecounted, (d, tx) => socialCopies.applyRecount(tx, d.tracks, d.playlists)),
    ...blocksCopy(socialCopies),
  ],
});
