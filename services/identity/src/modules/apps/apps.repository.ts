import { AppDeleted, AppGrantChanged, AppGrantRevoked, AppRegistered, AppSuspended, AppUpdated, writeOutbox, type AppSnapshot } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { hashSecret } from '../sessions/secrets.js';

export interface StoredApp {
  id: number;
  ownerId: number;
  clientId: string;
  name: string;
  redirectUris: string[];
  homepageUrl: string | null;
  confidential: boolean;
  secretHash: string | null;
  suspendedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What identity.app.* events carry of an app (notification's webhooks copy it). */
function appSnapshot(app: StoredApp): AppSnapshot {
  return {
    appId: app.id,
    clientId: app.clientId,
    ownerId: app.ownerId,
    name: app.name,
    suspended: app.suspendedAt !== null,
    version: app.updatedAt.toISOString(),
  };
}

/** Advisory-lock class of "one owner's app registrations" (two-key form, so no other lock collides). */
const APP_REGISTRATION_LOCK = 7_207_001;

/**
 * Apps, their grants (one per consent: the `sid` of its tokens), authorization codes and refresh
 * tokens. Codes and refresh tokens are stored as SHA-256 only; using one is a conditional update,
 * so of two concurrent uses only one wins and the other counts as a replay.
 */
/** What AppsService needs of this repository (unit tests give fakes). */
export type AppsStore = Pick<
  AppsRepository,
  | 'create'
  | 'listOfOwner'
  | 'find'
  | 'findByClientId'
  | 'update'
  | 'delete'
  | 'revokeGrants'
  | 'authorizedApps'
  | 'suspendedClientIds'
  | 'recentlyRevokedGrantIds'
  | 'pruneCodes'
>;

export class AppsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Creates the app unless the owner already has `max`; null when at the limit. */
  async create(data: Omit<StoredApp, 'id' | 'createdAt' | 'updatedAt' | 'suspendedAt'>, max: number): Promise<StoredApp | null> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${APP_REGISTRATION_LOCK}::int, ${data.ownerId}::int)`;
      const count = await tx.oAuthApp.count({ where: { ownerId: data.ownerId } });
      if (count >= max) return null;
      const app = await tx.oAuthApp.create({ data });
      await writeOutbox(tx, AppRegistered, appSnapshot(app));
      return app;
    });
  }

  listOfOwner(ownerId: number, page: number, size: number): Promise<[StoredApp[], number]> {
    return Promise.all([
      this.prisma.oAuthApp.findMany({ where: { ownerId }, orderBy: { id: 'asc' }, skip: page * size, take: size }),
      this.prisma.oAuthApp.count({ where: { ownerId } }),
    ]);
  }

  find(id: number): Promise<StoredApp | null> {
    return this.prisma.oAuthApp.findUnique({ where: { id } });
  }

  findByClientId(clientId: string): Promise<StoredApp | null> {
    return this.prisma.oAuthApp.findUnique({ where: { clientId } });
  }

  /** Announces a suspension change (AppSuspended) or a change of what others copy (AppUpdated); a secret rotation is not announced. */
  update(id: number, data: Partial<Pick<StoredApp, 'name' | 'redirectUris' | 'homepageUrl' | 'secretHash' | 'suspendedAt'>>): Promise<StoredApp> {
    return this.prisma.$transaction(async (tx) => {
      const app = await tx.oAuthApp.update({ where: { id }, data });
      if ('suspendedAt' in data) await writeOutbox(tx, AppSuspended, appSnapshot(app));
      else if ('name' in data || 'redirectUris' in data || 'homepageUrl' in data) await writeOutbox(tx, AppUpdated, appSnapshot(app));
      return app;
    });
  }

  async delete(id: number): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const app = await tx.oAuthApp.findUnique({ where: { id }, select: { id: true, ownerId: true } });
      const { count } = await tx.oAuthApp.deleteMany({ where: { id } });
      if (app && count > 0) await writeOutbox(tx, AppDeleted, { appId: app.id, ownerId: app.ownerId });
    });
  }

  suspendedClientIds(): Promise<string[]> {
    return this.prisma.oAuthApp.findMany({ where: { suspendedAt: { not: null } }, select: { clientId: true } }).then((rows) => rows.map((r) => r.clientId));
  }

  /** A new grant and its authorization code, in one transaction. */
  async createGrantWithCode(
    grant: { id: string; appId: number; userId: number; scope: string[] },
    code: { code: string; redirectUri: string; codeChallenge: string; codeChallengeMethod: string; expiresAt: Date },
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const created = await tx.oAuthGrant.create({ data: grant });
      await writeOutbox(tx, AppGrantChanged, {
        grantId: created.id,
        appId: created.appId,
        userId: created.userId,
        scopes: created.scope,
        at: created.createdAt.toISOString(),
      });
      await tx.oAuthCode.create({
        data: {
          codeHash: hashSecret(code.code),
          grantId: grant.id,
          redirectUri: code.redirectUri,
          codeChallenge: code.codeChallenge,
          codeChallengeMethod: code.codeChallengeMethod,
          expiresAt: code.expiresAt,
        },
      });
    });
  }

  findCode(code: string) {
    return this.prisma.oAuthCode.findUnique({
      where: { codeHash: hashSecret(code) },
      include: { grant: { include: { app: { select: { clientId: true, suspendedAt: true } } } } },
    });
  }

  /** Marks the code used; false when it already was (a replay). */
  async useCode(code: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.oAuthCode.updateMany({ where: { codeHash: hashSecret(code), usedAt: null }, data: { usedAt: now } });
    return count === 1;
  }

  findRefreshToken(token: string) {
    return this.prisma.oAuthRefreshToken.findUnique({
      where: { tokenHash: hashSecret(token) },
      include: { grant: { include: { app: { select: { clientId: true, suspendedAt: true } } } } },
    });
  }

  /** Marks the refresh token rotated; false when it already was (a reuse). */
  async rotateRefreshToken(token: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.oAuthRefreshToken.updateMany({ where: { tokenHash: hashSecret(token), rotatedAt: null }, data: { rotatedAt: now } });
    return count === 1;
  }

  /** Stores a refresh token of a live grant; false when the grant was revoked meanwhile. */
  async addRefreshToken(grantId: string, token: string, expiresAt: Date): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const live = await tx.oAuthGrant.findFirst({ where: { id: grantId, revokedAt: null }, select: { id: true } });
      if (!live) return false;
      await tx.oAuthRefreshToken.create({ data: { tokenHash: hashSecret(token), grantId, expiresAt } });
      return true;
    });
  }

  findGrant(id: string) {
    return this.prisma.oAuthGrant.findUnique({ where: { id }, include: { app: { select: { clientId: true, suspendedAt: true } } } });
  }

  /** Revokes grants (announcing each); answers the ids that were live until now. */
  async revokeGrants(where: { id: string } | { appId: number; userId?: number }, reason: string, now: Date): Promise<string[]> {
    const rows = await this.prisma.$transaction(async (tx) => {
      const ended = await tx.oAuthGrant.updateManyAndReturn({
        where: { ...where, revokedAt: null },
        data: { revokedAt: now, revokeReason: reason },
        select: { id: true, appId: true, userId: true },
      });
      for (const g of ended) await writeOutbox(tx, AppGrantRevoked, { grantId: g.id, appId: g.appId, userId: g.userId, reason, at: now.toISOString() });
      return ended;
    });
    return rows.map((r) => r.id);
  }

  /** Live grants of an app: their ids (for the gateway's revoked-session keys). */
  liveGrantIds(appId: number): Promise<string[]> {
    return this.prisma.oAuthGrant.findMany({ where: { appId, revokedAt: null }, select: { id: true } }).then((rows) => rows.map((r) => r.id));
  }

  /** Grants ended since `since`: their revoked keys are re-written by the periodic sync. */
  recentlyRevokedGrantIds(since: Date): Promise<string[]> {
    return this.prisma.oAuthGrant.findMany({ where: { revokedAt: { gte: since } }, select: { id: true } }).then((rows) => rows.map((r) => r.id));
  }

  /** APP-9: one entry per app the user has a live grant for, oldest consent first. */
  async authorizedApps(userId: number, page: number, size: number) {
    const where = { userId, revokedAt: null };
    const [groups, all] = await Promise.all([
      this.prisma.oAuthGrant.groupBy({ by: ['appId'], where, _min: { createdAt: true }, orderBy: { appId: 'asc' }, skip: page * size, take: size }),
      this.prisma.oAuthGrant.groupBy({ by: ['appId'], where }),
    ]);
    const appIds = groups.map((g) => g.appId);
    const [apps, grants] = appIds.length
      ? await Promise.all([
          this.prisma.oAuthApp.findMany({ where: { id: { in: appIds } } }),
          this.prisma.oAuthGrant.findMany({ where: { ...where, appId: { in: appIds } }, select: { appId: true, scope: true } }),
        ])
      : [[], []];
    const appById = new Map(apps.map((a) => [a.id, a]));
    const items = groups.flatMap((g) => {
      const app = appById.get(g.appId);
      if (!app) return [];
      const scopes = new Set(grants.filter((row) => row.appId === g.appId).flatMap((row) => row.scope));
      return [{ app, scopes, authorizedAt: g._min.createdAt ?? app.createdAt }];
    });
    return { items, total: all.length };
  }

  /** Drops used or expired codes older than `before` (their grants stay). */
  async pruneCodes(before: Date): Promise<number> {
    const { count } = await this.prisma.oAuthCode.deleteMany({ where: { expiresAt: { lt: before } } });
    return count;
  }
}
