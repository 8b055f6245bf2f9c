/**
 * STOMP 1.2 frame codec (https://stomp.github.io/stomp-specification-1.2.html). Written here because
 * there is no maintained STOMP server library for Node; the client side of the fleet's tests is the
 * real @stomp/stompjs. Frames are parsed as octets so content-length and NUL octets inside bodies work
 * the same over binary WebSocket messages, text messages and SockJS strings.
 */

export const NUL = '\0';
const LF = 0x0a;
const CR = 0x0d;
const NUL_BYTE = 0x00;

/** Commands whose headers are not escaped (STOMP 1.2, "Value Encoding"). */
const UNESCAPED_COMMANDS = new Set(['CONNECT', 'CONNECTED']);
const COMMAND_PATTERN = /^[A-Z]{1,32}$/;

export interface StompFrame {
  command: string;
  /** First occurrence of each header wins (STOMP 1.2, "Repeated Header Entries"). */
  headers: Record<string, string>;
  body: Buffer;
}

export interface OutgoingFrame {
  command: string;
  headers?: Record<string, string | number | undefined>;
  body?: string;
}

/** A client broke the protocol or a limit; the session answers with an ERROR frame and closes. */
export class StompProtocolError extends Error {
  constructor(
    readonly code: 'VALIDATION_FAILED' | 'PAYLOAD_TOO_LARGE',
    message: string,
  ) {
    super(message);
    this.name = 'StompProtocolError';
  }
}

export function escapeHeader(value: string): string {
  return value.replace(/[\\\r\n:]/g, (c) => (c === '\\' ? '\\\\' : c === '\r' ? '\\r' : c === '\n' ? '\\n' : '\\c'));
}

export function unescapeHeader(value: string): string {
  return value.replace(/\\(.?)/gs, (_match, next: string) => {
    switch (next) {
      case '\\':
        return '\\';
      case 'r':
        return '\r';
      case 'n':
        return '\n';
      case 'c':
        return ':';
      default:
        // Undefined escape sequences MUST be treated as a fatal protocol error.
        throw new StompProtocolError('VALIDATION_FAILED', `Invalid escape sequence "\\${next}" in a header.`);
    }
  });
}

/**
 * Serialises a frame as text (WebSocket text message or SockJS string). The body is UTF-8 text here
 * (JSON or an error description); content-length always states its byte length so clients never
 * depend on the NUL terminator.
 *
 * `escapeHeaders: false` is for an ERROR sent before CONNECTED: no version is agreed yet, and
 * clients (stompjs among them) only unescape once 1.2 is, so `message:UNAUTHORIZED\c …` would reach
 * them verbatim. Unescaped (the 1.0 rule), the colon is harmless since a header splits at the first.
 */
export function encodeFrame(frame: OutgoingFrame, options: { escapeHeaders?: boolean } = {}): string {
  const escape = options.escapeHeaders ?? !UNESCAPED_COMMANDS.has(frame.command);
  const lines = [frame.command];
  for (const [name, raw] of Object.entries(frame.headers ?? {})) {
    if (raw === undefined || name === 'content-length') continue;
    const value = String(raw);
    // Unescaped values cannot carry line breaks (they would end the header): replace them.
    lines.push(escape ? `${escapeHeader(name)}:${escapeHeader(value)}` : `${name}:${value.replace(/[\r\n]/g, ' ')}`);
  }
  const body = frame.body ?? '';
  if (body.length > 0) lines.push(`content-length:${Buffer.byteLength(body, 'utf8')}`);
  return `${lines.join('\n')}\n\n${body}${NUL}`;
}

export interface HeartbeatSetting {
  /** Milliseconds between outgoing beats the server sends (0: none). */
  outgoingMs: number;
  /** Milliseconds within which the server expects bytes from the client (0: no check). */
  incomingMs: number;
}

/**
 * Heart-beat negotiation: the client's `heart-beat: cx,cy` against the server's `sx,sy`.
 * Server → client every max(sx, cy) when both are non-zero; client → server every max(cx, sy).
 */
export function negotiateHeartbeat(clientHeader: string | undefined, server: { sx: number; sy: number }): HeartbeatSetting {
  if (clientHeader === undefined || clientHeader.trim() === '') return { outgoingMs: 0, incomingMs: 0 };
  const match = /^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*$/.exec(clientHeader);
  if (!match) throw new StompProtocolError('VALIDATION_FAILED', 'The heart-beat header must be two integers "cx,cy".');
  const cx = Number(match[1]);
  const cy = Number(match[2]);
  return {
    outgoingMs: server.sx === 0 || cy === 0 ? 0 : Math.max(server.sx, cy),
    incomingMs: server.sy === 0 || cx === 0 ? 0 : Math.max(server.sy, cx),
  };
}

export interface StompParserLimits {
  /** Whole frame (command, headers and body). */
  maxFrameBytes: number;
  maxHeaders: number;
}

export interface StompParserEvents {
  onFrame(frame: StompFrame): void;
  /** EOLs between frames (client heart-beats). */
  onHeartbeat(): void;
}

