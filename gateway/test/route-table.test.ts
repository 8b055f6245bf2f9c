import { describe, expect, it } from 'vitest';
import { ROUTES } from '@msp/contracts';
import { buildRouteTable, normalisePath } from '../src/route-table.js';

const table = buildRouteTable();

/** A concrete URL for a contract path: ids for *Id params, words for the others. */
function sample(path: string): string {
  return `/api${path.replace(/\{([^}]+)\}/g, (_, name: string) => (name.endsWith('Id') ? '12345' : 'some-name'))}`;
}

describe('route table: every API.md operation resolves to itself', () => {
  const httpRoutes = ROUTES.filter((route) => !route.path.startsWith('/ws'));

  it.each(httpRoutes.map((route) => [route.id, route.method, route.path] as const))('%s %s %s', (id, method, path) => {
    const match = table.match(method, sample(path));
    expect(match.kind).toBe('route');
    if (match.kind === 'route') expect(match.route.id).toBe(id);
  });

  it('renames parameters by position so both spellings of /users/{x}/… share one node', () => {
    expect(normalisePath('/users/{userId}/tracks')).toBe('/users/:s2/tracks');
    expect(normalisePath('/users/{username}/playlists/{playlistId}')).toBe('/users/:s2/playlists/:s4');
  });

  it('answers HEAD as GET, and 405 lists the methods of the path', () => {
    expect(table.match('HEAD', '/api/genres')).toMatchObject({ kind: 'route', route: { id: 'TRK-20' } });
    expect(table.match('POST', '/api/genres')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
    expect(table.match('GET', '/api/users/me/device-tokens')).toEqual({ kind: 'method-not-allowed', allow: ['POST', 'DELETE'] });
  });

  it('does not match trailing slashes, unknown prefixes or non-canonical paths', () => {
    expect(table.match('GET', '/api/genres/').kind).toBe('not-found');
    expect(table.match('GET', '/genres').kind).toBe('not-found');
    expect(table.match('GET', '/api/tracks/1/../2').kind).toBe('not-found');
    expect(table.match('GET', '/api/tracks/1\\..\\2').kind).toBe('not-found');
  });
});
