import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from './access-token.verifier.js';
import type { Refusal } from './account-standing.js';
import { parseDestination, type Destination } from './destinations.js';
import { encodeFrame, negotiateHeartbeat, StompParser, StompProtocolError, type OutgoingFrame, type StompFrame } from './stomp-frame.js';

/** A socket carrying STOMP text: a raw WebSocket or a SockJS connection. */
export interface StompTransport {
  readonly kind: 'websocket' | 'sockjs';
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Bytes queued towards a client that does not read (0 when unknown). */
  bufferedAmount(): number;
}

export interface StompSessionOptions {
  /** What the server offers in CONNECTED `heart-beat: sx,sy`. */
  heartbeat: { sx: number; sy: number };
  maxFrameBytes: number;
  maxHeaders: number;
  maxSubscriptions: number;
  /** A socket that has not sent a valid CONNECT by then is closed. */
  connectTimeoutMs: number;
  /** A client that leaves this many bytes unread is cut off. */
  maxBufferedBytes: number;
  serverName: string;
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; refusal: Refusal };

export interface StompSessionDeps {
  options: StompSessionOptions;
  logger: FastifyBaseLogger;
  authenticate(token: string | undefined): Promise<AuthResult>;
  /** Registers the authenticated session; a refusal closes it instead. */
  attach(session: StompSession): Refusal | null;
  detach(session: StompSession): void;
  /** The track-status message to send on SUBSCRIBE (last status or placeholder), or null for nothing. */
  replayTrackStatus(principal: Principal, uploadId: string): Promise<{ body: string; rank: number } | null>;
}

interface Subscription {
  id: string;
  /** As the client wrote it; MESSAGE frames repeat it. */
  destination: string;
  target: Destination;
  /** False while the replay of a track-status topic is being read; live messages wait meanwhile. */
  ready: boolean;
  waiting: Array<{ body: string; rank: number | undefined }>;
  /** Rank of the last status sent (track-status only): an older or equal one is never sent again. */
  lastRank: number;
}

/** Close codes (RFC 6455) used after an ERROR frame or on shutdown. */
export const CLOSE = { normal: 1000, goingAway: 1001, protocol: 1002, policy: 1008, tooBig: 1009, internal: 1011 } as const;

const MAX_QUEUED_FRAMES = 64;
const MAX_WAITING_MESSAGES = 100;
const ACCEPTED_NOOPS = new Set(['ACK', 'NACK', 'BEGIN', 'COMMIT', 'ABORT']);

/**
 * One STOMP 1.2 connection: CONNECT with a bearer token, SUBSCRIBE/UNSUBSCRIBE, RECEIPT,
 * heart-beats both ways, and ERROR followed by close for anything the server refuses. Frames are
 * handled one after the other (CONNECT verification is asynchronous), so a SUBSCRIBE sent right
 * behind CONNECT is handled after the session is authenticated.
 */
