export { createHttpApp, type HttpAppOptions, type ZodApp } from './app.js';
export { runServer } from './server.js';
export { registerHealth, runChecks, type ReadinessCheck } from './health.js';
export { callerFrom, requireCaller, requireAdmin, IDENTITY_HEADERS, type Caller } from './identity.js';
export { requestIdFrom } from './request-id.js';
export type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
export { registerMetrics } from './metrics.js';
export { createJwksKeyStore, JwksUnavailableError, UnknownKeyError, type JwksKeyStore, type JwksKeyStoreOptions } from './jwks.js';
export { configureInternalAuth, internalCallHeaders, serviceToken, verifyServiceToken, SERVICE_TOKEN_HEADER, DEV_INTERNAL_SERVICE_KEY } from './internal-auth.js';
