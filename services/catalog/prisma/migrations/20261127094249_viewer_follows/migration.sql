-- Catalog's copy of social's follows (consumer `catalog--follows-copy`): with `track_engagements`
-- it answers a viewer's isFollowing, isLiked and isReposted on the tracks catalog renders, by
-- primary key (index only), without a call to social.
CREATE TABLE "user_follows" (
    "follower_id" INTEGER NOT NULL,
    "followee_id" INTEGER NOT NULL,

    CONSTRAINT "user_follows_pkey" PRIMARY KEY ("follower_id","followee_id")
);
