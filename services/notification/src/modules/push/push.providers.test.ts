import { describe, expect, it } from 'vitest';
import { parseWebSubscription } from './push.providers.js';

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
