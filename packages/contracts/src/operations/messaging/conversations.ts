import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of messaging's conversations operations (services/messaging/src/modules/conversations). */
export const MESSAGING_CONVERSATIONS = {} satisfies OperationSchemas;
