import { bansCopy, blocksCopy, defineProjection, followsCopy } from '@msp/runtime';
import { relationsRepository } from './relations.repository.js';

/**
 * Messaging's copies of social's blocks (R7: MSG-2 and MSG-4 consult them locally, so a block
 * check never depends on social answering) and follows (isFollowing in User summaries). Events
 * arrive in stream order (concurrency 1), so block, unblock and block again end as social left them.
 */
export const startRelationsConsumer = defineProjection({
  service: 'messaging',
  name: 'relations',
  from: 'social',
  steps: [...followsCopy(relationsRepository), ...blocksCopy(relationsRepository)],
});

/** R14: a banned user's conversations and messages disappear for others until the ban is lifted. */
export const startBansConsumer = defineProjection({ service: 'messaging', name: 'bans', from: 'identity', steps: bansCopy(relationsRepository) });
