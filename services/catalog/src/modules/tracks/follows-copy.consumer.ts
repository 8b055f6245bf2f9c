import { defineProjection, followsCopy } from '@msp/runtime';
import { followsCopy as userFollows } from './follows-copy.repository.js';

/**
 * Durable consumer `catalog--follows-copy`: catalog's copy of social's follows (`user_follows`),
 * from which the track presenter answers the artists' isFollowing without a call to social. One
 * message at a time in the stream's order, so a follow, an unfollow and a follow again end as
 * social ended; a block removes both directions, as social does (R7). A new deployment replays
 * what social's stream still holds (7 days).
 */
export const startFollowsCopy = defineProjection({ service: 'catalog', name: 'follows-copy', from: 'social', steps: followsCopy(userFollows) });
