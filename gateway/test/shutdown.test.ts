/**
 * The gateway's own graceful shutdown (packages/http shutdown.ts, wired in src/app.ts), over real
 * HTTP with the fast lane on: /ready fails first while reads are still proxied (with
 * Connection: close), the listener closes after the grace delay, and a request that still arrives
 * on an open connection gets a 503 ErrorResponse with Retry-After and the gateway's CORS and
 * security headers, never Fastify's bare 503.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeGracefully } from '@msp/http';
import { buildGateway } from '../src/app.js';
import { startHarness, type Harness } from './helpers.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads `count` HTTP/1.1 answers with a Content-Length from one connection. */
function readAnswers(socket: net.Socket, count: number): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const answers: RawAnswer[] = [];
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const [statusLine, ...headerLines] = buffered.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(
          headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (buffered.length < end + 4 + length) return;
        answers.push({ status: Number(statusLine?.split(' ')[1]), headers, body: buffered.slice(end + 4, end + 4 + length) });
        buffered = buffered.slice(end + 4 + length);
        if (answers.length === count) resolve(answers);
      }
    });
    socket.once('error', reject);
    socket.once('close', () => (answers.length < count ? reject(new Error(`connection closed after ${answers.length} answers`)) : undefined));
  });
}

const ORIGIN = 'https://app.example.com';

describe('gateway shutdown: readiness first, then the listener, every refusal an ErrorResponse', () => {
  let h: Harness;
  beforeAll(async () => {
    // Social answers after 3 s: a request in flight that holds the close open.
    h = await startHarness({ env: { CORS_ORIGINS: ORIGIN }, services: { social: { delayMs: 3000 } } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('drain → close → 503 SERVICE_UNAVAILABLE with Retry-After, CORS and security headers', async () => {
    const gateway = await buildGateway({ ...h.config, FAST_LANE: true }, { logger: false });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    const { port } = gateway.server.address() as net.AddressInfo;
    const base = `http://127.0.0.1:${port}`;

    const busy = net.connect(port, '127.0.0.1');
    await once(busy, 'connect');
    const answers = readAnswers(busy, 2);
    busy.write('GET /api/tracks/3/comments HTTP/1.1\r\nhost: gateway.test\r\nx-request-id: in-flight\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));

    const graceMs = 1500;
    const started = Date.now();
    const closed = closeGracefully(gateway, graceMs);

    const ready = await fetch(`${base}/ready`, { headers: { 'x-request-id': 'gw-ready' } });
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect(await ready.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', requestId: 'gw-ready', service: 'gateway' });
    const read = await fetch(`${base}/api/genres`);
    expect(read.status).toBe(200);
    expect(read.headers.get('connection')).toBe('close');

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, graceMs + 100 - (Date.now() - started))));
    await expect(fetch(`${base}/api/genres`)).rejects.toThrow();
    busy.write(`GET /api/genres HTTP/1.1\r\nhost: gateway.test\r\norigin: ${ORIGIN}\r\nx-request-id: gw-during-close\r\n\r\n`);

    const [inFlight, refused] = await answers;
    expect(inFlight!.status).toBe(200);
    expect(refused!.status).toBe(503);
    expect(refused!.headers).toMatchObject({
      'retry-after': '5',
      connection: 'close',
      'x-request-id': 'gw-during-close',
      'access-control-allow-origin': ORIGIN,
      'x-content-type-options': 'nosniff',
    });
    expect(JSON.parse(refused!.body)).toEqual({
      timestamp: expect.any(String),
      status: 503,
      error: 'Service Unavailable',
      code: 'SERVICE_UNAVAILABLE',
      message: expect.any(String),
      path: '/api/genres',
      requestId: 'gw-during-close',
    });
    await closed;
    busy.destroy();
  }, 30_000);
});
