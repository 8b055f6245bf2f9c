import type { Redis } from 'ioredis';
import { REVOCATION_KEYS } from '@msp/contracts';

/** Why a session may not (or may no longer) be open; rendered as `message: <code>: <text>`. */
export interface Refusal {
  code:
    | 'UNAUTHORIZED'
    | 'ACCOUNT_BANNED'
    | 'ACCOUNT_SUSPENDED'
    | 'ACCOUNT_PENDING_DELETION'
    | 'FORBIDDEN'
    | 'SERVICE_UNAVAILABLE'
    | 'VALIDATION_FAILED'
    | 'PAYLOAD_TOO_LARGE';
  message: string;
}

/** Reads identity's account lock value (`banned` or `suspended:<ISO until>`), as the gateway does. */
export function lockRefusal(status: string | null, now = Date.now()): Refusal | null {
  if (!status) return null;
  if (status === 'banned') return { code: 'ACCOUNT_BANNED', message: 'This account is banned.' };
  if (status === 'deleted') return { code: 'ACCOUNT_PENDING_DELETION', message: 'This account is being deleted.' };
  if (status.startsWith('suspended:')) {
    const until = Date.parse(status.slice('suspended:'.length));
    // An unreadable date is a running suspension: the writer meant to lock the account.
    if (Number.isNaN(until)) return { code: 'ACCOUNT_SUSPENDED', message: 'This account is suspended.' };
    if (until > now) return { code: 'ACCOUNT_SUSPENDED', message: `This account is suspended until ${new Date(until).toISOString()}.` };
  }
  return null;
}

/** The part of Redis the standing check reads through (unit tests give a fake pipeline). */
export type RevocationReader = Pick<Redis, 'pipeline'>;

export interface StandingQuery {
  userId: number;
  sessionId: string;
  /** An app's token (docs/developer-platform.md): its client id, whose suspension key is read too. */
  clientId?: string;
}

/**
 * Checks the revocation keys identity writes (revoked session, banned/suspended user) for many
 * sessions in one round trip. Throws when Redis cannot answer: callers fail closed.
 */
export async function checkStanding(redis: RevocationReader, sessions: readonly StandingQuery[]): Promise<Array<Refusal | null>> {
  if (sessions.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const s of sessions) {
    if (s.clientId === undefined) pipeline.mget(REVOCATION_KEYS.revokedSession(s.sessionId), REVOCATION_KEYS.userStatus(s.userId));
    else pipeline.mget(REVOCATION_KEYS.revokedSession(s.sessionId), REVOCATION_KEYS.userStatus(s.userId), REVOCATION_KEYS.appStatus(s.clientId));
  }
  const results = await pipeline.exec();
  if (!results) throw new Error('revocation lookup aborted');
  const now = Date.now();
  return results.map(([err, value]) => {
    if (err || !Array.isArray(value)) throw err ?? new Error('revocation lookup failed');
    const [revoked, status, appStatus] = value as [string | null, string | null, (string | null)?];
    if (revoked !== null) return { code: 'UNAUTHORIZED', message: 'The session has been revoked.' };
    // As at the gateway (gate.ts admitCaller): a suspended app's tokens stop at once.
    if (appStatus !== undefined && appStatus !== null) return { code: 'UNAUTHORIZED', message: 'The app has been suspended.' };
    return lockRefusal(status, now);
  });
}
