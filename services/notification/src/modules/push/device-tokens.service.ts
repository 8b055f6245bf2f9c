import { AppError } from '@msp/errors';
import type { DeviceType, MessageResponse } from '@msp/contracts';
import type { DeviceTokensRepository } from './device-tokens.repository.js';
import { classifyDeviceToken, type EndpointPolicy } from './push.providers.js';

/** NOT-7 / NOT-8 (R15: a token belongs to one user; registering it for another moves it). */
export class DeviceTokensService {
  constructor(
    private readonly tokens: Pick<DeviceTokensRepository, 'register' | 'unregister'>,
    private readonly endpoints: EndpointPolicy,
  ) {}

  async register(userId: number, token: string, deviceType: DeviceType): Promise<MessageResponse> {
    // WEB: a PushSubscription's JSON goes to Web Push, any other token to the push provider.
    const check = classifyDeviceToken(token, deviceType, this.endpoints);
    if (!check.ok) throw AppError.validation([{ field: 'token', message: check.message }]);
    if (!(await this.tokens.register(userId, token, deviceType, check.transport))) {
      throw new AppError('DEVICE_TOKEN_EXISTS', 'This device token is already registered to you.');
    }
    return { message: 'Device token registered.' };
  }

  /** Idempotent; only the caller's own token is removed. */
  async unregister(userId: number, token: string): Promise<void> {
    await this.tokens.unregister(userId, token);
  }
}
