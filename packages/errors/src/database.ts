/**
 * The one reading of database errors for the whole fleet: Prisma's known request errors by their
 * P-code, PostgreSQL errors (through the pg driver or Prisma's driver adapter) by SQLSTATE.
 * Repositories use the predicates to turn an expected conflict into a domain answer; the error
 * handler (`databaseError` in handler.ts) renders whatever escapes, so none of these is ever a 500.
 */

export type DatabaseErrorKind = 'not-found' | 'unique' | 'foreign-key' | 'invalid-input' | 'too-complex';

export interface DatabaseErrorInfo {
  kind: DatabaseErrorKind;
  /** Prisma P-code, when Prisma raised it. */
  prismaCode?: string;
  /** PostgreSQL SQLSTATE, when the database raised it. */
  sqlState?: string;
}

const NOT_FOUND = new Set(['P2025', 'P2001', 'P2015', 'P2018']);
const INVALID_INPUT = new Set(['P2000', 'P2005', 'P2006', 'P2007', 'P2019', 'P2020', 'P2023', 'P2033']);

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
