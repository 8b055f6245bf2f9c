import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerFrom } from '@msp/http';

/** The one write the hook needs: the service's `admin_audit` table through its Prisma client. */
export interface AdminAuditStore {
  adminAudit: {
    create(args: {
      data: {
        adminId: number;
        adminName: string | null;
        action: string;
        targetType: string;
        targetId: string;
        reason: string | null;
        requestId: string;
        details: Record<string, string | number | boolean>;
      };
    }): Promise<unknown>;
  };
}

function operationId(request: FastifyRequest): string | null {
  const schema = request.routeOptions.schema as { operationId?: unknown } | undefined;
  return typeof schema?.operationId === 'string' ? schema.operationId : null;
}

/**
 * Records every successful admin action of a service (any non-GET `/api/admin/…` route that
 * answers 2xx) in `admin_audit` — who, what, when, why — and logs it with `audit: true`.
 *
 * Installed on the root instance before the route modules, so it covers routes it does not own
 * without touching them. It runs after the response (`onResponse`): an action whose audit insert
 * fails is still done, and the failure is logged at error level with the whole record.
 */
export function installAdminAudit(app: FastifyInstance, prisma: AdminAuditStore): void {
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 300) return;
    const url = request.routeOptions.url ?? '';
    if (!url.startsWith('/api/admin/')) return;
    const admin = callerFrom(request);
    if (!admin || admin.role !== 'ADMIN') return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const rawReason = query.reason ?? (typeof body === 'object' ? body.reason : undefined);
    const [targetKey, targetValue] = Object.entries(params)[0] ?? ['none', ''];
    const record = {
      adminId: admin.userId,
      adminName: admin.username,
      action: `${operationId(request) ?? ''} ${request.method} ${url}`.trim(),
      targetType: targetKey.replace(/Id$/, '').toUpperCase(),
      targetId: String(targetValue),
      reason: typeof rawReason === 'string' ? rawReason : null,
      requestId: String(request.id),
    };
    // What was set (e.g. isBanned, durationDays): the body's scalar fields, the reason aside.
    const input =
      typeof body === 'object' && body !== null
        ? Object.fromEntries(Object.entries(body).filter(([k, v]) => k !== 'reason' && ['string', 'number', 'boolean'].includes(typeof v)))
        : {};
    try {
      await prisma.adminAudit.create({ data: { ...record, details: { status: reply.statusCode, ...input } } });
      request.log.info({ audit: true, ...record }, 'admin action');
    } catch (err) {
      request.log.error({ audit: true, ...record, err }, 'admin action could not be recorded in admin_audit');
    }
  });
}
