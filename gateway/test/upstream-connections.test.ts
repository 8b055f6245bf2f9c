/**
 * A service that closes, resets or restarts under the gateway: every request gets an answer at
 * once (the service's, after one retry of a read on a new connection, or a 503 ErrorResponse) and
 * one log line, on both paths (the fast lane and the proxy route). src/upstream.ts `forward`,
 * src/upstream-errors.ts, src/request-log.ts, src/fast-lane.ts.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeGracefully, createHttpApp, setLogDestination } from '@msp/http';
import { freePort, waitFor } from '@msp/testing';
import { expectError, startHarness, type Harness } from './helpers.js';

/** A bound for one answer on this shared machine: far below the 30-s upstream timeout and a client's patience. */
const ANSWER_BOUND_MS = 5000;

const lines: Array<Record<string, unknown>> = [];
beforeAll(() => {
  setLogDestination({ write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
});
afterAll(() => {
  setLogDestination(undefined);
});

/** The gateway's one line for a request id ("request completed" or "request aborted"). */
function requestLines(requestId: string) {
  return lines.filter((line) => line.requestId === requestId && (line.msg === 'request completed' || line.msg === 'request aborted'));
}

async function everyRequestLogged(ids: string[]): Promise<void> {
  await waitFor(() => (ids.every((id) => requestLines(id).length === 1) ? true : undefined), {
    timeoutMs: 3000,
    message: `one log line per request (missing: ${ids.filter((id) => requestLines(id).length !== 1).join(', ')})`,
  });
}

interface Seen {
  requestId: string;
  method: string;
  /** The request's place on its connection: 1 on a new connection. */
  onConnection: number;
}

/**
 * Speaks HTTP/1.1 with keep-alive: the first request on each connection is answered (200, JSON,
 * `Keep-Alive: timeout=60`), every later one on the same connection is cut as it arrives: the
 * connection is closed (FIN) or reset (RST), alternately. With `always: true` every request is cut,
 * the first on a connection too.
 */
async function startCutter(options: { always?: boolean } = {}) {
  const seen: Seen[] = [];
  const sockets = new Set<net.Socket>();
  let cuts = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let onConnection = 0;
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffered.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      onConnection += 1;
      const requestId = /\r\nx-request-id: *([^\r]+)/i.exec(head)?.[1] ?? '';
      seen.push({ requestId, method: head.split(' ', 1)[0] ?? '', onConnection });
      if (options.always || onConnection > 1) {
        cuts += 1;
        if (cuts % 2 === 0) socket.resetAndDestroy();
        else socket.destroy();
        return;
      }
      const body = JSON.stringify({ answered: requestId });
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\nkeep-alive: timeout=60\r\n\r\n${body}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    of: (requestId: string) => seen.filter((entry) => entry.requestId === requestId),
    async close() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function timedFetch(url: string, init: RequestInit = {}) {
  const requestId = `conn-${randomUUID()}`;
  const started = Date.now();
  const response = await fetch(url, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), 'x-request-id': requestId },
    signal: AbortSignal.timeout(ANSWER_BOUND_MS * 2),
  });
  const text = init.method === 'HEAD' ? '' : await response.text();
  return { requestId, response, text, elapsed: Date.now() - started };
}

