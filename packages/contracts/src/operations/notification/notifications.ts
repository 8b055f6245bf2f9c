import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of notification's notifications operations (services/notification/src/modules/notifications). */
export const NOTIFICATION_NOTIFICATIONS = {} satisfies OperationSchemas;
