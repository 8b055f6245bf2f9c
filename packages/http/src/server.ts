import type { FastifyInstance } from 'fastify';
import { flushTelemetry } from '@msp/telemetry';
import { closeGracefully, MAX_SHUTDOWN_GRACE_MS, shutdownGraceMs } from './shutdown.js';

/** The whole shutdown, grace delay included, within this (the process then exits with 1). */
export const SHUTDOWN_TIMEOUT_MS = 15_000;

/**
 * Listens and closes gracefully: on SIGTERM/SIGINT /ready fails at once, the listener closes after
 * the grace delay (`shutdownGraceMs`, default `SHUTDOWN_GRACE_MS`), in-flight requests finish, every
 * later request gets a 503 ErrorResponse, the onClose hooks run (drain NATS, stop relays, disconnect
 * the database) and the process exits (shutdown.ts).
 */
export async function runServer(
  app: FastifyInstance,
  options: { host: string; port: number; shutdownTimeoutMs?: number; shutdownGraceMs?: number },
): Promise<void> {
  const graceMs = options.shutdownGraceMs ?? shutdownGraceMs();
  const timeoutMs = options.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS;
  if (graceMs > Math.min(MAX_SHUTDOWN_GRACE_MS, timeoutMs - 1000)) {
    throw new Error(`The shutdown grace delay (${graceMs} ms) must leave at least 1 s of the shutdown timeout (${timeoutMs} ms).`);
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, graceMs }, 'shutting down: not ready from now, the listener closes after the grace delay');
    const timer = setTimeout(() => {
      app.log.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    try {
      await closeGracefully(app, graceMs);
      await flushTelemetry(); // spans still buffered for the collector
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ host: options.host, port: options.port });
}