export class StompSession {
  readonly id = randomUUID();
  principal: Principal | null = null;
  private state: 'new' | 'connecting' | 'connected' | 'closed' = 'new';
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly parser: StompParser;
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private messageSeq = 0;
  private lastReceivedAt = Date.now();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly transport: StompTransport,
    private readonly deps: StompSessionDeps,
  ) {
    const { options } = deps;
    this.parser = new StompParser(
      { maxFrameBytes: options.maxFrameBytes, maxHeaders: options.maxHeaders },
      { onFrame: (frame) => this.enqueue(frame), onHeartbeat: () => undefined },
    );
    this.addTimer(
      setTimeout(() => {
        if (this.state === 'new' || this.state === 'connecting') {
          this.fail({ code: 'UNAUTHORIZED', message: 'No CONNECT frame was received in time.' }, CLOSE.policy);
        }
      }, options.connectTimeoutMs),
    );
  }

  /** Bytes from the client (a WebSocket message or a SockJS string). */
  receive(chunk: Buffer | string): void {
    if (this.state === 'closed') return;
    this.lastReceivedAt = Date.now();
    try {
      this.parser.push(chunk);
    } catch (err) {
      if (err instanceof StompProtocolError) {
        this.fail({ code: err.code, message: err.message }, err.code === 'PAYLOAD_TOO_LARGE' ? CLOSE.tooBig : CLOSE.protocol);
      } else {
        this.deps.logger.error({ err }, 'stomp frame handling failed');
        this.fail({ code: 'VALIDATION_FAILED', message: 'The frame could not be read.' }, CLOSE.protocol);
      }
    }
  }

  /** The socket closed underneath (client went away, network). */
  transportClosed(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.release();
  }

  /**
   * Sends the body to every subscription of this session whose destination key matches. `rank`
   * orders the statuses of one upload (see statusRank): the replay and the live feed may overlap
   * or cross, and a subscriber must never see a status twice or go backwards.
   */
  deliver(key: string, body: string, rank?: number): void {
    if (this.state !== 'connected') return;
    for (const sub of this.subscriptions.values()) {
      if (sub.target.key !== key) continue;
      if (!sub.ready) {
        if (sub.waiting.length < MAX_WAITING_MESSAGES) sub.waiting.push({ body, rank });
        continue;
      }
      this.sendRanked(sub, body, rank);
    }
  }

  private sendRanked(sub: Subscription, body: string, rank: number | undefined): void {
    if (rank !== undefined) {
      if (rank <= sub.lastRank) return;
      sub.lastRank = rank;
    }
    this.sendMessage(sub, body);
  }

  /** ERROR frame (`message: <CODE>: text`), then close (WS-1, docs/api.md "Websocket"). */
  fail(refusal: Refusal, closeCode: number = CLOSE.policy, receiptId?: string): void {
    if (this.state === 'closed') return;
    this.write({
      command: 'ERROR',
      headers: { message: `${refusal.code}: ${refusal.message}`, 'content-type': 'text/plain', 'receipt-id': receiptId },
      body: refusal.message,
    });
    this.close(closeCode, refusal.code);
  }

  close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.release();
    try {
      this.transport.close(code, reason);
    } catch (err) {
      this.deps.logger.debug({ err }, 'closing a stomp transport failed');
    }
  }

  private release(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.subscriptions.clear();
    this.deps.detach(this);
  }

  private addTimer(timer: NodeJS.Timeout): void {
    timer.unref();
    this.timers.push(timer);
  }

  private write(frame: OutgoingFrame | string): void {
    if (this.transport.bufferedAmount() > this.deps.options.maxBufferedBytes) {
      this.close(CLOSE.policy, 'client does not read');
      return;
    }
    // Before CONNECTED no version is agreed, so nothing is escaped (see encodeFrame).
    const text = typeof frame === 'string' ? frame : encodeFrame(frame, this.state === 'connected' ? {} : { escapeHeaders: false });
    this.transport.send(text);
  }

  private enqueue(frame: StompFrame): void {
    if (this.queued >= MAX_QUEUED_FRAMES) {
      throw new StompProtocolError('PAYLOAD_TOO_LARGE', 'Too many frames are waiting to be handled.');
    }
    this.queued += 1;
    this.chain = this.chain
      .then(() => this.handle(frame))
      .catch((err: unknown) => {
        this.deps.logger.error({ err, command: frame.command }, 'stomp frame handling failed');
        this.fail({ code: 'SERVICE_UNAVAILABLE', message: 'The frame could not be handled; reconnect later.' }, CLOSE.internal);
      })
      .finally(() => {
        this.queued -= 1;
      });
  }

  private async handle(frame: StompFrame): Promise<void> {
    if (this.state === 'closed') return;
    const receipt = frame.headers.receipt;
    if (frame.command === 'CONNECT' || frame.command === 'STOMP') {
      await this.connect(frame);
      return;
    }
    if (this.state !== 'connected') {
      this.fail({ code: 'UNAUTHORIZED', message: 'The first frame must be CONNECT.' }, CLOSE.policy, receipt);
      return;
    }
    switch (frame.command) {
      case 'SUBSCRIBE':
        await this.subscribe(frame);
        return;
      case 'UNSUBSCRIBE': {
        const id = frame.headers.id;
        if (!id) {
          this.fail({ code: 'VALIDATION_FAILED', message: 'UNSUBSCRIBE needs an id header.' }, CLOSE.protocol, receipt);
          return;
        }
        this.subscriptions.delete(id);
        this.sendReceipt(receipt);
        return;
      }
      case 'DISCONNECT':
        this.sendReceipt(receipt);
        this.close(CLOSE.normal, 'disconnect');
        return;
      case 'SEND':
        this.fail({ code: 'FORBIDDEN', message: 'Clients cannot SEND on this server.' }, CLOSE.policy, receipt);
        return;
      default:
        if (ACCEPTED_NOOPS.has(frame.command)) {
          // Messages are delivered with ack mode auto and SEND is not served: nothing to acknowledge or transact.
          this.sendReceipt(receipt);
          return;
        }
        this.fail({ code: 'VALIDATION_FAILED', message: `Unknown command ${frame.command}.` }, CLOSE.protocol, receipt);
    }
  }

  private async connect(frame: StompFrame): Promise<void> {
    if (this.state !== 'new') {
      this.fail({ code: 'VALIDATION_FAILED', message: 'The session is already connected.' }, CLOSE.protocol);
      return;
    }
    const versions = (frame.headers['accept-version'] ?? '1.0').split(',').map((v) => v.trim());
    if (!versions.includes('1.2')) {
      this.write({
        command: 'ERROR',
        headers: { version: '1.2', message: 'VALIDATION_FAILED: Supported protocol version is 1.2.', 'content-type': 'text/plain' },
        body: 'Supported protocol version is 1.2.',
      });
      this.close(CLOSE.protocol, 'VALIDATION_FAILED');
      return;
    }
    const heartbeat = negotiateHeartbeat(frame.headers['heart-beat'], this.deps.options.heartbeat);
    this.state = 'connecting';
    const result = await this.deps.authenticate(tokenFrom(frame.headers));
    if (this.state !== 'connecting') return;
    if (!result.ok) {
      this.fail(result.refusal, result.refusal.code === 'SERVICE_UNAVAILABLE' ? CLOSE.internal : CLOSE.policy);
      return;
    }
    this.principal = result.principal;
    const refused = this.deps.attach(this);
    if (refused) {
      this.fail(refused, CLOSE.policy);
      return;
    }
    this.state = 'connected';
    const { sx, sy } = this.deps.options.heartbeat;
    this.write({
      command: 'CONNECTED',
      headers: { version: '1.2', 'heart-beat': `${sx},${sy}`, server: this.deps.options.serverName, session: this.id, 'user-name': result.principal.username },
    });
    this.startHeartbeats(heartbeat.outgoingMs, heartbeat.incomingMs);
  }

  private startHeartbeats(outgoingMs: number, incomingMs: number): void {
    if (outgoingMs > 0) {
      const beat = (): void => {
        if (this.state !== 'connected') return;
        this.write('\n');
        this.addTimer(setTimeout(beat, outgoingMs));
      };
      this.addTimer(setTimeout(beat, outgoingMs));
    }
    if (incomingMs > 0) {
      // Twice the agreed period, as clients do, so one late beat on a busy network does not cut the session.
      const allowance = incomingMs * 2;
      const check = (): void => {
        if (this.state !== 'connected') return;
        if (Date.now() - this.lastReceivedAt > allowance) {
          this.close(CLOSE.goingAway, 'heart-beat timeout');
          return;
        }
        this.addTimer(setTimeout(check, incomingMs));
      };
      this.addTimer(setTimeout(check, incomingMs));
    }
  }

  private async subscribe(frame: StompFrame): Promise<void> {
    const { id, destination, receipt } = frame.headers;
    if (!id || !destination) {
      this.fail({ code: 'VALIDATION_FAILED', message: 'SUBSCRIBE needs id and destination headers.' }, CLOSE.protocol, receipt);
      return;
    }
    if (this.subscriptions.has(id)) {
      this.fail({ code: 'VALIDATION_FAILED', message: `Subscription id ${id} is already in use.` }, CLOSE.protocol, receipt);
      return;
    }
    if (this.subscriptions.size >= this.deps.options.maxSubscriptions) {
      this.fail({ code: 'VALIDATION_FAILED', message: `At most ${this.deps.options.maxSubscriptions} subscriptions per session.` }, CLOSE.policy, receipt);
      return;
    }
    const target = parseDestination(destination);
    if (!target) {
      this.fail({ code: 'FORBIDDEN', message: `No such destination: ${destination.slice(0, 200)}` }, CLOSE.policy, receipt);
      return;
    }
    const sub: Subscription = { id, destination, target, ready: target.kind !== 'track-status', waiting: [], lastRank: -Infinity };
    this.subscriptions.set(id, sub);
    if (target.kind === 'track-status' && this.principal) {
      let replay: { body: string; rank: number } | null = null;
      try {
        replay = await this.deps.replayTrackStatus(this.principal, target.uploadId);
      } catch (err) {
        // Live messages still arrive; only the replay is lost while Redis is unreachable.
        this.deps.logger.warn({ err }, 'track status replay failed');
      }
      if (this.state !== 'connected' || this.subscriptions.get(id) !== sub) return;
      sub.ready = true;
      const pending = [...(replay ? [replay] : []), ...sub.waiting].sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
      sub.waiting = [];
      for (const item of pending) this.sendRanked(sub, item.body, item.rank);
    }
    this.sendReceipt(receipt);
  }

  private sendReceipt(receipt: string | undefined): void {
    if (receipt !== undefined && this.state !== 'closed') this.write({ command: 'RECEIPT', headers: { 'receipt-id': receipt } });
  }

  private sendMessage(sub: Subscription, body: string): void {
    this.messageSeq += 1;
    this.write({
      command: 'MESSAGE',
      headers: {
        destination: sub.destination,
        subscription: sub.id,
        'message-id': `${this.id}-${this.messageSeq}`,
        'content-type': 'application/json',
      },
      body,
    });
  }
}

/** `Authorization: Bearer <t>` (any case), else the token given as passcode or login by older clients. */
export function tokenFrom(headers: Record<string, string>): string | undefined {
  const authorization = headers.Authorization ?? headers.authorization ?? headers.AUTHORIZATION;
  if (authorization !== undefined) {
    const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1];
  }
  for (const candidate of [headers.passcode, headers.login]) {
    const value = candidate?.trim().replace(/^Bearer\s+/i, '');
    if (value && value.split('.').length === 3) return value;
  }
  return undefined;
}
