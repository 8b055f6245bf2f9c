import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import sockjs from 'sockjs';
import type { RawData, WebSocket } from 'ws';
import { AppError, buildErrorResponse } from '@msp/errors';
import { requestIdFrom } from '@msp/http';
import type { StompTransport } from './stomp-session.js';

/** Where WS-1 lives (docs/api.md "Websocket": /ws raw, /ws/** SockJS, behind the gateway's /api). */
export const WS_PATH = '/api/ws';

export interface TransportHandlers {
  /** Starts a STOMP session on a new socket; returns its input and close callbacks. */
  open(transport: StompTransport): { receive(chunk: Buffer | string): void; closed(): void };
  /** Largest message a socket may carry before the transport itself cuts it. */
  maxMessageBytes: number;
}

function toBuffer(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

/** WS-1 raw WebSocket at /api/ws (@fastify/websocket on `ws`). */
export async function registerRawWebsocket(app: FastifyInstance, handlers: TransportHandlers): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(fastifyWebsocket, {
      options: { maxPayload: handlers.maxMessageBytes, perMessageDeflate: false },
    });
    scope.route({
      method: 'GET',
      url: WS_PATH,
      schema: { hide: true },
      handler: async () => {
        throw AppError.validation(
          [{ field: 'upgrade', message: 'Connect with a WebSocket upgrade (STOMP 1.2), or use SockJS under /api/ws/.' }],
          'This endpoint only accepts WebSocket connections.',
        );
      },
      wsHandler: (socket: WebSocket) => {
        const transport: StompTransport = {
          kind: 'websocket',
          send: (text) => {
            if (socket.readyState === socket.OPEN) socket.send(text);
          },
          close: (code, reason) => socket.close(code, reason),
          bufferedAmount: () => socket.bufferedAmount,
        };
        const session = handlers.open(transport);
        socket.on('message', (data: RawData) => session.receive(toBuffer(data)));
        socket.on('close', () => session.closed());
      },
    });
  });
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

/** True for SockJS paths (/api/ws/info, /api/ws/<server>/<session>/<transport>, ...), never for the raw /api/ws. */
export function isSockJsPath(url: string | undefined): boolean {
  return pathOf(url).startsWith(`${WS_PATH}/`);
}

/**
 * WS-1 SockJS under /api/ws/ (the `sockjs` server). SockJS answers its own HTTP transports and its
 * websocket upgrade, so it is put in front of Fastify on the node server for those paths only; the
 * raw endpoint /api/ws and everything else stay with Fastify.
 */
export function mountSockJs(server: Server, handlers: TransportHandlers, log: (line: string) => void): void {
  const sockjsServer = sockjs.createServer({
    prefix: WS_PATH,
    log: (_severity, line) => log(line),
    // The STOMP heart-beats keep sessions alive; these are SockJS's own defaults, stated for clarity.
    heartbeat_delay: 25_000,
    disconnect_delay: 5_000,
    // faye-websocket's default message limit is 64 MiB.
    faye_server_options: { maxLength: handlers.maxMessageBytes },
  } as sockjs.ServerOptions);
  sockjsServer.on('connection', (conn: sockjs.Connection | null) => {
    if (!conn) return;
    const transport: StompTransport = {
      kind: 'sockjs',
      send: (text) => {
        conn.write(text);
      },
      // SockJS close frames carry any code; sockjs types it as a string but sends it as given.
      close: (code, reason) => conn.close(code as unknown as string, reason),
      bufferedAmount: () => 0,
    };
    const session = handlers.open(transport);
    conn.on('data', (message: string) => session.receive(message));
    conn.on('close', () => session.closed());
  });

  // installHandlers would claim /api/ws itself too; capture its handler and dispatch by path instead.
  const capture = new EventEmitter();
  sockjsServer.installHandlers(capture as unknown as Server);
  const [sockjsHandler] = capture.listeners('request') as Array<(...args: unknown[]) => boolean>;
  if (!sockjsHandler) throw new Error('sockjs did not install a handler');

  const limitBody = (req: IncomingMessage, res: ServerResponse): boolean => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > handlers.maxMessageBytes) {
      const body = buildErrorResponse({
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
        message: `A SockJS message may not exceed ${handlers.maxMessageBytes} bytes.`,
        path: req.url ?? WS_PATH,
        requestId: requestIdFrom(req),
      });
      res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', connection: 'close' }).end(JSON.stringify(body));
      return false;
    }
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > handlers.maxMessageBytes) req.destroy();
    });
    return true;
  };

  for (const event of ['request', 'upgrade'] as const) {
    const previous = server.listeners(event) as Array<(...args: unknown[]) => void>;
    server.removeAllListeners(event);
    server.on(event, (req: IncomingMessage, resOrSocket: ServerResponse | Duplex, head?: Buffer) => {
      if (isSockJsPath(req.url)) {
        if (event === 'request' && !limitBody(req, resOrSocket as ServerResponse)) return;
        sockjsHandler(req, resOrSocket, head);
        return;
      }
      for (const listener of previous) listener.call(server, req, resOrSocket, head);
    });
  }
}
