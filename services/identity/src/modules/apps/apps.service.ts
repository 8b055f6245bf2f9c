import { timingSafeEqual } from 'node:crypto';
import {
  APP_SCOPES,
  APP_USAGE_RETENTION_DAYS,
  toPage,
  usageDay,
  type AppScope,
  type AppUsage,
  type AppView,
  type AuthorizedApp,
  type CreateAppBody,
  type Page,
  type UpdateAppBody,
} from '@msp/contracts';
import { AppError } from '@msp/errors';
import type { Logger } from '@msp/runtime';
import type { RevocationStore } from '../sessions/redis-store.js';
import { hashSecret, randomSecret } from '../sessions/secrets.js';
import type { AppStatusStore } from './app-status.store.js';
import type { AppUsageRepository } from './app-usage.repository.js';
import type { AppsStore, StoredApp } from './apps.repository.js';

/** How many apps one account may register. */
export const MAX_APPS_PER_USER = 10;
/** How many top operations APP-17 lists. */
export const TOP_ROUTES = 10;
const DAY_MS = 86_400_000;
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);

/**
 * APP-17's range: inclusive UTC days, at most APP_USAGE_RETENTION_DAYS of them, none before the
 * oldest day still kept nor after today. Field errors name what to change.
 */
export function usageRange(query: { from?: string; to?: string }, now = Date.now()): string[] {
  const today = usageDay(now);
  const oldest = usageDay(dayMs(today) - (APP_USAGE_RETENTION_DAYS - 1) * DAY_MS);
  const to = query.to ?? today;
  const from = query.from ?? usageDay(Math.max(dayMs(to) - 29 * DAY_MS, dayMs(oldest)));
  const errors: { field: string; message: string }[] = [];
  if (to > today) errors.push({ field: 'to', message: `must not be after today (${today}, UTC)` });
  if (to < oldest) errors.push({ field: 'to', message: `usage is kept ${APP_USAGE_RETENTION_DAYS} days: must be ${oldest} or later` });
  else if (from > to) errors.push({ field: 'from', message: 'must not be after to' });
  if (from < oldest) errors.push({ field: 'from', message: `usage is kept ${APP_USAGE_RETENTION_DAYS} days: must be ${oldest} or later` });
  if (errors.length > 0) throw AppError.validation(errors, 'The date range is not valid.');
  const days: string[] = [];
  for (let at = dayMs(from); at <= dayMs(to); at += DAY_MS) days.push(usageDay(at));
  return days;
}

function view(app: StoredApp): AppView {
  return {
    id: app.id,
    clientId: app.clientId,
    name: app.name,
    redirectUris: app.redirectUris,
    homepageUrl: app.homepageUrl,
    confidential: app.confidential,
    isSuspended: app.suspendedAt !== null,
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
  };
}

const newClientId = () => `app_${randomSecret(18)}`;
const newClientSecret = () => `secret_${randomSecret(32)}`;

