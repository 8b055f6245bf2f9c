/**
 * Graceful shutdown (src/shutdown.ts, src/server.ts runServer), over real HTTP: readiness fails
 * first while every other route still answers (with Connection: close), the listener closes after
 * the grace delay, and a request that still arrives during close gets a 503 SERVICE_UNAVAILABLE
 * ErrorResponse with Retry-After, never Fastify's bare 503.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { closeGracefully, createHttpApp, shutdownGraceMs } from '../src/index.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads `count` HTTP/1.1 answers (each with a Content-Length) from a socket. */
function readAnswers(socket: net.Socket, count: number): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const answers: RawAnswer[] = [];
    const onData = (chunk: Buffer) => {
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
        if (answers.length === count) {
          socket.off('data', onData);
          resolve(answers);
          return;
        }
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => (answers.length < count ? reject(new Error(`connection closed after ${answers.length} answers`)) : undefined));
  });
}

function get(path: string, id: string): string {
  return `GET ${path} HTTP/1.1\r\nhost: test\r\nx-request-id: ${id}\r\nconnection: keep-alive\r\n\r\n`;
}

function expectErrorResponse(body: unknown, requestId: string) {
  expect(body).toMatchObject({ status: 503, error: 'Service Unavailable', code: 'SERVICE_UNAVAILABLE', requestId });
  expect(body).toEqual(expect.objectContaining({ timestamp: expect.any(String), message: expect.any(String), path: expect.stringMatching(/^\//) }));
}

describe('graceful shutdown of a service shell (createHttpApp + closeGracefully)', () => {
  it('/ready fails at once, other routes answer with Connection: close, the listener closes after the grace delay, a request during close is a 503 ErrorResponse', async () => {
    const app = await createHttpApp({ service: 'catalog', logger: false });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    app.get('/api/slow', async () => {
      await released;
      return { slow: true };
    });
    app.get('/api/fast', async () => ({ fast: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as net.AddressInfo;
    const base = `http://127.0.0.1:${port}`;

    expect((await fetch(`${base}/ready`)).status).toBe(200);
    // A request in flight when the shutdown starts: it holds the close open.
    const busy = net.connect(port, '127.0.0.1');
    await once(busy, 'connect');
    const busyAnswers = readAnswers(busy, 2);
    busy.write(get('/api/slow', 'in-flight'));
    await new Promise((resolve) => setTimeout(resolve, 50));

    const graceMs = 1000;
    const started = Date.now();
    const closed = closeGracefully(app, graceMs);

    // Draining: not ready, everything else still served, each answer closing its connection.
    const ready = await fetch(`${base}/ready`, { headers: { 'x-request-id': 'ready-while-draining' } });
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expectErrorResponse(await ready.json(), 'ready-while-draining');
    const fast = await fetch(`${base}/api/fast`);
    expect(fast.status).toBe(200);
    expect(fast.headers.get('connection')).toBe('close');
    expect(await fast.json()).toEqual({ fast: true });

    // After the grace delay the listener is closed: a new connection is refused.
    await new Promise((resolve) => setTimeout(resolve, graceMs + 100 - (Date.now() - started)));
    await expect(fetch(`${base}/api/fast`)).rejects.toThrow();

    // A request that still arrives on the open connection during close: the fleet's ErrorResponse.
    busy.write(get('/api/fast', 'during-close'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const [slow, refused] = await busyAnswers;
    expect(slow).toMatchObject({ status: 200 });
    expect(JSON.parse(slow!.body)).toEqual({ slow: true });
    expect(refused!.status).toBe(503);
    expect(refused!.headers).toMatchObject({ 'retry-after': '5', connection: 'close', 'x-request-id': 'during-close' });
    expect(refused!.headers['content-type']).toMatch(/^application\/json/);
    expectErrorResponse(JSON.parse(refused!.body), 'during-close');
    await closed;
    busy.destroy();
    expect(Date.now() - started).toBeGreaterThanOrEqual(graceMs);
  }, 20_000);
});

describe('runServer on SIGTERM (a child process running the service shell)', () => {
  it('readiness fails first, the process keeps answering for SHUTDOWN_GRACE_MS, then exits 0', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const fixture = fileURLToPath(new URL('fixtures/serve-until-signal.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...process.env, PORT: String(port), SHUTDOWN_GRACE_MS: '2000', NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const deadline = Date.now() + 30_000;
      while (!output.includes('listening')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the fixture did not start: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/ready`)).status).toBe(200);

      const signalled = Date.now();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      // Not ready within a moment of the signal, while the API still answers.
      let ready = 200;
      while (ready === 200 && Date.now() - signalled < 2000) {
        ready = (await fetch(`${base}/ready`)).status;
      }
      expect(ready).toBe(503);
      const during = await fetch(`${base}/api/things`);
      expect(during.status).toBe(200);
      expect(during.headers.get('connection')).toBe('close');
      const [code] = await exited;
      expect(code).toBe(0);
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(2000);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('SHUTDOWN_GRACE_MS', () => {
  it('defaults to 5 s in production and 500 ms elsewhere; a bad value fails the boot', () => {
    expect(shutdownGraceMs({ NODE_ENV: 'production' })).toBe(5000);
    expect(shutdownGraceMs({})).toBe(500);
    expect(shutdownGraceMs({ SHUTDOWN_GRACE_MS: '0', NODE_ENV: 'production' })).toBe(0);
    expect(shutdownGraceMs({ SHUTDOWN_GRACE_MS: '2500' })).toBe(2500);
    for (const bad of ['-1', '1.5', 'soon', '10001']) expect(() => shutdownGraceMs({ SHUTDOWN_GRACE_MS: bad })).toThrow(/SHUTDOWN_GRACE_MS/);
  });
});
