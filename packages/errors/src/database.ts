/**
 * The one reading of database errors for the whole fleet: Prisma's known request errors by their
 * P-code, PostgreSQL errors (through the pg driver or Prisma's driver adapter) by SQLSTATE.
 * Repositories use the predicates to turn an expected conflict into a domain answer; the error
 * handler (`databaseError` in handler.ts) renders whatever escapes, so none of these is ever a 500:
 * the client's faults as 4xx, an overloaded database (no connection in time, a statement over its
 * timeout) as 503 with Retry-After.
 */

export type DatabaseErrorKind = 'not-found' | 'unique' | 'foreign-key' | 'invalid-input' | 'too-complex' | 'overloaded';

export interface DatabaseErrorInfo {
  kind: DatabaseErrorKind;
  /** Prisma P-code, when Prisma raised it. */
  prismaCode?: string;
  /** PostgreSQL SQLSTATE, when the database raised it. */
  sqlState?: string;
}

const NOT_FOUND = new Set(['P2025', 'P2001', 'P2015', 'P2018']);
const INVALID_INPUT = new Set(['P2000', 'P2005', 'P2006', 'P2007', 'P2019', 'P2020', 'P2023', 'P2033']);
/** Prisma: no pool connection in time (P2024), a transaction that could not start or ran out of time (P2028). */
const OVERLOADED_PRISMA = new Set(['P2024', 'P2028']);
/**
 * PostgreSQL: a statement over its statement_timeout (57014), too many connections (53300), the
 * server shutting down or starting (57P01, 57P02, 57P03), a lost connection (08xxx).
 */
const OVERLOADED_SQLSTATE = /^(57014|53300|57P0[123]|08...)$/;
/** The pg pool's own words when no connection came in time or one was cut (no SQLSTATE). */
const OVERLOADED_MESSAGE = /timeout exceeded when trying to connect|Connection terminated (due to connection timeout|unexpectedly)/i;

/** Whether a pool timeout or a lost connection is anywhere in the chain of causes (the driver adapter wraps them). */
function overloadedMessage(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let i = 0; i < 6 && current && typeof current === 'object' && !seen.has(current); i++) {
    seen.add(current);
    const c = current as { message?: unknown; meta?: { driverAdapterError?: unknown }; cause?: unknown };
    if (typeof c.message === 'string' && OVERLOADED_MESSAGE.test(c.message)) return true;
    current = c.meta?.driverAdapterError ?? c.cause;
  }
  return false;
}

/** SQLSTATE of a PostgreSQL error, however deeply Prisma's driver adapter wrapped it. */
export function sqlStateOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let i = 0; i < 6 && current && typeof current === 'object' && !seen.has(current); i++) {
    seen.add(current);
    const c = current as { code?: unknown; originalCode?: unknown; meta?: { code?: unknown; driverAdapterError?: unknown }; cause?: unknown };
    if (typeof c.originalCode === 'string' && /^[0-9A-Z]{5}$/.test(c.originalCode)) return c.originalCode;
    if (typeof c.code === 'string' && /^[0-9A-Z]{5}$/.test(c.code) && !c.code.startsWith('P')) return c.code;
    if (typeof c.meta?.code === 'string' && /^[0-9A-Z]{5}$/.test(c.meta.code)) return c.meta.code;
    current = c.meta?.driverAdapterError ?? c.cause;
  }
  return undefined;
}

function prismaCodeOf(error: unknown): string | undefined {
  const e = error as { name?: unknown; code?: unknown } | null;
  return e?.name === 'PrismaClientKnownRequestError' && typeof e.code === 'string' ? e.code : undefined;
}

/** What kind of database error this is, or null when it is not one the client caused. */
export function classifyDatabaseError(error: unknown): DatabaseErrorInfo | null {
  const prismaCode = prismaCodeOf(error);
  const sqlState = sqlStateOf(error);
  const info = (kind: DatabaseErrorKind): DatabaseErrorInfo => ({ kind, prismaCode, sqlState });
  if (prismaCode && NOT_FOUND.has(prismaCode)) return info('not-found');
  if (prismaCode === 'P2002' || sqlState === '23505') return info('unique');
  if (prismaCode === 'P2003' || sqlState === '23503') return info('foreign-key');
  if ((prismaCode && INVALID_INPUT.has(prismaCode)) || sqlState?.startsWith('22')) return info('invalid-input');
  if (sqlState === '54001' || sqlState === '54000') return info('too-complex');
  if ((prismaCode && OVERLOADED_PRISMA.has(prismaCode)) || (sqlState && OVERLOADED_SQLSTATE.test(sqlState)) || overloadedMessage(error)) {
    return info('overloaded');
  }
  return null;
}

/**
 * A unique index refused the write; with `target`, only when the index covers that column or
 * constraint (Prisma lists it in `meta.target`, the driver adapter in the constraint name).
 */
export function isUniqueViolation(error: unknown, target?: string): boolean {
  if (classifyDatabaseError(error)?.kind !== 'unique') return false;
  if (target === undefined) return true;
  const e = error as { meta?: unknown; message?: unknown; cause?: unknown };
  return JSON.stringify(e.meta ?? {}).includes(target) || (typeof e.message === 'string' && e.message.includes(target));
}

/** The row an update or delete addressed (by id and condition) does not exist (Prisma P2025). */
export function isRecordNotFound(error: unknown): boolean {
  return classifyDatabaseError(error)?.kind === 'not-found';
}
