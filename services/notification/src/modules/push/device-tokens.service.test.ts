import { describe, expect, it } from 'vitest';
import type { DeviceType } from '@msp/contracts';
import type { DeviceTokensRepository } from './device-tokens.repository.js';
import { DeviceTokensService } from './device-tokens.service.js';
import type { PushTransport } from './push.providers.js';

/** Tokens by value, each owned by one user (R15). */
function fakeTokens() {
  const owners = new Map<string, { userId: number; transport: PushTransport }>();
  const tokens: Pick<DeviceTokensRepository, 'register' | 'unregister'> = {
    register: (userId, token, _deviceType: DeviceType, transport) => {
      if (owners.get(token)?.userId === userId) return Promise.resolve(false);
      owners.set(token, { userId, transport });
      return Promise.resolve(true);
    },
    unregister: (userId, token) => {
      if (owners.get(token)?.userId === userId) owners.delete(token);
      return Promise.resolve();
    },
  };
  return { tokens, owners };
}

const publicOnly = { allowPrivate: false };
const subscription = (endpoint: string) => JSON.stringify({ endpoint, keys: { p256dh: 'BNcR-abc_123', auth: 'tBHI-tz' } });

describe('NOT-7 register a device token (R15)', () => {
  it('registers a provider token, and answers DEVICE_TOKEN_EXISTS when the caller registers it again', async () => {
    const { tokens, owners } = fakeTokens();
    const service = new DeviceTokensService(tokens, publicOnly);
    await expect(service.register(1, 'fcm-token', 'MOBILE')).resolves.toEqual({ message: 'Device token registered.' });
    expect(owners.get('fcm-token')).toEqual({ userId: 1, transport: 'PROVIDER' });
    await expect(service.register(1, 'fcm-token', 'MOBILE')).rejects.toMatchObject({ code: 'DEVICE_TOKEN_EXISTS' });
  });

  it("moves another user's token to the caller", async () => {
    const { tokens, owners } = fakeTokens();
    const service = new DeviceTokensService(tokens, publicOnly);
    await service.register(1, 'shared-device', 'TABLET');
    await service.register(2, 'shared-device', 'TABLET');
    expect(owners.get('shared-device')?.userId).toBe(2);
  });

  it('sends a WEB PushSubscription to Web Push, and refuses one with a private endpoint (field token)', async () => {
    const { tokens, owners } = fakeTokens();
    const service = new DeviceTokensService(tokens, publicOnly);
    const good = subscription('https://fcm.googleapis.com/fcm/send/abc');
    await service.register(1, good, 'WEB');
    expect(owners.get(good)?.transport).toBe('WEB_PUSH');
    await expect(service.register(1, subscription('https://127.0.0.1/push'), 'WEB')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'token' }],
    });
    await expect(service.register(1, '{"endpoint": 1}', 'WEB')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(owners.size).toBe(1);
  });

  it('accepts a private endpoint when the policy allows it (local development)', async () => {
    const { tokens, owners } = fakeTokens();
    await new DeviceTokensService(tokens, { allowPrivate: true }).register(1, subscription('http://localhost:9000/push'), 'WEB');
    expect(owners.size).toBe(1);
  });
});

describe('NOT-8 unregister a device token', () => {
  it("removes only the caller's own token, and is idempotent", async () => {
    const { tokens, owners } = fakeTokens();
    const service = new DeviceTokensService(tokens, publicOnly);
    await service.register(1, 'mine', 'MOBILE');
    await service.register(2, 'theirs', 'MOBILE');
    await service.unregister(1, 'theirs');
    await service.unregister(1, 'mine');
    await service.unregister(1, 'mine');
    expect([...owners.keys()]).toEqual(['theirs']);
  });
});
