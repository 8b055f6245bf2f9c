import { randomUUID } from 'node:crypto';
import { sql } from '@msp/db';
import { writeOutbox, WebhookEndpointDisabled, type AppSnapshot } from '@msp/events';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

type Tx = Prisma.TransactionClient;

/** The channel the dispatcher LISTENs on: a commit that queued deliveries wakes it at once. */
export const WEBHOOK_CHANNEL = 'msp_webhooks';

export interface EndpointRow {
  id: number;
  appId: number;
  ownerId: number;
  url: string;
  events: string[];
  secret: string;
  status: string;
  failingSince: Date | null;
  disabledAt: Date | null;
  createdAt: Date;
}

export interface DeliveryRow {
  id: string;
  endpointId: number;
  eventId: string;
  eventType: string;
  resourceKey: string;
  body: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date;
  responseCode: number | null;
  latencyMs: number | null;
  lastError: string | null;
  redeliveryOf: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** A claimed delivery with what the dispatcher needs to send it. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: number;
  body: string;
  attempts: number;
  created_at: Date;
  url: string;
  secret: string;
  failing_since: Date | null;
}

/** A 2xx answer to record. */
export interface DeliveredOutcome {
  id: string;
  endpointId: number;
  responseCode: number;
  latencyMs: number;
}

/** A failed attempt to record: retried at `retryAt`, or FAILED for good when null. */
export interface FailedOutcome {
  id: string;
  endpointId: number;
  retryAt: Date | null;
  responseCode: number | null;
  latencyMs: number;
  error: string;
}

/** What one event fans out as, to every endpoint that may see it. */
export interface Fanout {
  eventId: string;
  type: string;
  occurredAt: string;
  /** Whose resource the event is about: the app's owner, or a user who granted the app `webhooks`. */
  subjectUserId: number;
  /** Scopes the subject's grant must hold besides `webhooks` (`messages` for message.received). */
  extraScopes: string[];
  /** Only the app owner's own resources (subscription.changed). */
  ownerOnly: boolean;
  resourceKey: string;
  body: string;
}

