import type { FastifyRequest } from 'fastify';
import { AppError } from '@msp/errors';

/** The caller as verified by the gateway and forwarded in X-User-* headers. */
export interface Caller {
  userId: number;
  role: 'LISTENER' | 'ARTIST' | 'ADMIN';
  tier: 'FREE' | 'PRO';
  sessionId: string | null;
  username: string | null;
}

export const IDENTITY_HEADERS = {
  userId: 'x-user-id',
  role: 'x-user-role',
  tier: 'x-user-tier',
  sessionId: 'x-session-id',
  username: 'x-username',
} as const;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function callerFrom(request: FastifyRequest): Caller | null {
  const id = Number(header(request, IDENTITY_HEADERS.userId));
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const role = header(request, IDENTITY_HEADERS.role);
  const tier = header(request, IDENTITY_HEADERS.tier);
  return {
    userId: id,
    role: role === 'ADMIN' || role === 'ARTIST' ? role : 'LISTENER',
    tier: tier === 'PRO' ? 'PRO' : 'FREE',
    sessionId: header(request, IDENTITY_HEADERS.sessionId) ?? null,
    username: header(request, IDENTITY_HEADERS.username) ?? null,
  };
}

export function requireCaller(request: FastifyRequest): Caller {
  const caller = callerFrom(request);
  if (!caller) throw new AppError('UNAUTHORIZED');
  return caller;
}

export function requireAdmin(request: FastifyRequest): Caller {
  const caller = requireCaller(request);
  if (caller.role !== 'ADMIN') throw new AppError('FORBIDDEN', 'Administrator role required.');
  return caller;
}
