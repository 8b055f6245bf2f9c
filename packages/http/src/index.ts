export { contractOf, fastifyPath, internalRoute, operation, registerContractRoutes, type OperationRoute, type SchemaOf } from './contract-route.js';
export { createHttpApp, contextLogFields, type HttpAppOptions, type ZodApp } from './app.js';
export { logDestination, setLogDestination } from './log-destination.js';
export { runServer, SHUTDOWN_TIMEOUT_MS } from './server.js';
export {
  beginDrain,
  closeGracefully,
  isDraining,
  registerShutdownAnswers,
  shutdownGraceMs,
  DEFAULT_SHUTDOWN_GRACE_MS,
  MAX_SHUTDOWN_GRACE_MS,
  SHUTDOWN_RETRY_AFTER_SECONDS,
  SHUTDOWN_SERVER_OPTIONS,
} from './shutdown.js';
export { registerHealth, runChecks, type ReadinessCheck } from './health.js';
export { callerFrom, requireCaller, requireAdmin, IDENTITY_HEADERS, type Caller } from './identity.js';
export { requestIdFrom } from './request-id.js';
export type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
export { observeHttpRequest, registerMetrics } from './metrics.js';
export {
  AccessTokenRejectedError,
  createJwksKeyStore,
  JwksUnavailableError,
  verifyAccessToken,
  type JwksKeyStore,
  type JwksKeyStoreOptions,
  type VerifyAccessTokenOptions,
} from './jwks.js';
export {
  configureInternalAuth,
  internalCallHeaders,
  serviceToken,
  verifyServiceToken,
  SERVICE_TOKEN_HEADER,
  DEV_INTERNAL_SERVICE_KEY,
} from './internal-auth.js';
export {
  ASSERTION_HEADER,
  CLIENT_IP_HEADER,
  SIGNED_IDENTITY_HEADERS,
  DEV_GATEWAY_SIGNING_KEY,
  cameOverNetwork,
  clientAddress,
  deriveAssertionKey,
  signAssertion,
  verifyAssertion,
} from './gateway-assertion.js';
export {
  MAX_JSON_DEPTH,
  checkPath,
  checkUrl,
  isUnsafeText,
  jsonDepthExceeds,
  multipartWithoutBoundary,
  parseJsonBody,
  registerInputDiscipline,
  safeQuerystringParser,
  unsafeStrings,
} from './input.js';
export { BODY_IDLE_TIMEOUT_MS, guardBodyIdle, SERVER_TIMEOUTS } from './timeouts.js';
export { currentRequestContext, runWithRequestContext, type RequestContext } from './request-context.js';
export {
  InternalCallError,
  InternalClient,
  closeInternalClients,
  type CallOptions,
  type InternalAnswer,
  type InternalCallOutcome,
  type InternalClientOptions,
  type SendInput,
  type SendOptions,
} from './internal-client.js';
export { compileResponseSchema, responseSerializerCompiler, responseValidationWanted } from './response-serializer.js';
export {
  ClosingDelimiterScanner,
  multipartBoundary,
  multipartParts,
  TRUNCATED_MULTIPART_MESSAGE,
  type MultipartBody,
  type MultipartPartLike,
} from './multipart-body.js';
