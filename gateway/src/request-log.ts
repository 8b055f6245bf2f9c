import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The status a request is logged with when its client went away before the answer was complete (nginx's "client closed request"). */
export const CLIENT_CLOSED_STATUS = 499;

/**
 * One log line per request, when it is answered (Fastify's default is two: "incoming request" and
 * "request completed", each a serialised object). The services log their own line for the same
 * request id, so the gateway's says only what it alone knows: the route it resolved, the verified
 * caller and its own answer time. A request whose connection closed before its answer was complete
 * (the client gave up, or a streamed answer broke off) gets its line too ("request aborted", status
 * 499 or the status already sent): Fastify runs no onResponse hook for it, and such a request was
 * in no log at all.
 */
export function registerRequestLog(app: FastifyInstance): void {
  const line = (request: FastifyRequest, reply: FastifyReply, statusCode: number, message: string) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode,
        responseTime: Math.round(reply.elapsedTime * 100) / 100,
        operation: request.gatewayRoute?.id,
        userId: request.caller?.userId,
        ip: request.ip,
      },
      message,
    );
  };
  const abortLogged = new WeakSet<object>();
  app.addHook('onRequest', (request, reply, done) => {
    const res = reply.raw;
    res.once('close', () => {
      if (res.writableFinished) return;
      abortLogged.add(res);
      line(request, reply, res.headersSent ? reply.statusCode : CLIENT_CLOSED_STATUS, 'request aborted');
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (!abortLogged.has(reply.raw)) line(request, reply, reply.statusCode, 'request completed');
    done();
  });
}
