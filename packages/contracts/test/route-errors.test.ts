import { ERROR_CODES } from '@msp/errors';
import { describe, expect, it } from 'vitest';

import { COMMON_ERROR_CODES, ROUTE_ERRORS, ROUTES, routeErrors } from '../src/index.js';

describe('per-operation error codes', () => {
  it('name only operations of ROUTES', () => {
    const ids = new Set(ROUTES.map((route) => route.id));
    expect(Object.keys(ROUTE_ERRORS).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('name only codes of @msp/errors, each once per operation', () => {
    const known = new Set<string>(ERROR_CODES);
    const problems: string[] = [];
    for (const [id, codes] of Object.entries(ROUTE_ERRORS)) {
      for (const code of codes) if (!known.has(code)) problems.push(`${id}: unknown ${code}`);
      if (new Set(codes).size !== codes.length) problems.push(`${id}: a code is listed twice`);
    }
    for (const code of COMMON_ERROR_CODES) if (!known.has(code)) problems.push(`common: unknown ${code}`);
    expect(problems).toEqual([]);
  });

  it('answers undefined for an operation without a list, never a prototype member', () => {
    expect(routeErrors('AUTH-1')).toContain('INVALID_CREDENTIALS');
    expect(routeErrors('TRK-20')).toEqual([]);
    expect(routeErrors('NOPE-1')).toBeUndefined();
    expect(routeErrors('constructor')).toBeUndefined();
  });
});