/** Copies of identity's apps and grants, written by the webhook projection consumer (tx of the event). */
export const webhookProjection = {
  async upsertApp(tx: Tx, s: AppSnapshot): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO webhook_apps (app_id, owner_id, name, suspended, version)
      VALUES (${s.appId}, ${s.ownerId}, ${s.name}, ${s.suspended}, ${new Date(s.version)})
      ON CONFLICT (app_id) DO UPDATE SET owner_id = EXCLUDED.owner_id, name = EXCLUDED.name, suspended = EXCLUDED.suspended, version = EXCLUDED.version
      WHERE webhook_apps.version <= EXCLUDED.version AND NOT webhook_apps.deleted`;
  },

  /** Final: the app's endpoints (and their logs) go with it. */
  async deleteApp(tx: Tx, appId: number, ownerId: number): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO webhook_apps (app_id, owner_id, name, deleted, version) VALUES (${appId}, ${ownerId}, '', true, now())
      ON CONFLICT (app_id) DO UPDATE SET deleted = true`;
    await tx.$executeRaw`DELETE FROM webhook_endpoints WHERE app_id = ${appId}`;
  },

  /** A grant only ever ends: a revocation seen first stays revoked. */
  async grantChanged(tx: Tx, g: { grantId: string; appId: number; userId: number; scopes: string[] }): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO webhook_grants (grant_id, app_id, user_id, scopes) VALUES (${g.grantId}, ${g.appId}, ${g.userId}, ${g.scopes})
      ON CONFLICT (grant_id) DO UPDATE SET scopes = EXCLUDED.scopes`;
  },

  async grantRevoked(tx: Tx, g: { grantId: string; appId: number; userId: number }): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO webhook_grants (grant_id, app_id, user_id, scopes, revoked) VALUES (${g.grantId}, ${g.appId}, ${g.userId}, ${[]}, true)
      ON CONFLICT (grant_id) DO UPDATE SET revoked = true`;
  },

  /**
   * One delivery per endpoint that subscribed to the type, is active, of a live app, created before
   * the event, and may see the subject's resources; the commit wakes the dispatcher.
   */
  async fanout(tx: Tx, f: Fanout): Promise<number> {
    const inserted = await tx.$executeRaw`
      INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, resource_key, body)
      SELECT gen_random_uuid(), e.id, ${f.eventId}::uuid, ${f.type}, ${f.resourceKey}, ${f.body}
        FROM webhook_endpoints e JOIN webhook_apps a ON a.app_id = e.app_id
       WHERE e.status = 'ACTIVE' AND ${f.type} = ANY(e.events) AND e.created_at <= ${new Date(f.occurredAt)}
         AND NOT a.suspended AND NOT a.deleted
         AND (a.owner_id = ${f.subjectUserId}
              OR (NOT ${f.ownerOnly} AND EXISTS (
                SELECT 1 FROM webhook_grants g
                 WHERE g.app_id = e.app_id AND g.user_id = ${f.subjectUserId} AND NOT g.revoked
                   AND g.scopes @> ${['webhooks', ...f.extraScopes]}::text[])))
       ORDER BY e.id
      ON CONFLICT (endpoint_id, event_id) WHERE redelivery_of IS NULL DO NOTHING`;
    if (inserted > 0) await tx.$executeRaw(sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, '')`);
    return inserted;
  },

  /**
   * `fanout` for many events in one statement (the fan-out consumers' batches): the rows are
   * created in the order of `events` (then endpoint), so `seq` keeps the order per resource.
   */
  async fanoutMany(tx: Tx, events: Fanout[]): Promise<number> {
    if (events.length === 0) return 0;
    const col = <K extends keyof Fanout>(k: K) => events.map((f) => f[k]);
    const inserted = await tx.$executeRaw`
      INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, resource_key, body)
      SELECT gen_random_uuid(), e.id, f.event_id, f.type, f.resource_key, f.body
        FROM unnest(${col('eventId')}::uuid[], ${col('type')}::text[], ${events.map((f) => new Date(f.occurredAt))}::timestamptz[],
                    ${col('subjectUserId')}::int[], ${events.map((f) => ['webhooks', ...f.extraScopes].join(','))}::text[],
                    ${col('ownerOnly')}::boolean[], ${col('resourceKey')}::text[], ${col('body')}::text[])
             WITH ORDINALITY AS f(event_id, type, occurred_at, subject_id, scopes, owner_only, resource_key, body, ord)
        JOIN webhook_endpoints e ON e.status = 'ACTIVE' AND f.type = ANY(e.events) AND e.created_at <= f.occurred_at
        JOIN webhook_apps a ON a.app_id = e.app_id
       WHERE NOT a.suspended AND NOT a.deleted
         AND (a.owner_id = f.subject_id
              OR (NOT f.owner_only AND EXISTS (
                SELECT 1 FROM webhook_grants g
                 WHERE g.app_id = e.app_id AND g.user_id = f.subject_id AND NOT g.revoked
                   AND g.scopes @> string_to_array(f.scopes, ','))))
       ORDER BY f.ord, e.id
      ON CONFLICT (endpoint_id, event_id) WHERE redelivery_of IS NULL DO NOTHING`;
    if (inserted > 0) await tx.$executeRaw(sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, '')`);
    return inserted;
  },
};

const endpointSelect = {
  id: true,
  appId: true,
  ownerId: true,
  url: true,
  events: true,
  secret: true,
  status: true,
  failingSince: true,
  disabledAt: true,
  createdAt: true,
} as const;

const deliverySelect = {
  id: true,
  endpointId: true,
  eventId: true,
  eventType: true,
  resourceKey: true,
  body: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  responseCode: true,
  latencyMs: true,
  lastError: true,
  redeliveryOf: true,
  createdAt: true,
  deliveredAt: true,
} as const;

/**
 * The dispatcher's claims and outcomes commit without waiting for the WAL flush: a commit lost in a
 * database crash only means a delivery sent again (at least once), never one lost; the fan-out
 * (which acknowledges events) keeps synchronous commits.
 */
const asyncCommit = (prisma: PrismaClient) => prisma.$executeRaw`SET LOCAL synchronous_commit = off`;

