-- R14: a banned user's likes, reposts, comments and follows no longer count (BanCountsRepository
-- recounts on every ban and unban from now on).
-- CreateIndex
CREATE INDEX "comments_user_id_idx" ON "comments"("user_id");

-- One-off backfill for users banned before this migration: recount the counters their rows
-- contribute to (the same definitions as src/modules/users/ban-counts.repository.ts and
-- countedCommentSql) and send the values as social.counts.recounted.v1 (cause BACKFILL, chunks of
-- 500) through the outbox, so catalog's and identity's copies follow. Nothing to do without bans.
CREATE TEMP TABLE ban_backfill_tracks AS
SELECT r.track_id,
       (SELECT count(*)::int FROM track_likes l WHERE l.track_id = r.track_id
           AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = l.user_id)) AS likes,
       (SELECT count(*)::int FROM track_reposts p WHERE p.track_id = r.track_id
           AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = p.user_id)) AS reposts,
       (SELECT count(*)::int FROM comments c WHERE c.track_id = r.track_id
           AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = c.user_id)
           AND (c.reply_to_comment_id IS NULL
                OR NOT EXISTS (SELECT 1 FROM comments cp JOIN banned_users bp ON bp.user_id = cp.user_id
                                WHERE cp.id = c.reply_to_comment_id))) AS comments
  FROM track_refs r
 WHERE r.track_id IN (SELECT track_id FROM track_likes WHERE user_id IN (SELECT user_id FROM banned_users)
                      UNION SELECT track_id FROM track_reposts WHERE user_id IN (SELECT user_id FROM banned_users)
                      UNION SELECT track_id FROM comments WHERE user_id IN (SELECT user_id FROM banned_users));

UPDATE track_refs r SET like_count = n.likes, repost_count = n.reposts, comment_count = n.comments
  FROM ban_backfill_tracks n
 WHERE r.track_id = n.track_id
   AND (r.like_count, r.repost_count, r.comment_count) IS DISTINCT FROM (n.likes, n.reposts, n.comments);

UPDATE comments p SET reply_count = n.replies
  FROM (SELECT p2.id, (SELECT count(*)::int FROM comments c WHERE c.reply_to_comment_id = p2.id
                          AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = c.user_id)) AS replies
          FROM comments p2
         WHERE p2.id IN (SELECT reply_to_comment_id FROM comments
                          WHERE user_id IN (SELECT user_id FROM banned_users) AND reply_to_comment_id IS NOT NULL)) n
 WHERE p.id = n.id AND p.reply_count <> n.replies;

CREATE TEMP TABLE ban_backfill_playlists AS
SELECT r.playlist_id,
       (SELECT count(*)::int FROM playlist_likes l WHERE l.playlist_id = r.playlist_id
           AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = l.user_id)) AS likes,
       (SELECT count(*)::int FROM playlist_reposts p WHERE p.playlist_id = r.playlist_id
           AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = p.user_id)) AS reposts
  FROM playlist_refs r
 WHERE r.playlist_id IN (SELECT playlist_id FROM playlist_likes WHERE user_id IN (SELECT user_id FROM banned_users)
                         UNION SELECT playlist_id FROM playlist_reposts WHERE user_id IN (SELECT user_id FROM banned_users));

UPDATE playlist_refs r SET like_count = n.likes, repost_count = n.reposts
  FROM ban_backfill_playlists n
 WHERE r.playlist_id = n.playlist_id AND (r.like_count, r.repost_count) IS DISTINCT FROM (n.likes, n.reposts);

CREATE TEMP TABLE ban_backfill_users AS
SELECT u.user_id,
       (SELECT count(*)::int FROM follows f WHERE f.followee_id = u.user_id
           AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = f.follower_id)) AS followers,
       (SELECT count(*)::int FROM follows f WHERE f.follower_id = u.user_id
           AND NOT EXISTS (SELECT 1 FROM banned_users b WHERE b.user_id = f.followee_id)) AS following
  FROM user_summaries u
 WHERE u.user_id IN (SELECT followee_id FROM follows WHERE follower_id IN (SELECT user_id FROM banned_users)
                     UNION SELECT follower_id FROM follows WHERE followee_id IN (SELECT user_id FROM banned_users)
                     UNION SELECT user_id FROM banned_users);

UPDATE user_summaries u SET follower_count = n.followers, following_count = n.following
  FROM ban_backfill_users n
 WHERE u.user_id = n.user_id AND (u.follower_count, u.following_count) IS DISTINCT FROM (n.followers, n.following);

WITH t AS (
  SELECT (row_number() OVER (ORDER BY track_id) - 1) / 500 AS chunk,
         jsonb_build_object('trackId', track_id, 'likeCount', likes, 'repostCount', reposts, 'commentCount', comments) AS item
    FROM ban_backfill_tracks),
p AS (
  SELECT (row_number() OVER (ORDER BY playlist_id) - 1) / 500 AS chunk,
         jsonb_build_object('playlistId', playlist_id, 'likeCount', likes, 'repostCount', reposts) AS item
    FROM ban_backfill_playlists),
u AS (
  SELECT (row_number() OVER (ORDER BY user_id) - 1) / 500 AS chunk,
         jsonb_build_object('userId', user_id, 'followerCount', followers, 'followingCount', following) AS item
    FROM ban_backfill_users),
chunks AS (SELECT chunk FROM t UNION SELECT chunk FROM p UNION SELECT chunk FROM u),
events AS (
  SELECT gen_random_uuid() AS id,
         to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
         c.chunk,
         COALESCE((SELECT jsonb_agg(item) FROM t WHERE t.chunk = c.chunk), '[]'::jsonb) AS tracks,
         COALESCE((SELECT jsonb_agg(item) FROM p WHERE p.chunk = c.chunk), '[]'::jsonb) AS playlists,
         COALESCE((SELECT jsonb_agg(item) FROM u WHERE u.chunk = c.chunk), '[]'::jsonb) AS users
    FROM chunks c)
INSERT INTO outbox_event (id, type, payload, created_at)
SELECT id, 'social.counts.recounted.v1',
       jsonb_build_object('id', id, 'type', 'social.counts.recounted.v1', 'occurredAt', at, 'producer', 'social',
                          'correlationId', NULL,
                          'data', jsonb_build_object('userId', NULL, 'cause', 'BACKFILL', 'tracks', tracks,
                                                     'playlists', playlists, 'users', users, 'at', at)),
       now()
  FROM events ORDER BY chunk;

DROP TABLE ban_backfill_tracks, ban_backfill_playlists, ban_backfill_users;
