import { describe, expect, it } from 'vitest';
import {
  encodeFrame,
  escapeHeader,
  negotiateHeartbeat,
  StompParser,
  StompProtocolError,
  unescapeHeader,
  type StompFrame,
} from '../src/modules/realtime/stomp-frame.js';
import { tokenFrom } from '../src/modules/realtime/stomp-session.js';
import { parseDestination } from '../src/modules/realtime/destinations.js';

function parserWith(maxFrameBytes = 1024, maxHeaders = 16) {
  const frames: StompFrame[] = [];
  let beats = 0;
  const parser = new StompParser({ maxFrameBytes, maxHeaders }, { onFrame: (f) => frames.push(f), onHeartbeat: () => (beats += 1) });
  return { parser, frames, beats: () => beats };
}

function protocolError(fn: () => void): StompProtocolError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StompProtocolError) return err;
    throw err;
  }
  throw new Error('expected a StompProtocolError');
}

describe('WS-1 STOMP 1.2 frame codec', () => {
  it('escapes and unescapes header values by the 1.2 rules', () => {
    const raw = 'a:b\\c\nd\re';
    expect(escapeHeader(raw)).toBe('a\\cb\\\\c\\nd\\re');
    expect(unescapeHeader(escapeHeader(raw))).toBe(raw);
    expect(protocolError(() => unescapeHeader('bad\\t')).code).toBe('VALIDATION_FAILED');
    expect(protocolError(() => unescapeHeader('trailing\\')).code).toBe('VALIDATION_FAILED');
  });

  it('encodes MESSAGE with escaped headers, content-length in bytes and a NUL terminator', () => {
    const text = encodeFrame({ command: 'MESSAGE', headers: { destination: '/topic/a:b', 'message-id': '1' }, body: '{"t":"é"}' });
    expect(text).toBe('MESSAGE\ndestination:/topic/a\\cb\nmessage-id:1\ncontent-length:10\n\n{"t":"é"}\0');
  });

  it('does not escape CONNECTED headers and strips line breaks from them', () => {
    const text = encodeFrame({ command: 'CONNECTED', headers: { version: '1.2', 'heart-beat': '10000,10000', server: 'x\ny' } });
    expect(text).toBe('CONNECTED\nversion:1.2\nheart-beat:10000,10000\nserver:x y\n\n\0');
  });

  it('leaves ERROR headers unescaped before a version is agreed', () => {
    const text = encodeFrame({ command: 'ERROR', headers: { message: 'UNAUTHORIZED: no\ntoken' }, body: 'x' }, { escapeHeaders: false });
    expect(text).toBe('ERROR\nmessage:UNAUTHORIZED: no token\ncontent-length:1\n\nx\0');
  });

  it('parses frames split over chunks, several frames in one chunk, CRLF lines and heart-beat EOLs', () => {
    const { parser, frames, beats } = parserWith();
    parser.push('\n\r\nCONNECT\r\naccept-version:1.2\r\nhost:x\r\n\r\n\0\nSUBSCR');
    parser.push(Buffer.from('IBE\nid:1\ndestination:/user/queue/messages\n\n\0'));
    expect(frames.map((f) => f.command)).toEqual(['CONNECT', 'SUBSCRIBE']);
    expect(frames[0]?.headers).toMatchObject({ 'accept-version': '1.2', host: 'x' });
    expect(frames[1]?.headers.destination).toBe('/user/queue/messages');
    expect(beats()).toBeGreaterThanOrEqual(2);
  });

  it('keeps the first of repeated headers and unescapes all but CONNECT', () => {
    const { parser, frames } = parserWith();
    parser.push('SUBSCRIBE\nid:a\\cb\nid:second\ndestination:/x\n\n\0CONNECT\nlogin:a\\cb\n\n\0');
    expect(frames[0]?.headers.id).toBe('a:b');
    expect(frames[1]?.headers.login).toBe('a\\cb');
  });

  it('reads a body with NUL octets inside when content-length is given', () => {
    const { parser, frames } = parserWith();
    const body = Buffer.from([0x61, 0x00, 0x62, 0x00]);
    parser.push(Buffer.concat([Buffer.from(`SEND\ndestination:/x\ncontent-length:${body.length}\n\n`), body.subarray(0, 2)]));
    expect(frames).toHaveLength(0);
    parser.push(Buffer.concat([body.subarray(2), Buffer.from([0x00]), Buffer.from('\n')]));
    expect(frames).toHaveLength(1);
    expect(Buffer.compare(frames[0]!.body, body)).toBe(0);
  });

  it('without content-length the body ends at the first NUL', () => {
    const { parser, frames } = parserWith();
    parser.push('SEND\ndestination:/x\n\nhello\0');
    expect(frames[0]?.body.toString()).toBe('hello');
  });

  it('refuses a body that is not followed by NUL at content-length', () => {
    const { parser } = parserWith();
    expect(protocolError(() => parser.push('SEND\ncontent-length:2\n\nabc\0')).code).toBe('VALIDATION_FAILED');
  });

  it('refuses an oversize frame as soon as it is known, finished or not', () => {
    expect(protocolError(() => parserWith(64).parser.push(`SEND\ncontent-length:100\n\n`)).code).toBe('PAYLOAD_TOO_LARGE');
    expect(protocolError(() => parserWith(64).parser.push(`SEND\n\n${'x'.repeat(100)}`)).code).toBe('PAYLOAD_TOO_LARGE');
    expect(protocolError(() => parserWith(64).parser.push(`SEND\nh:${'x'.repeat(100)}`)).code).toBe('PAYLOAD_TOO_LARGE');
    expect(protocolError(() => parserWith(1024, 2).parser.push('SEND\na:1\nb:2\nc:3\n\n\0')).code).toBe('PAYLOAD_TOO_LARGE');
    const { parser } = parserWith(64);
    for (let i = 0; i < 3; i += 1) parser.push('SEND\n\n' + 'y'.repeat(10));
    expect(protocolError(() => parser.push('z'.repeat(40))).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses malformed commands, header lines and content-length', () => {
    expect(protocolError(() => parserWith().parser.push('send\n\n\0')).code).toBe('VALIDATION_FAILED');
    expect(protocolError(() => parserWith().parser.push('SEND\nno-colon\n\n\0')).code).toBe('VALIDATION_FAILED');
    expect(protocolError(() => parserWith().parser.push('SEND\n:empty-name\n\n\0')).code).toBe('VALIDATION_FAILED');
    expect(protocolError(() => parserWith().parser.push('SEND\ncontent-length:-1\n\n\0')).code).toBe('VALIDATION_FAILED');
  });

  it('negotiates heart-beats: max of both sides, 0 when either side is 0', () => {
    const server = { sx: 10_000, sy: 10_000 };
    expect(negotiateHeartbeat('10000,10000', server)).toEqual({ outgoingMs: 10_000, incomingMs: 10_000 });
    expect(negotiateHeartbeat('4000,20000', server)).toEqual({ outgoingMs: 20_000, incomingMs: 10_000 });
    expect(negotiateHeartbeat('0,0', server)).toEqual({ outgoingMs: 0, incomingMs: 0 });
    expect(negotiateHeartbeat('30000,0', server)).toEqual({ outgoingMs: 0, incomingMs: 30_000 });
    expect(negotiateHeartbeat(undefined, server)).toEqual({ outgoingMs: 0, incomingMs: 0 });
    expect(negotiateHeartbeat('1,1', { sx: 0, sy: 0 })).toEqual({ outgoingMs: 0, incomingMs: 0 });
    expect(protocolError(() => negotiateHeartbeat('fast', server)).code).toBe('VALIDATION_FAILED');
  });

  it('takes the bearer token from Authorization (any case), else from passcode or login', () => {
    expect(tokenFrom({ Authorization: 'Bearer a.b.c' })).toBe('a.b.c');
    expect(tokenFrom({ authorization: 'bearer a.b.c' })).toBe('a.b.c');
    expect(tokenFrom({ authorization: 'Basic xyz' })).toBeUndefined();
    expect(tokenFrom({ login: 'guest', passcode: 'a.b.c' })).toBe('a.b.c');
    expect(tokenFrom({ login: 'Bearer a.b.c' })).toBe('a.b.c');
    expect(tokenFrom({ login: 'guest', passcode: 'guest' })).toBeUndefined();
  });

  it('serves only the WS-2…WS-4 destinations', () => {
    expect(parseDestination('/topic/track-status/0F8FAD5B-D9CB-469F-A165-70867728950E')).toMatchObject({
      kind: 'track-status',
      key: '/topic/track-status/0f8fad5b-d9cb-469f-a165-70867728950e',
    });
    expect(parseDestination('/user/queue/notifications')).toMatchObject({ kind: 'user-queue' });
    expect(parseDestination('/user/queue/messages')).toMatchObject({ kind: 'user-queue' });
    expect(parseDestination('/topic/track-status/not-a-uuid')).toBeNull();
    expect(parseDestination('/topic/track-status/')).toBeNull();
    expect(parseDestination('/user/queue/other')).toBeNull();
  });
});
