import { bansCopy, defineProjection } from '@msp/runtime';
import { banStates } from './ban-states.repository.js';

/**
 * The durable `catalog--analytics-bans` consumer of identity's ban events (MOD-12's banned-user
 * count): it stores the latest ban state per user, the event's occurredAt deciding. A separate
 * table rather than a column of the shared user projection, so the projection (packages/runtime)
 * stays as it is.
 */
export const startBanSync = defineProjection({ service: 'catalog', name: 'analytics-bans', from: 'identity', steps: bansCopy(banStates) });
