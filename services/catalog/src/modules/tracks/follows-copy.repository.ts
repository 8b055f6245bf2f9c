import { followsCopyTable } from '@msp/runtime';

/** Writes of catalog's copy of social's follows (`user_follows`), inside the consumer's transaction. */
export const followsCopy = followsCopyTable('user_follows');
