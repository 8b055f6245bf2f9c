import { describe, expect, it } from 'vitest';
import { lockRefusal } from './account-standing.js';
import { parseDestination, trackStatusKey, USER_QUEUES } from './destinations.js';

describe('WS-1 R14 account standing of a STOMP session (unit, no Redis)', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('good standing: no lock value, or a suspension that has ended', () => {
    expect(lockRefusal(null, now)).toBeNull();
    expect(lockRefusal('suspended:2025-12-31T23:59:59.000Z', now)).toBeNull();
  });

  it('a ban and a running suspension refuse with their codes; an unreadable date is a running suspension', () => {
    expect(lockRefusal('banned', now)).toEqual({ code: 'ACCOUNT_BANNED', message: 'This account is banned.' });
    expect(lockRefusal('suspended:2026-01-02T00:00:00.000Z', now)).toEqual({
      code: 'ACCOUNT_SUSPENDED',
      message: 'This account is suspended until 2026-01-02T00:00:00.000Z.',
    });
    expect(lockRefusal('suspended:someday', now)?.code).toBe('ACCOUNT_SUSPENDED');
  });
});

describe('WS-2…WS-4 subscription destinations (unit)', () => {
  it('serves the two user queues and track-status topics of a UUID upload id, case-insensitively', () => {
    expect(parseDestination(USER_QUEUES.notifications)).toEqual({ kind: 'user-queue', key: '/user/queue/notifications' });
    expect(parseDestination(USER_QUEUES.messages)?.kind).toBe('user-queue');
    const upper = 'A1B2C3D4-0000-4000-8000-00000000000F';
    expect(parseDestination(`/topic/track-status/${upper}`)).toEqual({ kind: 'track-status', uploadId: upper, key: trackStatusKey(upper.toLowerCase()) });
  });

  it('refuses anything else', () => {
    for (const d of ['/user/queue/other', '/topic/track-status/42', '/topic/track-status/', '/topic/other', '']) expect(parseDestination(d), d).toBeNull();
  });
});
