import type { PrismaPg } from '@prisma/adapter-pg';
import type { ServiceName } from '@msp/contracts';
import { configureInternalAuth, createHttpApp, currentRequestContext, DEV_INTERNAL_SERVICE_KEY, runWithRequestContext, type ReadinessCheck } from '@msp/http';
import { configureEventContext } from '@msp/events';
import { startInfrastructure, type Infrastructure, type InfrastructureConfig } from './infrastructure.js';

export interface Stoppable {
  stop(): Promise<void>;
}

export interface ServiceAppOptions<P> {
  service: ServiceName;
  config: InfrastructureConfig & { LOG_LEVEL: string; LOG_BUFFER_BYTES?: number; GATEWAY_ASSERTION_KEY?: string; INTERNAL_SERVICE_KEY?: string };
  /** The service's `prisma/migrations` folder. */
  migrationsDir: string;
  createPrisma: (adapter: PrismaPg) => P;
  /** `false` silences logs (tests). */
  logger?: boolean;
}

/**
 * The common shell of every service: the HTTP app (request ids, errors, OpenAPI, /health,
 * /ready, /metrics), its infrastructure wired into /ready, and an ordered shutdown: on SIGTERM
 * (`runServer`) /ready fails at once, the listener closes after the grace delay and the requests in
 * flight finish (a request arriving meanwhile gets a 503 ErrorResponse; packages/http shutdown.ts),
 * then the onClose hook below stops the consumers and workers registered with `stopOnClose`
 * before the connections they use close.
 */
export async function createServiceApp<P extends { $disconnect(): Promise<void> }>(options: ServiceAppOptions<P>) {
  const readiness: Record<string, ReadinessCheck> = {};
  configureInternalAuth({ key: options.config.INTERNAL_SERVICE_KEY ?? DEV_INTERNAL_SERVICE_KEY, service: options.service });
  // Events written inside a request carry its id as correlation id; an event's handling runs with
  // that id as its request id (logs, internal calls and the events it writes in turn).
  configureEventContext({
    correlationId: () => currentRequestContext()?.requestId,
    run: (envelope, fn) => runWithRequestContext({ requestId: envelope.correlationId ?? envelope.id }, fn),
  });
  const app = await createHttpApp({
    service: options.service,
    assertionKey: options.config.GATEWAY_ASSERTION_KEY,
    readiness,
    logLevel: options.config.LOG_LEVEL,
    logBufferBytes: options.config.LOG_BUFFER_BYTES,
    logger: options.logger === false ? false : undefined,
  });
  let infra: Infrastructure<P>;
  try {
    infra = await startInfrastructure({
      service: options.service,
      config: options.config,
      logger: app.log,
      migrationsDir: options.migrationsDir,
      createPrisma: options.createPrisma,
    });
  } catch (err) {
    await app.close();
    throw err;
  }
  Object.assign(readiness, infra.readiness);
  const stoppables: Stoppable[] = [];
  app.addHook('onClose', async () => {
    for (const s of stoppables.reverse()) await s.stop().catch((err) => app.log.warn({ err }, 'stop failed'));
    await infra.close();
  });
  return {
    app,
    infra,
    /** Adds a readiness check beyond the infrastructure's (e.g. a binary the service runs). */
    addReadiness(name: string, check: ReadinessCheck) {
      readiness[name] = check;
    },
    stopOnClose<S extends Stoppable>(s: S): S {
      stoppables.push(s);
      return s;
    },
  };
}
