import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of notification's webhooks operations (services/notification/src/modules/webhooks). */
export const NOTIFICATION_WEBHOOKS = {} satisfies OperationSchemas;
