import { createHash } from 'node:crypto';
import { AppError } from '@msp/errors';
import type { DeviceType, MessageResponse } from '@msp/contracts';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { parseWebSubscription, type EndpointPolicy } from './push.providers.js';

/** Tokens can be longer than a btree entry allows: uniqueness is on their SHA-256. */
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** NOT-7 / NOT-8 (R15: a token belongs to one user; registering it for another moves it). */
export class DeviceTokensService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly endpoints: EndpointPolicy,
  ) {}

  async register(userId: number, token: string, deviceType: DeviceType): Promise<MessageResponse> {
    if (deviceType === 'WEB' && !parseWebSubscription(token, this.endpoints)) {
      throw AppError.validation([{ field: 'token', message: 'A WEB token is the JSON of a PushSubscription (an https endpoint of a push service, keys.p256dh, keys.auth).' }]);
    }
    // One statement decides: a new token is inserted, another user's token moves to the caller,
    // and the caller's own token is left alone (no row returned → 409).
    const rows = await this.prisma.$queryRaw<Array<{ id: number }>>`
      INSERT INTO device_tokens (token, token_hash, user_id, device_type, created_at)
      VALUES (${token}, ${tokenHash(token)}, ${userId}, ${deviceType}::device_type, now())
      ON CONFLICT (token_hash) DO UPDATE SET user_id = EXCLUDED.user_id, device_type = EXCLUDED.device_type, created_at = now()
      WHERE device_tokens.user_id <> EXCLUDED.user_id
      RETURNING id`;
    if (rows.length === 0) throw new AppError('DEVICE_TOKEN_EXISTS', 'This device token is already registered to you.');
    return { message: 'Device token registered.' };
  }

  /** Idempotent; only the caller's own token is removed. */
  async unregister(userId: number, token: string): Promise<void> {
    await this.prisma.deviceToken.deleteMany({ where: { tokenHash: tokenHash(token), userId } });
  }
}
