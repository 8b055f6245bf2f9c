import { sql } from '@msp/db';
import { UserExportClosed, UserExportReady, UserExportRequested, writeOutbox, type ExportPartReady, type SqlExecutor } from '@msp/events';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { enqueueMail } from '../mail/mail-outbox.repository.js';
import type { MailContent } from '../mail/mail.templates.js';

export type ExportStatus = 'PENDING' | 'RUNNING' | 'READY' | 'FAILED' | 'CANCELLED' | 'EXPIRED';

/** One service's part as identity keeps it (the part-ready event's data without the export id). */
export type StoredPart = Omit<ExportPartReady, 'exportId'>;

export interface StoredExport {
  id: string;
  userId: number;
  status: ExportStatus;
  expectedParts: string[];
  parts: Record<string, StoredPart>;
  objectKey: string | null;
  attempts: number;
  createdAt: Date;
  readyAt: Date | null;
  expiresAt: Date | null;
}

interface ExportRow {
  id: string;
  user_id: number;
  status: ExportStatus;
  expected_parts: string[];
  parts: Record<string, StoredPart>;
  object_key: string | null;
  attempts: number;
  created_at: Date;
  ready_at: Date | null;
  expires_at: Date | null;
}

const COLUMNS = sql`id::text AS id, user_id, status, expected_parts, parts, object_key, attempts, created_at, ready_at, expires_at`;

function toExport(row: ExportRow): StoredExport {
  return {
    id: row.id,
    userId: row.user_id,
    status: row.status,
    expectedParts: row.expected_parts,
    parts: row.parts,
    objectKey: row.object_key,
    attempts: row.attempts,
    createdAt: row.created_at,
    readyAt: row.ready_at,
    expiresAt: row.expires_at,
  };
}

/** Statuses of an export still being built (one per user: the partial unique index of the migration). */
const RUNNING = sql`('PENDING', 'RUNNING')`;

/**
 * Cancels the user's exports still being built (account deletion, ACC-3/ACC-5: a deleted account
 * gets no export). Call it inside the deletion's transaction (it publishes identity.user.export-closed.v1,
 * so every service removes its part); the assembler drops a ZIP it finishes
 * for a cancelled export, and READY exports of the user are expired (their ZIP removed) too.
 * Returns how many exports it cancelled or expired.
 */
export async function cancelRunningExports(db: SqlExecutor, userId: number): Promise<number> {
  const cancelled = await db.$queryRaw<Array<{ id: string }>>(
    sql`UPDATE account_exports SET status = 'CANCELLED', lease_until = NULL WHERE user_id = ${userId} AND status IN ${RUNNING} RETURNING id::text AS id`,
  );
  for (const { id } of cancelled) await writeOutbox(db, UserExportClosed, { exportId: id, userId, status: 'CANCELLED' });
  // A READY export's ZIP is removed by the assembler's expiry pass (expires_at in the past).
  const expired = await db.$executeRaw(
    sql`UPDATE account_exports SET expires_at = now() WHERE user_id = ${userId} AND status = 'READY' AND expires_at > now()`,
  );
  return cancelled.length + expired;
}

export interface ClaimedExport extends StoredExport {
  email: string;
  displayName: string;
}

