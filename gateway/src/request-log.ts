import type { FastifyInstance } from 'fastify';

/**
 * One log line per request, when it is answered (Fastify's default is two: "incoming request" and
 * "request completed", each a serialised object). The services log their own line for the same
 * request id, so the gateway's says only what it alone knows: the route it resolved, the verified
 * caller and its own answer time.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 100) / 100,
        operation: request.gatewayRoute?.id,
        userId: request.caller?.userId,
        ip: request.ip,
      },
      'request completed',
    );
    done();
  });
}
