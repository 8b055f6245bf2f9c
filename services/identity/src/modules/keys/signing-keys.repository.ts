import { sql } from '@msp/db';
import type { JWK } from 'jose';
import type { PrismaClient } from '../../generated/prisma/client.js';

/** Any fixed number: serialises key creation across identity replicas. */
const KEY_LOCK = 72_716_101;

export interface StoredSigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** What SigningKeyService needs of this repository (unit tests give fakes). */
export type SigningKeysStore = Pick<SigningKeysRepository, 'ensureActive' | 'add' | 'retire' | 'active'>;

/** The RSA signing keys, kept in identity's database so that every replica signs with the same key. */
export class SigningKeysRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Stores `create()`'s key unless an active one exists; replicas starting together create one. */
  async ensureActive(create: () => Promise<StoredSigningKey>): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw(sql`SELECT pg_advisory_xact_lock(${KEY_LOCK})`);
      const active = await tx.signingKey.count({ where: { retiredAt: null } });
      if (active > 0) return;
      await tx.signingKey.create({ data: { ...(await create()) } });
    });
  }

  async add(key: StoredSigningKey): Promise<void> {
    await this.prisma.signingKey.create({ data: { ...key } });
  }

  async retire(kid: string): Promise<void> {
    await this.prisma.signingKey.update({ where: { kid }, data: { retiredAt: new Date() } });
  }

  /** Unretired keys, newest first. */
  async active(): Promise<StoredSigningKey[]> {
    const rows = await this.prisma.signingKey.findMany({
      where: { retiredAt: null },
      orderBy: { createdAt: 'desc' },
      select: { kid: true, privateJwk: true, publicJwk: true },
    });
    return rows.map((r) => ({ kid: r.kid, privateJwk: r.privateJwk as JWK, publicJwk: r.publicJwk as JWK }));
  }
}
