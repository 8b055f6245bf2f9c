import type { FastifyRequest } from 'fastify';

/**
 * The client address every identity limit and session record uses: the one place identity reads
 * it. Today Fastify's `request.ip`; when '@msp/http' exports `clientAddress` (the gateway's
 * signed forwarded address, else the socket address; issue 13) this becomes a re-export of it.
 */
export function clientAddress(request: FastifyRequest): string {
  return request.ip;
}
