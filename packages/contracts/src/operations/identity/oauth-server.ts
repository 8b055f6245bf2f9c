import type { OperationSchemas } from '../../operation-schema.js';

/** Input and output of identity's oauth-server operations (services/identity/src/modules/oauth-server). */
export const IDENTITY_OAUTH_SERVER = {} satisfies OperationSchemas;
