import type { Operations } from '../../operation-schema.js';
import { PlatformMetricsSchema } from '../../records/moderation.js';

/** The operations of catalog's analytics module (services/catalog/src/modules/analytics): contract row, input and output. */
export const CATALOG_ANALYTICS = {
  'MOD-12': {
    method: 'GET',
    path: '/admin/analytics',
    auth: 'admin',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Platform-wide metrics (admin only)',
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],

    response: { 200: PlatformMetricsSchema },
  },
} satisfies Operations;
