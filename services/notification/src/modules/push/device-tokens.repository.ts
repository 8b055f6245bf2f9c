import { createHash } from 'node:crypto';
import type { DeviceType } from '@msp/contracts';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { PushTransport } from './push.providers.js';

/** Tokens can be longer than a btree entry allows: uniqueness is on their SHA-256. */
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface StoredDeviceToken {
  id: number;
  token: string;
  deviceType: DeviceType;
  transport: PushTransport;
}

/** The `device_tokens` table (R15: a token belongs to one user). */
export class DeviceTokensRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * One statement decides: a new token is inserted, another user's token moves to the caller, and
   * the caller's own token is left alone. False in that last case.
   */
  async register(userId: number, token: string, deviceType: DeviceType, transport: PushTransport): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<Array<{ id: number }>>`
      INSERT INTO device_tokens (token, token_hash, user_id, device_type, transport, created_at)
      VALUES (${token}, ${tokenHash(token)}, ${userId}, ${deviceType}::device_type, ${transport}::push_transport, now())
      ON CONFLICT (token_hash) DO UPDATE
        SET user_id = EXCLUDED.user_id, device_type = EXCLUDED.device_type, transport = EXCLUDED.transport, created_at = now()
      WHERE device_tokens.user_id <> EXCLUDED.user_id
      RETURNING id`;
    return rows.length > 0;
  }

  /** Only the caller's own token is removed; idempotent. */
  async unregister(userId: number, token: string): Promise<void> {
    await this.prisma.deviceToken.deleteMany({ where: { tokenHash: tokenHash(token), userId } });
  }

  forUser(userId: number): Promise<StoredDeviceToken[]> {
    return this.prisma.deviceToken.findMany({ where: { userId }, select: { id: true, token: true, deviceType: true, transport: true } });
  }

  /** A token the push service rejected; if it moved meanwhile, the new owner keeps it. */
  async removeRejected(id: number, userId: number): Promise<void> {
    await this.prisma.deviceToken.deleteMany({ where: { id, userId } });
  }
}
