import { describe, expect, it } from 'vitest';
import { classifyDatabaseError, isRecordNotFound, isUniqueViolation, renderError } from '../src/index.js';

/** The shapes Prisma 6 (driver adapter) and pg throw, reduced to the fields that are read. */
const prismaError = (code: string, meta: Record<string, unknown> = {}) =>
  Object.assign(new Error(`Prisma ${code}`), { name: 'PrismaClientKnownRequestError', code, meta });
const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('one mapping of database errors (packages/errors database.ts)', () => {
  it('P2025 from a conditional update that matched nothing → 404 RESOURCE_NOT_FOUND, not 500', () => {
    const err = prismaError('P2025', { cause: 'Record to update not found.' });
    expect(isRecordNotFound(err)).toBe(true);
    expect(renderError(err)).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
  });

  it('a unique violation from Prisma or from PostgreSQL through the driver adapter → 400, with its target', () => {
    const prisma = prismaError('P2002', { target: ['username'] });
    const wrapped = Object.assign(new Error('adapter'), {
      name: 'PrismaClientKnownRequestError',
      code: 'P2002',
      meta: { driverAdapterError: { cause: { originalCode: '23505', constraint: 'users_email_key' } } },
    });
    expect(isUniqueViolation(prisma, 'username')).toBe(true);
    expect(isUniqueViolation(prisma, 'email')).toBe(false);
    expect(isUniqueViolation(pgError('23505'))).toBe(true);
    expect(classifyDatabaseError(wrapped)).toMatchObject({ kind: 'unique', sqlState: '23505' });
    expect(renderError(prisma)).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('invalid input (22xxx, P2000/P2023) → 400; a missing referenced row (23503) → 404; anything else stays unknown', () => {
    expect(renderError(pgError('22P02'))).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(renderError(prismaError('P2023'))).toMatchObject({ status: 400 });
    expect(renderError(pgError('23503'))).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
    expect(classifyDatabaseError(pgError('40001'))).toBeNull();
    expect(classifyDatabaseError(new Error('boom'))).toBeNull();
  });

  it('a 416 has its own code, so the table maps every status the fleet answers', () => {
    expect(renderError(Object.assign(new Error('range'), { statusCode: 416 }))).toMatchObject({ status: 416, code: 'RANGE_NOT_SATISFIABLE' });
  });

  it('an overloaded database → 503 SERVICE_UNAVAILABLE with Retry-After: no pool connection in time, statement timeout, lost connection, P2024/P2028', () => {
    const poolTimeout = new Error('timeout exceeded when trying to connect');
    const viaAdapter = Object.assign(new Error('adapter'), { name: 'DriverAdapterError', cause: poolTimeout });
    for (const err of [
      pgError('57014'),
      pgError('53300'),
      pgError('57P01'),
      pgError('08006'),
      prismaError('P2024'),
      prismaError('P2028', { error: 'Unable to start a transaction in the given time.' }),
      poolTimeout,
      viaAdapter,
      new Error('Connection terminated unexpectedly'),
    ]) {
      expect(classifyDatabaseError(err)).toMatchObject({ kind: 'overloaded' });
      expect(renderError(err)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '1' } });
    }
  });
});
