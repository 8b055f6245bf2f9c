import { bansCopy, defineProjection } from '@msp/runtime';
import { userBans } from './user-bans.repository.js';

/**
 * The durable `catalog--user-bans` consumer of identity's ban events. R14 for discovery: catalog
 * marks banned users in its user projection so search, trending and stations leave their content
 * out in SQL (before paging).
 */
export const startUserBans = defineProjection({ service: 'catalog', name: 'user-bans', from: 'identity', steps: bansCopy(userBans) });
