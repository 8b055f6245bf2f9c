import { describe, expect, it } from 'vitest';
import { ROUTES } from '@msp/contracts';
import { buildRouteTable, isCanonical, normalisePath } from '../src/route-table.js';

const table = buildRouteTable();

/** A concrete URL for a contract path: ids for *Id params, words for the others. */
function sample(path: string): string {
  return `/api${path.replace(/\{([^}]+)\}/g, (_, name: string) => (name.endsWith('Id') ? '12345' : 'some-name'))}`;
}

describe('route table: every contract operation resolves to itself', () => {
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

  it('routes /apps/{id}/webhooks… to notification while /apps/{id} stays identity (APP-18…22)', () => {
    expect(table.match('GET', '/api/apps/5')).toMatchObject({ kind: 'route', route: { id: 'APP-3', owner: 'identity' } });
    expect(table.match('POST', '/api/apps/5/webhooks')).toMatchObject({ kind: 'route', route: { id: 'APP-18', owner: 'notification' } });
    expect(table.match('DELETE', '/api/apps/5/webhooks/7')).toMatchObject({ kind: 'route', route: { id: 'APP-20', owner: 'notification' } });
    expect(table.match('POST', '/api/apps/5/webhooks/7/deliveries/0b6c7e0e-1d7a-4c4c-9a49-1f7c2b7e0d11/redeliver')).toMatchObject({
      kind: 'route',
      route: { id: 'APP-22', owner: 'notification' },
    });
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

  it('tells canonical paths as WHATWG URL does, with or without parsing them', () => {
    const reference = (path: string) => {
      if (!path.startsWith('/') || path.startsWith('//')) return false;
      try {
        return new URL(path, 'http://gateway.invalid').pathname === path;
      } catch {
        return false;
      }
    };
    // Single characters (unreserved, sub-delims, what WHATWG encodes, rewrites or drops) and pieces.
    const pieces = [...'aZ9-_~./%\\\t\n "<>`{}^|[]\'@:;=+,!$&*()é\u0000', '..', '//', '%2e', '%2F'];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    const paths = ['/', '/api/tracks/1', '/api/./x', '/api/x/.', '/api/x/..', '/api/.x', '/api/x..', '/api/...', '//api', 'api'];
    for (let i = 0; i < 20_000; i++) {
      let path = next() % 10 === 0 ? '' : '/';
      const length = next() % 8;
      for (let j = 0; j < length; j++) path += pieces[next() % pieces.length];
      paths.push(path);
    }
    for (const path of paths) expect(isCanonical(path), JSON.stringify(path)).toBe(reference(path));
  });
});
