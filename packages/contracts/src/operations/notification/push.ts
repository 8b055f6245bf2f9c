import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of notification's push operations (services/notification/src/modules/push). */
export const NOTIFICATION_PUSH = {} satisfies OperationSchemas;
