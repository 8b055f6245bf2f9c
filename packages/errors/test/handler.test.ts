import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_STATUS, errorHandler, notFoundHandler } from '../src/index.js';

async function app(thrower: () => unknown) {
  const a = Fastify({ logger: false });
  a.setErrorHandler(errorHandler);
  a.setNotFoundHandler(notFoundHandler);
  a.post('/api/x', async () => thrower());
  return a;
}

describe('ErrorResponse rendering', () => {
  it('renders an AppError with its status and every field of the record', async () => {
    const a = await app(() => {
      throw new AppError('TRACK_NOT_FOUND', 'Track not found.');
    });
    const res = await a.inject({ method: 'POST', url: '/api/x?y=1', headers: { 'x-request-id': 'abc' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      status: 404,
      error: 'Not Found',
      code: 'TRACK_NOT_FOUND',
      message: 'Track not found.',
      path: '/api/x',
      requestId: expect.any(String),
    });
  });

  it('hides the text of unexpected errors behind a generic 500', async () => {
    const a = await app(() => {
      throw new Error('password=hunter2 in connection string');
    });
    const res = await a.inject({ method: 'POST', url: '/api/x' });
    expect(res.statusCode).toBe(500);
    expect(res.json().code).toBe('INTERNAL_ERROR');
    expect(res.body).not.toContain('hunter2');
  });

  it('maps malformed JSON to 400 MALFORMED_REQUEST and unknown routes to 404 ROUTE_NOT_FOUND', async () => {
    const a = await app(() => ({}));
    const bad = await a.inject({ method: 'POST', url: '/api/x', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(bad.json()).toMatchObject({ status: 400, code: 'MALFORMED_REQUEST' });
    const missing = await a.inject({ method: 'GET', url: '/api/nothing' });
    expect(missing.json()).toMatchObject({ status: 404, code: 'ROUTE_NOT_FOUND', path: '/api/nothing' });
  });

  it('keeps every code of the contract mapped to a 4xx/5xx status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
    // The contract's 61 original codes plus RANGE_NOT_SATISFIABLE (416, see codes.ts), INSUFFICIENT_SCOPE (403, app tokens)
    // the 8 of two-factor sign-in and passkeys (docs/account-security.md), and account control's
    // EXPORT_IN_PROGRESS and ACCOUNT_PENDING_DELETION (docs/account-control.md).
    expect(Object.keys(ERROR_STATUS)).toHaveLength(73);
  });
});