/** Compares a presented client secret with the stored hash in constant time. */
export function secretMatches(app: Pick<StoredApp, 'secretHash'>, presented: string | null | undefined): boolean {
  if (!app.secretHash || !presented) return false;
  const a = Buffer.from(hashSecret(presented));
  const b = Buffer.from(app.secretHash);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * APP-1…APP-10: the app registry (at most MAX_APPS_PER_USER per user), admin suspension, and the
 * user's view of the apps they authorized. Every way a grant ends (revocation, app deleted) writes
 * the gateway's revoked-session key of the grant, exactly as a logout does for a session, so its
 * access tokens stop at once; a suspension writes the app's status key instead (reversible).
 */
export class AppsService {
  constructor(
    private readonly repo: AppsStore,
    private readonly revocation: Pick<RevocationStore, 'revokeSessions'>,
    private readonly status: Pick<AppStatusStore, 'set' | 'sync'>,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
    private readonly usageRows?: Pick<AppUsageRepository, 'days'>,
  ) {}

  /**
   * APP-17: the app's requests and 429s per UTC day as the gateway counted them, and its most
   * called operations over the range (owner only).
   */
  async usage(ownerId: number, id: number, query: { from?: string; to?: string }): Promise<AppUsage> {
    const app = await this.owned(ownerId, id);
    const range = usageRange(query);
    const days = this.usageRows
      ? await this.usageRows.days(app.clientId, range)
      : range.map((day) => ({ day, requests: 0, limited: 0, operations: new Map<string, number>() }));
    const operations = new Map<string, number>();
    for (const day of days) for (const [operationId, count] of day.operations) operations.set(operationId, (operations.get(operationId) ?? 0) + count);
    return {
      appId: app.id,
      clientId: app.clientId,
      from: range[0]!,
      to: range[range.length - 1]!,
      totals: { requests: days.reduce((sum, d) => sum + d.requests, 0), rateLimited: days.reduce((sum, d) => sum + d.limited, 0) },
      days: days.map((d) => ({ date: d.day, requests: d.requests, rateLimited: d.limited })),
      topRoutes: [...operations]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, TOP_ROUTES)
        .map(([operationId, requests]) => ({ operationId, requests })),
    };
  }

  async create(ownerId: number, body: CreateAppBody): Promise<AppView & { clientSecret: string | null }> {
    const clientSecret = body.confidential ? newClientSecret() : null;
    const app = await this.repo.create(
      {
        ownerId,
        clientId: newClientId(),
        name: body.name,
        redirectUris: [...new Set(body.redirectUris)],
        homepageUrl: body.homepageUrl ?? null,
        confidential: body.confidential,
        secretHash: clientSecret ? hashSecret(clientSecret) : null,
      },
      MAX_APPS_PER_USER,
    );
    if (!app) throw new AppError('FORBIDDEN', `An account can register at most ${MAX_APPS_PER_USER} apps.`);
    return { ...view(app), clientSecret };
  }

  async list(ownerId: number, page: number, size: number): Promise<Page<AppView>> {
    const [apps, total] = await this.repo.listOfOwner(ownerId, page, size);
    return toPage(apps.map(view), total, page, size);
  }

  /** The caller's own app; another user's is as absent as a missing one. */
  private async owned(ownerId: number, id: number): Promise<StoredApp> {
    const app = await this.repo.find(id);
    if (!app || app.ownerId !== ownerId) throw new AppError('RESOURCE_NOT_FOUND', 'No such app.');
    return app;
  }

  async get(ownerId: number, id: number): Promise<AppView> {
    return view(await this.owned(ownerId, id));
  }

  async update(ownerId: number, id: number, body: UpdateAppBody): Promise<AppView> {
    await this.owned(ownerId, id);
    const app = await this.repo.update(id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.redirectUris !== undefined ? { redirectUris: [...new Set(body.redirectUris)] } : {}),
      ...(body.homepageUrl !== undefined ? { homepageUrl: body.homepageUrl } : {}),
    });
    return view(app);
  }

  /** APP-5: every grant ends first (tokens stop at the gateway), then the app goes. */
  async delete(ownerId: number, id: number): Promise<void> {
    const app = await this.owned(ownerId, id);
    const ids = await this.repo.revokeGrants({ appId: app.id }, 'app-deleted', new Date());
    await this.writeRevoked(ids);
    await this.repo.delete(app.id);
    // A stale suspension key of a deleted app blocks nothing (its grants are gone); the sync only writes keys of suspended apps.
    if (app.suspendedAt) await this.status.set(app.clientId, false).catch((err) => this.logger.warn({ err }, 'suspension key of a deleted app not removed'));
  }

  /** APP-6: a new secret; the old one stops working at once. */
  async rotateSecret(ownerId: number, id: number): Promise<{ clientId: string; clientSecret: string }> {
    const app = await this.owned(ownerId, id);
    if (!app.confidential) throw new AppError('VALIDATION_FAILED', 'A public app has no client secret.');
    const clientSecret = newClientSecret();
    await this.repo.update(app.id, { secretHash: hashSecret(clientSecret) });
    return { clientId: app.clientId, clientSecret };
  }

  /** APP-7 / APP-8: the database first (token endpoint refuses the app), then the gateway's key. */
  async setSuspended(id: number, suspended: boolean): Promise<AppView> {
    const app = await this.repo.find(id);
    if (!app) throw new AppError('RESOURCE_NOT_FOUND', 'No such app.');
    const updated = await this.repo.update(id, { suspendedAt: suspended ? (app.suspendedAt ?? new Date()) : null });
    try {
      await this.status.set(app.clientId, suspended);
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The app could not be updated right now; try again.', { cause: err, headers: { 'retry-after': '5' } });
    }
    return view(updated);
  }

  async authorizedApps(userId: number, page: number, size: number): Promise<Page<AuthorizedApp>> {
    const { items, total } = await this.repo.authorizedApps(userId, page, size);
    return toPage(
      items.map(({ app, scopes, authorizedAt }) => ({
        clientId: app.clientId,
        name: app.name,
        homepageUrl: app.homepageUrl,
        scopes: APP_SCOPES.filter((s): s is AppScope => scopes.has(s)),
        authorizedAt: authorizedAt.toISOString(),
        isSuspended: app.suspendedAt !== null,
      })),
      total,
      page,
      size,
    );
  }

  /** APP-10: every grant of the user to the app ends; its tokens stop within the gateway's next request. */
  async revokeAuthorization(userId: number, clientId: string): Promise<void> {
    const app = await this.repo.findByClientId(clientId);
    if (!app) throw new AppError('RESOURCE_NOT_FOUND', 'No such app.');
    const ids = await this.repo.revokeGrants({ appId: app.id, userId }, 'user-revoked', new Date());
    await this.writeRevoked(ids);
  }

  /** The gateway's revoked-session keys of ended grants (the grant id is the tokens' `sid`). */
  async writeRevoked(grantIds: string[]): Promise<void> {
    try {
      await this.revocation.revokeSessions(grantIds);
    } catch (err) {
      this.logger.error({ err, grants: grantIds.length }, 'revoked-grant keys not written');
      throw new AppError('SERVICE_UNAVAILABLE', 'Tokens could not be revoked right now; try again.', { cause: err, headers: { 'retry-after': '5' } });
    }
  }

  /**
   * Startup and periodic (after a Redis restart, or a key write that failed): the suspension keys
   * of every suspended app and the revoked keys of grants ended within the token lifetime; codes
   * expired a day ago are dropped.
   */
  async sync(accessTtlSeconds: number): Promise<void> {
    const now = Date.now();
    const [suspended, revoked] = await Promise.all([
      this.repo.suspendedClientIds(),
      this.repo.recentlyRevokedGrantIds(new Date(now - (accessTtlSeconds + 60) * 1000)),
    ]);
    await this.status.sync(suspended);
    await this.revocation.revokeSessions(revoked);
    await this.repo.pruneCodes(new Date(now - 86_400_000));
  }
}

/** Runs `AppsService.sync` now and every `periodMs` (as the session revocation sync does). */
export function startAppsSync(apps: AppsService, accessTtlSeconds: number, periodMs: number, logger: Logger) {
  let running: Promise<void> | null = null;
  const tick = () => {
    running = apps
      .sync(accessTtlSeconds)
      .catch((err) => logger.warn({ err }, 'app key sync failed'))
      .finally(() => {
        running = null;
      });
  };
  tick();
  const timer = setInterval(tick, periodMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
