import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of notification's realtime operations (services/notification/src/modules/realtime). */
export const NOTIFICATION_REALTIME = {} satisfies OperationSchemas;
