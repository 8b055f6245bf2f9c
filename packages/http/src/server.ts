import type { FastifyInstance } from 'fastify';
import { flushTelemetry } from '@msp/telemetry';

/**
 * Listens and closes gracefully: on SIGTERM/SIGINT the app stops accepting, finishes in-flight
 * requests, runs its onClose hooks (drain NATS, stop relays, disconnect the database) and exits.
 */
export async function runServer(app: FastifyInstance, options: { host: string; port: number; shutdownTimeoutMs?: number }): Promise<void> {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, options.shutdownTimeoutMs ?? 15_000);
    timer.unref();
    try {
      await app.close();
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
