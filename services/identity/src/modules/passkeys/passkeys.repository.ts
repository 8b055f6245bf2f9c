import type { PrismaClient } from '../../generated/prisma/client.js';

export interface PasskeyRow {
  id: number;
  userId: number;
  credentialId: string;
  publicKey: Uint8Array;
  counter: bigint;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface PasskeyView {
  id: number;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const viewSelect = { id: true, name: true, createdAt: true, lastUsedAt: true } as const;
/** An account may hold this many passkeys (one per device or password manager is plenty). */
export const MAX_PASSKEYS_PER_ACCOUNT = 20;

/** WebAuthn credentials (MFA-6…MFA-12); credential ids are unique across accounts. */
/** What PasskeysService needs of this repository (unit tests give fakes). */
export type PasskeysStore = Pick<PasskeysRepository, 'list' | 'credentialsOf' | 'count' | 'byCredentialId' | 'create' | 'used' | 'rename' | 'remove'>;

export class PasskeysRepository {
  constructor(private readonly prisma: PrismaClient) {}

  list(userId: number): Promise<PasskeyView[]> {
    return this.prisma.passkey.findMany({ where: { userId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: viewSelect });
  }

  credentialsOf(userId: number): Promise<Array<{ credentialId: string; transports: string[] }>> {
    return this.prisma.passkey.findMany({ where: { userId }, orderBy: { createdAt: 'asc' }, select: { credentialId: true, transports: true } });
  }

  count(userId: number): Promise<number> {
    return this.prisma.passkey.count({ where: { userId } });
  }

  byCredentialId(credentialId: string): Promise<PasskeyRow | null> {
    return this.prisma.passkey.findUnique({ where: { credentialId } });
  }

  create(data: { userId: number; credentialId: string; publicKey: Uint8Array; counter: number; transports: string[]; name: string }): Promise<PasskeyView> {
    return this.prisma.passkey.create({
      data: { ...data, publicKey: Buffer.from(data.publicKey), counter: BigInt(data.counter) },
      select: viewSelect,
    });
  }

  /** After a verified assertion: the authenticator's new signature counter and the time of use. */
  async used(id: number, counter: number): Promise<void> {
    await this.prisma.passkey.update({ where: { id }, data: { counter: BigInt(counter), lastUsedAt: new Date() }, select: { id: true } });
  }

  async rename(userId: number, id: number, name: string): Promise<PasskeyView | null> {
    const changed = await this.prisma.passkey.updateMany({ where: { id, userId }, data: { name } });
    if (changed.count === 0) return null;
    return this.prisma.passkey.findUnique({ where: { id }, select: viewSelect });
  }

  async remove(userId: number, id: number): Promise<boolean> {
    const removed = await this.prisma.passkey.deleteMany({ where: { id, userId } });
    return removed.count === 1;
  }
}
