import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError, clientErrorHandler, errorHandler, frameworkErrorHandler, notFoundHandler } from '@msp/errors';
import {
  ASSERTION_HEADER,
  CLIENT_IP_HEADER,
  cameOverNetwork,
  deriveAssertionKey,
  DEV_GATEWAY_SIGNING_KEY,
  SIGNED_IDENTITY_HEADERS,
  verifyAssertion,
} from './gateway-assertion.js';
import { registerInputDiscipline, safeQuerystringParser } from './input.js';
import { registerContractRoutes } from './contract-route.js';
import { responseSerializerCompiler, responseValidationWanted } from './response-serializer.js';
import { SERVICE_TOKEN_HEADER, verifyServiceToken } from './internal-auth.js';
import { guardBodyIdle, SERVER_TIMEOUTS } from './timeouts.js';
import { registerHealth, type ReadinessCheck } from './health.js';
import { registerMetrics } from './metrics.js';
import { requestIdFrom } from './request-id.js';
import { currentRequestContext, runWithRequestContext } from './request-context.js';
import { fastifyTracing, logMixin } from '@msp/telemetry';
import { logDestination } from './log-destination.js';
import { registerShutdownAnswers, SHUTDOWN_SERVER_OPTIONS } from './shutdown.js';

export interface HttpAppOptions {
  service: string;
  version?: string;
  logLevel?: string;
  /** Real dependencies checked by /ready (database, NATS, Redis, storage, ...). */
  readiness?: Record<string, ReadinessCheck>;
  bodyLimit?: number;
  /** Pass `false` in tests to silence request logs. */
  logger?: FastifyServerOptions['logger'];
  /**
   * Key that verifies the gateway's X-Gateway-Assertion for this service (GATEWAY_ASSERTION_KEY);
   * defaults to the development key derived for `service`.
   */
  assertionKey?: string;
  /** LOG_BUFFER_BYTES: stdout is written in batches of this size (0: line by line; log-destination.ts). */
  logBufferBytes?: number;
}

/**
 * Pino mixin of the fleet: `traceId`/`spanId` of the active span, and the `requestId` of the work
 * in hand when the logger does not bind it already (an event's handling: its correlation id).
 */
export const contextLogFields = logMixin(() => {
  const requestId = currentRequestContext()?.requestId;
  return requestId ? { requestId } : undefined;
});

export type App = FastifyInstance & { withTypeProvider(): FastifyInstance };

/**
 * The fleet's common HTTP shell: request ids (accepted or generated, echoed on every answer),
 * one error shape for everything thrown, zod validation and serialisation, OpenAPI built from the
 * zod schemas at /openapi.json, /health, /ready and /metrics.
 */
export async function createHttpApp(options: HttpAppOptions) {
  const app = Fastify({
    logger: options.logger ?? {
      level: options.logLevel ?? 'info',
      base: { service: options.service },
      mixin: contextLogFields,
      stream: logDestination(options.logBufferBytes),
    },
    genReqId: requestIdFrom,
    // One label across the fleet's logs (the gateway's too): `requestId`.
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // The client address comes from the gateway's signed assertion (clientAddress), never from a
    // forwarded header anyone inside the network could write.
    trustProxy: false,
    ...SERVER_TIMEOUTS,
    // Requests during close get the fleet's 503 ErrorResponse, not Fastify's bare one (shutdown.ts).
    ...SHUTDOWN_SERVER_OPTIONS,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    routerOptions: { maxParamLength: 500, querystringParser: safeQuerystringParser },
  }).withTypeProvider<ZodTypeProvider>();
  const assertionKey = options.assertionKey ?? deriveAssertionKey(DEV_GATEWAY_SIGNING_KEY, options.service);

  // First, so that every route and hook runs inside the request's span (trace ids in logs, context
  // carried by internal calls and outbox events).
  await app.register(fastifyTracing(options.service));
  app.setValidatorCompiler(validatorCompiler);
  // Answers through compiled serialisers; checked against their zod schemas in tests (response-serializer.ts).
  app.setSerializerCompiler(responseSerializerCompiler({ validate: responseValidationWanted() }));
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // Before every other hook: a request during close is answered at once (shutdown.ts).
  registerShutdownAnswers(app);
  app.decorateRequest('clientAddress', '');
  // The request id follows the request into every internal call (internal-client.ts). Entered again
  // before the handler: body parsing runs on stream callbacks that do not keep the hook's context.
  app.addHook('onRequest', (request, _reply, done) => runWithRequestContext({ requestId: request.id }, done));
  app.addHook('preHandler', (request, _reply, done) => runWithRequestContext({ requestId: request.id }, done));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    guardBodyIdle(request);
    const headers = request.headers;
    const overNetwork = cameOverNetwork(request);
    const assertion = headers[ASSERTION_HEADER];
    const trusted =
      !overNetwork ||
      (typeof assertion === 'string' &&
        verifyAssertion(assertionKey, assertion, {
          method: request.method,
          url: request.url,
          requestId: typeof headers['x-request-id'] === 'string' ? headers['x-request-id'] : '',
          headers,
        }));
    if (!trusted) {
      // Identity without the gateway's signature is anonymous, whoever sent it.
      if (SIGNED_IDENTITY_HEADERS.some((h) => headers[h] !== undefined)) request.log.warn('unsigned identity headers dropped');
      for (const h of SIGNED_IDENTITY_HEADERS) delete headers[h];
      delete headers[CLIENT_IP_HEADER];
    }
    const socketAddress = request.socket?.remoteAddress ?? '';
    const forwarded = headers[CLIENT_IP_HEADER] ?? (overNetwork ? undefined : headers['x-forwarded-for']);
    request.clientAddress = (typeof forwarded === 'string' && forwarded.split(',')[0]?.trim()) || socketAddress;
    if (overNetwork && request.url.startsWith('/internal/')) {
      const token = headers[SERVICE_TOKEN_HEADER];
      if (verifyServiceToken(typeof token === 'string' ? token : undefined) === null) {
        throw new AppError('FORBIDDEN', 'Internal routes need a service credential.');
      }
    }
  });
  registerInputDiscipline(app, { parseJson: true });
  // Before swagger's own onRoute hook, so the document holds what the contract adds.
  registerContractRoutes(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: `${options.service} service`, version: options.version ?? '0.1.0' },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transform: jsonSchemaTransform,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  registerHealth(app, options.service, options.readiness ?? {});
  registerMetrics(app, options.service);
  return app;
}

export type ZodApp = Awaited<ReturnType<typeof createHttpApp>>;
