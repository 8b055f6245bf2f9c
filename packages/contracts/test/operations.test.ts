import { describe, expect, it } from 'vitest';

import { OPERATION_GROUPS, OPERATION_SCHEMA_PARTS, OPERATIONS, operationSchema, ROUTES, WEBSOCKET_ROUTES } from '../src/index.js';

describe('operations, each declared once (packages/contracts/src/operations)', () => {
  it('ROUTES holds every declared operation once, in the contract order, then the websocket', () => {
    const ids = ROUTES.map((route) => route.id);
    expect(ids.slice(0, -WEBSOCKET_ROUTES.length)).toEqual(Object.keys(OPERATIONS).sort((a, b) => ids.indexOf(a) - ids.indexOf(b)));
    expect(new Set(ids.slice(0, -WEBSOCKET_ROUTES.length)).size).toBe(Object.keys(OPERATIONS).length);
    expect(ids.slice(-WEBSOCKET_ROUTES.length)).toEqual(['WS-1', 'WS-1']);
    // The contract's order: groups as docs/api.md lists them, numbers ascending inside a group.
    expect(ids.slice(0, 3)).toEqual(['AUTH-1', 'AUTH-2', 'AUTH-3']);
    const inGroup = (group: string) => ids.filter((id) => id.startsWith(`${group}-`)).map((id) => Number(id.split('-')[1]));
    for (const group of ['AUTH', 'USR', 'TRK', 'PLS', 'ENG', 'APP']) expect(inGroup(group)).toEqual([...inGroup(group)].sort((a, b) => a - b));
  });

  it('declares each operation in one module only', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [group, operations] of Object.entries(OPERATION_GROUPS)) {
      for (const id of Object.keys(operations)) {
        if (seen.has(id)) twice.push(`${id}: ${seen.get(id)} and ${group}`);
        seen.set(id, group);
      }
    }
    expect(twice).toEqual([]);
  });

  it('keeps rows and schemas apart: a ROUTES row carries no schema, operationSchema no row', () => {
    for (const route of ROUTES) {
      for (const part of OPERATION_SCHEMA_PARTS) expect(route, route.id).not.toHaveProperty(part);
      const schema = operationSchema(route.id);
      expect(
        Object.keys(schema).every((key) => (OPERATION_SCHEMA_PARTS as readonly string[]).includes(key)),
        route.id,
      ).toBe(true);
      // The same object each time: routes compare schema parts by identity.
      expect(operationSchema(route.id)).toBe(schema);
    }
    expect(operationSchema('FOL-3').params).toBe(OPERATIONS['FOL-3'].params);
  });
});