/**
 * Incremental parser: chunks may hold several frames, part of one, or heart-beat EOLs; the parser
 * keeps the unfinished rest. Any frame (finished or not) larger than `maxFrameBytes` is refused
 * as soon as that is known, so a hostile client cannot make the server buffer without bound.
 */
export class StompParser {
  private pending: Buffer = Buffer.alloc(0);
  private failed = false;

  constructor(
    private readonly limits: StompParserLimits,
    private readonly events: StompParserEvents,
  ) {}

  push(chunk: Buffer | string): void {
    if (this.failed) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.pending = this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes]);
    try {
      this.drain();
    } catch (err) {
      this.failed = true;
      this.pending = Buffer.alloc(0);
      throw err;
    }
  }

  private drain(): void {
    for (;;) {
      const start = this.skipEols();
      if (start > 0) {
        this.pending = this.pending.subarray(start);
        this.events.onHeartbeat();
      }
      if (this.pending.length === 0) return;
      const consumed = this.parseOne();
      if (consumed === 0) {
        if (this.pending.length > this.limits.maxFrameBytes) this.tooLarge();
        return;
      }
      this.pending = this.pending.subarray(consumed);
    }
  }

  /** Bytes of leading EOLs (LF or CR LF); a trailing lone CR waits for its LF. */
  private skipEols(): number {
    let i = 0;
    const p = this.pending;
    while (i < p.length) {
      if (p[i] === LF) i += 1;
      else if (p[i] === CR && p[i + 1] === LF) i += 2;
      else if (p[i] === CR && i + 1 === p.length) break;
      else if (p[i] === CR) throw new StompProtocolError('VALIDATION_FAILED', 'A CR must be followed by LF.');
      else break;
    }
    return i;
  }

  private tooLarge(): never {
    throw new StompProtocolError('PAYLOAD_TOO_LARGE', `A frame may not exceed ${this.limits.maxFrameBytes} bytes.`);
  }

  /** Parses one frame from the start of `pending`; returns the bytes consumed, 0 when incomplete. */
  private parseOne(): number {
    const p = this.pending;
    const headerEnd = findBlankLine(p);
    if (headerEnd === null) return 0;
    if (headerEnd.bodyStart > this.limits.maxFrameBytes) this.tooLarge();
    const lines = p
      .subarray(0, headerEnd.headersEnd)
      .toString('utf8')
      .split('\n')
      .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    const command = lines[0] ?? '';
    if (!COMMAND_PATTERN.test(command)) throw new StompProtocolError('VALIDATION_FAILED', 'Malformed frame command.');
    const headerLines = lines.slice(1);
    if (headerLines.length > this.limits.maxHeaders) {
      throw new StompProtocolError('PAYLOAD_TOO_LARGE', `A frame may not carry more than ${this.limits.maxHeaders} headers.`);
    }
    const escaped = !UNESCAPED_COMMANDS.has(command);
    const headers: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new StompProtocolError('VALIDATION_FAILED', 'Malformed header line.');
      const name = escaped ? unescapeHeader(line.slice(0, colon)) : line.slice(0, colon);
      const value = escaped ? unescapeHeader(line.slice(colon + 1)) : line.slice(colon + 1);
      if (!(name in headers)) headers[name] = value;
    }

    const bodyStart = headerEnd.bodyStart;
    const declared = headers['content-length'];
    let bodyEnd: number;
    if (declared !== undefined) {
      if (!/^\d{1,10}$/.test(declared)) throw new StompProtocolError('VALIDATION_FAILED', 'content-length must be a non-negative integer.');
      const length = Number(declared);
      if (bodyStart + length + 1 > this.limits.maxFrameBytes) this.tooLarge();
      if (p.length < bodyStart + length + 1) return 0;
      bodyEnd = bodyStart + length;
      if (p[bodyEnd] !== NUL_BYTE) throw new StompProtocolError('VALIDATION_FAILED', 'The body is not followed by NUL at content-length.');
    } else {
      const nul = p.indexOf(NUL_BYTE, bodyStart);
      if (nul === -1) return 0;
      bodyEnd = nul;
    }
    if (bodyEnd + 1 > this.limits.maxFrameBytes) this.tooLarge();
    this.events.onFrame({ command, headers, body: Buffer.from(p.subarray(bodyStart, bodyEnd)) });
    return bodyEnd + 1;
  }
}

/** The end of the header block: the first empty line (LF LF or LF CR LF). */
function findBlankLine(p: Buffer): { headersEnd: number; bodyStart: number } | null {
  let from = 0;
  for (;;) {
    const lf = p.indexOf(LF, from);
    if (lf === -1 || lf + 1 >= p.length) return null;
    if (p[lf + 1] === LF) return { headersEnd: lf, bodyStart: lf + 2 };
    if (p[lf + 1] === CR) {
      if (lf + 2 >= p.length) return null;
      if (p[lf + 2] === LF) return { headersEnd: lf, bodyStart: lf + 3 };
    }
    from = lf + 1;
  }
}
