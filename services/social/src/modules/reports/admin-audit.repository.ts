import { sql } from '@msp/db';
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '@msp/http';
import type { SqlExecutor } from '@msp/events';

/** One admin action: who (the admin), what (action and target), when (now), why (reason). */
export interface AdminAction {
  admin: Caller;
  action: string;
  targetType: string;
  targetId: string | number;
  reason?: string | null;
  details?: Record<string, unknown> | null;
  requestId?: string | null;
}

/**
 * Writes the action into `admin_audit` inside the caller's transaction (so an action and its
 * record commit together) and logs it at info level with `audit: true` for the log pipeline.
 */
export async function recordAdminAction(tx: SqlExecutor, logger: FastifyBaseLogger, a: AdminAction): Promise<void> {
  const details = a.details ? JSON.stringify(a.details) : null;
  await tx.$executeRaw(
    sql`INSERT INTO admin_audit (admin_id, admin_name, action, target_type, target_id, reason, details, request_id, created_at)
     VALUES (${a.admin.userId}, ${a.admin.username}, ${a.action}, ${a.targetType}, ${String(a.targetId)}, ${a.reason ?? null},
             ${details}::jsonb, ${a.requestId ?? null}, now())`,
  );
  logger.info(
    {
      audit: true,
      adminId: a.admin.userId,
      adminName: a.admin.username,
      action: a.action,
      targetType: a.targetType,
      targetId: String(a.targetId),
      reason: a.reason ?? null,
      details: a.details ?? null,
    },
    'admin action',
  );
}

/** recordAdminAction for services that take their collaborators by constructor. */
export class AdminAuditRepository {
  constructor(private readonly logger: FastifyBaseLogger) {}

  record(tx: SqlExecutor, action: AdminAction): Promise<void> {
    return recordAdminAction(tx, this.logger, action);
  }
}

/** What the admin operations need of the audit log (unit tests give a fake). */
export type AdminAudit = Pick<AdminAuditRepository, 'record'>;