/** Exports of ACC-1/ACC-2 and the assembler's claims (docs/account-control.md "Export"). */
export class ExportsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * ACC-1 in one transaction: locks the user's row (two requests of one user queue), refuses while
   * one runs or within `cooldownSeconds` of the last one, stores the export and publishes
   * identity.user.export-requested.v1.
   */
  async request(
    userId: number,
    exportId: string,
    expectedParts: readonly string[],
    cooldownSeconds: number,
  ): Promise<{ created: StoredExport } | { running: StoredExport } | { retryAfterSeconds: number }> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw(sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`);
      const [last] = await tx.$queryRaw<ExportRow[]>(
        sql`SELECT ${COLUMNS} FROM account_exports WHERE user_id = ${userId} AND status NOT IN ('FAILED', 'CANCELLED') ORDER BY created_at DESC LIMIT 1`,
      );
      if (last && (last.status === 'PENDING' || last.status === 'RUNNING')) return { running: toExport(last) };
      if (last) {
        const wait = Math.ceil((last.created_at.getTime() + cooldownSeconds * 1000 - Date.now()) / 1000);
        if (wait > 0) return { retryAfterSeconds: wait };
      }
      const [row] = await tx.$queryRaw<ExportRow[]>(
        sql`INSERT INTO account_exports (id, user_id, status, expected_parts) VALUES (${exportId}::uuid, ${userId}, 'PENDING', ${[...expectedParts]}::text[]) RETURNING ${COLUMNS}`,
      );
      const created = toExport(row!);
      await writeOutbox(tx, UserExportRequested, { exportId, userId, requestedAt: created.createdAt.toISOString() });
      return { created };
    });
  }

  async find(userId: number, exportId: string): Promise<StoredExport | null> {
    const [row] = await this.prisma.$queryRaw<ExportRow[]>(sql`SELECT ${COLUMNS} FROM account_exports WHERE id = ${exportId}::uuid AND user_id = ${userId}`);
    return row ? toExport(row) : null;
  }

  /**
   * Records one service's part (a redelivered or repeated part overwrites itself) and moves a
   * PENDING export to RUNNING. True when the export is still being built.
   */
  async recordPart(db: SqlExecutor, exportId: string, service: string, part: StoredPart): Promise<boolean> {
    const changed = await db.$executeRaw(
      sql`UPDATE account_exports SET parts = parts || jsonb_build_object(${service}::text, ${JSON.stringify(part)}::jsonb), status = 'RUNNING'
        WHERE id = ${exportId}::uuid AND status IN ${RUNNING}`,
    );
    return changed > 0;
  }

  /** The export, if still being built (the identity part's producer reads it). */
  async findRunning(db: SqlExecutor, exportId: string): Promise<StoredExport | null> {
    const [row] = await db.$queryRaw<ExportRow[]>(sql`SELECT ${COLUMNS} FROM account_exports WHERE id = ${exportId}::uuid AND status IN ${RUNNING}`);
    return row ? toExport(row) : null;
  }

  /**
   * Claims the oldest export whose every expected part is in and that no live assembler holds:
   * takes a lease (renewed by `renewLeases`) so a crashed assembler's export is claimed again.
   */
  async claimComplete(leaseSeconds: number): Promise<ClaimedExport | null> {
    const [row] = await this.prisma.$queryRaw<Array<ExportRow & { email: string; display_name: string }>>(
      sql`WITH claimed AS (
         UPDATE account_exports SET lease_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1
          WHERE id = (SELECT id FROM account_exports
                       WHERE status = 'RUNNING' AND jsonb_exists_all(parts, expected_parts) AND (lease_until IS NULL OR lease_until < now())
                       ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING *)
       SELECT c.id::text AS id, c.user_id, c.status, c.expected_parts, c.parts, c.object_key, c.attempts, c.created_at, c.ready_at, c.expires_at,
              u.email, u.display_name
         FROM claimed c JOIN users u ON u.id = c.user_id`,
    );
    return row ? { ...toExport(row), email: row.email, displayName: row.display_name } : null;
  }

  /** Renews the leases of the exports in hand; answers those still RUNNING (not cancelled meanwhile). */
  async renewLeases(ids: string[], leaseSeconds: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.prisma.$queryRaw<Array<{ id: string }>>(
      sql`UPDATE account_exports SET lease_until = now() + make_interval(secs => ${leaseSeconds}) WHERE id = ANY(${ids}::uuid[]) AND status = 'RUNNING' RETURNING id::text AS id`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * The ZIP is stored: READY, valid `ttlSeconds`, identity.user.export-ready.v1 and the mail in one
   * transaction. False when the export was cancelled meanwhile (the caller removes the ZIP).
   */
  async markReady(exportId: string, objectKey: string, ttlSeconds: number, mail: (expiresAt: Date) => { to: string; content: MailContent }): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<ExportRow[]>(
        sql`UPDATE account_exports SET status = 'READY', object_key = ${objectKey}, ready_at = now(), expires_at = now() + make_interval(secs => ${ttlSeconds}), lease_until = NULL
          WHERE id = ${exportId}::uuid AND status = 'RUNNING' RETURNING ${COLUMNS}`,
      );
      if (!row) return false;
      await writeOutbox(tx, UserExportReady, { exportId, userId: row.user_id, expiresAt: row.expires_at!.toISOString() });
      await writeOutbox(tx, UserExportClosed, { exportId, userId: row.user_id, status: 'READY' });
      const { to, content } = mail(row.expires_at!);
      await enqueueMail(tx, to, content);
      return true;
    });
  }

  async markFailed(exportId: string, error: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Array<{ user_id: number }>>(
        sql`UPDATE account_exports SET status = 'FAILED', error = ${error.slice(0, 500)}, lease_until = NULL WHERE id = ${exportId}::uuid AND status IN ${RUNNING} RETURNING user_id`,
      );
      for (const row of rows) await writeOutbox(tx, UserExportClosed, { exportId, userId: row.user_id, status: 'FAILED' });
    });
  }

  /** Exports still being built after `maxAgeSeconds` (a part never came): FAILED. */
  async failStale(maxAgeSeconds: number): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Array<{ id: string; user_id: number }>>(
        sql`UPDATE account_exports SET status = 'FAILED', error = 'timed out waiting for parts', lease_until = NULL
          WHERE status IN ${RUNNING} AND created_at < now() - make_interval(secs => ${maxAgeSeconds}) AND (lease_until IS NULL OR lease_until < now())
          RETURNING id::text AS id, user_id`,
      );
      for (const row of rows) await writeOutbox(tx, UserExportClosed, { exportId: row.id, userId: row.user_id, status: 'FAILED' });
      return rows.length;
    });
  }

  /** READY exports past their expiry become EXPIRED (their objects are removed by the sweep). */
  async expireDue(): Promise<number> {
    return this.prisma.$executeRaw(sql`UPDATE account_exports SET status = 'EXPIRED' WHERE status = 'READY' AND expires_at <= now()`);
  }

  /** Ended exports whose objects (identity's part, the ZIP) are not removed yet. */
  async toSweep(limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ id: string }>>(
      sql`SELECT id::text AS id FROM account_exports WHERE status IN ('FAILED', 'CANCELLED', 'EXPIRED') AND swept_at IS NULL ORDER BY created_at LIMIT ${limit}`,
    );
    return rows.map((r) => r.id);
  }

  async markSwept(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.prisma.$executeRaw(sql`UPDATE account_exports SET swept_at = now() WHERE id = ANY(${ids}::uuid[])`);
  }

  /** What the identity part holds (docs/account-control.md "Export"): no secret, no hash. */
  async identityData(db: SqlExecutor, userId: number) {
    const [profile] = await db.$queryRaw<Array<Record<string, unknown>>>(
      sql`SELECT id, email, username, display_name AS "displayName", date_of_birth AS "dateOfBirth", gender, city, country, bio,
              favorite_genres AS "favoriteGenres", instagram, twitter, website, support_link AS "supportLink", role, tier,
              email_verified AS "emailVerified", google_sub IS NOT NULL AS "googleLinked", avatar_key AS "avatarKey", cover_key AS "coverKey",
              created_at AS "createdAt", updated_at AS "updatedAt"
         FROM users WHERE id = ${userId}`,
    );
    if (!profile) return null;
    const [settings] = await db.$queryRaw<Array<Record<string, unknown>>>(
      sql`SELECT is_private AS "isPrivate", show_history AS "showHistory",
              EXISTS (SELECT 1 FROM totp_factors t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL) AS "totpEnabled"
         FROM users u WHERE id = ${userId}`,
    );
    const emails = await db.$queryRaw<unknown[]>(
      sql`SELECT email, is_verified AS "isVerified", verified_at AS "verifiedAt", created_at AS "createdAt" FROM user_emails WHERE user_id = ${userId} ORDER BY id`,
    );
    const sessions = await db.$queryRaw<unknown[]>(
      sql`SELECT id, device_type AS "deviceType", device_name AS "deviceName", ip_address AS "ipAddress", created_at AS "createdAt",
              last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"
         FROM sessions WHERE user_id = ${userId} ORDER BY created_at`,
    );
    const passkeys = await db.$queryRaw<unknown[]>(
      sql`SELECT name, created_at AS "createdAt", last_used_at AS "lastUsedAt" FROM passkeys WHERE user_id = ${userId} ORDER BY created_at`,
    );
    const apps = await db.$queryRaw<unknown[]>(
      sql`SELECT client_id AS "clientId", name, redirect_uris AS "redirectUris", homepage_url AS "homepageUrl", confidential,
              suspended_at AS "suspendedAt", created_at AS "createdAt"
         FROM oauth_apps WHERE owner_id = ${userId} ORDER BY created_at`,
    );
    const authorizedApps = await db.$queryRaw<unknown[]>(
      sql`SELECT a.name, a.client_id AS "clientId", g.scope, g.created_at AS "authorizedAt", g.revoked_at AS "revokedAt"
         FROM oauth_grants g JOIN oauth_apps a ON a.id = g.app_id WHERE g.user_id = ${userId} ORDER BY g.created_at`,
    );
    return { profile, settings: settings ?? {}, emails, sessions, passkeys, apps, authorizedApps };
  }
}
