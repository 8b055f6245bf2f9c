import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of notification's preferences operations (services/notification/src/modules/preferences). */
export const NOTIFICATION_PREFERENCES = {} satisfies OperationSchemas;
