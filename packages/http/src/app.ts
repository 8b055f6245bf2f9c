import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { errorHandler, notFoundHandler } from '@msp/errors';
import { registerHealth, type ReadinessCheck } from './health.js';
import { registerMetrics } from './metrics.js';
import { requestIdFrom } from './request-id.js';

export interface HttpAppOptions {
  service: string;
  version?: string;
  logLevel?: string;
  /** Real dependencies checked by /ready (database, NATS, Redis, storage, ...). */
  readiness?: Record<string, ReadinessCheck>;
  bodyLimit?: number;
  /** Pass `false` in tests to silence request logs. */
  logger?: FastifyServerOptions['logger'];
}

export type App = FastifyInstance & { withTypeProvider(): FastifyInstance };

/**
 * The fleet's common HTTP shell: request ids (accepted or generated, echoed on every answer),
 * one error shape for everything thrown, zod validation and serialisation, OpenAPI built from the
 * zod schemas at /openapi.json, /health, /ready and /metrics.
 */
export async function createHttpApp(options: HttpAppOptions) {
  const app = Fastify({
    logger: options.logger ?? { level: options.logLevel ?? 'info', base: { service: options.service } },
    genReqId: requestIdFrom,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    trustProxy: true,
    routerOptions: { maxParamLength: 500 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

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
