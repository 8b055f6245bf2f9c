import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { StompSession, type StompSessionDeps, type StompTransport } from '../src/modules/realtime/stomp-session.js';

function fakeTransport() {
  const sent: string[] = [];
  const closes: Array<{ code: number; reason: string }> = [];
  const transport: StompTransport = {
    kind: 'websocket',
    send: (text) => sent.push(text),
    close: (code, reason) => closes.push({ code, reason }),
    bufferedAmount: () => 0,
  };
  return { transport, sent, closes };
}

const logger = { warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as FastifyBaseLogger;

function session(heartbeatMs: number) {
  const t = fakeTransport();
  const deps: StompSessionDeps = {
    options: {
      heartbeat: { sx: heartbeatMs, sy: heartbeatMs },
      maxFrameBytes: 4096,
      maxHeaders: 16,
      maxSubscriptions: 2,
      connectTimeoutMs: 1000,
      maxBufferedBytes: 1 << 20,
      serverName: 'test',
    },
    logger,
    authenticate: async () => ({ ok: true, principal: { userId: 1, username: 'u1', role: 'LISTENER', tier: 'FREE', sessionId: 's' } }),
    attach: () => null,
    detach: () => undefined,
    replayTrackStatus: async () => ({ body: '{"replayed":true}', rank: 1 }),
  };
  return { s: new StompSession(t.transport, deps), ...t };
}

describe('WS-1 STOMP session (unit, fake clock)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends EOL heart-beats at the negotiated period and closes a silent client after twice its period', async () => {
    const { s, sent, closes } = session(100);
    s.receive('CONNECT\naccept-version:1.2\nheart-beat:100,300\n\n\0');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent[0]).toMatch(/^CONNECTED\nversion:1\.2\nheart-beat:100,100\n/);
    // The client beats every 100 ms (its cx): the session stays open; the server beats every 300 ms (max(sx, cy)).
    for (let i = 0; i < 6; i += 1) {
      await vi.advanceTimersByTimeAsync(100);
      s.receive('\n');
      expect(sent.filter((f) => f === '\n')).toHaveLength(Math.floor((i + 1) / 3));
    }
    expect(closes).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    expect(closes[0]?.code).toBe(1001);
  });

  it('closes a socket that never sends CONNECT with ERROR UNAUTHORIZED', async () => {
    const { sent, closes } = session(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent[0]).toMatch(/^ERROR\nmessage:UNAUTHORIZED: /);
    expect(closes[0]?.code).toBe(1008);
  });

  it('handles a SUBSCRIBE sent right behind CONNECT after authentication, and limits subscriptions', async () => {
    const { s, sent, closes } = session(0);
    s.receive(
      'CONNECT\naccept-version:1.2\n\n\0' +
        'SUBSCRIBE\nid:1\ndestination:/topic/track-status/0f8fad5b-d9cb-469f-a165-70867728950e\n\n\0' +
        'SUBSCRIBE\nid:2\ndestination:/user/queue/messages\n\n\0' +
        'SUBSCRIBE\nid:3\ndestination:/user/queue/notifications\n\n\0',
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(sent[0]).toMatch(/^CONNECTED\n/);
    expect(sent[1]).toMatch(/^MESSAGE\n/);
    expect(sent[1]).toContain('subscription:1\n');
    expect(sent[1]).toContain('\n\n{"replayed":true}\0');
    expect(sent[2]).toMatch(/^ERROR\nmessage:VALIDATION_FAILED\\c At most 2 subscriptions/);
    expect(closes[0]?.code).toBe(1008);
  });

  it.each([
    ['older than the live status: both, in rank order', 5, ['{"replay":5}', '{"live":10}', '{"live":11}', '{"live":12}']],
    ['newer than a held live status (this replica lags): in rank order, the copy of the replay skipped', 11, ['{"live":10}', '{"replay":11}', '{"live":12}']],
  ])('orders the replay and live statuses that cross during SUBSCRIBE, replay %s', async (_name, replayRank, expected) => {
    const t = fakeTransport();
    let release!: (value: { body: string; rank: number }) => void;
    const s = new StompSession(t.transport, {
      options: {
        heartbeat: { sx: 0, sy: 0 },
        maxFrameBytes: 4096,
        maxHeaders: 16,
        maxSubscriptions: 5,
        connectTimeoutMs: 1000,
        maxBufferedBytes: 1 << 20,
        serverName: 'test',
      },
      logger,
      authenticate: async () => ({ ok: true, principal: { userId: 1, username: 'u1', role: 'LISTENER', tier: 'FREE', sessionId: 's' } }),
      attach: () => null,
      detach: () => undefined,
      replayTrackStatus: () => new Promise((resolve) => (release = resolve)),
    });
    const key = '/topic/track-status/0f8fad5b-d9cb-469f-a165-70867728950e';
    s.receive(`CONNECT\naccept-version:1.2\n\n\0SUBSCRIBE\nid:1\ndestination:${key}\n\n\0`);
    await vi.advanceTimersByTimeAsync(0);
    s.deliver(key, '{"live":10}', 10);
    release({ body: `{"replay":${replayRank}}`, rank: replayRank });
    await vi.advanceTimersByTimeAsync(0);
    s.deliver(key, '{"live":11}', 11);
    s.deliver(key, '{"live":11}', 11);
    s.deliver(key, '{"live":12}', 12);
    const bodies = t.sent.filter((f) => f.startsWith('MESSAGE')).map((f) => f.slice(f.indexOf('\n\n') + 2, -1));
    expect(bodies).toEqual(expected);
  });
});
