import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { ReadinessCheck } from '@msp/http';
import type { NatsConnection } from '@msp/events';
import type { Infrastructure, Stoppable } from '@msp/runtime';
import type { NotificationConfig } from '../../config.js';
import { createAccessTokenVerifier } from './access-token.verifier.js';
import { startSessionControlFeed, startTrackStatusFeed } from './realtime.consumers.js';
import { RealtimeFanout } from './realtime.fanout.js';
import { RealtimeService } from './realtime.service.js';
import { mountSockJs, registerRawWebsocket, type TransportHandlers } from './realtime.transports.js';
import { SessionRegistry } from './session.registry.js';
import { StompSession, type StompSessionOptions } from './stomp-session.js';
import { TrackStatusStore } from './track-status.store.js';

export interface RealtimeSetup {
  app: FastifyInstance;
  config: NotificationConfig;
  nc: NatsConnection;
  js: Infrastructure<unknown>['js'];
  redis: Redis;
  stopOnClose<S extends Stoppable>(s: S): S;
  addReadiness(name: string, check: ReadinessCheck): void;
}

/**
 * WS-1…WS-4: the STOMP endpoint (raw WebSocket and SockJS), its consumers and the fan-out between
 * replicas. Returns the fan-out, the push API for the notification and messaging features.
 */
export async function setupRealtime(setup: RealtimeSetup): Promise<{ fanout: RealtimeFanout; registry: SessionRegistry }> {
  const { app, config } = setup;
  const logger = app.log.child({ module: 'realtime' });
  const verifier = createAccessTokenVerifier({
    jwksUrl: config.JWKS_URL,
    issuer: config.JWT_ISSUER,
    onRefreshError: (err) => logger.warn({ err }, 'JWKS refresh failed; the cached keys keep verifying'),
  });
  const store = new TrackStatusStore(setup.redis);
  const service = new RealtimeService(verifier, setup.redis, store, logger);
  const registry = new SessionRegistry(config.WS_MAX_SESSIONS_PER_USER);
  const options: StompSessionOptions = {
    heartbeat: { sx: config.WS_HEARTBEAT_MS, sy: config.WS_HEARTBEAT_MS },
    maxFrameBytes: config.WS_MAX_FRAME_BYTES,
    maxHeaders: 64,
    maxSubscriptions: config.WS_MAX_SUBSCRIPTIONS,
    connectTimeoutMs: config.WS_CONNECT_TIMEOUT_MS,
    maxBufferedBytes: 4 * 1024 * 1024,
    serverName: 'msp-notification/1.0',
  };

  let closing = false;
  const handlers: TransportHandlers = {
    // Room for a few frames per message; one larger than a frame is refused by the STOMP parser.
    maxMessageBytes: config.WS_MAX_FRAME_BYTES * 4,
    open(transport) {
      const session = new StompSession(transport, {
        options,
        logger,
        authenticate: (token) => service.authenticate(token),
        attach: (s) => registry.attach(s),
        detach: (s) => registry.detach(s),
        replayTrackStatus: (principal, uploadId) => service.replayTrackStatus(principal, uploadId),
      });
      registry.track(session);
      if (closing) session.fail({ code: 'SERVICE_UNAVAILABLE', message: 'The server is shutting down; reconnect.' });
      return { receive: (chunk) => session.receive(chunk), closed: () => session.transportClosed() };
    },
  };

  // Before Fastify stops the HTTP server: every socket gets an ERROR frame and a close, so clients
  // reconnect elsewhere at once and server.close() is not held open by live sockets.
  app.addHook('preClose', async () => {
    closing = true;
    registry.closeAll({ code: 'SERVICE_UNAVAILABLE', message: 'The server is shutting down; reconnect.' });
  });
  await registerRawWebsocket(app, handlers);
  mountSockJs(app.server, handlers, (line) => logger.debug(line));

  const fanout = setup.stopOnClose(new RealtimeFanout(setup.nc, registry, logger));
  fanout.start();
  const feedDeps = { js: setup.js, logger, registry };
  const trackStatus = setup.stopOnClose(await startTrackStatusFeed({ ...feedDeps, store }));
  const sessionControl = setup.stopOnClose(await startSessionControlFeed(feedDeps));

  const sweep = setInterval(() => {
    service.sweep(registry).catch((err: unknown) => logger.warn({ err }, 'session revocation sweep failed'));
  }, config.WS_REVOCATION_SWEEP_MS);
  sweep.unref();
  setup.stopOnClose({ stop: async () => clearInterval(sweep) });

  setup.addReadiness('realtime', async () => {
    if (closing) throw new Error('shutting down');
    if (!fanout.isListening) throw new Error('fan-out subscription closed');
    if (!trackStatus.isRunning || !sessionControl.isRunning) throw new Error('event feeds stopped');
  });
  return { fanout, registry };
}
