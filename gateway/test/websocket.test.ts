import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