for (const lane of [true, false]) {
  const path = lane ? 'fast lane' : 'proxy route';

  describe(`a service closing kept-alive connections as requests arrive (${path})`, () => {
    let h: Harness;
    let cutter: Awaited<ReturnType<typeof startCutter>>;
    beforeAll(async () => {
      cutter = await startCutter();
      h = await startHarness({ logger: true, env: { LOG_LEVEL: 'info', FAST_LANE: String(lane), CATALOG_URL: cutter.url } });
    });
    afterAll(async () => {
      await h?.close();
      await cutter?.close();
    });

    it('sequential and concurrent GETs and HEADs: every one 200, a cut one retried once on a new connection, each logged once', async () => {
      const results: Array<Awaited<ReturnType<typeof timedFetch>>> = [];
      for (let i = 0; i < 30; i++) results.push(await timedFetch(`${h.url}/api/genres`));
      results.push(...(await Promise.all(Array.from({ length: 20 }, () => timedFetch(`${h.url}/api/tracks/7`)))));
      for (let i = 0; i < 6; i++) results.push(await timedFetch(`${h.url}/api/genres`, { method: 'HEAD' }));

      for (const { requestId, response, text, elapsed } of results) {
        expect({ requestId, status: response.status }).toEqual({ requestId, status: 200 });
        if (text) expect(JSON.parse(text)).toEqual({ answered: requestId });
        expect(elapsed).toBeLessThan(ANSWER_BOUND_MS);
        const attempts = cutter.of(requestId);
        // At most one retry, and that one on a connection of its own.
        expect(attempts.length).toBeGreaterThanOrEqual(1);
        expect(attempts.length).toBeLessThanOrEqual(2);
        if (attempts.length === 2) expect(attempts[1]?.onConnection).toBe(1);
      }
      // The cut really happened: about every other sequential request was retried.
      expect(results.filter(({ requestId }) => cutter.of(requestId).length === 2).length).toBeGreaterThanOrEqual(10);
      await everyRequestLogged(results.map(({ requestId }) => requestId));
      const retried = results.find(({ requestId }) => cutter.of(requestId).length === 2);
      expect(lines.some((line) => line.requestId === retried?.requestId && line.level === 40 && String(line.msg).includes('retrying once'))).toBe(true);
    }, 60_000);

    it('a POST on a kept-alive connection that is cut: not repeated, a 503 ErrorResponse at once', async () => {
      // A GET answered on a new connection leaves that connection idle in the pool; the POST takes it.
      for (let i = 0; i < 4; i++) {
        const { requestId } = await timedFetch(`${h.url}/api/genres`);
        if (cutter.of(requestId).length === 1) break;
      }
      const post = await timedFetch(`${h.url}/api/tracks/3/play`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(post.elapsed).toBeLessThan(ANSWER_BOUND_MS);
      await expectError(new Response(post.text, { status: post.response.status, headers: post.response.headers }), 503, 'SERVICE_UNAVAILABLE');
      expect(post.response.headers.get('retry-after')).toBe('5');
      expect(cutter.of(post.requestId)).toHaveLength(1);
      expect(cutter.of(post.requestId)[0]?.onConnection).toBeGreaterThan(1);
      await everyRequestLogged([post.requestId]);
    }, 30_000);
  });

  describe(`a service that cuts every request, a new connection's too (${path})`, () => {
    let h: Harness;
    let cutter: Awaited<ReturnType<typeof startCutter>>;
    beforeAll(async () => {
      cutter = await startCutter({ always: true });
      h = await startHarness({ logger: true, env: { LOG_LEVEL: 'info', FAST_LANE: String(lane), CATALOG_URL: cutter.url } });
    });
    afterAll(async () => {
      await h?.close();
      await cutter?.close();
    });

    it('a GET is tried twice, then a 503 SERVICE_UNAVAILABLE ErrorResponse with Retry-After, logged', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => timedFetch(`${h.url}/api/genres`)));
      for (const { requestId, response, text, elapsed } of results) {
        expect(elapsed).toBeLessThan(ANSWER_BOUND_MS);
        await expectError(new Response(text, { status: response.status, headers: response.headers }), 503, 'SERVICE_UNAVAILABLE');
        expect(response.headers.get('retry-after')).toBe('5');
        expect(cutter.of(requestId)).toHaveLength(2);
      }
      await everyRequestLogged(results.map(({ requestId }) => requestId));
      const line = requestLines(results[0]!.requestId)[0];
      expect(line).toMatchObject({ statusCode: 503, msg: 'request completed', operation: 'TRK-20' });
    }, 30_000);
  });

  describe(`a client that gives up before the answer (${path})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ logger: true, env: { LOG_LEVEL: 'info', FAST_LANE: String(lane) }, services: { catalog: { delayMs: 1500 } } });
    });
    afterAll(async () => {
      await h?.close();
    });

    it('is logged as "request aborted" with status 499', async () => {
      const requestId = `gone-${randomUUID()}`;
      await expect(fetch(`${h.url}/api/tracks/5`, { headers: { 'x-request-id': requestId }, signal: AbortSignal.timeout(200) })).rejects.toThrow();
      await everyRequestLogged([requestId]);
      expect(requestLines(requestId)[0]).toMatchObject({ msg: 'request aborted', statusCode: 499, operation: 'TRK-6', method: 'GET' });
    }, 30_000);
  });

  describe(`a real service stopped and restarted under load (${path})`, () => {
    let h: Harness;
    let port: number;
    let service: Awaited<ReturnType<typeof createHttpApp>> | null = null;
    const startService = async () => {
      const app = await createHttpApp({ service: 'catalog', logger: false });
      app.get('/api/*', async () => ({ ok: true }));
      await app.listen({ host: '127.0.0.1', port });
      service = app;
    };
    beforeAll(async () => {
      port = await freePort();
      await startService();
      h = await startHarness({ logger: true, env: { LOG_LEVEL: 'info', FAST_LANE: String(lane), CATALOG_URL: `http://127.0.0.1:${port}` } });
    });
    afterEach(async () => {
      await service?.close();
      service = null;
    });
    afterAll(async () => {
      await h?.close();
    });

    it('12 clients in a loop through 3 restarts: every answer is a 200 or a 503 ErrorResponse within the bound, and logged', async () => {
      let running = true;
      let phase = 0;
      const results: Array<{ requestId: string; status: number; body: string; elapsed: number; phase: number }> = [];
      const client = async () => {
        while (running) {
          const started = phase;
          const { requestId, response, text, elapsed } = await timedFetch(`${h.url}/api/tracks/1`);
          results.push({ requestId, status: response.status, body: text, elapsed, phase: started });
          // A refused service answers at once; do not spin on it.
          if (response.status !== 200) await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      /** Until some request started in this phase (the service up again) was answered 200. */
      const answering = () =>
        waitFor(() => (results.some((result) => result.phase === phase && result.status === 200) ? true : undefined), {
          timeoutMs: ANSWER_BOUND_MS,
          message: `a 200 after restart ${phase}`,
        });
      const clients = Array.from({ length: 12 }, client);
      for (let restart = 0; restart < 3; restart++) {
        await answering();
        const stopping = service!;
        service = null;
        // The service's own shutdown: /ready fails and answers close their connection for 100 ms,
        // then the listener closes (packages/http shutdown.ts).
        await closeGracefully(stopping, 100);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await startService();
        phase += 1;
      }
      await answering();
      running = false;
      await Promise.all(clients);

      const counts: Record<string, number> = {};
      for (const result of results) {
        expect(result.elapsed).toBeLessThan(ANSWER_BOUND_MS);
        if (result.status === 200) {
          counts.ok = (counts.ok ?? 0) + 1;
          expect(JSON.parse(result.body)).toEqual({ ok: true });
          continue;
        }
        counts[result.status] = (counts[result.status] ?? 0) + 1;
        expect(result.status).toBe(503);
        // The full ErrorResponse, whoever answered (the gateway, or the closing service itself).
        expect(JSON.parse(result.body)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', requestId: result.requestId });
      }
      expect(counts.ok).toBeGreaterThan(0);
      await everyRequestLogged(results.map(({ requestId }) => requestId));
    }, 60_000);
  });
}
