import { describe, expect, it } from 'vitest';
import { classifyDeviceToken, parseWebSubscription } from './push.providers.js';

const keys = { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' };
const token = (endpoint: string, k: object = keys) => JSON.stringify({ endpoint, expirationTime: null, keys: k });
const strict = { allowPrivate: false };

describe('NOT-7 WEB token (PushSubscription) parsing', () => {
  it('accepts a public https push endpoint with both keys', () => {
    expect(parseWebSubscription(token('https://fcm.googleapis.com/fcm/send/abc'), strict)).toEqual({
      endpoint: 'https://fcm.googleapis.com/fcm/send/abc',
      keys,
    });
  });

  it('refuses what is not a subscription', () => {
    for (const t of [
      'abc',
      '{}',
      JSON.stringify({ endpoint: 'https://push.example/x' }),
      token('https://push.example/x', { p256dh: 'a b', auth: 'x' }),
      token('not a url'),
    ]) {
      expect(parseWebSubscription(t, strict), t).toBeNull();
    }
  });

  it('refuses plain http and private or cluster-internal hosts unless allowed (no SSRF through a token)', () => {
    for (const endpoint of [
      'http://push.example/x',
      'https://localhost/x',
      'https://127.0.0.1:8082/internal/tracks',
      'https://10.1.2.3/x',
      'https://192.168.0.4/x',
      'https://172.20.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://catalog:8082/internal/tracks',
      'https://catalog.music.svc/x',
      'https://[::1]/x',
      'ftp://push.example/x',
    ]) {
      expect(parseWebSubscription(token(endpoint), strict), endpoint).toBeNull();
    }
    expect(parseWebSubscription(token('http://127.0.0.1:9999/push'), { allowPrivate: true })).not.toBeNull();
  });
});

describe('NOT-7 WEB token transport: PushSubscription (Web Push) or provider registration token (FCM)', () => {
  const fcm = 'dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx_Ag5zR8CMXGtB6G_zxW1sGy5Q0hZL3ZTx_l3vCtKgfi7gAlFuyxVvEvqM0fFmIHUV8xF9qXw1b1vYw9ZT9Sgm9c';

  it('sends a PushSubscription to Web Push and any other sane WEB token to the provider', () => {
    expect(classifyDeviceToken(token('https://fcm.googleapis.com/fcm/send/abc'), 'WEB', strict)).toEqual({ ok: true, transport: 'WEB_PUSH' });
    expect(classifyDeviceToken(`  ${token('https://updates.push.services.mozilla.com/wpush/v2/x')}`, 'WEB', strict)).toEqual({
      ok: true,
      transport: 'WEB_PUSH',
    });
    for (const t of [fcm, 'x', 'a.b+c/d=', 'A'.repeat(4096)]) {
      expect(classifyDeviceToken(t, 'WEB', strict), t).toEqual({ ok: true, transport: 'PROVIDER' });
    }
  });

  it('leaves DESKTOP, MOBILE and TABLET tokens to the provider as given', () => {
    for (const deviceType of ['DESKTOP', 'MOBILE', 'TABLET']) {
      expect(classifyDeviceToken('any token', deviceType, strict)).toEqual({ ok: true, transport: 'PROVIDER' });
      expect(classifyDeviceToken(token('https://fcm.googleapis.com/fcm/send/abc'), deviceType, strict)).toEqual({ ok: true, transport: 'PROVIDER' });
    }
  });

  it('refuses garbage, and a malformed or disallowed PushSubscription is never handed to the provider', () => {
    for (const t of [
      '',
      ' ',
      'A'.repeat(4097),
      'tok en',
      'tok\nen',
      'tok\u0000en',
      'tök',
      '"quoted"',
      '[1,2]',
      '{',
      '{not json}',
      '{}',
      JSON.stringify({ endpoint: 'https://push.example/x' }),
      token('https://push.example/x', { p256dh: 'a b', auth: 'x' }),
      token('not a url'),
      token('http://push.example/x'),
      token('https://10.1.2.3/x'),
      token('https://catalog:8082/internal/tracks'),
    ]) {
      const check = classifyDeviceToken(t, 'WEB', strict);
      expect(check.ok, JSON.stringify(t)).toBe(false);
    }
    // With private endpoints allowed (tests, local stand-ins) a plain-http local endpoint passes; ftp never does.
    expect(classifyDeviceToken(token('http://127.0.0.1:9999/push'), 'WEB', { allowPrivate: true })).toEqual({ ok: true, transport: 'WEB_PUSH' });
    expect(classifyDeviceToken(token('ftp://127.0.0.1/push'), 'WEB', { allowPrivate: true }).ok).toBe(false);
  });
});
