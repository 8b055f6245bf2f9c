import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_KEYS } from '@msp/contracts';
import { startHarness, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Opens a websocket and collects its first `count` messages. */
function exchange(url: string, send: string[], count: number, headers: Record<string, string> = {}): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const received: string[] = [];
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`only ${received.length} messages: ${received.join(' | ')}`));
    }, 5000);
    socket.on('open', () => send.forEach((message) => socket.send(message)));
    socket.on('message', (data: Buffer) => {
      received.push(data.toString());
      if (received.length === count) {
        clearTimeout(timer);
        socket.close();
        resolve(received);
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

describe('websocket (WS-1): upgrades on /api/ws are proxied to notification', () => {
  it('echoes a message through the gateway', async () => {
    const wsUrl = `${h.url.replace('http', 'ws')}/api/ws`;
    const messages = await exchange(wsUrl, ['CONNECT\naccept-version:1.2\n\n\0'], 2);
    expect(messages[0]).toMatch(/^hello from notification/);
    expect(messages[1]).toBe('echo:CONNECT\naccept-version:1.2\n\n\0');
  });

  it('does not pass a client-forged X-User-Id to the upgrade', async () => {
    const wsUrl = `${h.url.replace('http', 'ws')}/api/ws`;
    const [hello] = await exchange(wsUrl, [], 1, { 'x-user-id': '1' });
    expect(hello).toBe('hello from notification; forged user header: none');
  });

  it('proxies plain HTTP under /api/ws/** (SockJS info) to notification', async () => {
    const response = await fetch(`${h.url}/api/ws/info?t=1`);
    expect(response.status).toBe(200);
    const echo = (await response.json()) as { service: string; url: string };
    expect(echo).toMatchObject({ service: 'notification', url: '/api/ws/info?t=1' });
  });
});

/** The upgrade's answer: `open`, or the HTTP status and body of a refused handshake. */
function upgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: string } | 'open'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('open', () => {
      socket.close();
      resolve('open');
    });
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    socket.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

describe('WS-1 an app token on the upgrade (docs/developer-platform.md "Realtime")', () => {
  it("refuses the upgrade with 401 while the token's app is suspended; other tokens upgrade", async () => {
    const wsUrl = `${h.url.replace('http', 'ws')}/api/ws`;
    const clientId = `app_ws_${randomUUID()}`;
    const appToken = await h.token({ sub: '9301', azp: clientId, scope: 'read messages' });
    expect(await upgrade(wsUrl, { authorization: `Bearer ${appToken}` })).toBe('open');

    await h.redis.set(h.key(REVOCATION_KEYS.appStatus(clientId)), 'suspended');
    const refused = await upgrade(wsUrl, { authorization: `Bearer ${appToken}` });
    expect(refused).toMatchObject({ status: 401 });
    expect(JSON.parse((refused as { body: string }).body)).toMatchObject({ code: 'UNAUTHORIZED', message: 'The app has been suspended.' });
    // SockJS's HTTP paths under /api/ws/** too.
    const info = await fetch(`${h.url}/api/ws/info`, { headers: { authorization: `Bearer ${appToken}` } });
    expect(info.status).toBe(401);
    await info.arrayBuffer();

    const otherApp = await h.token({ sub: '9301', azp: `app_ws_${randomUUID()}`, scope: 'messages' });
    expect(await upgrade(wsUrl, { authorization: `Bearer ${otherApp}` })).toBe('open');
    expect(await upgrade(wsUrl, { authorization: `Bearer ${await h.token({ sub: '9301' })}` })).toBe('open');
    // No token on the upgrade (the usual case: it travels in CONNECT) is notification's to check.
    expect(await upgrade(wsUrl, {})).toBe('open');
    await h.redis.del(h.key(REVOCATION_KEYS.appStatus(clientId)));
  });
});