/** Endpoints and deliveries (APP-18…22) and the dispatcher's claims. */
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  findApp(appId: number) {
    return this.prisma.webhookApp.findUnique({ where: { appId } });
  }

  /** Creates the endpoint unless the app already has `max`; null when at the limit. */
  async createEndpoint(data: { appId: number; ownerId: number; url: string; events: string[]; secret: string }, max: number): Promise<EndpointRow | null> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(7207018, ${data.appId}::int)`;
      if ((await tx.webhookEndpoint.count({ where: { appId: data.appId } })) >= max) return null;
      return tx.webhookEndpoint.create({ data, select: endpointSelect });
    });
  }

  listEndpoints(appId: number, page: number, size: number): Promise<[EndpointRow[], number]> {
    return Promise.all([
      this.prisma.webhookEndpoint.findMany({ where: { appId }, orderBy: { id: 'asc' }, skip: page * size, take: size, select: endpointSelect }),
      this.prisma.webhookEndpoint.count({ where: { appId } }),
    ]);
  }

  findEndpoint(appId: number, id: number): Promise<EndpointRow | null> {
    return this.prisma.webhookEndpoint.findFirst({ where: { id, appId }, select: endpointSelect });
  }

  async deleteEndpoint(id: number): Promise<void> {
    await this.prisma.webhookEndpoint.deleteMany({ where: { id } });
  }

  listDeliveries(endpointId: number, since: Date, page: number, size: number): Promise<[DeliveryRow[], number]> {
    const where = { endpointId, createdAt: { gte: since } };
    return Promise.all([
      this.prisma.webhookDelivery.findMany({ where, orderBy: { seq: 'desc' }, skip: page * size, take: size, select: deliverySelect }),
      this.prisma.webhookDelivery.count({ where }),
    ]);
  }

  findDelivery(endpointId: number, id: string): Promise<DeliveryRow | null> {
    return this.prisma.webhookDelivery.findFirst({ where: { id, endpointId }, select: deliverySelect });
  }

  /** APP-22: a new delivery of the same body (same event `id`), queued behind the resource's pending ones. */
  async redeliver(d: DeliveryRow): Promise<DeliveryRow> {
    return this.prisma.$transaction(async (tx) => {
      const created = await tx.webhookDelivery.create({
        data: {
          id: randomUUID(),
          endpointId: d.endpointId,
          eventId: d.eventId,
          eventType: d.eventType,
          resourceKey: d.resourceKey,
          body: d.body,
          redeliveryOf: d.redeliveryOf ?? d.id,
        },
        select: deliverySelect,
      });
      await tx.$executeRaw(sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, '')`);
      return created;
    });
  }

  /**
   * Claims up to `limit` due deliveries (lease `leaseSeconds`), each the oldest pending one of its
   * endpoint and resource, so a resource's deliveries go out one at a time and in order.
   */
  async claim(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    const [, claimed] = await this.prisma.$transaction([
      asyncCommit(this.prisma),
      this.prisma.$queryRaw<ClaimedDelivery[]>`
      UPDATE webhook_deliveries d
         SET locked_until = now() + make_interval(secs => ${leaseSeconds}), attempts = d.attempts + 1
        FROM webhook_endpoints e
       WHERE e.id = d.endpoint_id AND d.id IN (
         SELECT p.id FROM webhook_deliveries p
          WHERE p.status = 'PENDING' AND p.next_attempt_at <= now() AND (p.locked_until IS NULL OR p.locked_until < now())
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
                             WHERE o.status = 'PENDING' AND o.endpoint_id = p.endpoint_id AND o.resource_key = p.resource_key AND o.seq < p.seq)
          ORDER BY p.next_attempt_at, p.seq
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
      RETURNING d.id, d.endpoint_id, d.body, d.attempts, d.created_at, e.url, e.secret, e.failing_since`,
    ]);
    return claimed;
  }

  /**
   * The outcomes of a batch of attempts, in one transaction and one statement per kind: 2xx answers
   * DELIVERED (their endpoints healthy again), failures retried at `retryAt` or FAILED when null
   * (their endpoints failing from now unless already). Answers, for each endpoint with a failure,
   * since when it has been failing (its first failure after the last success).
   */
  async recordOutcomes(delivered: DeliveredOutcome[], failed: FailedOutcome[]): Promise<Map<number, Date>> {
    if (delivered.length === 0 && failed.length === 0) return new Map();
    // One batch transaction (the statements go together, no round trip between them).
    const statements: Prisma.PrismaPromise<unknown>[] = [asyncCommit(this.prisma)];
    if (delivered.length > 0) {
      statements.push(
        this.prisma.$executeRaw`
          UPDATE webhook_deliveries d
             SET status = 'DELIVERED', response_code = v.code, latency_ms = v.lat, last_error = NULL, locked_until = NULL, delivered_at = now()
            FROM unnest(${delivered.map((r) => r.id)}::uuid[], ${delivered.map((r) => r.responseCode)}::int[], ${delivered.map((r) => r.latencyMs)}::int[])
                 AS v(id, code, lat)
           WHERE d.id = v.id`,
        this.prisma.$executeRaw`UPDATE webhook_endpoints SET failing_since = NULL
                                 WHERE id = ANY(${[...new Set(delivered.map((r) => r.endpointId))]}::int[]) AND failing_since IS NOT NULL`,
      );
    }
    if (failed.length > 0) {
      statements.push(
        this.prisma.$executeRaw`
          UPDATE webhook_deliveries d
             SET status = CASE WHEN v.retry_at IS NULL THEN 'FAILED' ELSE 'PENDING' END,
                 next_attempt_at = COALESCE(v.retry_at, d.next_attempt_at), locked_until = NULL,
                 response_code = v.code, latency_ms = v.lat, last_error = v.err
            FROM unnest(${failed.map((r) => r.id)}::uuid[], ${failed.map((r) => r.retryAt?.toISOString() ?? null)}::timestamptz[],
                        ${failed.map((r) => r.responseCode)}::int[], ${failed.map((r) => r.latencyMs)}::int[], ${failed.map((r) => r.error.slice(0, 500))}::text[])
                 AS v(id, retry_at, code, lat, err)
           WHERE d.id = v.id`,
        this.prisma.$queryRaw<{ id: number; failing_since: Date }[]>`
          UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now())
           WHERE id = ANY(${[...new Set(failed.map((f) => f.endpointId))]}::int[])
          RETURNING id, failing_since`,
      );
    }
    const results = await this.prisma.$transaction(statements);
    if (failed.length === 0) return new Map();
    const rows = results[results.length - 1] as { id: number; failing_since: Date }[];
    return new Map(rows.map((r) => [r.id, r.failing_since]));
  }

  /** An endpoint failing for the whole retry window: disabled, its pending deliveries FAILED, its owner told (event). */
  async disable(endpointId: number): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.webhookEndpoint.updateManyAndReturn({
        where: { id: endpointId, status: 'ACTIVE' },
        data: { status: 'DISABLED', disabledAt: new Date() },
        select: { id: true, appId: true, ownerId: true, url: true, failingSince: true },
      });
      const ep = rows[0];
      if (!ep) return false;
      await tx.webhookDelivery.updateMany({
        where: { endpointId, status: 'PENDING' },
        data: { status: 'FAILED', lastError: 'endpoint disabled after failing for the retry window', lockedUntil: null },
      });
      await writeOutbox(tx, WebhookEndpointDisabled, {
        webhookId: ep.id,
        appId: ep.appId,
        ownerId: ep.ownerId,
        url: ep.url,
        failingSince: (ep.failingSince ?? new Date()).toISOString(),
      });
      return true;
    });
  }

  /** Lease renewal of the deliveries in flight (the dispatcher's heartbeat). */
  async renew(ids: string[], leaseSeconds: number): Promise<void> {
    if (ids.length === 0) return;
    await this.prisma.$executeRaw`UPDATE webhook_deliveries SET locked_until = now() + make_interval(secs => ${leaseSeconds})
                                   WHERE id = ANY(${ids}::uuid[]) AND status = 'PENDING'`;
  }

  /** The log keeps `before`…now. */
  async purge(before: Date): Promise<number> {
    const { count } = await this.prisma.webhookDelivery.deleteMany({ where: { createdAt: { lt: before }, status: { not: 'PENDING' } } });
    return count;
  }

  /** Age in seconds of the oldest due delivery (the worker's lag gauge). */
  async lagSeconds(): Promise<number> {
    const [row] = await this.prisma.$queryRaw<{ lag: number | null }[]>`
      SELECT EXTRACT(EPOCH FROM now() - min(next_attempt_at))::float8 AS lag FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at <= now()`;
    return Math.max(0, row?.lag ?? 0);
  }
}
